# source: https://github.com/jax-ml/jax/issues/5776
# expect: JAX802
# line: 8
# observed: jax 0.10.2 CPU: TypeError at line 8
# batch: 2
import jax

print(jax.grad(lambda x: (1, 2, 3), has_aux=True)(1.0))
