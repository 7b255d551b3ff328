# source: https://github.com/jax-ml/jax/issues/7826
# expect: JAX404
# line: 30
# observed: jax 0.10.2 CPU: f(m) runs; f(n) raises ValueError (truth value of an array ... / metadata fields must be hashable) at line 30
# batch: 7
import dataclasses

import numpy as np
import jax
from jax import jit


@dataclasses.dataclass
class Model:
    c: np.ndarray  # a static (non-pytree) field, as flax.struct.field(pytree_node=False)


jax.tree_util.register_dataclass(Model, data_fields=[], meta_fields=["c"])


@jit
def f(model):
    return 1.0


m = Model(np.ones(10))
n = Model(np.ones(10))

f(m)
f(n)
