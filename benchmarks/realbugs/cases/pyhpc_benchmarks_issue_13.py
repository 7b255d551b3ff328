# source: https://github.com/dionhaefner/pyhpc-benchmarks/issues/13
# expect: JAX303
# line: 16
# observed: jax 0.10.2 CPU: AttributeError at line 16
# batch: 1
import jax
import jax.numpy as jnp


@jax.jit
def isoneutral_diffusion_pre(temp, dzw):
    # vertical derivative of temperature; the top level is set to zero
    dTdz = jnp.zeros_like(temp)
    dTdz = dTdz.at[:, :, :-1].set((temp[:, :, 1:] - temp[:, :, :-1]) / dzw[:-1])
    # the benchmark still used the removed index_update helper here
    dTdz = jax.ops.index_update(dTdz, jax.ops.index[:, :, -1], 0.0)
    return dTdz


temp = jnp.ones((4, 4, 6))
dzw = jnp.ones(6)
print(isoneutral_diffusion_pre(temp, dzw).shape)
