# source: https://github.com/jeffminlin/vmcnet/pull/18
# expect: JAX805
# line: 42
# observed: jax 0.10.2 CPU (one device): the first epoch raises RuntimeError: Array has been deleted with shape=float32[1,16] at line 42: the pmapped update donates its params argument (donate_argnums=(0,)), and the loop keeps the pre-update params as old_params and reads them after the call
# batch: 10
import jax
import jax.numpy as jnp


def log_psi(params, x):
    h = jnp.tanh(x @ params["w1"] + params["b1"])
    return jnp.sum(h @ params["w2"], axis=-1)


def local_energy(params, x):
    # a toy harmonic-oscillator energy estimator: potential + a smooth penalty on log psi
    return 0.5 * jnp.sum(x**2, axis=-1) + 0.1 * log_psi(params, x) ** 2


def make_update_fn(learning_rate=1e-2):
    def update(params, data):
        def loss(p):
            return jnp.mean(local_energy(p, data))

        energy, grads = jax.value_and_grad(loss)(params)
        grads = jax.lax.pmean(grads, "devices")
        params = jax.tree_util.tree_map(lambda p, g: p - learning_rate * g, params, grads)
        return params, jax.lax.pmean(energy, "devices")

    return jax.pmap(update, axis_name="devices", donate_argnums=(0,))


def replicate(tree):
    n = jax.local_device_count()
    return jax.tree_util.tree_map(lambda a: jnp.broadcast_to(a, (n,) + a.shape), tree)


def vmc_loop(params, data, update_fn, nepochs):
    for epoch in range(nepochs):
        old_params = params
        params, energy = update_fn(params, data)
        step = jax.tree_util.tree_map(jnp.subtract, params, old_params)
        change = jax.tree_util.tree_reduce(lambda acc, d: acc + jnp.sum(d**2), step, 0.0)
        print(f"epoch {epoch}: energy {float(energy[0]):.4f}, |params - old_params|^2 {float(change):.2e}")
    return params


k1, k2, k3 = jax.random.split(jax.random.PRNGKey(0), 3)
params = replicate({"w1": 0.1 * jax.random.normal(k1, (3, 16)), "b1": jnp.zeros(16), "w2": 0.1 * jax.random.normal(k2, (16, 1))})
data = replicate(jax.random.normal(k3, (512, 3)))
params = vmc_loop(params, data, make_update_fn(), nepochs=3)
