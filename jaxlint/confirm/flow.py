"""Where the numbers of the program's draws go, while it runs (for JAX501-JAX503).

Two draws with one key give the same numbers; that is a bug only where both sets of numbers
reach one result the program uses. So each concrete array a draw returns is labelled with the
draw, and every operation the program runs labels its outputs with the union of its inputs'
labels:
- eager `jnp` calls and the program's jitted calls, through `pjit._run_python_pjit` (the C++
  fast path that skips Python is turned off while a file is watched: its cache would hide the
  calls after the first);
- primitives bound on concrete values (`x[i]`, `jnp.stack`, the inside of `vmap`, everything
  under `jax.disable_jit()`), through `core.Primitive.bind`.
A jitted call labels all its outputs with all its inputs' labels (its inside is not followed).
The program *uses* a value when it reads it back to Python (print, format, float, .item(),
np.asarray, a plot, a file): every such read goes through the array's `_value`, where the
labels read are kept with the target file's lines on the stack.
"""

from __future__ import annotations

import os
import sys
from typing import Iterable, Optional

_LIMIT = 200_000  # labelled arrays kept alive at most (ids must not be reused while labelled)


class Flow:
    def __init__(self) -> None:
        self.on = self.enabled = False
        self.numpy: dict = {}  # name -> (NumPy's function, the one that sees reads)
        self.path: Optional[str] = None
        self.labels: dict[int, tuple] = {}  # id(array) -> (array, frozenset of draw ids)
        self.reads: list[tuple[frozenset, list[int], int]] = []  # labels read, target lines, ops before
        self.met: dict[frozenset, list[int]] = {}  # label pairs first combined, where
        self.full = False
        self._quiet = 0
        self._ops = 0  # operations seen: two reads with none between them are one statement's
        # The worker's draw counter: a draw record -> its label, or None when not followed.
        self.claim = None

    def reset(self, path: Optional[str], enabled: bool) -> None:
        """A new file: follow its draws (once one is made) when `enabled`."""
        self.on, self.enabled, self.path = False, enabled, path
        self.labels, self.reads, self.met, self.full, self._ops = {}, [], {}, False, 0

    def start(self) -> None:
        """Follow from now on. JAX's C++ dispatch skips Python for calls it has seen: its
        caches are emptied (the compiled code stays: nothing recompiles) and, while on,
        not refilled. Dispatch through Python costs ~30x per eager op, so it starts at the
        first draw, not at the import."""
        if self.on or not self.enabled:
            return
        from jax._src import pjit
        from jax._src.lib import _jax

        pjit._cpp_pjit_cache_fun_only.clear()
        pjit._cpp_pjit_cache_explicit_attributes.clear()
        _jax.PjitFunctionCache.clear_all()
        self.on = True
        self._swap(1)

    def stop(self) -> None:
        if self.on:
            self._swap(0)
        self.on = False

    def _swap(self, which: int) -> None:
        import numpy as np

        for name, pair in self.numpy.items():
            setattr(np, name, pair[which])

    # ------------------------------------------------------------------ labels
    def of(self, values: Iterable) -> frozenset:
        out: frozenset = frozenset()
        for v in values:
            got = self.labels.get(id(v))
            if got is not None and got[0] is v:
                out = out | got[1]
        return out

    def mark(self, values: Iterable, labels: frozenset) -> None:
        import jax

        if not labels:
            return
        for v in values:
            if not isinstance(v, jax.Array) or isinstance(v, jax.core.Tracer):
                continue
            if len(self.labels) >= _LIMIT:
                self.full = True
                return
            got = self.labels.get(id(v))
            old = got[1] if got is not None and got[0] is v else frozenset()
            self.labels[id(v)] = (v, old | labels)

    def propagate(self, inputs: Iterable, outputs: Iterable, name: str = "") -> None:
        self._ops += 1
        inputs = list(inputs)
        if name in _PRODUCTS and any(_zero(v) and not self.of((v,)) for v in inputs):
            return  # `draw * 0.`: the draw's numbers are gone from the product
        labels = self.of(inputs)
        if not labels:
            return
        if len(labels) > 1 and labels not in self.met:
            self.met[labels] = self.lines()
        self.mark(outputs, labels)

    def read(self, array) -> None:
        if self._quiet:
            return
        labels = self.of((array,))
        if labels:
            lines = self.lines()
            if lines and len(self.reads) < 10_000:
                self.reads.append((labels, lines, self._ops))

    def quiet(self):
        """Reads jaxlint makes itself (the draws' first numbers) are not the program's."""
        flow = self

        class _Quiet:
            def __enter__(self):
                flow._quiet += 1

            def __exit__(self, *exc):
                flow._quiet -= 1

        return _Quiet()

    def lines(self) -> list[int]:
        """The target file's lines on the stack, innermost first."""
        frame, lines = sys._getframe(1), []
        while frame is not None:
            if os.path.realpath(frame.f_code.co_filename) == self.path:
                lines.append(frame.f_lineno)
            frame = frame.f_back
        return lines

    # ------------------------------------------------------------------ answers
    def read_together(self, a: int, b: int) -> Optional[list[int]]:
        """The target lines of the first read of a value made from both draws, or None."""
        for labels, lines, _ in self.reads:
            if a in labels and b in labels:
                return lines
        # One statement reading each draw's numbers in turn, `print(x, y)`: the same lines,
        # no operation between (a loop's next pass at the same line computes first).
        for (first, lines, ops), (second, next_lines, next_ops) in zip(self.reads, self.reads[1:]):
            if lines == next_lines and ops == next_ops and a in first | second and b in first | second:
                return lines
        return None

    def met_at(self, a: int, b: int) -> Optional[list[int]]:
        for labels, lines in self.met.items():
            if a in labels and b in labels:
                return lines
        return None

    def label_compiled_draws(self, inside: list, before: list, outputs) -> None:
        """After a jitted call of the program: the draws its computation made (recorded by
        their callbacks as it ran) label the outputs that their numbers reach in its jaxpr."""
        import jax

        if self.claim is None:
            return
        try:
            jax.block_until_ready(outputs)
            jax.effects_barrier()  # the draws' callbacks have run
        except Exception:  # noqa: BLE001 - the program's computation failed; its error shows
            return
        outputs = list(outputs)
        for (site, reach), n in zip(inside, before):
            for draw in site["records"][n:]:
                label = self.claim(draw)
                if label is not None and reach:
                    self.mark([outputs[k] for k in reach if k < len(outputs)], frozenset({label}))

    def together(self, values, a: int, b: int) -> bool:
        """Both draws' numbers are in `values` (a result the recipe got back)."""
        import jax

        leaves = jax.tree_util.tree_leaves(values)
        labels = self.of(leaves)
        return a in labels and b in labels


