# source: https://github.com/jax-ml/jax/issues/3696
# expect: JAX207
# line: 12
# observed: jax 0.10.2 CPU: ConcretizationTypeError at line 12
# batch: 4
import jax
import jax.numpy as jnp
from jax import nn

labels = jnp.array([2, 3, 4])
num_classes = jnp.full(3, 10)
encoded = jax.vmap(nn.one_hot)(labels, num_classes)
print(encoded.shape)
