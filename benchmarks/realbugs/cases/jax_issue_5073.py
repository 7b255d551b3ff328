# source: https://github.com/jax-ml/jax/issues/5073
# expect: JAX207
# line: 9
# observed: jax 0.10.2 CPU: ConcretizationTypeError at line 9
# batch: 5
from jax import jit
from jax.scipy.special import multigammaln

print(jit(multigammaln)(1, 2))
