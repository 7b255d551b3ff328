# source: https://github.com/jax-ml/jax/pull/23228
# expect: JAX207, JAX203
# line: 8
# observed: jax 0.10.2 CPU: ConcretizationTypeError at line 8 (scan's length is traced)
# batch: 7
import jax

print(jax.jit(lambda n, x: jax.lax.scan(lambda c, z: (c, z), x, (), length=n))(3, 1.0))
