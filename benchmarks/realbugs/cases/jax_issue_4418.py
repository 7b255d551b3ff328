# source: https://github.com/jax-ml/jax/issues/4418
# expect: JAX206, JAX303
# line: 13
# observed: jax 0.10.2 CPU: ConcretizationTypeError at line 13
# batch: 4
import jax
import jax.numpy as np_jax


@jax.jit
def make_mask(Dataset):
    # axes where Dataset is 0 for dimension 2 of column 0
    ax1, ax2 = np_jax.where(~Dataset[:, 0].any(axis=2))
    mask = np_jax.ones(Dataset.shape[:2])
    mask = jax.ops.index_update(mask, jax.ops.index[ax1, ax2], 0)  # equivalent to mask[ax1, ax2] = 0
    return mask


Dataset = np_jax.zeros((3, 2, 4, 5)).at[0, 0, 1].set(1.0)
print(make_mask(Dataset))
