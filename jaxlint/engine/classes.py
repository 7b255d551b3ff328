"""Classes read from the code: which are pytrees, and which of their fields are static.

A jitted function's pytree argument has traced leaves, except in fields its
class declares static (`struct.field(pytree_node=False)`, `eqx.field(static=True)`,
`dataclasses.field(metadata={"static": True})` for `register_dataclass`). The
tables of decorators, bases and field markers are in `jaxlint.jax_api`.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from jaxlint import jax_api
from jaxlint.engine.functions import ClassInfo, FieldInfo


def read_classes(model) -> None:
    # Classes in document order: a base defined above its subclass is done first.
    for info in model.classes:
        _read(model, info)


def _read(model, info: ClassInfo) -> None:
    node = info.node
    meta: set[str] = set()
    for dec in node.decorators:
        expr = dec.decorator
        q = model.qualname(expr.func if isinstance(expr, cst.Call) else expr)
        if q == "functools.partial" and isinstance(expr, cst.Call) and expr.args:
            # partial(jax.tree_util.register_dataclass, data_fields=[...], meta_fields=[...])
            q = model.qualname(expr.args[0].value)
        if q in jax_api.PYTREE_CLASS_DECORATORS:
            info.pytree = True
            if isinstance(expr, cst.Call):
                for arg in expr.args:
                    if arg.keyword is not None and arg.keyword.value == "meta_fields":
                        meta |= _strings(arg.value)
    inherited: dict[str, FieldInfo] = {}
    for base in node.bases:
        q = model.qualname(base.value)
        if q in jax_api.PYTREE_BASES:
            info.pytree = True
        elif q in jax_api.BOX_CLASSES:
            info.box = True
        local = model.resolve_class(base.value)
        if local is not None and local is not info:
            info.pytree = info.pytree or local.pytree
            info.box = info.box or local.box
            inherited.update(local.fields)
    if not info.pytree:
        return
    info.fields.update(inherited)
    for stmt in _body(node):
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                name = small.target.value
                ann = small.annotation.annotation
                if model.qualname(ann) == "typing.ClassVar" or (
                        isinstance(ann, cst.Subscript) and model.qualname(ann.value) == "typing.ClassVar"):
                    continue
                static = name in meta or _static_field(model, small.value)
                info.fields[name] = FieldInfo(name, static, ann)


def _strings(expr: cst.BaseExpression) -> set[str]:
    if isinstance(expr, (cst.List, cst.Tuple)):
        return {el.value.evaluated_value for el in expr.elements
                if isinstance(el.value, cst.SimpleString)}
    return set()


def _static_field(model, value: Optional[cst.BaseExpression]) -> bool:
    if not isinstance(value, cst.Call):
        return False
    marker = jax_api.STATIC_FIELD_CALLS.get(model.qualname(value.func))
    if marker is None:
        return False
    keyword, wanted = marker
    if keyword == "":
        return True
    if keyword.startswith("metadata."):
        key = keyword.split(".", 1)[1]
        for arg in value.args:
            if arg.keyword is not None and arg.keyword.value == "metadata":
                return _dict_has_true(arg.value, key)
        return False
    for arg in value.args:
        if arg.keyword is not None and arg.keyword.value == keyword:
            v = arg.value
            if isinstance(v, cst.Name) and v.value in ("True", "False"):
                return (v.value == "True") == wanted
    return False


def _dict_has_true(expr: cst.BaseExpression, key: str) -> bool:
    """`{"static": True}` or `dict(static=True)`."""
    if isinstance(expr, cst.Dict):
        for el in expr.elements:
            if isinstance(el, cst.DictElement) and isinstance(el.key, cst.SimpleString) \
                    and el.key.evaluated_value == key:
                return isinstance(el.value, cst.Name) and el.value.value == "True"
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Name) and expr.func.value == "dict":
        for arg in expr.args:
            if arg.keyword is not None and arg.keyword.value == key:
                return isinstance(arg.value, cst.Name) and arg.value.value == "True"
    return False


def _body(node: cst.ClassDef):
    body = node.body
    return body.body if isinstance(body, (cst.IndentedBlock, cst.SimpleStatementSuite)) else []
