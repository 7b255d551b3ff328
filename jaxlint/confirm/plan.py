"""What confirm mode knows before running anything: a plan per finding, from the static model.

Runs in the parent process (libcst, never jax). For the flagged function and each
function enclosing it, it lists the parameters with what the source says about them:
static or traced, a default, an annotation (jaxtyping dims), literal call sites in the
same module (`f(jnp.ones((3, 4)), 2)`), and whether the value is used as a size
(`range(n)`, `jnp.zeros(n)`), which needs an int32 rather than a float32.
The plan is plain JSON, handed to the worker.
"""

from __future__ import annotations

import math
import re
from typing import Any, Optional

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from jaxlint import jax_api, notebook
from jaxlint.engine import FileModel
from jaxlint.engine.functions import FunctionInfo
from jaxlint.engine.live_branches import constant_parameter
from jaxlint.engine.model import children
from jaxlint.source import parse_source, read_source

# Calls whose arguments are sizes: a traced value there must be an int32 to reach the line.
_SIZE_CALLS = frozenset({
    "builtins.range", "jax.numpy.zeros", "jax.numpy.ones", "jax.numpy.empty", "jax.numpy.full",
    "jax.numpy.arange", "jax.numpy.eye", "jax.numpy.reshape", "jax.numpy.tile", "jax.numpy.repeat",
    "numpy.zeros", "numpy.ones", "numpy.arange", "numpy.empty", "numpy.full",
    "jax.lax.fori_loop", "jax.lax.dynamic_slice",
})
_SIZE_METHODS = frozenset({"reshape", "repeat", "tile"})
# Array constructors at call sites: `jnp.ones((3, 4))` gives the shape (3, 4).
_SHAPE_CTORS = frozenset({
    "jax.numpy.ones", "jax.numpy.zeros", "jax.numpy.empty", "numpy.ones", "numpy.zeros",
    "numpy.empty", "jax.numpy.full", "numpy.full",
})
_RANDOM_CTORS = frozenset({"jax.random.normal", "jax.random.uniform", "numpy.random.randn",
                           "numpy.random.rand"})
_KEY_CTORS = frozenset({"jax.random.PRNGKey", "jax.random.key"})
# jaxtyping dtype prefixes.
_JAXTYPING = {"Float": "float32", "Float32": "float32", "Int": "int32", "Int32": "int32",
              "Integer": "int32", "Bool": "bool", "Shaped": "float32", "Num": "float32",
              "Real": "float32", "Inexact": "float32"}
# Attributes every array has: reading them says nothing about a pytree's fields.
_ARRAY_ATTRS = frozenset({"shape", "ndim", "dtype", "size", "T", "at", "real", "imag", "astype",
                          "reshape", "sum", "mean", "max", "min", "item", "tolist", "squeeze",
                          "transpose", "flatten", "ravel", "block_until_ready", "copy", "std",
                          "var", "argmax", "argmin", "clip", "round", "any", "all", "prod",
                          "cumsum", "dot", "conj", "sort", "nbytes", "itemsize", "devices",
                          "sharding", "addressable_shards", "weak_type", "aval"})
_KEY_NAME = re.compile(r"(^|_)(key|rng|prng)(s?$|_)|^(key|rng)", re.I)


def file_plans(path: str, findings, text: Optional[str] = None) -> dict[int, dict[str, Any]]:
    """A plan per finding (keyed by its index in `findings`), planned on `text` when given
    (stdin, a notebook's cells), else on the file. Raises ValueError when it cannot parse.

    Planned in a forked child, as files are linted: a parser crash, or a file over the
    time or memory limit, is a ValueError, not the end of the run."""
    from jaxlint import processes
    from jaxlint.config import DEFAULT_MEMORY_LIMIT
    from jaxlint.runner import FILE_TIMEOUT

    try:
        return processes.isolated(_file_plans, path, findings, text, timeout=FILE_TIMEOUT,
                                  memory=DEFAULT_MEMORY_LIMIT)
    except processes.IsolationFailed as exc:
        message = str(exc)
        if exc.raised:  # "ValueError: cannot parse ...": the planner's own error, as it was
            raise ValueError(message.partition(": ")[2] if message.startswith("ValueError: ") else message) \
                from None
        raise ValueError(f"cannot plan {path}: {message}") from None


