"""Silent numerics (JAX701-JAX704): a NaN gradient, a 32-bit result where 64 bits were asked, an
out-of-bounds index that JAX clamps or drops, an integer literal that wraps. Each is read from
the values the program's own lines produced (jaxlint.confirm.verdicts.probe): nothing is
evaluated again.
"""

from __future__ import annotations

import ast
import dataclasses
from typing import Any, ClassVar, Optional

import jax
import numpy as np

from jaxlint.jax_api import X64_DTYPE_STRINGS, X64_DTYPES

from jaxlint.confirm.verdicts.base import (COULD_NOT_RUN, CONFIRMED, NOT_REPRODUCED, Evidence,
                                           Job, Verdict, short, verdict)
from jaxlint.confirm.verdicts.probe import MISSING, Hit, probe_hits, statement


@dataclasses.dataclass
class NumericsEvidence(Evidence):
    """A value the flagged line (or a line using the flagged function) produced."""

    kind: ClassVar[str] = "numerics"
    line: int = 0
    name: str = ""  # the name that holds it, or "return value"
    value: str = ""
    dtype: str = ""
    expected: str = ""  # what the code asked for: "float64", "index 5 < 3", "2**40"
    runs: int = 0

    def text(self) -> str:
        held = f"{self.name} = {self.value}" if self.name else self.value
        return f"line {self.line} ran {self.runs} time(s); {held} ({self.dtype}); " \
               f"the code asked for {self.expected}" + (f"; {self.note}" if self.note else "")


def _assigned(stmt: Optional[ast.stmt]) -> list[str]:
    if isinstance(stmt, ast.Assign):
        return [t.id for t in stmt.targets if isinstance(t, ast.Name)]
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
        return [stmt.target.id]
    return []


def _produced(hit: Hit, names: list[str]) -> list[tuple[str, Any]]:
    """(name, value) the line produced: the names it assigned, else what it returned."""
    out = [(n, hit.after[n]) for n in names if hit.after.get(n, MISSING) is not MISSING]
    if not out and hit.returned is not None:
        out.append(("return value", hit.returned))
    return out


def _dtype(value) -> str:
    leaves = jax.tree_util.tree_leaves(value)
    return ", ".join(sorted({str(getattr(x, "dtype", type(x).__name__)) for x in leaves})) or "?"


def _wide(stmt: ast.stmt) -> list[str]:
    """The 64-bit dtypes the statement asks for (`jnp.float64`, `jnp.float_`, "f8")."""
    out = []
    for node in ast.walk(stmt):
        if isinstance(node, ast.Attribute) and node.attr in X64_DTYPES:
            out.append(X64_DTYPES[node.attr])
        elif isinstance(node, ast.Name) and node.id in X64_DTYPES and node.id != "uint":
            out.append(X64_DTYPES[node.id])
        elif isinstance(node, ast.Constant) and node.value in X64_DTYPE_STRINGS:
            out.append(X64_DTYPE_STRINGS[node.value])
    return out


