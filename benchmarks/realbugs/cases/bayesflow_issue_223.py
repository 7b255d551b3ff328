# source: https://github.com/bayesflow-org/bayesflow/issues/223
# expect: JAX102
# line: 24
# observed: jax 0.10.2 CPU: current_step is 1 after 5 train steps: the += ran once, at trace time
# batch: 5
import jax
import jax.numpy as jnp


class ConsistencyModel:
    def __init__(self, total_steps=100, s0=10, s1=50):
        self.total_steps = total_steps
        self.s0 = s0
        self.s1 = s1
        self.current_step = 0

    def discretization_steps(self):
        k = self.current_step / self.total_steps
        return jnp.floor(jnp.sqrt(k * (self.s1 + 1) ** 2 - k * self.s0 ** 2 + self.s0 ** 2) - 1) + 1

    def compute_metrics(self, params, x):
        n = self.discretization_steps()
        loss = jnp.mean((x @ params) ** 2) / n
        self.current_step += 1
        return loss


model = ConsistencyModel()
train_step = jax.jit(model.compute_metrics)
for _ in range(5):
    train_step(jnp.ones((3, 1)), jnp.ones((4, 3)))
print("current_step:", model.current_step)
