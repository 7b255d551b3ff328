# source: https://github.com/google/flax/issues/5548
# expect: JAX403
# line: 99
# observed: jax 0.10.2 CPU: train_one_epoch is traced and compiled once per epoch (3 'Compiling jit(train_one_epoch)' lines for 3 epochs, trace count 3), although every Discriminator and Optimizer has the same shapes: the Optimizer's tx is a new adam() (new closures) each epoch, a static part of the pytree that compares unequal to the last one; built once outside the loop it compiles once
# batch: 9
from typing import Callable, NamedTuple

import jax
import jax.numpy as jnp


class GradientTransformation(NamedTuple):
    init: Callable
    update: Callable


def adam(learning_rate, b1=0.9, b2=0.999, eps=1e-8):
    def init_fn(params):
        zeros = jax.tree_util.tree_map(jnp.zeros_like, params)
        return (zeros, zeros, jnp.zeros([], jnp.int32))

    def update_fn(grads, state, params=None):
        mu, nu, count = state
        count = count + 1
        mu = jax.tree_util.tree_map(lambda m, g: b1 * m + (1 - b1) * g, mu, grads)
        nu = jax.tree_util.tree_map(lambda v, g: b2 * v + (1 - b2) * g**2, nu, grads)
        updates = jax.tree_util.tree_map(
            lambda m, v: -learning_rate * (m / (1 - b1**count)) / (jnp.sqrt(v / (1 - b2**count)) + eps), mu, nu)
        return updates, (mu, nu, count)

    return GradientTransformation(init_fn, update_fn)


class Discriminator:
    def __init__(self, key, din=16, dhidden=32):
        k1, k2 = jax.random.split(key)
        self.params = {"w1": jax.random.normal(k1, (din, dhidden)) * 0.1, "w2": jax.random.normal(k2, (dhidden, 1)) * 0.1}

    @staticmethod
    def apply(params, x):
        return jnp.tanh(x @ params["w1"]) @ params["w2"]


class Optimizer:
    def __init__(self, model, tx):
        self.model = model
        self.tx = tx
        self.opt_state = tx.init(model.params)


jax.tree_util.register_pytree_node(
    Discriminator, lambda d: ((d.params,), None), lambda aux, ch: _with_params(Discriminator, ch[0]))
jax.tree_util.register_pytree_node(
    Optimizer, lambda o: ((o.model, o.opt_state), o.tx), lambda tx, ch: _rebuild_optimizer(ch[0], tx, ch[1]))


def _with_params(cls, params):
    obj = object.__new__(cls)
    obj.params = params
    return obj


def _rebuild_optimizer(model, tx, opt_state):
    opt = object.__new__(Optimizer)
    opt.model, opt.tx, opt.opt_state = model, tx, opt_state
    return opt


TRACES = 0


@jax.jit
def train_one_epoch(gen_params, dis_opt, batches):
    global TRACES
    TRACES += 1

    def loss_fn(dis_params, batch):
        fake = jnp.tanh(batch @ gen_params)
        return jnp.mean(Discriminator.apply(dis_params, fake)) - jnp.mean(Discriminator.apply(dis_params, batch))

    def step(opt, batch):
        loss, grads = jax.value_and_grad(loss_fn)(opt.model.params, batch)
        updates, opt_state = opt.tx.update(grads, opt.opt_state)
        params = jax.tree_util.tree_map(jnp.add, opt.model.params, updates)
        return _rebuild_optimizer(_with_params(Discriminator, params), opt.tx, opt_state), loss

    return jax.lax.scan(step, dis_opt, batches)


key, gen_key, batch_key = jax.random.split(jax.random.PRNGKey(0), 3)
gen_params = jax.random.normal(gen_key, (16, 16)) * 0.1
batches = jax.random.normal(batch_key, (4, 8, 16))

jax.config.update("jax_log_compiles", True)
for epoch in range(3):
    key, dkey = jax.random.split(key)
    dis = Discriminator(dkey)  # reinitialised every epoch on purpose
    dis_opt = Optimizer(dis, adam(1e-3))
    dis_opt, losses = train_one_epoch(gen_params, dis_opt, batches)
    print(epoch, float(losses[-1]))
print("traces:", TRACES)