FLOW = Flow()

_PRODUCTS = ("mul", "multiply")


def _zero(value) -> bool:
    """A concrete operand that is all zeros (a Python 0, a NumPy or JAX array of zeros)."""
    import jax
    import numpy as np

    if isinstance(value, (bool, int, float, complex)):
        return value == 0
    try:
        if getattr(value, "size", 2**31) > 4096 or isinstance(value, jax.core.Tracer):
            return False
        with FLOW.quiet():
            return bool(np.all(np.asarray(value) == 0))
    except Exception:  # noqa: BLE001 - a key, an abstract value
        return False


# Primitives that only view a value (the worker's `x.ravel()[:8]` of a draw's numbers).
_VIEWS = ("reshape", "slice", "squeeze", "convert_element_type", "copy", "copy_p",
          "random_unwrap")
_REACH: dict = {}  # id(jaxpr) -> (jaxpr, [(draw site, output positions its numbers reach)])


def compiled_draws(closed) -> list:
    """The draws a jitted computation makes (the callbacks the worker binds at each traced
    draw, tagged `_jaxlint_site`), each with the positions of the jaxpr's outputs that depend
    on the drawn numbers: forward from the draw's result through every later equation (an
    equation with such an input makes all its outputs depend on it; a nested jaxpr whose
    outputs do not line up with its equation's is given no reach). Cached per jaxpr."""
    jaxpr = getattr(closed, "jaxpr", None)
    if jaxpr is None:
        return []
    got = _REACH.get(id(jaxpr))
    if got is not None and got[0] is jaxpr:
        return got[1]
    try:
        found = _draws_in(jaxpr)
    except Exception:  # noqa: BLE001 - an equation shape not foreseen: follow nothing
        found = []
    if len(_REACH) > 4096:
        _REACH.clear()
    _REACH[id(jaxpr)] = (jaxpr, found)
    return found


def _draws_in(jaxpr) -> list:
    from jax._src import core

    producer = {v: e for e in jaxpr.eqns for v in e.outvars}
    found = []
    for i, eqn in enumerate(jaxpr.eqns):
        if eqn.primitive.name == "debug_callback":
            site = _site_of(eqn.params.get("callback"))
            if site is None or len(eqn.invars) < 2 or not isinstance(eqn.invars[1], core.Var):
                continue
            source = eqn.invars[1]  # the draw's first numbers: back through the views taken
            while source in producer and producer[source].primitive.name in _VIEWS \
                    and isinstance(producer[source].invars[0], core.Var):
                source = producer[source].invars[0]
            found.append((site, _forward(jaxpr, {source})))
            continue
        for sub in _subjaxprs(eqn):
            for site, reach in _draws_in(sub):
                if len(sub.outvars) == len(eqn.outvars):
                    start = {eqn.outvars[k] for k in reach}
                    found.append((site, _forward(jaxpr, start) if start else ()))
                else:
                    found.append((site, ()))
    return found


