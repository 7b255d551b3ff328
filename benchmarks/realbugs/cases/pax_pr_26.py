# source: https://github.com/ucl-dark/pax/pull/26
# expect: JAX101
# line: 26
# observed: jax 0.10.2 CPU: logs "agent2/loss JitTracer(float32[])" once, at trace time, for 5 scanned steps
# batch: 6
import logging

import jax
import jax.numpy as jnp

logging.basicConfig(level=logging.INFO)
logger = logging.getLogger("pax")


class NaiveLearner:
    def __init__(self, lr=0.1):
        self.lr = lr

    def loss(self, params, obs, reward):
        return jnp.mean((obs @ params - reward) ** 2)

    def update(self, params, obs, reward):
        loss, grads = jax.value_and_grad(self.loss)(params, obs, reward)
        params = params - self.lr * grads
        # agent2's metrics go to the logger (and on to wandb) from inside the scanned step
        logger.info("agent2/loss %s", loss)
        return params, loss


def run_trials(agent2, params, batches):
    def outer_step(params, batch):
        obs, reward = batch
        params, loss = agent2.update(params, obs, reward)
        return params, loss

    return jax.lax.scan(outer_step, params, batches)


agent2 = NaiveLearner()
batches = (jnp.ones((5, 4, 3)), jnp.zeros((5, 4)))
params, losses = run_trials(agent2, jnp.ones(3), batches)
print(losses)
