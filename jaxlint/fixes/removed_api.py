"""Fixes for removed and deprecated JAX names (JAX303, JAX901-JAX908).

What each name becomes, and how safe that is, is in `jaxlint/api_changes.py`;
this module turns one finding into edits: a renamed attribute, a rewritten
import, or a rewritten call (`jax.ops.index_update(x, i, v)` -> `x.at[i].set(v)`).
"""

from __future__ import annotations

import re
from typing import Optional

import libcst as cst

from jaxlint import api_changes
from jaxlint.api_changes import RemovedAPI
from jaxlint.engine.model import FileModel
from jaxlint.engine.scopes import dotted_name
from jaxlint.fixes import build
from jaxlint.fixes.edits import DISPLAY_ONLY, SAFE, UNSAFE, Edit, Fix

# jax.ops.index_* -> the `.at[]` method doing the same update.
_INDEX_METHODS = {
    "jax.ops.index_update": "set", "jax.ops.index_add": "add", "jax.ops.index_mul": "multiply",
    "jax.ops.index_min": "min", "jax.ops.index_max": "max",
}
_INDEX_KEYWORDS = frozenset({"indices_are_sorted", "unique_indices"})
# `jax.tree` appeared in JAX 0.4.25; older targets get the jax.tree_util spelling.
_TREE_MODULE_SINCE = (0, 4, 25)
# The dotted names a table's `new` spells through the file's imports (`functools.partial`
# for `jax.partial`, which was functools.partial re-exported).
_DOTTED = re.compile(r"\b(?:jax|numpy|functools)(?:\.\w+)+")
# Replacement names newer than the deprecation they fix: at an older target the
# rewrite would name something that does not exist yet (JAX changelog).
_NEW_SINCE = {"jax.numpy.trapezoid": (0, 4, 26)}
# Where a unary expression needs no parentheses.
_OPEN_CONTEXT = (cst.Arg, cst.Assign, cst.AnnAssign, cst.Return, cst.Element, cst.DictElement,
                 cst.Expr, cst.Param, cst.AugAssign)


def fix_for(model: FileModel, report, target: Optional[str], deprecated: bool = False) -> Optional[Fix]:
    details = report.confirm
    node = report.node
    if "removed" in details:
        q = details["removed"]
        api = api_changes.API_CHANGES.get(q)
        if api is None:
            return None
        if isinstance(node, cst.ImportAlias):
            if api.migration == "index-update":
                return _index_import(model, model.parent(node))
            return _import_from_alias(model, node, q, api)
        return _attribute(model, node, q, api, target)
    if "removed_module" in details:
        name = details["removed_module"]
        mod, api = _module_api(name)
        if api is None:
            return None
        if isinstance(node, cst.ImportAlias):
            if isinstance(model.parent(node), cst.ImportFrom):
                return _import_from_alias(model, node, name, api)
            return _import_alias(model, node, name, mod, api)
        if isinstance(node, cst.ImportFrom):
            return _import_from_module(model, node, name, mod, api)
    return None


def _module_api(name: str) -> tuple[Optional[str], Optional[RemovedAPI]]:
    for mod, api in api_changes.MODULE_CHANGES.items():
        if name == mod or name.startswith(mod + "."):
            return mod, api
    return None, None


def _display(api: RemovedAPI, what: str) -> Fix:
    return Fix(DISPLAY_ONLY, f"Replace {what} with {api.replacement}")


