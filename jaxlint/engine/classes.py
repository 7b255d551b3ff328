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
    registered = _registration_calls(model)
    # Classes in document order: a base defined above its subclass is done first.
    for info in model.classes:
        _read(model, info, registered.get(info.name, []))
    read_attributes(model)


def read_attributes(model) -> None:
    """Where each class's methods set `self.name`, so that the value analysis can say
    what `self.name` holds (a list, a NumPy array, a number) in another method.

    One pass over the file's assignments. A plain `obj.name = value` at module level,
    where `obj = Cls(...)` is the name's one binding, is a write of `Cls`'s attribute.
    An attribute also written some other way (`obj.name = ...` on any other object,
    `self.name += 1`, a tuple target unpacking one value, `setattr`) is not followed: its
    value is unknown.
    """
    if not model.classes:
        return
    _relate(model)
    for node in model.nodes(cst.Assign, cst.AnnAssign, cst.AugAssign, cst.For, cst.WithItem):
        t = type(node)
        if t is cst.Assign:
            plain = len(node.targets) == 1
            targets = [tt.target for tt in node.targets]
        elif t is cst.AnnAssign:
            plain = node.value is not None
            targets = [node.target]
        elif t is cst.WithItem:
            plain = False
            targets = [node.asname.name] if node.asname is not None else []
        else:
            plain = False
            targets = [node.target]
        for target in targets:
            if isinstance(target, cst.Attribute):
                _attribute_write(model, target, plain)
            elif isinstance(target, (cst.Tuple, cst.List)):
                # `self.a, self.b = a, b` pairs each target with its value: plain writes.
                paired = plain and t is cst.Assign and _pairs_elementwise(target, node.value)
                for el in target.elements:
                    if isinstance(el.value, cst.Attribute):
                        _attribute_write(model, el.value, paired)
    for call in model.calls_named("setattr"):
        if call.args and isinstance(call.args[0].value, cst.Name):
            klass = model.class_of_self(call.args[0].value)
            if klass is not None:
                klass.attributes_unfollowed.add("*")
            else:
                model.foreign_attribute_writes.add("*")


def _pairs_elementwise(target: cst.BaseExpression, value: cst.BaseExpression) -> bool:
    return isinstance(value, (cst.Tuple, cst.List)) and len(value.elements) == len(target.elements) \
        and not any(isinstance(el, cst.StarredElement) for el in (*target.elements, *value.elements))


def _attribute_write(model, target: cst.Attribute, plain: bool) -> None:
    name = target.attr.value
    klass = model.class_of_self(target.value) if isinstance(target.value, cst.Name) else None
    if klass is None and plain and isinstance(target.value, cst.Name):
        # `driver._timer = Timer()` on `driver = VMC(...)`, its one binding: a write to that
        # class's attribute, as definite as one in a method.
        instance = model._instance_class(target.value)
        if instance is not None and model.function_of(target) is None:
            instance.attribute_sites.setdefault(name, []).append(target)
            return
    if klass is None:
        model.foreign_attribute_writes.add(name)
    elif plain:
        klass.attribute_sites.setdefault(name, []).append(target)
    else:
        klass.attributes_unfollowed.add(name)


def _relate(model) -> None:
    """Each class's relatives: the classes of this file it inherits from or that inherit
    from it, transitively (a method of the base reads what a subclass sets)."""
    family = {info: {info} for info in model.classes}
    for info in model.classes:
        for base in info.node.bases:
            local = model.resolve_class(base.value)
            if local is not None and local is not info and family[local] is not family[info]:
                merged = family[local] | family[info]
                for member in merged:
                    family[member] = merged
    for info in model.classes:
        info.relatives = sorted(family[info], key=lambda c: model.order.get(c.node, 0))


_DATACLASS = "dataclasses.dataclass"


