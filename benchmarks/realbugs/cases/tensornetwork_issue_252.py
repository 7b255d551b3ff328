# source: https://github.com/google/TensorNetwork/issues/252
# expect: JAX702
# observed: jax 0.10.2 CPU: the numpy backend gives float64; the jax backend's jnp.asarray(tensor, dtype=np.float64) (line 18) warns and returns float32, and add_node raises TypeError: Node dtype float32 does not match network dtype float64
# batch: 11
import jax.numpy as jnp
import numpy as np


class NumPyBackend:
    name = "numpy"

    def __init__(self, dtype=None):
        self.np = np
        self.dtype = dtype

    def convert_to_tensor(self, tensor):
        return self.np.asarray(tensor, dtype=self.dtype)

    def tensordot(self, a, b, axes):
        return self.np.tensordot(a, b, axes)


class JaxBackend(NumPyBackend):
    name = "jax"

    def __init__(self, dtype=None):
        super().__init__(dtype)
        self.np = jnp


class TensorNetwork:
    def __init__(self, backend="numpy", dtype=None):
        self.backend = {"numpy": NumPyBackend, "jax": JaxBackend}[backend](dtype)
        self.dtype = dtype
        self.nodes = []

    def add_node(self, tensor):
        tensor = self.backend.convert_to_tensor(tensor)
        if self.dtype is not None and tensor.dtype != self.dtype:
            raise TypeError(f"Node dtype {tensor.dtype} does not match network dtype {np.dtype(self.dtype)}")
        self.nodes.append(tensor)
        return tensor


for backend in ("numpy", "jax"):
    net = TensorNetwork(backend=backend, dtype=np.float64)
    node = net.add_node(np.random.rand(2, 3))
    print(backend, node.dtype)