# Attributes --------------------------------------------------------------------
def _attribute(model: FileModel, node: cst.CSTNode, q: str, api: RemovedAPI,
               target: Optional[str]) -> Optional[Fix]:
    parent = model.parent(node)
    call = parent if isinstance(parent, cst.Call) and parent.func is node else None
    if q in _INDEX_METHODS:
        return _index_update(model, call, q) if call is not None else _display(api, f"`{q}`")
    if q == "jax.ops.index":
        return _rename(model, node, "numpy.s_", SAFE, "Replace `jax.ops.index` with `np.s_`")
    if q == "jax.numpy.in1d" and call is not None:
        return _in1d(model, call)
    if q == "jax.xla_computation" and call is not None:
        return _xla_computation(model, call)
    if q in ("jax.experimental.enable_x64", "jax.experimental.disable_x64") and call is not None \
            and not call.args:
        text, edits = build.spell(model, "jax.enable_x64", call)
        value = "True" if q.endswith("enable_x64") else "False"
        return Fix(SAFE, f"Replace with `jax.enable_x64({value})`",
                   tuple(edits) + (build.replace(model, call, f"{text}({value})"),))
    if api.new is None:
        return _display(api, f"`{q}`")
    new = api.new
    if new.startswith("jax.tree.") and target and \
            api_changes.parse_version(target) < _TREE_MODULE_SINCE and api.same_name_in:
        new = f"{api.same_name_in}.{q.rsplit('.', 1)[1]}"
    safety, note = api.safety, api.note
    since = _NEW_SINCE.get(new)
    if since and target and api_changes.parse_version(target) < since:
        return Fix(DISPLAY_ONLY, f"Replace `{q}` with `{new}` once the target JAX version has it "
                                 f"(JAX {'.'.join(map(str, since))})")
    if api.migration == "device-array" and not _in_annotation(model, node):
        # isinstance(x, jax.Array) is also true for tracers and every JAX array kind.
        safety = UNSAFE
        note = ("outside an annotation, `jax.Array` also matches tracers and arrays that "
                "the old class did not")
    message = f"Replace `{q}` with `{new}`" + (f" ({note})" if note else "")
    return _rename(model, node, new, safety, message)


def _rename(model: FileModel, node: cst.CSTNode, new: str, safety: str, message: str) -> Fix:
    """Write `new` (an expression with dotted jax names) in place of `node`."""
    if _DOTTED.fullmatch(new) and isinstance(node, cst.Attribute):
        old_parent = model.qualname(node.value)
        if old_parent is not None and new.rsplit(".", 1)[0] == old_parent:
            # Same module: keep the user's spelling of it (`jnp.all` for `jnp.alltrue`).
            return Fix(safety, message, (build.replace(model, node.attr, new.rsplit(".", 1)[1]),))
    edits: list[Edit] = []

    def spell(m: re.Match) -> str:
        text, more = build.spell(model, m.group(0), node)
        edits.extend(more)
        return text

    text = _DOTTED.sub(spell, new)
    if not _DOTTED.fullmatch(new) and not isinstance(model.parent(node), _OPEN_CONTEXT):
        text = f"({text})"
    return Fix(safety, message, tuple(_dedupe(edits)) + (build.replace(model, node, text),))


def _dedupe(edits: list[Edit]) -> list[Edit]:
    out: list[Edit] = []
    for e in edits:
        if e not in out:
            out.append(e)
    return out


def _in_annotation(model: FileModel, node: cst.CSTNode) -> bool:
    return any(isinstance(a, cst.Annotation) for a in model.ancestors(node))


def _positional(call: cst.Call) -> Optional[list[cst.Arg]]:
    if any(a.star for a in call.args):
        return None
    return [a for a in call.args if a.keyword is None]


def _index_update(model: FileModel, call: cst.Call, q: str) -> Fix:
    method = _INDEX_METHODS[q]
    args = _positional(call)
    keywords = [a for a in call.args if a.keyword is not None]
    message = f"Replace `{q}(x, idx, y)` with `x.at[idx].{method}(y)`"
    if args is None or len(args) != 3 or any(a.keyword.value not in _INDEX_KEYWORDS for a in keywords):
        return Fix(DISPLAY_ONLY, message)
    x, idx, y = (a.value for a in args)
    code = build.code
    index = code(model, idx)
    if isinstance(idx, cst.Subscript) and model.qualname(idx.value) == "jax.ops.index":
        index = ", ".join(code(model, el.slice) for el in idx.slice)
    elif isinstance(idx, cst.Tuple) and idx.lpar and idx.elements:
        index = ", ".join(code(model, el.value) for el in idx.elements)
    extra = "".join(f", {a.keyword.value}={code(model, a.value)}" for a in keywords)
    text = f"{build.parenthesize(x, code(model, x))}.at[{index}].{method}({code(model, y)}{extra})"
    value = model.value(x)
    if value.array or value.traced:
        return Fix(SAFE, message, (build.replace(model, call, text),))
    # index_update accepted any array-like; `.at` exists only on JAX arrays.
    return Fix(UNSAFE, message + " (only a JAX array has `.at`: wrap a NumPy array in `jnp.asarray` first)",
               (build.replace(model, call, text),))


