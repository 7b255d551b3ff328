# source: https://github.com/lenstronomy/JAXtronomy/issues/66
# expect: JAX701
# line: 16
# observed: jax 0.10.2 CPU: gradient w.r.t. Rs is nan (the untaken arccosh/arccos branch)
# batch: 1
import jax
import jax.numpy as jnp


class TNFW:
    """Truncated NFW lens profile (the F(x) helper of the deflection)."""

    @staticmethod
    def _F(x):
        # both branches are evaluated; arccosh(1/x) is NaN for x > 1, arccos(1/x) for x < 1
        return jnp.where(x < 1, jnp.arccosh(1 / x) / jnp.sqrt(1 - x ** 2), jnp.arccos(1 / x) / jnp.sqrt(x ** 2 - 1))

    def function(self, x, y, Rs, center_x=0.0, center_y=0.0):
        r = jnp.sqrt((x - center_x) ** 2 + (y - center_y) ** 2)
        return jnp.sum(self._F(r / Rs))


profile = TNFW()
x = jnp.array([0.5, 2.0])
print(jax.grad(profile.function, argnums=2)(x, jnp.zeros(2), 1.0))
