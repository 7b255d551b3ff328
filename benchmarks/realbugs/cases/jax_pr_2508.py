# source: https://github.com/jax-ml/jax/pull/2508
# expect: JAX207
# line: 10
# observed: jax 0.10.2 CPU: ConcretizationTypeError at line 10
# batch: 3
import jax
import jax.numpy as np

def split(array, num_sections, axis):
    return np.split(array, num_sections, axis)

print(split(np.zeros(2), 2, 0))  # works
print(jax.jit(split)(np.zeros(2), 2, 0))