def _read_hashing(model, info: ClassInfo) -> None:
    """Whether instances hash: Python sets __hash__ to None for a class that defines
    __eq__ (itself, or through `@dataclass` with eq=True) unless it is frozen or
    defines __hash__."""
    node = info.node
    defined = {stmt.name.value for stmt in _body(node) if isinstance(stmt, cst.FunctionDef)}
    assigned = {t.target.value for stmt in _body(node) if isinstance(stmt, cst.SimpleStatementLine)
                for small in stmt.body if isinstance(small, cst.Assign)
                for t in small.targets if isinstance(t.target, cst.Name)}
    if "__hash__" in defined or "__hash__" in assigned:
        return
    for dec in node.decorators:
        expr = dec.decorator
        call = expr if isinstance(expr, cst.Call) else None
        if model.qualname(call.func if call is not None else expr) != _DATACLASS:
            continue
        options = {a.keyword.value: a.value for a in (call.args if call is not None else ())
                   if a.keyword is not None}
        if any(a.keyword is None for a in (call.args if call is not None else ())):
            return
        flags = {}
        for name in ("eq", "frozen", "unsafe_hash"):
            value = options.get(name)
            if value is not None and not (isinstance(value, cst.Name) and value.value in ("True", "False")):
                return  # not a literal: unknown
            flags[name] = value is not None and value.value == "True" if name != "eq" else \
                value is None or value.value == "True"
        if flags["unsafe_hash"] or not flags["eq"]:
            return
        if flags["frozen"]:
            info.frozen_dataclass = True
        else:
            info.unhashable = "a dataclass that is not frozen"
        return
    if "__eq__" in defined:
        info.unhashable = "a class that defines __eq__ without __hash__"
        return
    for base in node.bases:  # a plain subclass inherits the base's __hash__
        local = model.resolve_class(base.value)
        if local is not None and local is not info and local.unhashable:
            info.unhashable = local.unhashable


def hashed_by_identity(model, info: ClassInfo, depth: int = 0) -> bool:
    """Whether instances compare and hash by identity (object's `__eq__` / `__hash__`): a
    class of this file with no decorator, not a pytree, defining neither method, whose
    bases are `object` or classes of this file of the same kind. Two such objects made
    by two calls with equal arguments are two distinct keys of jit's cache."""
    node = info.node
    if depth > 8 or info.pytree or info.library or info.box or info.static or info.unhashable \
            or info.frozen_dataclass or node.decorators or node.keywords:
        return False
    defined = {stmt.name.value for stmt in _body(node) if isinstance(stmt, cst.FunctionDef)}
    assigned = {t.target.value for stmt in _body(node) if isinstance(stmt, cst.SimpleStatementLine)
                for small in stmt.body if isinstance(small, cst.Assign)
                for t in small.targets if isinstance(t.target, cst.Name)}
    if {"__eq__", "__hash__"} & (defined | assigned):
        return False
    for base in node.bases:
        if isinstance(base.value, cst.Name) and base.value.value == "object":
            continue
        local = model.resolve_class(base.value)
        if local is None or local is info or not hashed_by_identity(model, local, depth + 1):
            return False
    return True


def _registration_calls(model) -> dict[str, list[cst.Call]]:
    """`jax.tree_util.register_dataclass(Cache, data_fields=[...], meta_fields=[...])` and
    `register_static(Config)` called on a class at module level, as its decorator would."""
    out: dict[str, list[cst.Call]] = {}
    for stmt in model.module.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            call = small.value if isinstance(small, (cst.Expr, cst.Assign)) else None
            if isinstance(call, cst.Call) and call.args and isinstance(call.args[0].value, cst.Name) \
                    and (model.qualname(call.func) in jax_api.PYTREE_CLASS_DECORATORS
                         or model.qualname(call.func) in jax_api.PYTREE_FLATTEN_REGISTRATIONS):
                out.setdefault(call.args[0].value.value, []).append(call)
    return out


def _read(model, info: ClassInfo, calls: list) -> None:
    _read_hashing(model, info)
    node = info.node
    meta: set[str] = set()
    for expr in [dec.decorator for dec in node.decorators] + calls:
        q = model.qualname(expr.func if isinstance(expr, cst.Call) else expr)
        if q == "functools.partial" and isinstance(expr, cst.Call) and expr.args:
            # partial(jax.tree_util.register_dataclass, data_fields=[...], meta_fields=[...])
            q = model.qualname(expr.args[0].value)
        if q in jax_api.PYTREE_FLATTEN_REGISTRATIONS:
            info.pytree = True
            position = jax_api.PYTREE_FLATTEN_REGISTRATIONS[q]
            positional = [a.value for a in expr.args if a.keyword is None and not a.star]
            if len(positional) > position:
                flatten = _flatten_function(model, positional[position])
                if flatten is not None:
                    _aux_fields(info, flatten)
            continue
        if q in jax_api.PYTREE_CLASS_DECORATORS:
            info.pytree = True
            info.static = info.static or q in jax_api.STATIC_CLASS_DECORATORS
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
            info.static = info.static or local.static
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
                static = info.static or name in meta or _static_field(model, small.value)
                info.fields[name] = FieldInfo(name, static, ann)
    _flatten_fields(info)


