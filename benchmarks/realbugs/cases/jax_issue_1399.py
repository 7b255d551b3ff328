# source: https://github.com/jax-ml/jax/issues/1399
# expect: JAX407
# line: 22
# observed: jax 0.10.2 CPU (2 shared cores, load 15.4): the first call of jit(grad(func)) takes 68.3 s, later calls 0.11-0.20 s: the Python loop over NUM_ARG = 200 is unrolled into 200 copies of its body (and of their gradients), and tracing and compiling that program is nearly all of the first call
# batch: 10
import time

import jax
import jax.numpy as jnp
import numpy as np

NUM_VAR = 10**4
NUM_ARG = 200

var_np = np.random.rand(NUM_VAR)
var = jnp.asarray(var_np)


def func(arg):
    denominator = 0.0
    numerator = 0.0
    for i in range(NUM_ARG):
        temp = jnp.dot(arg[i], var)
        temp1, temp2 = jnp.sin(temp), jnp.cos(temp)
        divid = jnp.sum(jnp.power(jnp.add(temp1, temp2), 2))
        numer = jnp.power(jnp.sum(jnp.add(temp1, temp2)), 2)
        numerator = jnp.add(numer, numerator)
        denominator = jnp.add(denominator, divid)
    denominator = jnp.power(denominator, 1 / 2)
    return jnp.log(jnp.divide(numerator, denominator))


res = jax.jit(jax.grad(func))

arg = jnp.asarray(np.random.rand(NUM_ARG))
print("... start calculating the gradient ...")
start = time.time()
res(arg).block_until_ready()
print("first execution time:", round(time.time() - start, 3), "s")
for step in range(3):
    arg = jnp.asarray(np.random.rand(NUM_ARG))
    start = time.time()
    res(arg).block_until_ready()
    print("execution time:", round(time.time() - start, 4), "s")