def _forward(jaxpr, start: set) -> tuple:
    from jax._src import core

    dep = set(start)
    for eqn in jaxpr.eqns:
        if any(isinstance(v, core.Var) and v in dep for v in eqn.invars):
            dep.update(eqn.outvars)
    return tuple(k for k, v in enumerate(jaxpr.outvars) if isinstance(v, core.Var) and v in dep)


def _subjaxprs(eqn):
    for value in eqn.params.values():
        for item in value if isinstance(value, (tuple, list)) else (value,):
            inner = getattr(item, "jaxpr", item)
            if hasattr(inner, "eqns") and hasattr(inner, "outvars"):
                yield inner


def _site_of(callback) -> Optional[dict]:
    """The worker's tag on its draw callback, inside jax.debug.callback's wrapper."""
    for cell in getattr(callback, "__closure__", None) or ():
        try:
            site = getattr(cell.cell_contents, "_jaxlint_site", None)
        except ValueError:  # an empty cell
            continue
        if site is not None:
            return site
    return None


def install(jax) -> None:
    """Patch, once, in the worker before its forks; idle until `FLOW.start()`."""
    from jax._src import core, pjit

    fastpath = pjit._get_fastpath_data

    def get_fastpath_data(*args, **kwargs):
        return None if FLOW.on else fastpath(*args, **kwargs)

    pjit._get_fastpath_data = get_fastpath_data

    run_python = pjit._run_python_pjit

    def run_python_pjit(p, args_flat, fun, args, kwargs):
        inside = compiled_draws(p.params.get("jaxpr")) if FLOW.on else []
        before = [len(site["records"]) for site, _ in inside]
        out = run_python(p, args_flat, fun, args, kwargs)
        if FLOW.on and FLOW.labels:
            consts = list(out[-1] or []) + list(getattr(p.params.get("jaxpr"), "consts", ()) or [])
            FLOW.propagate(list(args_flat) + consts, out[1], getattr(fun, "__name__", ""))
        if inside:
            FLOW.label_compiled_draws(inside, before, out[1])
        return out

    pjit._run_python_pjit = run_python_pjit

    bind = core.Primitive.bind

    def primitive_bind(self, *args, **params):
        out = bind(self, *args, **params)
        if FLOW.on and FLOW.labels:
            jaxpr = params.get("jaxpr")
            consts = list(getattr(jaxpr, "consts", ()) or [])
            FLOW.propagate(list(args) + consts, out if self.multiple_results else (out,),
                           self.name)
        return out

    core.Primitive.bind = primitive_bind

    impl = _array_type(jax)
    value = impl.__dict__["_value"]

    def _value(self):
        if FLOW.on and FLOW.labels:
            FLOW.read(self)
        return value.__get__(self, impl)

    setattr(impl, "_value", property(_value))
    # np.asarray / np.array do not go through `_value`.
    to_numpy = impl.__dict__["__array__"]

    def __array__(self, *args, **kwargs):
        if FLOW.on and FLOW.labels:
            FLOW.read(self)
        return to_numpy(self, *args, **kwargs)

    setattr(impl, "__array__", __array__)
    # Unpacking (`key, sub = jax.random.split(key)`) goes around the primitives.
    key_array = _key_array_type()
    for cls in (impl, key_array):
        if cls is not None:
            _follow_iter(cls)
    # ... nor does NumPy's C code, which takes the buffer: the module's functions are watched.
    import numpy as np

    # Swapped in only while following (start/stop): NumPy stays itself for everything else
    # (numba, for one, compiles only the real functions).
    FLOW.numpy = {name: (getattr(np, name), _reading(getattr(np, name), impl))
                  for name in ("asarray", "array", "asanyarray", "ascontiguousarray")}


def _key_array_type():
    """The class of new-style keys (its module moved between versions), or None."""
    import importlib

    for name in ("jax._src.random.prng", "jax._src.prng"):
        try:
            return importlib.import_module(name).PRNGKeyArray
        except (ImportError, AttributeError):
            continue
    return None


def _follow_iter(cls) -> None:
    iterate = cls.__iter__

    def __iter__(self):
        labels = FLOW.of((self,)) if FLOW.on and FLOW.labels else frozenset()
        for item in iterate(self):
            if labels:
                FLOW.mark((item,), labels)
            yield item

    cls.__iter__ = __iter__


def _reading(convert, impl):
    def to_numpy(a, *args, **kwargs):
        if FLOW.on and FLOW.labels and type(a) is impl:
            FLOW.read(a)
        return convert(a, *args, **kwargs)

    to_numpy.__wrapped__ = convert
    to_numpy.__name__ = convert.__name__
    to_numpy.__doc__ = convert.__doc__
    return to_numpy


def _array_type(jax):
    """jaxlib's ArrayImpl (the concrete jax.Array), without computing anything."""
    from jax._src import array

    return array.ArrayImpl
