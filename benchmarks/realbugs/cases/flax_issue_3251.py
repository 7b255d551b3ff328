# source: https://github.com/google/flax/issues/3251
# expect: JAX102
# line: 59
# observed: jax 0.10.2 CPU (2 shared cores, load 9.9): the global-writing infer runs at 775.6 it/s against 25.9 it/s for the version that returns the output, and after its first call the global `output` holds a DynamicJaxprTracer: the model output is assigned to the global only while tracing, the jitted function returns nothing, so its compiled program computes nothing and the 'faster' benchmark measures an empty call
# batch: 10
import time

import jax
import jax.numpy as jnp


class ConvNet:
    """A small stand-in for the reporter's image model (init / apply like a linen Module)."""

    def __init__(self, features=(16, 32, 64), num_classes=10):
        self.features = features
        self.num_classes = num_classes

    def init(self, key, x):
        keys = jax.random.split(key, len(self.features) + 1)
        convs, cin = [], x.shape[-1]
        for k, cout in zip(keys[:-1], self.features):
            convs.append(jax.random.normal(k, (3, 3, cin, cout)) * 0.1)
            cin = cout
        head = jax.random.normal(keys[-1], (cin, self.num_classes)) * 0.1
        return {"convs": convs, "head": head}

    def apply(self, params, x):
        for w in params["convs"]:
            x = jax.lax.conv_general_dilated(x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
            x = jax.nn.relu(x)
        return x.mean(axis=(1, 2)) @ params["head"]


model = ConvNet()
input_shape = (1, 128, 128, 3)
params = model.init(jax.random.PRNGKey(0), jnp.ones(input_shape))
output = None


@jax.jit
def infer_returning(x):
    output = model.apply(params, x)
    return output


infer_returning(jnp.ones(input_shape)).block_until_ready()
s = time.time()
for i in range(200):
    output = infer_returning(jnp.ones(input_shape))
    output = None
e = time.time()
print("returning the output:", round(200 / (e - s), 1), "it/s")


@jax.jit
def infer(x):
    global output
    output = model.apply(params, x)


infer(jnp.ones(input_shape))
print("after the first call the global output is", type(output).__name__)
s = time.time()
for i in range(200):
    output = infer(jnp.ones(input_shape))
    output = None
e = time.time()
print("storing it in a global:", round(200 / (e - s), 1), "it/s")