def _flatten_fields(info: ClassInfo) -> None:
    """A custom `tree_flatten` returns `(children, aux_data)`: the `self.x` it puts in
    the aux data come back from `tree_unflatten` as they were, static under jit; the
    ones in the children are leaves."""
    method = info.methods.get("tree_flatten")
    if method is not None and isinstance(method.node, cst.FunctionDef):
        _aux_fields(info, method.node)


def _flatten_function(model, expr: cst.BaseExpression):
    """The lambda or `def` of this file that `register_pytree_node(Cls, flatten, ...)` names."""
    if isinstance(expr, cst.Lambda):
        return expr
    info = model.resolve_function(expr)
    return info.node if info is not None else None


def _aux_fields(info: ClassInfo, flatten) -> None:
    """The fields a flatten function (`def` or lambda, instance first) returns in its aux
    data (static) and in its children (leaves)."""
    params = flatten.params.params
    if not params:
        return
    me = params[0].name.value
    local: dict[str, cst.BaseExpression] = {}
    if isinstance(flatten, cst.Lambda):
        statements = [cst.Return(value=flatten.body)]
    else:
        statements = _walk_statements(flatten)
    for stmt in statements:
        if isinstance(stmt, cst.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0].target, cst.Name):
            name = stmt.targets[0].target.value
            local[name] = stmt.value if name not in local else None
        if not isinstance(stmt, cst.Return) or not isinstance(stmt.value, cst.Tuple) \
                or len(stmt.value.elements) != 2:
            continue
        children, aux = (el.value for el in stmt.value.elements)
        for part, static in ((aux, True), (children, False)):
            if isinstance(part, cst.Name) and local.get(part.value) is not None:
                part = local[part.value]
            for attr in _self_attributes(part, me):
                if attr not in info.fields or static:
                    info.fields[attr] = FieldInfo(attr, static)


def _walk_statements(func: cst.FunctionDef):
    stack = list(reversed(_body(func)))
    while stack:
        stmt = stack.pop()
        if isinstance(stmt, cst.SimpleStatementLine):
            yield from stmt.body
        elif isinstance(stmt, (cst.If, cst.For, cst.While, cst.With, cst.Try)):
            stack.extend(reversed(list(stmt.body.body)))


def _self_attributes(expr: cst.BaseExpression, me: str) -> set[str]:
    """`self.n` in `{"n": self.n}` / `(self.a, self.b)`: the fields an expression reads."""
    found = set()
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == me:
            found.add(node.attr.value)
            continue
        if isinstance(node, (cst.Lambda, cst.FunctionDef)):
            continue
        stack.extend(node.children)
    return found


def _strings(expr: cst.BaseExpression) -> set[str]:
    if isinstance(expr, (cst.List, cst.Tuple)):
        return {el.value.evaluated_value for el in expr.elements
                if isinstance(el.value, cst.SimpleString)}
    return set()


def _static_field(model, value: Optional[cst.BaseExpression]) -> bool:
    if not isinstance(value, cst.Call):
        return False
    value = _through_alias(model, value)
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


def _through_alias(model, call: cst.Call) -> cst.Call:
    """The field call a one-line helper stands for:
    `static_field = lambda v=MISSING: dataclasses.field(default=v, metadata=dict(static=True))`."""
    if not isinstance(call.func, cst.Name) or model.qualname(call.func) is not None:
        return call
    bindings = model.scope_of(call.func).lookup(call.func.value)
    if not bindings or len(bindings) != 1:
        return call
    node = bindings[0].node
    inner = None
    if isinstance(node, cst.Assign) and isinstance(node.value, cst.Lambda):
        inner = node.value.body
    elif isinstance(node, cst.FunctionDef) and isinstance(node.body, cst.IndentedBlock) \
            and len(node.body.body) == 1 and isinstance(node.body.body[0], cst.SimpleStatementLine) \
            and isinstance(node.body.body[0].body[0], cst.Return):
        inner = node.body.body[0].body[0].value
    return inner if isinstance(inner, cst.Call) else call


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


def _body(node):
    body = node.body
    return body.body if isinstance(body, (cst.IndentedBlock, cst.SimpleStatementSuite)) else []