def _index_import(model: FileModel, stmt: cst.CSTNode) -> Fix:
    """`from jax.ops import index, index_update`: rewrite every use, then drop the import."""
    message = "Rewrite the `index_*(x, idx, y)` calls as `x.at[idx]...` and drop the import"
    line = model.parent(stmt)
    if not isinstance(stmt, cst.ImportFrom) or isinstance(stmt.names, cst.ImportStar) \
            or not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
        return Fix(DISPLAY_ONLY, message)
    names = {}
    for alias in stmt.names:
        q = f"jax.ops.{dotted_name(alias.name)}"
        if q not in _INDEX_METHODS and q != "jax.ops.index":
            return Fix(DISPLAY_ONLY, message + " (the import has other names)")
        names[alias.asname.name.value if alias.asname else dotted_name(alias.name)] = q
    block = model.parent(line)
    siblings = getattr(block, "body", ())
    if not isinstance(siblings, (list, tuple)) or len(siblings) < 2:
        return Fix(DISPLAY_ONLY, message)
    pos = model.positions[line]
    edits: list[Edit] = [Edit(pos.start.line, 1, pos.end.line + 1, 1, "")]
    safety = SAFE
    handled: list[cst.CSTNode] = []
    for call in model.nodes(cst.Call):
        if isinstance(call.func, cst.Name) and call.func.value in names \
                and model.qualname(call.func) in _INDEX_METHODS:
            fix = _index_update(model, call, model.qualname(call.func))
            if fix.applicability == DISPLAY_ONLY:
                return Fix(DISPLAY_ONLY, message)
            safety = UNSAFE if fix.applicability == UNSAFE else safety
            edits.extend(fix.edits)
            handled.append(call)
    inside = set(handled)
    for name in model.nodes(cst.Name):
        if name.value not in names or model.qualname(name) != names[name.value]:
            continue
        ancestors = list(model.ancestors(name))
        if any(isinstance(a, (cst.Import, cst.ImportFrom)) for a in ancestors) or inside & set(ancestors):
            continue
        parent = model.parent(name)
        if names[name.value] == "jax.ops.index" and isinstance(parent, cst.Subscript) and parent.value is name:
            text, more = build.spell(model, "numpy.s_", name)
            edits.extend(more)
            edits.append(build.replace(model, name, text))
            continue
        return Fix(DISPLAY_ONLY, message + f" (`{name.value}` is used other than in a call)")
    return Fix(safety, message, tuple(_dedupe(edits)))


def _in1d(model: FileModel, call: cst.Call) -> Fix:
    # jnp.in1d(a, b) == jnp.isin(a, b).ravel(): in1d always returned a flat array.
    name, edits = build.spell(model, "jax.numpy.isin", call)
    func = call.func
    if isinstance(func, cst.Attribute):
        name = build.code(model, func.value) + ".isin"
        edits = []
    args = build.code(model, call)[len(build.code(model, call.func)):]
    return Fix(SAFE, "Replace `jnp.in1d(a, b)` with `jnp.isin(a, b).ravel()` (in1d flattens its result)",
               tuple(edits) + (build.replace(model, call, f"{name}{args}.ravel()"),))


def _xla_computation(model: FileModel, call: cst.Call) -> Fix:
    message = "Replace `jax.xla_computation(f)(*args)` with `jax.jit(f).lower(*args).compiler_ir('hlo')`"
    outer = model.parent(call)
    args = _positional(call)
    if not isinstance(outer, cst.Call) or outer.func is not call or args is None or len(call.args) != 1:
        return Fix(DISPLAY_ONLY, message)
    jit, edits = build.spell(model, "jax.jit", call)
    f = build.code(model, call.args[0].value)
    outer_args = build.code(model, outer)[len(build.code(model, call)):]
    text = f"{jit}({f}).lower{outer_args}.compiler_ir('hlo')"
    # The XlaComputation of a lowered jit function: same HLO, but the jit wrapper traces
    # with its own cache and rejects the old static/axis-env arguments.
    return Fix(UNSAFE, message + " (the computation is now built from `jax.jit`'s lowering)",
               tuple(edits) + (build.replace(model, outer, text),))


# Imports -------------------------------------------------------------------------
def _target_module(q: str, api: RemovedAPI) -> Optional[str]:
    """The module that still exports the last component of `q` under the same name."""
    if api.same_name_in:
        return api.same_name_in
    if api.new and _DOTTED.fullmatch(api.new) and api.new.rsplit(".", 1)[1] == q.rsplit(".", 1)[1]:
        return api.new.rsplit(".", 1)[0]
    return None


