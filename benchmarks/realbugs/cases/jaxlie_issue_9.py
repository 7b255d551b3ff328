# source: https://github.com/brentyi/jaxlie/issues/9
# expect: JAX701
# line: 53
# observed: jax 0.10.2 CPU: jax.grad(func)(jnp.array([pi, 0, 0])) is [nan nan nan] while func itself is finite (-3.1415927): at a rotation of pi, w == 0 and the untaken Taylor branch's 2.0 / w is inf
# batch: 8
import dataclasses

import jax
import jax.numpy as jnp


def get_epsilon(dtype):
    return {jnp.dtype(jnp.float32): 1e-5, jnp.dtype(jnp.float64): 1e-10}[jnp.dtype(dtype)]


@jax.tree_util.register_pytree_node_class
@dataclasses.dataclass(frozen=True)
class SO3:
    wxyz: jax.Array

    def tree_flatten(self):
        return (self.wxyz,), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)

    @staticmethod
    def exp(tangent):
        theta_squared = jnp.sum(jnp.square(tangent), axis=-1)
        theta_pow_4 = theta_squared * theta_squared
        use_taylor = theta_squared < get_epsilon(tangent.dtype)
        safe_theta = jnp.sqrt(jnp.where(use_taylor, 1.0, theta_squared))
        safe_half_theta = 0.5 * safe_theta
        real_factor = jnp.where(
            use_taylor, 1.0 - theta_squared / 8.0 + theta_pow_4 / 384.0, jnp.cos(safe_half_theta)
        )
        imaginary_factor = jnp.where(
            use_taylor,
            0.5 - theta_squared / 48.0 + theta_pow_4 / 3840.0,
            jnp.sin(safe_half_theta) / safe_theta,
        )
        return SO3(wxyz=jnp.concatenate([real_factor[None], imaginary_factor * tangent]))

    def log(self):
        w = self.wxyz[..., 0]
        norm_sq = jnp.sum(jnp.square(self.wxyz[..., 1:]), axis=-1)
        use_taylor = norm_sq < get_epsilon(norm_sq.dtype)
        norm_safe = jnp.sqrt(jnp.where(use_taylor, 1.0, norm_sq))
        atan_n_over_w = jnp.arctan2(jnp.where(w < 0, -norm_safe, norm_safe), jnp.abs(w))
        atan_factor = jnp.where(
            use_taylor,
            2.0 / w - 2.0 / 3.0 * norm_sq / w**3,
            jnp.where(
                jnp.abs(w) < get_epsilon(w.dtype),
                jnp.where(w > 0, 1.0, -1.0) * jnp.pi / norm_safe,
                2.0 * atan_n_over_w / norm_safe,
            ),
        )
        return atan_factor[..., None] * self.wxyz[..., 1:]


a = jnp.array([jnp.pi, 0, 0], dtype=jnp.float32)


def func(x):
    return SO3.exp(x).log().sum()


print(func(a))
print(jax.grad(func)(a))