def confirm_float64(job: Job) -> Verdict:
    stmt = statement(job.path, job.line)
    wanted = _wide(stmt) if stmt is not None else []
    if not wanted and job.confirm.get("clock"):
        return confirm_clock(job)
    if not wanted:
        return verdict(COULD_NOT_RUN, "the line names no 64-bit dtype")
    if all(np.issubdtype(np.dtype(w), np.integer) for w in wanted):
        # An int64 request whose values int32 holds gives the same numbers: only a value
        # outside int32 (the 32-bit result then differs from what 64 bits hold) is the bug.
        result = confirm_wrapped_integer(job)
        if result.verdict == COULD_NOT_RUN and result.summary == "the line has no integer literal":
            return verdict(NOT_REPRODUCED, f"line {job.line} names no value outside int32",
                           NumericsEvidence(line=job.line, expected=wanted[0],
                                            note="no integer literal on the line needs 64 bits"))
        return result
    hits = probe_hits(job)
    if not hits:
        return verdict(COULD_NOT_RUN, f"line {job.line} never ran")
    if jax.config.jax_enable_x64:
        return verdict(NOT_REPRODUCED, "jax_enable_x64 was on when the line ran",
                       NumericsEvidence(line=job.line, runs=len(hits), expected=wanted[0]))
    for name, value in _produced(hits[-1], _assigned(stmt)):
        dtypes = _dtype(value)
        if any(d in dtypes for d in ("float32", "int32", "uint32", "complex64")) \
                and not any(w in dtypes for w in ("64", "128")):
            return verdict(CONFIRMED, f"{name} is {dtypes}, not {wanted[0]}",
                           NumericsEvidence(line=job.line, name=name, value=short(value),
                                            dtype=dtypes, expected=wanted[0], runs=len(hits)))
        return verdict(NOT_REPRODUCED, f"{name} is {dtypes}",
                       NumericsEvidence(line=job.line, name=name, value=short(value), dtype=dtypes,
                                        expected=wanted[0], runs=len(hits)))
    return verdict(COULD_NOT_RUN, f"line {job.line} ran, but its value is bound to no name",
                   f"the value line {job.line} made is not assigned or returned, so it cannot be read")


# A clock reading is a time in seconds: float32 losing more than this of it loses the time.
_CLOCK_RESOLUTION = 1e-3


def confirm_clock(job: Job) -> Verdict:
    """`since(time.time(), t0)`: the program's jitted calls on the line, the Python floats
    it passed them (a clock reading is a float64 of about 1.8e9) and what they returned.
    Confirmed when a float the call got is one that float32 holds only to more than a
    millisecond and the result is 32-bit: the seconds the program computed with are lost."""
    clock, callee = job.confirm.get("clock"), job.confirm.get("callee") or "the jitted function"
    hits = probe_hits(job)
    if not hits:
        return verdict(COULD_NOT_RUN, f"line {job.line} never ran")
    calls = [c for hit in hits for c in hit.floats]
    if not calls:
        return verdict(COULD_NOT_RUN, f"line {job.line} ran, but made no call of a jitted "
                                      f"function of the file",
                       f"line {job.line} ran {len(hits)} time(s)")
    seen = []
    for given, out in calls:
        dtypes = _dtype(out)
        for x in given:
            held = float(np.float32(x))
            seen.append(f"{x!r} -> {dtypes}")
            if abs(x - held) > _CLOCK_RESOLUTION and "float32" in dtypes and "64" not in dtypes:
                return verdict(CONFIRMED, f"{callee} got the Python float {x!r} from {clock}() "
                                          f"and returned {dtypes}",
                               NumericsEvidence(
                                   line=job.line, name=f"{callee}(...)", value=short(out),
                                   dtype=dtypes, expected="float64 (a Python float)", runs=len(hits),
                                   note=f"float32 holds {x!r} as {held!r}: {abs(x - held):.3f} s off "
                                        f"(x64 off)"))
    return verdict(NOT_REPRODUCED, f"the jitted calls on line {job.line} got no float that "
                                   f"float32 rounds by more than {_CLOCK_RESOLUTION} s",
                   NumericsEvidence(line=job.line, name=f"{callee}(...)", runs=len(hits),
                                    expected="float64 (a Python float)",
                                    note="; ".join(seen[:3]) or "no Python float argument"))


def _int_constant(node: ast.AST) -> Optional[int]:
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        v = _int_constant(node.operand)
        return -v if v is not None else None
    if isinstance(node, ast.BinOp):
        a, b = _int_constant(node.left), _int_constant(node.right)
        if a is None or b is None:
            return None
        try:
            if isinstance(node.op, ast.Pow) and 0 <= b < 256:
                return a ** b
            if isinstance(node.op, ast.LShift) and 0 <= b < 256:
                return a << b
            if isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
                return {ast.Add: a + b, ast.Sub: a - b, ast.Mult: a * b}[type(node.op)]
        except (OverflowError, ValueError):
            return None
    return None


