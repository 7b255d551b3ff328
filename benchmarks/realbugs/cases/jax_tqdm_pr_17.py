# source: https://github.com/jeremiecoullon/jax-tqdm/pull/17
# expect: JAX907
# line: 8
# observed: jax 0.10.2 CPU: ImportError at line 8
# batch: 4
import jax
import jax.numpy as jnp
from jax.experimental import host_callback
from tqdm.auto import tqdm


def scan_tqdm(n, print_rate=10):
    bar = tqdm(total=n)

    def _update(arg, transform):
        bar.update(print_rate)

    def wrapper(body):
        def wrapped(carry, i):
            carry = jax.lax.cond(i % print_rate == 0,
                                 lambda c: host_callback.id_tap(_update, None, result=c),
                                 lambda c: c, carry)
            return body(carry, i)
        return wrapped
    return wrapper


@scan_tqdm(100)
def step(carry, i):
    return carry + i, carry


print(jax.lax.scan(step, 0, jnp.arange(100))[0])
