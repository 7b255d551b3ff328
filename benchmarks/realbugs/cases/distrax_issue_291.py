# source: https://github.com/google-deepmind/distrax/issues/291
# expect: JAX204
# line: 16
# observed: jax 0.10.2 CPU: foo(logits) runs; jit(foo)(logits) raises TracerArrayConversionError at line 16 (a NumPy np.indices array indexed with the traced mask)
# batch: 7
import numpy as np
import jax
import jax.numpy as jnp
from jax import jit


def to_batch_shape_index(batch_shape, index):
    """Turns an index into a distribution's batch shape into an index into its event shape."""
    index = index if isinstance(index, tuple) else (index,)
    index = index + (Ellipsis,) if Ellipsis not in index else index
    new_index = [x[index] for x in np.indices(batch_shape)]
    return tuple(new_index)


class Categorical:
    def __init__(self, logits):
        self._logits = logits

    @property
    def batch_shape(self):
        return self._logits.shape[:-1]

    @property
    def logits(self):
        return self._logits

    def __getitem__(self, index):
        index = to_batch_shape_index(self.batch_shape, index)
        return Categorical(logits=self.logits[index])

    def entropy(self):
        log_probs = jax.nn.log_softmax(self.logits)
        return -jnp.sum(jnp.exp(log_probs) * log_probs, axis=-1)


def foo(logits):
    d = Categorical(logits=logits)
    mask = jnp.arange(logits.shape[0])
    return d[mask].entropy()


logits = jnp.zeros((3, 3, 3))
print(foo(logits))  # fine
print(jit(foo)(logits))  # raises