def confirm_wrapped_integer(job: Job) -> Verdict:
    stmt = statement(job.path, job.line)
    literals = {v for n in ast.walk(stmt) if (v := _int_constant(n)) is not None} \
        if stmt is not None else set()
    if not literals:
        return verdict(COULD_NOT_RUN, "the line has no integer literal")
    hits = probe_hits(job)
    if not hits:
        return verdict(COULD_NOT_RUN, f"line {job.line} never ran")
    for name, value in _produced(hits[-1], _assigned(stmt)):
        leaves = jax.tree_util.tree_leaves(value)
        if any(isinstance(x, jax.core.Tracer) for x in leaves):
            continue
        arrays = [np.asarray(x) for x in leaves if hasattr(x, "dtype")
                  and np.issubdtype(np.asarray(x).dtype, np.integer)]
        if not arrays:
            continue
        info = np.iinfo(arrays[0].dtype)
        # A literal the result's dtype cannot hold: it wrapped if the result lacks it.
        outside = sorted((v for v in literals if not info.min <= v <= info.max), key=abs)
        record = NumericsEvidence(line=job.line, name=name, value=short(value), dtype=_dtype(value),
                                  runs=len(hits))
        if not outside:
            record.expected = "values within the dtype's range"
            return verdict(NOT_REPRODUCED, f"every literal fits {arrays[0].dtype}", record)
        big = outside[-1]
        record.expected = f"the value {big}"
        values = np.concatenate([x.ravel() for x in arrays])
        if values.size and not np.any(values.astype(object) == big):
            return verdict(CONFIRMED, f"{big} became {values[0]} ({arrays[0].dtype})", record)
        return verdict(NOT_REPRODUCED, f"{name} holds {big}", record)
    return verdict(COULD_NOT_RUN, f"line {job.line} ran, but its value could not be read",
                   "the value is not assigned to a name (or it is a tracer under jit)")


_NUMPY_ROOTS = ("jnp", "np", "numpy", "jax")


