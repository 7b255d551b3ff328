import jax
import numpy as np

DATA = np.load("no_such_dataset_dir/train.npy")


@jax.jit
def f(x):
    if x > 0:  # case: file
        return x
    return -x
