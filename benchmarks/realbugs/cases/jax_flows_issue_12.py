# source: https://github.com/ChrisWaites/jax-flows/issues/12
# expect: JAX303
# line: 17
# observed: jax 0.10.2 CPU: AttributeError at line 17
# batch: 1
import jax.numpy as np
from jax import ops, random


def get_masks(input_dim, hidden_dim=64, num_hidden=1):
    masks = []
    input_degrees = np.arange(input_dim)
    degrees = [input_degrees]
    for n_h in range(num_hidden + 1):
        degrees += [np.arange(hidden_dim) % (input_dim - 1)]
    mask = np.zeros((input_dim, hidden_dim))
    mask = ops.index_update(mask, ops.index[:, 0], 1.0)
    masks.append(mask)
    return masks, degrees


print(len(get_masks(3)[0]))
