# source: https://github.com/PennyLaneAI/pennylane/pull/5515
# expect: JAX502, JAX501
# line: 41
# observed: jax 0.10.2 CPU: the two entries of the shot vector (10, 10) get the identical samples [2 1 1 1 2 1 3 0 1 0] in the Z group and [3 1 1 1 3 1 3 0 1 0] in the X group, and the two groups differ only where the diagonalising gate moved probability: every shot entry and every group is sampled from the same prng_key, which only _sample_state_jax consumes
# batch: 9
import jax
import jax.numpy as jnp
import numpy as np


class Measurement:
    def __init__(self, name, wires, diagonalizing):
        self.name = name
        self.wires = wires
        self.diagonalizing = diagonalizing


def apply_diagonalizing_gates(state, mp):
    if mp.diagonalizing is None:
        return state
    return (mp.diagonalizing @ state.reshape(4)).reshape(state.shape)


def _sample_state_jax(state, shots, prng_key):
    probs = jnp.abs(state.reshape(-1)) ** 2
    return jax.random.choice(prng_key, probs.shape[0], shape=(shots,), p=probs)


def sample_state(state, shots, is_state_batched=False, prng_key=None):
    if prng_key is not None:
        return _sample_state_jax(state, shots, prng_key)
    rng = np.random.default_rng()
    probs = np.abs(np.asarray(state).reshape(-1)) ** 2
    return rng.choice(probs.shape[0], size=shots, p=probs / probs.sum())


def _measure_with_samples_diagonalizing_gates(mps, state, shots, prng_key=None):
    state = apply_diagonalizing_gates(state, mps[0])
    results = []
    for s in shots:
        samples = sample_state(state, s, prng_key=prng_key)
        results.append(tuple(samples for _ in mps))
    return results


def measure_with_samples(mp_groups, state, shots, prng_key=None):
    all_res = []
    for group in mp_groups:
        all_res.extend(_measure_with_samples_diagonalizing_gates(group, state, shots, prng_key=prng_key))
    return all_res


hadamard_1 = jnp.kron(jnp.eye(2), jnp.array([[1, 1], [1, -1]]) / jnp.sqrt(2.0))
state = jnp.array([[0.5, 0.5j], [0.5, -0.5]])
groups = [[Measurement("Z", 0, None)], [Measurement("X", 1, hadamard_1)]]
res = measure_with_samples(groups, state, shots=(10, 10), prng_key=jax.random.PRNGKey(42))
for r in res:
    print(r[0])
