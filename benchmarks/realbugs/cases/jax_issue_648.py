# source: https://github.com/jax-ml/jax/issues/648
# expect: JAX207
# line: 27
# observed: jax 0.10.2 CPU: TypeError at line 27: Shapes must be 1D sequences of concrete values of integer type, got (JitTracer(~int32[]),) ... depends on the value of the argument N
# batch: 11
import jax
import jax.numpy as jnp
from jax import jit, random


class IsingModel:
    def __init__(self, key, n_spins):
        k1, k2 = random.split(key)
        J = 0.1 * random.normal(k1, (n_spins, n_spins))
        self.J, self.h = (J + J.T) / 2, 0.1 * random.normal(k2, (n_spins,))

    def energy(self, state):
        spins = 2 * state - 1
        return -(self.h @ spins) - 0.5 * spins @ self.J @ spins


@jit
def sample(factors, key, N):
    """One Metropolis sweep from a random initial state of N binary units."""
    J, h = factors
    key, subkey = random.split(key)
    state = random.randint(subkey, minval=0, maxval=2, shape=(N,))
    spins = 2 * state - 1
    local_field = h + J @ spins
    flip = random.uniform(key, (N,)) < jax.nn.sigmoid(-2 * local_field * spins)
    return jnp.where(flip, 1 - state, state)


model = IsingModel(random.PRNGKey(0), 16)
print(sample((model.J, model.h), random.PRNGKey(1), 16))
