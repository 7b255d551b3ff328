# source: https://github.com/jax-ml/jax/pull/3656
# expect: JAX207
# line: 14
# observed: jax 0.10.2 CPU: ConcretizationTypeError at line 14
# batch: 1
import jax
import jax.numpy as jnp
from jax import jit
from jax.nn import one_hot


def encode_labels(labels, num_classes):
    # num_classes arrives as a traced argument of the jitted function
    return one_hot(labels, num_classes)


encoder = jit(encode_labels)
print(encoder(jnp.array([0, 2, 1]), 5))