def _file_plans(path: str, findings, text: Optional[str]) -> dict[int, dict[str, Any]]:
    if text is None:
        text = read_source(path)
    if not isinstance(text, str):
        raise ValueError(f"cannot read {path}: {getattr(text, 'message', text)}")
    module = parse_source(text, path)
    if not isinstance(module, cst.Module):
        raise ValueError(f"cannot parse {path}: {getattr(module, 'message', module)}")
    try:
        model = FileModel.build(module, path)
    except RecursionError:
        return {}
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    planner = _Planner(model, positions)
    if path.endswith(".ipynb") or notebook.script_cells(text) is not None:
        planner._main = []  # a kernel runs its cells as `__main__`: those blocks ran already
    return {i: planner.plan(f) for i, f in enumerate(findings)}


class _Planner:
    def __init__(self, model: FileModel, positions):
        self.model = model
        self.positions = positions
        self.by_name: dict[str, list[FunctionInfo]] = {}
        for info in model.functions:
            self.by_name.setdefault(info.qualname, []).append(info)
        self._calls: Optional[dict[FunctionInfo, list[cst.Call]]] = None
        self._assigns: Optional[list[cst.Assign]] = None
        self._pytree_cache: Optional[dict] = None
        self._main: Optional[list[tuple[int, int]]] = None

    def line(self, node) -> int:
        pos = self.positions.get(node)
        return pos.start.line if pos else 0

    def find(self, qualname: Optional[str], line: Optional[int]) -> Optional[FunctionInfo]:
        cands = self.by_name.get(qualname or "", [])
        for info in cands:
            if line is None or self.line(info.node) == line:
                return info
        return cands[0] if len(cands) == 1 else None

    def plan(self, finding) -> dict[str, Any]:
        info = self.find(finding.function, finding.function_line)
        chain = []
        while info is not None:
            chain.append(self.function_plan(info))
            info = info.enclosing
        return {"functions": chain}

    def function_plan(self, info: FunctionInfo) -> dict[str, Any]:
        static = set(info.static_params)
        for ctx in info.contexts.values():
            static |= ctx.static
            if ctx.arrays_only:
                # equinox.filter_jit traces arrays only: a parameter annotated int / float /
                # bool is a Python scalar there, static as the program's own transform keeps it.
                static |= {p for p, ann in info.annotations.items()
                           if self.model.qualname(ann) in jax_api.SCALAR_ANNOTATIONS}
        sizes = self.size_params(info)
        sites = self.call_site_args(info)
        params = []
        for name in info.positional + info.kwonly:
            p: dict[str, Any] = {"name": name, "static": name in static,
                                 "default": name in info.defaults, "size": name in sizes,
                                 "kwonly": name in info.kwonly}
            ann = info.annotations.get(name)
            if ann is not None:
                p.update(_annotation_spec(self.model, ann))
            if _KEY_NAME.search(name):
                p.setdefault("key", True)
            keys = self.pytree_keys(info, name, 3)
            if keys:
                p["keys"] = sorted(keys)
            attrs = self.attributes(info, name)
            if attrs:
                p["attrs"] = attrs
            items = self.item_keys(info, name)
            if items and not keys:
                p["items"] = sorted(items)
            if ann is not None:
                p["ann_text"] = self.model.module.code_for_node(ann)
            for site in sites.get(name, ()):
                p.setdefault("site", site)
            known, value = constant_parameter(self.model, info, name)
            if known:
                # Every trace the program makes gives it this Python constant: a traced
                # stand-in would trace code the program never traces (a dead `if` arm).
                p["static"] = True
                p["site"] = {"value": value}
                p["traced_value"] = value
            params.append(p)
        return {"qualname": info.qualname, "line": self.line(info.node),
                "is_method": info.is_method, "params": params, "calls": self.call_sites(info),
                "passed": self.passed_params(info),
                "jitted": any("jit" in c.transforms and c.via in ("decorator", "wrapper")
                              for c in info.contexts.values()),
                **_how_traced(info)}

    def _inside(self, node, info: FunctionInfo) -> bool:
        fi = self.model.function_of(node)
        while fi is not None and fi is not info:
            fi = fi.enclosing
        return fi is info

    def pytree_keys(self, info: FunctionInfo, name: str, depth: int) -> set[str]:
        """String keys a parameter is subscripted with (`params["w"]`), in the function, the
        functions nested in it, and the same-file functions it is passed to (also through
        `jax.grad(f)(params, ...)`): a dict of arrays with those keys can stand in for it."""
        if self._pytree_cache is None:
            self._pytree_cache = {}
        memo = (info, name)
        if memo in self._pytree_cache:
            return self._pytree_cache[memo]
        self._pytree_cache[memo] = set()  # recursion guard
        keys: set[str] = set()
        for sub in self.model.nodes(cst.Subscript):
            if isinstance(sub.value, cst.Name) and sub.value.value == name \
                    and len(sub.slice) == 1 and isinstance(sub.slice[0].slice, cst.Index) \
                    and isinstance(sub.slice[0].slice.value, cst.SimpleString) \
                    and self._inside(sub, info):
                keys.add(str(sub.slice[0].slice.value.evaluated_value))
        if depth > 0:
            for target, param in self._passed_to(info, name):
                keys |= self.pytree_keys(target, param, depth - 1)
        self._pytree_cache[memo] = keys
        return keys

    def _passed_to(self, info: FunctionInfo, name: str):
        """(function, parameter) for each same-file call in `info` that passes `name` on
        positionally (also through `jax.grad(f)(params, ...)`)."""
        for call in self.model.nodes(cst.Call):
            if not self._inside(call, info):
                continue
            func = call.func
            if isinstance(func, cst.Call) and func.args and \
                    (self.model.qualname(func.func) or "").startswith("jax."):
                func = func.args[0].value  # jax.grad(f)(params, ...)
            target = self.model.resolve_function(func) if isinstance(func, cst.Name) else None
            if target is None:
                continue
            for i, a in enumerate(call.args):
                if a.star or a.keyword is not None:
                    break
                if isinstance(a.value, cst.Name) and a.value.value == name \
                        and i < len(target.positional):
                    yield target, target.positional[i]

    def attributes(self, info: FunctionInfo, name: str) -> list[str]:
        """Attributes read from a parameter (`state.step`): a namedtuple with those fields
        (a pytree) can stand in for it. Array attributes (`x.shape`) do not count."""
        out: list[str] = []
        for node in self.model.nodes(cst.Attribute):
            if isinstance(node.value, cst.Name) and node.value.value == name \
                    and node.attr.value not in _ARRAY_ATTRS and node.attr.value not in out \
                    and self._inside(node, info):
                out.append(node.attr.value)
        return out

    def item_keys(self, info: FunctionInfo, name: str, depth: int = 3) -> set[str]:
        """`for layer in params: layer["w"]`: a list of dicts with those keys (also in the
        same-file functions the parameter is passed to)."""
        keys: set[str] = set()
        if depth > 0:
            for target, param in self._passed_to(info, name):
                if target is not info:
                    keys |= self.item_keys(target, param, depth - 1)
        for loop in self.model.nodes(cst.For):
            if isinstance(loop.iter, cst.Name) and loop.iter.value == name \
                    and isinstance(loop.target, cst.Name) and self._inside(loop, info):
                item = loop.target.value
                for sub in self.model.nodes(cst.Subscript):
                    if isinstance(sub.value, cst.Name) and sub.value.value == item \
                            and len(sub.slice) == 1 and isinstance(sub.slice[0].slice, cst.Index) \
                            and isinstance(sub.slice[0].slice.value, cst.SimpleString) \
                            and self._inside(sub, info):
                        keys.add(str(sub.slice[0].slice.value.evaluated_value))
        return keys

    def call_sites(self, info: FunctionInfo) -> list[dict[str, Any]]:
        """The module's own calls of the function (`step(params, batch)`), with the simple
        assignments before each call in the caller's scope (`params = init(key)`): the worker
        replays them to get the arguments the module itself passes."""
        if self._assigns is None:
            self._assigns = [n for n in self.model.nodes(cst.Assign)
                             if len(n.targets) == 1 and isinstance(n.targets[0].target, cst.Name)]
        out = []
        code = self.model.module.code_for_node
        for call in self.model.nodes(cst.Call):
            target = None
            if isinstance(call.func, cst.Name):
                target = self.model.resolve_function(call.func) or self._jit_alias(call.func)
            if target is not info or any(a.star for a in call.args):
                continue
            scope = self.model.function_of(call)
            if scope is info:
                continue  # a recursive call: its arguments are the function's own
            line = self.line(call)
            # Module-level code already ran at import, except `if __name__ == "__main__":`.
            setup = [code(n).strip() for n in self.model.nodes(cst.Assign)
                     if self.model.function_of(n) is scope and self.line(n) < line
                     and (scope is not None or self._in_main(n))]
            args = ", ".join(code(a.value) if a.keyword is None
                             else f"{a.keyword.value}={code(a.value)}" for a in call.args)
            out.append({"line": line, "setup": setup[-30:], "args": args})
            if len(out) == 3:
                break
        return out

    def _in_main(self, node) -> bool:
        if self._main is None:
            self._main = []
            for stmt in self.model.module.body:
                if isinstance(stmt, cst.If) and "__name__" in self.model.module.code_for_node(stmt.test):
                    pos = self.positions.get(stmt)
                    if pos:
                        self._main.append((pos.start.line, pos.end.line))
        at = self.line(node)
        return any(a <= at <= b for a, b in self._main)

    def size_params(self, info: FunctionInfo) -> set[str]:
        names = set(info.all_params)
        out: set[str] = set()
        for call in self.model.nodes(cst.Call):
            if self.model.function_of(call) is not info:
                continue
            q = self.model.qualname(call.func)
            method = call.func.attr.value if isinstance(call.func, cst.Attribute) else None
            if q in _SIZE_CALLS or method in _SIZE_METHODS:
                args = call.args if q != "jax.lax.fori_loop" else call.args[:2]
                for a in args:
                    out |= _bare_names(a.value) & names
        return out

    def _calls_of(self, info: FunctionInfo):
        """The same-module calls of the function: by its name, or a method by its attribute."""
        for call in self.model.nodes(cst.Call):
            target = None
            if isinstance(call.func, cst.Name):
                target = self.model.resolve_function(call.func)
                if target is None:
                    target = self._jit_alias(call.func)
            elif isinstance(call.func, cst.Attribute) and info.is_method \
                    and call.func.attr.value == info.name:
                target = info
            if target is info:
                yield call

    def passed_params(self, info: FunctionInfo) -> Optional[list[str]]:
        """The parameters some same-module call passes, or None when no call is seen or one
        passes `*args` / `**kwargs` (any parameter may be among them)."""
        params = info.positional[1:] if info.is_method else info.positional
        passed: set[str] = set()
        seen = False
        for call in self._calls_of(info):
            if self.model.function_of(call) is info:
                continue  # a recursive call passes what its caller passed
            seen = True
            pos = 0
            for a in call.args:
                if a.star:
                    return None
                if a.keyword is not None:
                    passed.add(a.keyword.value)
                elif pos < len(params):
                    passed.add(params[pos])
                    pos += 1
        return sorted(passed) if seen else None

    def call_site_args(self, info: FunctionInfo) -> dict[str, list[dict[str, Any]]]:
        """Literal arguments at same-module call sites, by parameter name."""
        out: dict[str, list[dict[str, Any]]] = {}
        params = info.positional[1:] if info.is_method else info.positional
        for call in self._calls_of(info):
            pos = 0
            for a in call.args:
                if a.star:
                    break
                name = a.keyword.value if a.keyword is not None else (
                    params[pos] if pos < len(params) else None)
                if a.keyword is None:
                    pos += 1
                if name is None:
                    continue
                value = a.value
                if isinstance(value, cst.Name):
                    value = self._assigned_before(call, value.value) or value
                spec = _literal_spec(self.model, value)
                if spec is not None:
                    out.setdefault(name, []).append(spec)
        return out

    def _assigned_before(self, call: cst.Call, name: str) -> Optional[cst.BaseExpression]:
        """`x = jnp.arange(16.0)` ... `f(x)`: the last plain assignment of `name` before the
        call, in the same function (or at module level, `if __name__ == "__main__":` included)."""
        if self._assigns is None:
            self._assigns = [n for n in self.model.nodes(cst.Assign)
                             if len(n.targets) == 1 and isinstance(n.targets[0].target, cst.Name)]
        scope = self.model.function_of(call)
        line = self.line(call)
        best = None
        for node in self._assigns:
            if node.targets[0].target.value != name or self.model.function_of(node) is not scope:
                continue
            at = self.line(node)
            if at < line and (best is None or at > best[0]):
                best = (at, node.value)
        return best[1] if best else None

    def _jit_alias(self, name: cst.Name) -> Optional[FunctionInfo]:
        """`f_jit = jax.jit(f)`, `f = jax.jit(f, static_argnums=1)`: a call of that name is a
        call of `f` with the same arguments (a transform that keeps them: jit, not vmap)."""
        binding = self.model.binding_in_effect(name)
        if binding is None:
            bindings = self.model.module_scope.lookup(name.value) or []
            binding = bindings[0] if len(bindings) == 1 else None
        node = getattr(binding, "node", None) if binding is not None else None
        value = getattr(node, "value", None)
        if isinstance(value, cst.Call) and value.args and value.args[0].keyword is None:
            transform = jax_api.TRANSFORMS.get(self.model.qualname(value.func) or "")
            inner = value.args[0].value
            if transform is not None and transform.name in _SAME_ARGUMENTS \
                    and isinstance(inner, cst.Name):
                return self.model.resolve_function(inner)
        return None


