# source: https://github.com/bsc-quantic/tn4ml/pull/9
# expect: JAX402
# line: 28
# observed: jax 0.10.2 CPU: foo compiled 12 times (JAX_LOG_COMPILES), once per training step
# batch: 2
import jax
import jax.numpy as jnp


class Model:
    def __init__(self, n_sites, bond_dim):
        key = jax.random.PRNGKey(0)
        self.tensors = jax.random.normal(key, (n_sites, bond_dim, bond_dim)) / bond_dim

    def loss(self, tensors, batch):
        mps = jnp.linalg.multi_dot(list(tensors))
        return jnp.mean((batch @ mps.sum(axis=1) - 1.0) ** 2)

    def train(self, data, epochs=3, batch_size=4, lr=0.01):
        for epoch in range(epochs):
            for i in range(0, len(data), batch_size):
                batch = data[i:i + batch_size]

                def foo(tensors):
                    return self.loss(tensors, batch)

                # a new closure each step: jit traces and compiles it again
                loss, grads = jax.jit(jax.value_and_grad(foo))(self.tensors)
                self.tensors = self.tensors - lr * grads
            print(epoch, loss)


Model(4, 3).train(jnp.ones((16, 3)))
