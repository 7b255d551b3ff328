# source: https://github.com/ManifoldRG/MultiNet/pull/895
# expect: JAX502
# line: 63
# observed: jax 0.10.2 CPU: the flow-matching noise drawn inside `sample_actions` is identical for all 8 batches (printed: True): the evaluation loop passes the same `key` to the model on every batch and never splits it
# batch: 13
import jax
import jax.numpy as jnp
import numpy as np

NOISES = []


class Pi0:
    """Flow-matching action head: actions are integrated from Gaussian noise drawn from `rng`."""

    def __init__(self, key, obs_dim=16, action_dim=6, action_horizon=4):
        self.action_dim, self.action_horizon = action_dim, action_horizon
        k1, k2 = jax.random.split(key)
        self.w_obs = jax.random.normal(k1, (obs_dim, action_dim)) * 0.1
        self.w_act = jax.random.normal(k2, (action_dim, action_dim)) * 0.1

    def velocity(self, observation, x_t, t):
        return jnp.tanh(observation[:, None, :] @ self.w_obs + x_t @ self.w_act) - x_t * (1 - t)

    def sample_actions(self, rng, observation, *, num_steps=10):
        batch_size = observation.shape[0]
        noise = jax.random.normal(rng, (batch_size, self.action_horizon, self.action_dim))
        NOISES.append(np.asarray(noise[0]))
        dt = -1.0 / num_steps
        x_t, t = noise, 1.0
        for _ in range(num_steps):
            x_t = x_t + dt * self.velocity(observation, x_t, t)
            t = t + dt
        return x_t


class OvercookedInference:
    def __init__(self, num_discrete_actions=6):
        self.num_discrete_actions = num_discrete_actions

    def prepare_observation(self, obs_dict, batch_size):
        return jnp.asarray(obs_dict["image_observation"]).reshape(batch_size, -1)[:, :16]

    def process_output(self, actions, dataset_stats):
        return np.asarray(jnp.argmax(actions[:, 0, :], axis=-1))

    def evaluate_model(self, model, key, dataloader, max_samples=None):
        counter, samples_processed = 0, 0
        all_preds = []
        for batch in dataloader:
            actual_batch_size = len(batch["image_observation"])
            if max_samples is not None and samples_processed + actual_batch_size > max_samples:
                remaining = max_samples - samples_processed
                if remaining <= 0:
                    break
                for key in batch:
                    batch[key] = batch[key][:remaining]
                actual_batch_size = remaining
            obs = {"image_observation": batch["image_observation"], "text_observation": batch["text_observation"]}
            observation = self.prepare_observation(obs, batch_size=actual_batch_size)

            # Sample actions for entire batch
            actions = model.sample_actions(key, observation, num_steps=10)
            all_preds.append(self.process_output(actions, None))
            counter += 1
            samples_processed += actual_batch_size
        return np.concatenate(all_preds)


rng = np.random.default_rng(0)
dataloader = [{"image_observation": rng.normal(size=(5, 4, 4)).astype(np.float32),
               "text_observation": ["cook onion soup"] * 5,
               "action": rng.integers(0, 6, 5)} for _ in range(8)]
key = jax.random.key(0)
model = Pi0(jax.random.key(1))
preds = OvercookedInference().evaluate_model(model, key, dataloader)
print("same initial noise for all", len(NOISES), "batches:", all(np.array_equal(NOISES[0], n) for n in NOISES))
