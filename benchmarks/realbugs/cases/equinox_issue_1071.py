# source: https://github.com/patrick-kidger/equinox/issues/1071
# expect: JAX102
# line: 49
# observed: jax 0.10.2 CPU: under jax.jit, calling counter(x, state) twice with the same old state returns 2.3 twice and raises nothing; without jit the second call raises ValueError("Attempted to use old state"): the invalidation self._state = _sentinel in State.set runs on the copy of state that the trace unflattens, never on the caller's object
# batch: 8
import jax
import jax.numpy as jnp

_sentinel = object()


class StateIndex:
    def __init__(self, init):
        self.marker = id(self)
        self.init = init


@jax.tree_util.register_pytree_node_class
class State:
    def __init__(self, mapping):
        self._state = dict(mapping)

    def tree_flatten(self):
        if self._state is _sentinel:
            raise ValueError("Attempted to use old state.")
        keys = sorted(self._state)
        return [self._state[k] for k in keys], keys

    @classmethod
    def tree_unflatten(cls, keys, leaves):
        return cls(dict(zip(keys, leaves)))

    def _check(self):
        if self._state is _sentinel:
            raise ValueError(
                "Attempted to use old state. Probably you have done something like:\n"
                "x, state = model(x, state)\nx, state = model(x, state)  # reuses the old state"
            )

    def get(self, item):
        self._check()
        return self._state[item.marker]

    def set(self, item, value):
        self._check()
        state = dict(self._state)
        state[item.marker] = value
        new_self = State(state)
        self._state = _sentinel
        return new_self


class Counter:
    def __init__(self):
        self.index = StateIndex(jnp.array(0.0))

    def initial_state(self):
        return State({self.index.marker: self.index.init})

    def __call__(self, x, state):
        value = state.get(self.index)
        new_x = x + value
        new_state = state.set(self.index, value + 1)
        return new_x, new_state


counter = Counter()
step = jax.jit(counter.__call__)
state = counter.initial_state()
x = jnp.array(2.3)

out, new_state = step(x, state)
out2, new_state2 = step(x, state)  # the old state again: should raise
print(out, out2)
