# source: https://github.com/google-deepmind/mujoco_playground/pull/349
# expect: JAX501
# line: 21
# observed: jax 0.10.2 CPU: qpos [-3.0957644 -3.0103295 -3.0957644]: the spinner angle equals the first finger joint angle
# batch: 4
import jax
import jax.numpy as jnp


class FingerSpin:
    """DM Control Finger: a two-link finger spins a hinged body."""

    def __init__(self, n_finger_joints=2):
        self.n_finger_joints = n_finger_joints

    def reset(self, rng):
        rng, rng_joints = jax.random.split(rng)
        # random joint angles for the finger
        qpos_finger = jax.random.uniform(rng_joints, (self.n_finger_joints,), minval=-jnp.pi, maxval=jnp.pi)
        # and a random angle for the spinner: drawn from the same key
        spinner_angle = jax.random.uniform(rng_joints, (), minval=-jnp.pi, maxval=jnp.pi)
        qpos = jnp.concatenate([qpos_finger, spinner_angle[None]])
        return {"qpos": qpos, "rng": rng}


env = FingerSpin()
state = jax.jit(env.reset)(jax.random.PRNGKey(0))
print(state["qpos"])
