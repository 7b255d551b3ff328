# source: https://github.com/patrick-kidger/equinox/issues/268
# expect: JAX402
# line: 30
# observed: jax 0.10.2 CPU: 15 traces for 3 epochs over 5 members (every `jax.jit(member.foo)` traces and compiles again: a bound method is a new object, and another instance besides); 1 trace with one jitted function that takes the module as an argument
# batch: 12
import jax
import jax.numpy as jnp

TRACES = []


class MyModule:
    """A module whose forward method reads its own weight; instances differ only in their arrays."""

    def __init__(self, y):
        self.y = y

    def foo(self, x):
        TRACES.append(1)
        return jnp.tanh(self.y * x).sum()


jax.tree_util.register_pytree_node(MyModule, lambda m: ((m.y,), None), lambda _, c: MyModule(*c))


def evaluate_ensemble(members, x):
    """Score every member of an ensemble on the same batch."""
    scores = []
    for member in members:
        scores.append(jax.jit(member.foo)(x))
    return jnp.stack(scores)


@jax.jit
def score(member, x):
    return member.foo(x)


def evaluate_ensemble_once(members, x):
    return jnp.stack([score(m, x) for m in members])


members = [MyModule(y=jnp.full((8,), float(i))) for i in range(5)]
x = jnp.linspace(-1.0, 1.0, 8)
for epoch in range(3):
    evaluate_ensemble(members, x)
print("traces with jax.jit(member.foo):", len(TRACES))
TRACES.clear()
for epoch in range(3):
    evaluate_ensemble_once(members, x)
print("traces with one jitted function taking the module:", len(TRACES))
