# source: https://github.com/liesel-devs/liesel/issues/276
# expect: JAX805
# line: 62
# observed: jax 0.10.2 CPU: JaxRuntimeError at line 62: INVALID_ARGUMENT: Attempt to donate the same buffer twice in Execute() (flattened argument 3, replica 0, partition 0, first use: 1): the kernel state's position is the model state's array itself, and both states are donated
# batch: 12
import jax
import jax.numpy as jnp


def log_prob(model_state):
    beta = model_state["beta"]
    return -0.5 * jnp.sum(beta ** 2) - 0.5 * jnp.sum((model_state["y"] - model_state["X"] @ beta) ** 2)


class RWKernel:
    """A random-walk kernel whose state starts at the model's current position."""

    def __init__(self, position_key, step_size=0.1):
        self.position_key = position_key
        self.step_size = step_size

    def init_state(self, model_state):
        return {"position": model_state[self.position_key], "step_size": jnp.asarray(self.step_size)}

    def step(self, key, kernel_state, model_state):
        k_prop, k_acc = jax.random.split(key)
        position = model_state[self.position_key]
        proposal = position + kernel_state["step_size"] * jax.random.normal(k_prop, position.shape)
        new_model = dict(model_state, **{self.position_key: proposal})
        accept = jnp.log(jax.random.uniform(k_acc)) < log_prob(new_model) - log_prob(model_state)
        position = jnp.where(accept, proposal, position)
        model_state = dict(model_state, **{self.position_key: position})
        return dict(kernel_state, position=position), model_state


class Engine:
    def __init__(self, kernels, model_state, seed=0):
        self.kernels = kernels
        self.model_state = model_state
        self.kernel_states = [k.init_state(model_state) for k in kernels]
        self.key = jax.random.PRNGKey(seed)
        self.position_trace = []
        # donate the model state and the kernel states: both are replaced by the epoch's result
        self._sample_epoch = jax.jit(self._epoch, donate_argnums=(0, 1), static_argnums=(3,))

    def _epoch(self, model_state, kernel_states, key, n_steps):
        def one_step(carry, key):
            model_state, kernel_states = carry
            new_kernel_states = []
            for kernel, kernel_state, k in zip(self.kernels, kernel_states, jax.random.split(key, len(self.kernels))):
                kernel_state, model_state = kernel.step(k, kernel_state, model_state)
                new_kernel_states.append(kernel_state)
            return (model_state, new_kernel_states), model_state["beta"]

        (model_state, kernel_states), trace = jax.lax.scan(
            one_step, (model_state, kernel_states), jax.random.split(key, n_steps))
        return model_state, kernel_states, trace

    def sample_all_epochs(self, n_epochs=3, n_steps=100):
        for _ in range(n_epochs):
            self.key, subkey = jax.random.split(self.key)
            self.model_state, self.kernel_states, trace = self._sample_epoch(
                self.model_state, self.kernel_states, subkey, n_steps)
            self.position_trace.append(trace)
        return jnp.concatenate(self.position_trace)


X = jax.random.normal(jax.random.PRNGKey(1), (50, 3))
y = X @ jnp.array([1.0, -2.0, 0.5])
engine = Engine([RWKernel("beta")], {"beta": jnp.zeros(3), "X": X, "y": y})
print(engine.sample_all_epochs().mean(axis=0))
