# source: https://github.com/bytedance/FermiNet_with_ECP/issues/1
# expect: JAX908, JAX907
# line: 14
# observed: jax 0.10.2 CPU: AttributeError at line 14
# batch: 4
import jax
import jax.numpy as jnp


def make_pmap_mean(axis_name="devices"):
    """Mean over devices, as the training code built it for jax 0.2."""
    def pmean_if_pmap(values):
        # the backend lookup went through the jax.xla alias
        if jax.xla.get_backend().platform == "cpu":
            return values
        return jax.lax.pmean(values, axis_name)
    return pmean_if_pmap


print(make_pmap_mean()(jnp.ones(3)))
