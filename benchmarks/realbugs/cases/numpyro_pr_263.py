# source: https://github.com/pyro-ppl/numpyro/pull/263
# expect: JAX501
# line: 54
# observed: jax 0.10.2 CPU: the 'noise' site's value equals the standard-normal draw inside the 'scale' site's StudentT (both 1.0040143): the seed handler hands self.rng to the StudentT, which splits it, then derives the next key with split(self.rng, 1), whose [0] is the same key as split(self.rng)[0]
# batch: 8
import jax.numpy as np
from jax import random

_HANDLER_STACK = []


class StudentT:
    def __init__(self, df):
        self.df = df

    def sample(self, random_state):
        key_normal, key_chi2 = random.split(random_state)
        z = random.normal(key_normal)
        chi2 = 2.0 * random.gamma(key_chi2, self.df / 2.0)
        return z * np.sqrt(self.df / chi2), z


class Normal:
    def sample(self, random_state):
        return random.normal(random_state)


def sample(name, fn):
    msg = {"type": "sample", "name": name, "fn": fn, "kwargs": {}, "value": None}
    for handler in reversed(_HANDLER_STACK):
        handler.process_message(msg)
    msg["value"] = msg["fn"].sample(**msg["kwargs"])
    return msg["value"]


class seed:
    def __init__(self, fn, rng):
        self.fn = fn
        self.rng = rng

    def __enter__(self):
        _HANDLER_STACK.append(self)

    def __exit__(self, *args):
        _HANDLER_STACK.pop()

    def __call__(self, *args, **kwargs):
        with self:
            return self.fn(*args, **kwargs)

    def process_message(self, msg):
        if msg["type"] == "sample":
            msg["kwargs"]["random_state"] = self.rng
            self.rng, = random.split(self.rng, 1)


def model():
    scale, z = sample("scale", StudentT(4.0))
    noise = sample("noise", Normal())
    return z, noise


z, noise = seed(model, random.PRNGKey(0))()
print("standard normal inside StudentT:", z)
print("noise site:", noise)