def _constructed(node: ast.AST) -> Optional[str]:
    """`jnp.arange(10)`, `np.ones((3, 4))`: a NumPy / jax.numpy call of constants only, whose
    shape jax.eval_shape reads without computing or running anything else."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return None
    root = node.func
    while isinstance(root, ast.Attribute):
        root = root.value
    if not isinstance(root, ast.Name) or root.id not in _NUMPY_ROOTS:
        return None
    for arg in [*node.args, *(k.value for k in node.keywords)]:
        try:
            ast.literal_eval(arg)
        except ValueError:
            if not isinstance(arg, ast.Attribute):  # a dtype: jnp.float32
                return None
    return ast.unparse(node)


_INDEX_ARRAYS = ("array", "asarray")


def _indices(node: ast.AST) -> Optional[list[int]]:
    """The literal indices of an index: `5`, `-1`, or an index array of literals
    (`np.array([13])`, `jnp.asarray((0, 4))`), which JAX clamps or fills per element."""
    idx = _int_constant(node)
    if idx is not None:
        return [idx]
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute) \
            or node.func.attr not in _INDEX_ARRAYS or len(node.args) != 1 or node.keywords:
        return None
    root = node.func.value
    if not isinstance(root, ast.Name) or root.id not in _NUMPY_ROOTS:
        return None
    try:
        value = ast.literal_eval(node.args[0])
    except ValueError:
        return None
    flat = list(np.ravel(np.asarray(value, dtype=object)))
    if not flat or not all(isinstance(v, int) and not isinstance(v, bool) for v in flat):
        return None
    return [int(v) for v in flat]


@dataclasses.dataclass
class _Index:
    """`x[i]`, `x.at[i]`, `jnp.take(x, i, axis=a)`, `x.take(i, axis=a)`: the array's name (or the
    source of an array a constructor of constants makes in place, or None for another
    expression), its literal indices, and the axis they index (None: the flattened array, as
    `take` without `axis` reads it)."""

    array: Optional[str]
    indices: list[int]
    how: str
    axis: Optional[int] = 0


def _take(node: ast.Call) -> Optional[_Index]:
    func = node.func
    if not isinstance(func, ast.Attribute) or func.attr != "take":
        return None
    keywords = {k.arg: k.value for k in node.keywords}
    root = func.value
    while isinstance(root, ast.Attribute):
        root = root.value
    if isinstance(root, ast.Name) and root.id in _NUMPY_ROOTS:
        args = node.args  # jnp.take(x, i, axis), jax.numpy.take(...)
        how = "take(x, i)"
    else:
        args = [func.value, *node.args]  # x.take(i, axis)
        how = "x.take(i)"
    if len(args) < 2 or not isinstance(args[0], ast.Name):
        return None
    indices = _indices(args[1])
    axis_node = args[2] if len(args) > 2 else keywords.get("axis")
    axis = None
    if axis_node is not None and not (isinstance(axis_node, ast.Constant) and axis_node.value is None):
        axis = _int_constant(axis_node)
        if axis is None:
            return None  # an axis the code computes: which size bounds the index is unknown
    if indices is None:
        return None
    return _Index(args[0].id, indices, how + (f" along axis {axis}" if axis is not None else
                                              " of the flattened array"), axis)


def _index_of(stmt: ast.stmt) -> Optional[_Index]:
    """The first constant index the statement makes: of a name, else of an array made in place
    by a constructor of constants (`jnp.arange(10)[11]`, array None for another expression
    no frame holds)."""
    unnamed = None
    for comp in ast.walk(stmt):
        if isinstance(comp, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            return None  # its names are the comprehension's own: not readable from the frame
    for node in ast.walk(stmt):
        if isinstance(node, ast.Call) and any(k.arg == "mode" for k in node.keywords):
            return None  # `mode=` says what an out-of-bounds index gives: chosen, not silent
        if isinstance(node, ast.Subscript):
            base = node.value
            how = "x[i]"
            if isinstance(base, ast.Attribute) and base.attr == "at":
                base, how = base.value, "x.at[i]"
            indices = _indices(node.slice)
            if isinstance(base, ast.Name) and indices is not None:
                return _Index(base.id, indices, how)
            if indices is not None and unnamed is None:
                unnamed = _Index(_constructed(base), indices, how)
        if isinstance(node, ast.Call):
            taken = _take(node)
            if taken is not None:
                return taken
    return unnamed


def confirm_clamped_index(job: Job) -> Verdict:
    stmt = statement(job.path, job.line)
    found = _index_of(stmt) if stmt is not None else None
    if found is None:
        return verdict(NOT_REPRODUCED, "no silent constant index at the line",
                       NumericsEvidence(line=job.line, note="the line indexes no array by a "
                                        "constant or an index array of literals (or says its "
                                        "`mode=`, or indexes a comprehension's own name)"))
    name, how = found.array, found.how
    shown_idx = found.indices[0] if len(found.indices) == 1 else found.indices
    if name is None:
        return verdict(COULD_NOT_RUN, "the indexed array is an expression",
                       f"line {job.line} indexes an array it computes in place ({how} with i = "
                       f"{shown_idx}); no name holds it, so its size cannot be read from the run")
    hits = probe_hits(job)
    if not hits:
        return verdict(COULD_NOT_RUN, f"line {job.line} never ran")
    hit = hits[-1]
    array = hit.before.get(name, MISSING)
    if not name.isidentifier():
        # Made in place from constants: its shape, read abstractly (nothing computes or runs).
        try:
            array = jax.eval_shape(lambda: eval(name, vars(job.module)))  # noqa: S307
        except Exception:  # noqa: BLE001 - the module lacks the name it was built with
            array = MISSING
    shape = getattr(array, "shape", None)
    if not shape:
        return verdict(COULD_NOT_RUN, f"`{name}` held no array when line {job.line} ran")
    if found.axis is None:
        size, where = int(np.prod(shape)), "elements"
    elif -len(shape) <= found.axis < len(shape):
        size, where = shape[found.axis], "elements" if len(shape) == 1 else f"entries of axis {found.axis}"
    else:
        return verdict(NOT_REPRODUCED, f"{name} has no axis {found.axis}")
    produced = _produced(hit, _assigned(stmt))
    shown = f"{produced[0][0]} = {short(produced[0][1])}" if produced else ""
    record = NumericsEvidence(line=job.line, name=name, value=f"shape {tuple(shape)}",
                              dtype=_dtype(array), expected=f"{how} with i = {shown_idx}",
                              runs=len(hits), note=shown)
    if hit.raised:
        return verdict(NOT_REPRODUCED, f"line {job.line} raised", record)
    outside = [i for i in found.indices if not -size <= i < size]
    if not outside:
        return verdict(NOT_REPRODUCED, f"index {shown_idx} is within {name}'s {size} {where}",
                       record)
    record.note = "no IndexError: JAX clamped, dropped or filled it" + (f"; {shown}" if shown else "")
    return verdict(CONFIRMED, f"index {outside[0]} on {size} {where} ran without error", record)


def _has_nan(value) -> bool:
    leaves = [np.asarray(x) for x in jax.tree_util.tree_leaves(value)
              if hasattr(x, "dtype") and not isinstance(x, jax.core.Tracer)]
    return any(np.isnan(x).any() for x in leaves if np.issubdtype(x.dtype, np.inexact))


def confirm_nan_gradient(job: Job) -> Verdict:
    """The flagged `where` ran, and a statement that calls the differentiated function got a
    NaN: the program's own gradient."""
    linked = (job.state.get("linked") or {}).get(job.f.get("_index")) or []
    ran = job.state["import_watch"].ran(job.line, job.end_line, job.key)
    for probe in linked:
        for hit in probe.hits:
            for name, value in _produced(hit, [n for n in probe.names if n in hit.after]):
                if name in probe.names and hit.before.get(name) is value:
                    continue  # unchanged by the statement: not its result
                leaves = [x for x in jax.tree_util.tree_leaves(value)
                          if hasattr(x, "dtype") and not isinstance(x, jax.core.Tracer)]
                if any(np.isnan(np.asarray(x)).any() for x in leaves
                       if np.issubdtype(np.asarray(x).dtype, np.inexact)):
                    if not ran:
                        continue
                    return verdict(CONFIRMED, f"the gradient at line {probe.first} is NaN",
                                   NumericsEvidence(line=probe.first, name=name, value=short(value),
                                                    dtype=_dtype(value), expected="a finite gradient",
                                                    runs=len(probe.hits),
                                                    note=f"line {job.line} ran {ran} time(s) "
                                                         f"while it was computed"))
    # The program's own jax.grad calls (`print(jax.grad(energy)(xs))`: a value no statement
    # binds), those during which the flagged line ran.
    for g in job.state.get("gradients") or ():
        during = g.ran.get(job.f.get("_index"), 0)
        if during and _has_nan(g.out):
            return verdict(CONFIRMED, f"the gradient computed at line {g.line} is NaN",
                           NumericsEvidence(line=g.line, name="", value=short(g.out),
                                            dtype=_dtype(g.out), expected="a finite gradient",
                                            runs=1, note=f"line {job.line} ran {during} time(s) "
                                                         f"while it was computed"))
    if not ran:
        return verdict(COULD_NOT_RUN, f"line {job.line} never ran while the program ran",
                       "no statement of the program differentiated the function at import")
    return verdict(NOT_REPRODUCED, "no NaN in the program's gradients",
                   f"line {job.line} ran {ran} time(s); the statements using the function "
                   f"({', '.join(str(p.first) for p in linked) or 'none'}) got no NaN")
