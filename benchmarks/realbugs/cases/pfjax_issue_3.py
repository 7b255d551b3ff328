# source: https://github.com/mlysy/pfjax/issues/3
# expect: JAX201
# line: 21
# observed: jax 0.10.2 CPU: TracerBoolConversionError at line 21
# batch: 3
import jax
import jax.numpy as jnp


class MWG:
    """Metropolis-within-Gibbs sampler with adaptive random-walk jump sizes."""

    def __init__(self, rw_sd, adapt_max=0.01, adapt_rate=0.5):
        self.rw_sd = rw_sd
        self.adapt_max = adapt_max
        self.adapt_rate = adapt_rate

    def adapt(self, rw_sd, accept_rate, n_iter, targ_acc=0.44):
        delta = jnp.minimum(self.adapt_max, 1.0 / n_iter ** self.adapt_rate)
        low_acc = accept_rate < targ_acc
        if low_acc:
            return jnp.exp(jnp.log(rw_sd) - delta)
        return jnp.exp(jnp.log(rw_sd) + delta)


mwg = MWG(rw_sd=jnp.array([0.1, 0.2]))
adapt = jax.jit(mwg.adapt)
print(adapt(mwg.rw_sd, jnp.array(0.3), 10.0))