# Transforms whose result takes the wrapped function's own arguments.
_SAME_ARGUMENTS = ("jit", "filter_jit", "checkpoint")


def _how_traced(info: FunctionInfo) -> dict[str, Any]:
    """How the program traces the function, so that confirm traces it the same way:
    `abstract` (some transform makes abstract tracers: jit, vmap, scan...), `traced` (the
    parameters those transforms trace; an unmapped vmap argument is not among them), and
    `differentiates` (grad / jvp: concrete values under JVP tracers, never abstract ones),
    `cached` (one of them keeps a trace cache, as jit does; vmap alone does not)."""
    abstract = [c for c in info.contexts.values() if c.abstract]
    if not abstract:
        return {"abstract": False, "traced": None,
                "differentiates": any(c.differentiates for c in info.contexts.values())}
    traced: set[str] = set()
    for c in abstract:
        traced |= set(c.traced_params) if c.traced_params is not None else \
            {p for p in info.all_params if p not in c.static}
    # vmap alone keeps no trace cache: the function is traced again on every call.
    return {"abstract": True, "traced": sorted(traced),
            "differentiates": any(c.differentiates for c in abstract),
            "cached": any(c.cached for c in abstract)}


def _names(expr: cst.CSTNode) -> set[str]:
    out, stack = set(), [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name):
            out.add(node.value)
        elif isinstance(node, cst.Attribute):
            stack.append(node.value)
        else:
            stack.extend(children(node))
    return out


