"""The value lattice: what a value is at trace time, and whether it is traced.

A `Value` has two independent parts:

- `kind`: is it a tracer (or does it hold tracers), a static Python value, or
  unknown? `UNKNOWN` is what we claim when we do not know: a rule never reports
  an unknown value.
- `shape`: what sort of thing it is. A JAX array; a Python scalar, str or None;
  a container (dict, list, tuple, NamedTuple, dataclass, registered pytree node);
  a mutable box (an nnx Variable, a Pallas Ref); a static object (a module, a
  class, a function); a NumPy array (static: host data a trace reads as a
  constant); or unknown.

Joins are for paths that meet: a value that is traced on one path and static
(or unknown) on another is unknown, because the model has no definite evidence
that the code ever sees a tracer there.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Optional


class Kind(enum.IntEnum):
    UNKNOWN = 0
    STATIC = 1
    TRACED = 2


class Shape(enum.Enum):
    UNKNOWN = "unknown"
    ARRAY = "array"          # a JAX array, traced or concrete
    SCALAR = "scalar"        # a Python number, bool, str or None
    CONTAINER = "container"  # dict / list / tuple / NamedTuple / dataclass / pytree node
    BOX = "box"              # a mutable reference: nnx.Variable, a Pallas Ref
    OBJECT = "object"        # a module, class, function or other static object
    NUMPY = "numpy"          # a NumPy array: concrete data on the host


@dataclass(frozen=True, slots=True)
class Value:
    kind: Kind
    shape: Shape = Shape.UNKNOWN
    # Known to be a boolean array (a comparison, jnp.isnan, ...): a mask.
    boolean: bool = False
    # For containers: the class whose instance this is (a `ClassInfo`), if known.
    cls: Optional[object] = None
    # For containers: known entries, as ((key, Value), ...). Keys are str for dict
    # keys and fields, int for tuple / list positions.
    entries: Optional[tuple] = None

    @property
    def traced(self) -> bool:
        """A tracer, or a container holding tracers."""
        return self.kind is Kind.TRACED

    @property
    def static(self) -> bool:
        return self.kind is Kind.STATIC

    @property
    def array(self) -> bool:
        """Known to be a JAX array (traced or concrete)."""
        return self.shape is Shape.ARRAY

    @property
    def tracer(self) -> bool:
        """Known to be a traced JAX array: Python operations on it hit the tracer."""
        return self.kind is Kind.TRACED and self.shape is Shape.ARRAY

    @property
    def maybe_tracer(self) -> bool:
        """Traced, and an array or a leaf of unknown sort (never a known container or box).

        Conversions that fail on every non-array too (`int(x)`, `range(x)`,
        `x > 0`) are errors on such a value whatever it turns out to be.
        """
        return self.kind is Kind.TRACED and self.shape in (Shape.ARRAY, Shape.UNKNOWN)

    def entry(self, key) -> Optional["Value"]:
        if self.entries is None:
            return None
        for k, v in self.entries:
            if k == key:
                return v
        return None

    def join(self, other: "Value") -> "Value":
        if self is other or self == other:
            return self
        kind = self.kind if self.kind is other.kind else Kind.UNKNOWN
        shape = self.shape if self.shape is other.shape else Shape.UNKNOWN
        cls = self.cls if self.cls is other.cls else None
        entries = None
        if self.entries is not None and other.entries is not None:
            keys = [k for k, _ in self.entries]
            if keys == [k for k, _ in other.entries]:
                entries = tuple((k, v.join(other.entry(k))) for k, v in self.entries)
        return make(kind, shape, self.boolean and other.boolean, cls, entries)


class _EveryItem:
    """The key of a sequence's entry that stands for each of its items (a list built by a
    comprehension): reading any position, or iterating, gives that value."""

    def __repr__(self) -> str:
        return "EVERY_ITEM"


EVERY_ITEM = _EveryItem()


def make(kind: Kind, shape: Shape = Shape.UNKNOWN, boolean: bool = False, cls=None,
         entries=None) -> Value:
    if cls is None and entries is None:
        found = _INTERNED.get((kind, shape, boolean))
        if found is not None:
            return found
    return Value(kind, shape, boolean, cls, entries)


def container(items, cls=None, entries=None) -> Value:
    """A container of these values: traced if one of them is, static if all are."""
    items = list(items)
    if any(v.traced for v in items):
        kind = Kind.TRACED
    elif all(v.static for v in items):
        kind = Kind.STATIC
    else:
        kind = Kind.UNKNOWN
    return make(kind, Shape.CONTAINER, cls=cls, entries=entries)


_INTERNED: dict = {}
for _k in Kind:
    for _s in Shape:
        for _b in (False, True):
            _INTERNED[(_k, _s, _b)] = Value(_k, _s, _b)


def _v(kind: Kind, shape: Shape = Shape.UNKNOWN, boolean: bool = False) -> Value:
    return _INTERNED[(kind, shape, boolean)]


UNKNOWN = _v(Kind.UNKNOWN)
STATIC = _v(Kind.STATIC)
TRACED = _v(Kind.TRACED)
TRACED_ARRAY = _v(Kind.TRACED, Shape.ARRAY)
TRACED_MASK = _v(Kind.TRACED, Shape.ARRAY, True)
# A concrete JAX array: created outside any abstract trace.
CONCRETE_ARRAY = _v(Kind.UNKNOWN, Shape.ARRAY)
SCALAR = _v(Kind.STATIC, Shape.SCALAR)
STATIC_OBJECT = _v(Kind.STATIC, Shape.OBJECT)
STATIC_CONTAINER = _v(Kind.STATIC, Shape.CONTAINER)
TRACED_BOX = _v(Kind.TRACED, Shape.BOX)
BOX = _v(Kind.UNKNOWN, Shape.BOX)
NUMPY_ARRAY = _v(Kind.STATIC, Shape.NUMPY)
# A NumPy boolean array (`np.ones(n, dtype=bool)`): a mask, concrete on the host.
NUMPY_MASK = _v(Kind.STATIC, Shape.NUMPY, True)


def join_all(values) -> Value:
    result = None
    for v in values:
        result = v if result is None else result.join(v)
    return result if result is not None else STATIC


def join_envs(a: dict[str, Value], b: dict[str, Value]) -> dict[str, Value]:
    """Where two paths meet. A name bound on one path only is unknown after."""
    out = {}
    for name, v in a.items():
        w = b.get(name)
        out[name] = v.join(w) if w is not None else UNKNOWN
    for name in b:
        if name not in out:
            out[name] = UNKNOWN
    return out


def join_loop(before: dict[str, Value], after: dict[str, Value]) -> dict[str, Value]:
    """After a loop: the loop may have run zero times or more."""
    return join_envs(before, after)
