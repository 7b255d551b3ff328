# source: https://github.com/jax-ml/jax/issues/3613
# expect: JAX804
# line: 17
# observed: jax 0.10.2 CPU: ValueError at line 17
# batch: 3
import jax
import jax.numpy as jnp


def attention_scores(q, k):
    logits = q @ k.T
    return jax.nn.softmax(logits), logits.max()


# three out_axes for a function with two outputs
batched = jax.vmap(attention_scores, in_axes=(0, 0), out_axes=(0, 0, 0))
print(batched(jnp.ones((2, 4, 8)), jnp.ones((2, 4, 8))))