def _bare_names(expr: cst.CSTNode) -> set[str]:
    """Names used as values themselves: `n`, `n - 1`, not `x` in `x.shape[0]` or `xs[i]`."""
    out, stack = set(), [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name):
            out.add(node.value)
        elif not isinstance(node, (cst.Attribute, cst.Subscript, cst.Call)):
            stack.extend(children(node))
    return out


def _literal(expr: cst.BaseExpression) -> Any:
    """A JSON-able Python literal, or raises ValueError."""
    if isinstance(expr, (cst.Integer, cst.Float, cst.SimpleString)):
        return expr.evaluated_value
    if isinstance(expr, cst.Name) and expr.value in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[expr.value]
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        return -_literal(expr.expression)
    if isinstance(expr, (cst.Tuple, cst.List)):
        return [_literal(e.value) for e in expr.elements]
    raise ValueError


def _dtype_of(model, call: cst.Call, default: str) -> str:
    for a in call.args:
        if a.keyword is not None and a.keyword.value == "dtype":
            q = model.qualname(a.value) or ""
            return q.rsplit(".", 1)[-1] or default
    return default


def _literal_spec(model, expr: cst.BaseExpression) -> Optional[dict[str, Any]]:
    """What a call-site argument tells: a static literal, an array shape, a PRNG key."""
    try:
        value = _literal(expr)
        if isinstance(value, list):
            return {"value": value, "list": True}
        return {"value": value}
    except ValueError:
        pass
    if not isinstance(expr, cst.Call) or not expr.args:
        return None
    q = model.qualname(expr.func)
    try:
        if q in _SHAPE_CTORS:
            shape = _literal(expr.args[0].value)
            shape = shape if isinstance(shape, list) else [shape]
            # A NumPy buffer stays NumPy: JAX arrays and NumPy arrays differ (item assignment).
            return {"shape": shape, "dtype": _dtype_of(model, expr, "float32"),
                    "numpy": q.startswith("numpy.")}
        if q in _RANDOM_CTORS:
            if q.startswith("numpy"):
                return {"shape": [_literal(a.value) for a in expr.args], "dtype": "float32"}
            if len(expr.args) > 1:
                shape = _literal(expr.args[1].value)
                return {"shape": shape if isinstance(shape, list) else [shape], "dtype": "float32"}
        if q in ("jax.numpy.arange", "numpy.arange"):
            bounds = [_literal(a.value) for a in expr.args if a.keyword is None][:3]
            start, stop, step = (0, bounds[0], 1) if len(bounds) == 1 else (*bounds[:2], (
                bounds[2] if len(bounds) == 3 else 1))
            length = max(0, math.ceil((stop - start) / step))
            is_float = any(isinstance(b, float) for b in bounds)
            return {"shape": [length], "dtype": _dtype_of(model, expr, "float32" if is_float else "int32")}
        if q in ("jax.numpy.array", "jax.numpy.asarray"):
            value = _literal(expr.args[0].value)
            shape = _shape_of_nested(value)
            is_float = "." in model.module.code_for_node(expr.args[0].value)
            return {"shape": shape, "dtype": _dtype_of(model, expr, "float32" if is_float else "int32")}
    except (ValueError, TypeError):
        return None
    if q in _KEY_CTORS:
        return {"key": True}
    return None


def _shape_of_nested(value) -> list[int]:
    shape = []
    while isinstance(value, list):
        shape.append(len(value))
        value = value[0] if value else None
    return shape


def _annotation_spec(model, ann: cst.BaseExpression) -> dict[str, Any]:
    """`int` / `bool` / `float`, or jaxtyping `Float[Array, "b 3"]`."""
    q = model.qualname(ann) or ""
    if isinstance(ann, cst.Name) and ann.value in ("int", "bool", "float", "str"):
        return {"annotation": ann.value}
    if q.endswith("PRNGKeyArray") or q.endswith(".Key") or q == "jax.Array" and False:
        return {"key": True}
    if isinstance(ann, cst.Subscript) and len(ann.slice) == 2:
        head = ann.value.value if isinstance(ann.value, cst.Name) else (
            ann.value.attr.value if isinstance(ann.value, cst.Attribute) else "")
        dims = ann.slice[1].slice
        if head in _JAXTYPING and isinstance(dims, cst.Index) \
                and isinstance(dims.value, cst.SimpleString):
            return {"dims": str(dims.value.evaluated_value), "dtype": _JAXTYPING[head]}
        if head == "Key" or head == "PRNGKeyArray":
            return {"key": True}
    return {}
