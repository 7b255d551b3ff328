# source: https://github.com/tillahoffmann/jax-mps/pull/180
# expect: JAX602
# line: 58
# observed: jax 0.10.2 CPU (load 23): loss.item() on every step waits for each step before the next is dispatched; the loop ran 6.7 and 7.7 steps/s, the same loop syncing once at the end 8.6 and 7.8 steps/s (within noise on 2 shared CPU cores; the report's dispatch-bound case is a GPU)
# batch: 11
import argparse
import time

import jax
import jax.numpy as jnp
import numpy as np


def init_resnet(key, channels=(3, 16, 32), num_classes=10):
    params = []
    for c_in, c_out in zip(channels[:-1], channels[1:]):
        key, k1, k2 = jax.random.split(key, 3)
        params.append({"conv": jax.random.normal(k1, (3, 3, c_in, c_out)) * jnp.sqrt(2.0 / (9 * c_in)),
                       "skip": jax.random.normal(k2, (1, 1, c_in, c_out)) * jnp.sqrt(1.0 / c_in)})
    key, k = jax.random.split(key)
    return {"blocks": params, "head": jax.random.normal(k, (channels[-1], num_classes)) * 0.01}


def conv(x, w, stride=1):
    return jax.lax.conv_general_dilated(x, w, (stride, stride), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))


def forward(params, images):
    x = images
    for block in params["blocks"]:
        x = jax.nn.relu(conv(x, block["conv"], 2) + conv(x, block["skip"], 2))
    return jnp.mean(x, axis=(1, 2)) @ params["head"]


@jax.jit
def train_step(params, images, labels, lr=0.05):
    def loss_fn(p):
        logits = forward(p, images)
        return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * jax.nn.one_hot(labels, 10), axis=-1))

    loss, grads = jax.value_and_grad(loss_fn)(params)
    return jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads), loss


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--batch-size", type=int, default=64)
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    images = jnp.asarray(rng.normal(size=(args.batch_size, 32, 32, 3)).astype(np.float32))
    labels = jnp.asarray(rng.integers(0, 10, size=args.batch_size))
    params = init_resnet(jax.random.PRNGKey(0))
    start = time.perf_counter()
    for step in range(args.steps):
        params, loss = train_step(params, images, labels)
        loss_value = loss.item()
        if step % 10 == 0:
            print(f"step {step}: loss {loss_value:.4f}")
    elapsed = time.perf_counter() - start
    print(f"{args.steps / elapsed:.1f} steps/s")


main()
