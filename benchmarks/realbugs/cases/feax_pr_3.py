# source: https://github.com/Naruki-Ichihara/feax/pull/3
# expect: JAX901
# line: 17
# observed: jax 0.10.2 CPU: AttributeError at line 17
# batch: 1
import jax
import jax.numpy as jnp


def eq(fun, damping=1.0):
    """Equality constraint for the modified differential method of multipliers."""
    def init_fn(*args, **kwargs):
        return {"lambda": jnp.zeros_like(fun(*args, **kwargs))}

    def loss_fn(params, *args, **kwargs):
        inf = fun(*args, **kwargs)
        return -jax.tree_map(lambda l, c: jnp.sum(l * c + damping * c ** 2 / 2), params["lambda"], inf)

    return init_fn, loss_fn


init, loss = eq(lambda x: x - 1.0)
print(loss(init(jnp.ones(3)), jnp.ones(3)))
