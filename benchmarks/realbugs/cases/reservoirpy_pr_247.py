# source: https://github.com/reservoirpy/reservoirpy/pull/247
# expect: JAX302
# line: 22
# observed: jax 0.10.2 CPU: NVAR.run returns all zeros (max abs 0.0): the three .at[].set results are dropped
# batch: 6
import jax
import jax.numpy as jnp


class NVAR:
    """Nonlinear vector autoregression: linear features from a delay store, plus their squares."""

    def __init__(self, delay, dim):
        self.delay = delay
        self.dim = dim
        self.n_linear = delay * dim
        self.n_features = self.n_linear + self.n_linear * (self.n_linear + 1) // 2

    def _step(self, store, x):
        # shift the delay store and write the new input in front
        store = jnp.roll(store, 1, axis=0)
        store.at[0].set(x)
        linear = store.reshape(-1)
        features = jnp.zeros(self.n_features)
        features.at[: self.n_linear].set(linear)
        iu = jnp.triu_indices(self.n_linear)
        features.at[self.n_linear:].set(jnp.outer(linear, linear)[iu])
        return store, features

    def run(self, xs):
        store = jnp.zeros((self.delay, self.dim))
        _, features = jax.lax.scan(self._step, store, xs)
        return features


nvar = NVAR(delay=2, dim=2)
print(float(jnp.abs(nvar.run(jnp.ones((5, 2)))).max()))
