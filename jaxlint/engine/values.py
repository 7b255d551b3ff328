"""The value lattice: is a value traced, static, or unknown at trace time?

`UNKNOWN` is the bottom of what we claim: a rule never reports an unknown
value as traced. Joining a traced value with anything gives traced (on that
path the code really does see a tracer); joining static with unknown gives
unknown.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Kind(enum.IntEnum):
    UNKNOWN = 0
    STATIC = 1
    TRACED = 2


@dataclass(frozen=True, slots=True)
class Value:
    kind: Kind
    # Known to be a JAX array (as opposed to a pytree, a NumPy array or unknown).
    array: bool = False
    # Known to be a boolean array (a comparison, jnp.isnan, ...): a mask.
    boolean: bool = False

    @property
    def traced(self) -> bool:
        return self.kind is Kind.TRACED

    @property
    def static(self) -> bool:
        return self.kind is Kind.STATIC

    def join(self, other: "Value") -> "Value":
        if self is other:
            return self
        if Kind.TRACED in (self.kind, other.kind):
            kind = Kind.TRACED
        elif self.kind is other.kind:
            kind = self.kind
        else:
            kind = Kind.UNKNOWN
        return _value(kind, self.array and other.array, self.boolean and other.boolean)


UNKNOWN = Value(Kind.UNKNOWN)
STATIC = Value(Kind.STATIC)
TRACED = Value(Kind.TRACED)
TRACED_ARRAY = Value(Kind.TRACED, array=True)
# A concrete JAX array: created outside any abstract trace.
CONCRETE_ARRAY = Value(Kind.UNKNOWN, array=True)
TRACED_MASK = Value(Kind.TRACED, array=True, boolean=True)

_INTERNED = {(v.kind, v.array, v.boolean): v
             for v in (UNKNOWN, STATIC, TRACED, TRACED_ARRAY, CONCRETE_ARRAY, TRACED_MASK)}


def _value(kind: Kind, array: bool, boolean: bool = False) -> Value:
    return _INTERNED.get((kind, array, boolean)) or Value(kind, array, boolean)


def join_all(values) -> Value:
    result = None
    for v in values:
        result = v if result is None else result.join(v)
    return result if result is not None else STATIC


def join_envs(a: dict[str, Value], b: dict[str, Value]) -> dict[str, Value]:
    out = dict(a)
    for name, v in b.items():
        old = out.get(name)
        out[name] = v if old is None else old.join(v)
    return out