def _import_from_alias(model: FileModel, alias: cst.ImportAlias, q: str, api: RemovedAPI) -> Fix:
    """`from jax import tree_map` -> `from jax.tree_util import tree_map`."""
    stmt = model.parent(alias)
    target = _target_module(q, api)
    if target is None and q in api_changes.MODULE_CHANGES and api.new and isinstance(stmt, cst.ImportFrom) \
            and not isinstance(stmt.names, cst.ImportStar) and len(stmt.names) == 1:
        # `from jax.lib import xla_bridge` -> `from jax.extend import backend as xla_bridge`
        parent, _, last = api.new.rpartition(".")
        local = alias.asname.name.value if alias.asname else dotted_name(alias.name)
        text = f"from {parent} import {last}" + (f" as {local}" if local != last else "")
        note = f" ({api.note})" if api.note else ""
        return Fix(api.safety, f"Replace with `{text}`{note}", (build.replace(model, stmt, text),))
    message = f"Import `{q.rsplit('.', 1)[1]}` from `{target}`" if target else \
        f"Replace `{q}` with {api.replacement}"
    if target is None or not isinstance(stmt, cst.ImportFrom) or isinstance(stmt.names, cst.ImportStar):
        return Fix(DISPLAY_ONLY, message)
    module = dotted_name(stmt.module) if stmt.module is not None else None
    for other in stmt.names:
        name = dotted_name(other.name)
        o = f"{module}.{name}"
        o_api = api_changes.API_CHANGES.get(o) or api_changes.MODULE_CHANGES.get(o)
        if o_api is None or _target_module(o, o_api) != target:
            return Fix(DISPLAY_ONLY, message + " (the other names of this import stay where they are)")
    return Fix(api.safety if api.safety != DISPLAY_ONLY else SAFE, message,
               (build.replace(model, stmt.module, target),))


def _import_alias(model: FileModel, alias: cst.ImportAlias, name: str, mod: str, api: RemovedAPI) -> Fix:
    """`import jax.experimental.optimizers as opt` -> `import jax.example_libraries.optimizers as opt`."""
    if mod == "jax.config" and name == mod:
        stmt = model.parent(alias)
        if alias.asname is None:
            # `import jax.config` only bound `jax`; `jax.config` is an attribute of jax.
            return Fix(SAFE, "Replace `import jax.config` with `import jax`",
                       (build.replace(model, alias.name, "jax"),))
        if isinstance(stmt, cst.Import) and len(stmt.names) == 1:
            return Fix(SAFE, "Import `config` from `jax`",
                       (build.replace(model, stmt, f"from jax import config as {alias.asname.name.value}"),))
        return Fix(DISPLAY_ONLY, f"Use {api.replacement}")
    if api.new is None:
        return _display(api, f"`{name}`")
    new = api.new + name[len(mod):]
    edits = [build.replace(model, alias.name, new)]
    if alias.asname is None:
        # `jax.experimental.optimizers.adam(...)` elsewhere in the file follows the import.
        for node in model.nodes(cst.Attribute):
            if dotted_name(node) == name and \
                    not any(isinstance(a, (cst.Import, cst.ImportFrom)) for a in model.ancestors(node)):
                edits.append(build.replace(model, node, new))
    return Fix(api.safety, f"Replace `{name}` with `{new}`", tuple(_dedupe(edits)))


def _import_from_module(model: FileModel, stmt: cst.ImportFrom, name: str, mod: str, api: RemovedAPI) -> Fix:
    """`from jax.config import config` -> `from jax import config`; a moved module is renamed."""
    if mod == "jax.config":
        names = stmt.names
        if name == mod and not isinstance(names, cst.ImportStar) and \
                all(isinstance(a.name, cst.Name) and a.name.value == "config" for a in names):
            return Fix(SAFE, "Replace `from jax.config import config` with `from jax import config`",
                       (build.replace(model, stmt.module, "jax"),))
        return Fix(DISPLAY_ONLY, f"Use {api.replacement}")
    if api.new is None:
        return _display(api, f"`{name}`")
    new = api.new + name[len(mod):]
    return Fix(api.safety, f"Replace `{name}` with `{new}`", (build.replace(model, stmt.module, new),))
