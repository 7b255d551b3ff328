# source: https://github.com/climate-analytics-lab/jax-gcm/pull/175
# expect: JAX702
# line: 11
# observed: jax 0.10.2 CPU: UserWarning at line 11 (Explicitly requested dtype float64 requested in full is not...)
# batch: 1
import jax.numpy as jnp


def initialize_temperature(nlev, nlat, nlon):
    # jnp.float_ is an alias of float64, not of the default float type
    return jnp.full((nlev, nlat, nlon), 288.0, dtype=jnp.float_)


print(initialize_temperature(8, 4, 4).dtype)
