"""What a call runs, and what class an object is, read from the whole file.

A call reaches a function of this file in more ways than by its name: a method through
`self` or through an object whose class the file shows (`obj = Model(...)`, a parameter
every call site passes a `Model(...)` to, an attribute `__init__` sets from one), an
instance called (`model(x)` runs `__call__`), a transform applied where it is called
(`jax.jit(model.__call__)(x)`, `jax.grad(f)(x)`), and a function a factory of this file
returns (`init_fun, apply_fun = Dropout(0.5)`). Rules that follow values into callees
(the key flow: which calls draw the same numbers on every run) read these.

Each answer is definite or None: every binding and every call site the file shows
must agree, else the class or the callee is unknown.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from jaxlint.engine.functions import ClassInfo, FunctionInfo
from jaxlint.engine.scopes import BindingKind

_DEPTH = 6


def called_function(model, call: cst.Call) -> Optional[FunctionInfo]:
    """The function of this file that `call` runs, or None."""
    return function_of_callable(model, call.func, 0)


def function_of_callable(model, expr: cst.BaseExpression, depth: int = 0) -> Optional[FunctionInfo]:
    """The function of this file that calling `expr` runs."""
    from jaxlint.engine.tracing import PARTIAL, transform_for, wrapped_target

    if depth > _DEPTH:
        return None
    if isinstance(expr, cst.Call):
        q = model.qualname(expr.func)
        if transform_for(model, q) is not None or q in PARTIAL:
            target = wrapped_target(expr)
            return function_of_callable(model, target, depth + 1) if target is not None else None
        return None
    if isinstance(expr, cst.Lambda):
        return model.resolve_function(expr)
    if isinstance(expr, cst.Name):
        found = model.resolve_function(expr)
        if found is not None:
            return found
        klass = model.resolve_class(expr)
        if klass is not None:
            return None  # a constructor: `__init__` runs once per object, not a repeated call
        returned = returned_function(model, expr, depth)
        if returned is not None:
            return returned
        klass = instance_class(model, expr, depth + 1)
        return klass.methods.get("__call__") if klass is not None else None
    if isinstance(expr, cst.Attribute):
        method = model.method_of_self(expr)
        if method is not None:
            return method
        klass = instance_class(model, expr.value, depth + 1)
        if klass is not None:
            for rel in [klass, *klass.relatives]:
                if expr.attr.value in rel.methods:
                    return rel.methods[expr.attr.value]
        found = field_function(model, expr.value, expr.attr.value, depth + 1)
        return found if found is not None else stored_function(model, expr, depth + 1)
    return None


def field_values(model, expr: cst.Attribute) -> Optional[list[cst.BaseExpression]]:
    """The values every `self.<name> = value` of the object's class stores into what `expr`
    (`obj.<name>`) reads, where the program shows the object's class: `self` in a method,
    a name bound once to a constructor, or a parameter every call site fills with one
    (`fit(params, Dataset(...).batch())`). None when a write is not a plain assignment."""
    found = model.attribute_assignments(expr)
    if found is not None:
        return found
    klass = instance_class(model, expr.value)
    targets = model._class_attribute_targets(klass, expr.attr.value) if klass is not None else None
    if not targets:
        return None
    out = []
    for target in targets:
        assign = model.parent(model.parent(target))
        if not isinstance(assign, cst.Assign) or len(assign.targets) != 1 \
                or assign.targets[0].target is not target:
            return None
        out.append(assign.value)
    return out


def stored_function(model, expr: cst.Attribute, depth: int = 0) -> Optional[FunctionInfo]:
    """The function of this file that an object keeps in a field: `self.learning_rate(step)`
    where every `self.learning_rate = value` of the object's class stores that function,
    directly or as the parameter every call of the storing method (the constructor) passes
    it to, as in `Sgd(schedule)`."""
    from jaxlint.engine.evaluate import _paired

    if depth > _DEPTH:
        return None
    klass = instance_class(model, expr.value, depth + 1)
    targets = model._class_attribute_targets(klass, expr.attr.value) if klass is not None else None
    if not targets:
        return None
    found: list = []
    for target in targets:
        assign = model.parent(model.parent(target))
        if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
            return None
        value = next((v for t, v in _paired(assign.targets[0].target, assign.value) if t is target), None)
        method = model.function_of(target)
        if isinstance(value, cst.Name) and method is not None and not method.is_lambda \
                and value.value in method.all_params and len(method.scope.bindings.get(value.value, ())) == 1:
            sites = call_sites(model, method)
            if not sites:
                return None
            for call, shift in sites:
                arg = argument_for(call, method, value.value, shift)
                found.append(function_of_callable(model, arg, depth + 1) if arg is not None else None)
        else:
            found.append(function_of_callable(model, value, depth + 1) if value is not None else None)
    return _agreed_function(found)


def field_function(model, expr: Optional[cst.BaseExpression], field: str,
                   depth: int = 0) -> Optional[FunctionInfo]:
    """The function of this file that field `field` of the object `expr` holds, where the
    object is built from functions by a NamedTuple or dataclass of this file
    (`TransformedWithState(init, apply)`), directly, as what a factory of this file
    returns, through a name bound once, or through a parameter every call site passes
    one to."""
    if expr is None or depth > _DEPTH:
        return None
    if isinstance(expr, cst.Call):
        klass = model.resolve_class(expr.func)
        if klass is not None:
            # The generated constructor takes the fields in order; a custom one may not.
            if field not in klass.fields or "__init__" in klass.methods:
                return None
            arg = _field_argument(expr, list(klass.fields), field)
            return function_of_callable(model, arg, depth + 1) if arg is not None else None
        factory = function_of_callable(model, expr.func, depth + 1)
        if factory is None or factory.is_lambda:
            return None
        return _agreed_function(field_function(model, r.value, field, depth + 1)
                                for r in returns_of(model, factory))
    if not isinstance(expr, cst.Name) or model.comprehension_variable(expr):
        return None
    bindings = model.scope_of(expr).lookup(expr.value)
    if not bindings or len(bindings) != 1:
        return None
    if bindings[0].kind == BindingKind.PARAM:
        func = _function_with_param(model, expr)
        if func is None or func.is_lambda:
            return None
        return _agreed_function(field_function(model, argument_for(call, func, expr.value, shift), field, depth + 1)
                                for call, shift in call_sites(model, func))
    values = model.assigned_values(expr)
    return field_function(model, values[0], field, depth + 1) if values and len(values) == 1 else None


def _field_argument(call: cst.Call, fields: list[str], field: str) -> Optional[cst.BaseExpression]:
    if any(a.star for a in call.args):
        return None
    for a in call.args:
        if a.keyword is not None and a.keyword.value == field:
            return a.value
    positional = [a.value for a in call.args if a.keyword is None]
    index = fields.index(field)
    return positional[index] if index < len(positional) else None


def _agreed_function(found) -> Optional[FunctionInfo]:
    found = list(found)
    if not found or any(f is None for f in found):
        return None
    return found[0] if all(f is found[0] for f in found) else None


def applying_call(model, expr: cst.BaseExpression) -> Optional[cst.Call]:
    """The call that runs `expr` through transforms applied where it is called:
    `eqx.filter_value_and_grad(loss_fn)(m, x)` runs `loss_fn` (jit, grad, vmap and
    `partial` all call the function they wrap when they are called)."""
    from jaxlint.engine.tracing import PARTIAL, transform_for, wrapped_target

    for _ in range(_DEPTH):
        parent = model.parent(expr)
        if isinstance(parent, cst.Arg):
            wrapper = model.parent(parent)
            q = model.qualname(wrapper.func) if isinstance(wrapper, cst.Call) else None
            if q is None or not (transform_for(model, q) is not None or q in PARTIAL) \
                    or wrapped_target(wrapper) is not expr:
                return None
            expr = wrapper
            continue
        if isinstance(parent, cst.Call) and parent.func is expr and isinstance(expr, cst.Call):
            return parent
        return None
    return None


def instance_class(model, expr: cst.BaseExpression, depth: int = 0) -> Optional[ClassInfo]:
    """The class of this file whose instance `expr` is, where every binding says so."""
    if depth > _DEPTH:
        return None
    if isinstance(expr, cst.Call):
        klass = model.resolve_class(expr.func)
        if klass is not None:
            return klass
        # What a function of this file returns: `state = counter.initial_state()`.
        factory = function_of_callable(model, expr.func, depth + 1)
        if factory is None or factory.is_lambda:
            return None
        return _agreed(instance_class(model, r.value, depth + 1) for r in returns_of(model, factory))
    found = getattr(model.value(expr), "cls", None)
    if isinstance(found, ClassInfo) and found.methods:
        return found
    if isinstance(expr, cst.Name):
        if model.class_of_self(expr) is not None:
            return model.class_of_self(expr)
        bindings = model.scope_of(expr).lookup(expr.value)
        if not bindings:
            return None
        if all(b.kind == BindingKind.PARAM for b in bindings) and len(bindings) == 1:
            func = _function_with_param(model, expr)
            return _from_call_sites(model, func, expr.value, depth) if func is not None else None
        values = model.assigned_values(expr)
        if not values:
            return None
        return _agreed(instance_class(model, v, depth + 1) for v in values)
    if isinstance(expr, cst.Attribute):
        values = model.attribute_assignments(expr)
        if not values:
            return None
        return _agreed(instance_class(model, v, depth + 1) for v in values)
    return None


def call_sites(model, func: FunctionInfo, depth: int = 0) -> list[tuple[cst.Call, int]]:
    """The calls of this file that run `func`, each with how many of `func`'s positional
    parameters the call binds before its own arguments (`self` for a method called
    on an object or through its class's constructor). `depth`: how deep in a search
    for an object's class this question is asked (the search can come back to it)."""
    out = []
    if func.name == "__init__" and func.klass is not None:
        for call in model.calls_named(func.klass.name):
            if model.resolve_class(call.func) is func.klass:
                out.append((call, 1))
        return out
    for call in model.calls_named(func.name):
        if model.resolve_function(call.func) is func:
            out.append((call, 0))
    if func.klass is not None and not func.is_lambda:
        # `obj.method(...)` / `self.method(...)`: the object fills `self` (or `cls`),
        # a staticmethod takes the arguments as written.
        from jaxlint.engine.evaluate import _is_staticmethod
        shift = 0 if _is_staticmethod(func) else 1
        for call in attribute_calls(model, func.klass, func.name, depth):
            if function_of_callable(model, call.func) is func:
                out.append((call, shift))
    if func.name == "__call__" and func.klass is not None:
        out.extend((call, 1) for call in instance_calls(model, func))
    return out


def instance_calls(model, func: FunctionInfo) -> list[cst.Call]:
    """`model(x)` where `model` is an instance of the class whose `__call__` is `func`
    (a name or `self.<attr>` every binding shows to hold one): Python runs `__call__`.
    Asked again while it is being answered (a parameter's class read from the call
    sites of another `__call__`), it answers nothing."""
    cache = model.__dict__.setdefault("_instance_calls", {})
    if func in cache:
        return cache[func] or []
    cache[func] = None  # in progress
    out = []
    for call in model.nodes(cst.Call):
        target = call.func
        if not isinstance(target, (cst.Name, cst.Attribute)) or model.resolve_class(target) is not None \
                or isinstance(target, cst.Name) and model.resolve_function(target) is not None:
            continue
        klass = instance_class(model, target)
        if klass is not None and model.class_method(klass, "__call__") is func:
            out.append(call)
    cache[func] = out
    return out


def transformed_call_sites(model, func: FunctionInfo) -> list[tuple[cst.Call, int]]:
    """The calls of this file that run `func` through transforms applied to it by name:
    `jax.grad(f)(x, obj)`, or `jf = jax.jit(f)` then `jf(x, obj)`. jit, grad, vmap and pmap
    hand each argument to the parameter in the same place: an object they do not trace
    is the caller's own, and one they trace is rebuilt as the same class."""
    from jaxlint.engine.functions import ViaKind
    from jaxlint.engine.tracing import transform_for, wrapped_target

    out = []
    for origin, ctx in func.contexts.items():
        if ctx.via != ViaKind.WRAPPER or not isinstance(origin, cst.Call):
            continue
        expr = origin
        while isinstance(expr, cst.Call) and transform_for(model, model.qualname(expr.func)) is not None:
            expr = wrapped_target(expr)
        if isinstance(expr, cst.Name) and model.resolve_function(expr) is func:
            shift = 0
        elif isinstance(expr, cst.Attribute) and func.is_method and function_of_callable(model, expr) is func:
            from jaxlint.engine.evaluate import _is_staticmethod

            shift = 0 if _is_staticmethod(func) else 1  # `jax.jit(counter.__call__)`: bound to the object
        else:
            continue  # a partial fills parameters first
        parent = model.parent(origin)
        if isinstance(parent, cst.Call) and parent.func is origin:
            out.append((parent, shift))
            continue
        if not isinstance(parent, cst.Assign) or len(parent.targets) != 1 \
                or not isinstance(parent.targets[0].target, cst.Name):
            continue
        for call in model.calls_named(parent.targets[0].target.value):
            values = model.assigned_values(call.func)
            if values is not None and len(values) == 1 and values[0] is origin:
                out.append((call, shift))
    return out


def argument_for(call: cst.Call, func: FunctionInfo, param: str, shift: int) -> Optional[cst.BaseExpression]:
    """The expression `call` passes to `param` of `func` (None: not passed, or behind a star)."""
    for a in call.args:
        if a.keyword is not None and a.keyword.value == param:
            return a.value
    # Positional arguments before the first star land where they stand (`f(p, s, rng, *xs)`).
    leading = []
    for a in call.args:
        if a.star or a.keyword is not None:
            break
        leading.append(a.value)
    if param in func.positional:
        index = func.positional.index(param) - shift
        if 0 <= index < len(leading):
            return leading[index]
    return None


def entering_withs(model, func: FunctionInfo) -> list[cst.With]:
    """The `with` statements of this file that enter `func`, a generator made a context
    manager (`@contextmanager def timed(...)`): each body runs where `func` yields."""
    from jaxlint.jax_api import CONTEXT_MANAGER_DECORATORS

    node = func.node
    if not isinstance(node, cst.FunctionDef) or not any(
            model.qualname(d.decorator) in CONTEXT_MANAGER_DECORATORS for d in node.decorators):
        return []
    return [w for w in model.nodes(cst.With)
            if any(isinstance(item.item, cst.Call) and called_function(model, item.item) is func
                   for item in w.items)]


def entering_instances(model, klass) -> list[cst.With]:
    """The `with Cls(...):` statements of this file that make an instance of `klass`, a
    context-manager class: each body runs between its `__enter__` and its `__exit__`."""
    return [w for w in model.nodes(cst.With)
            if any(isinstance(item.item, cst.Call) and model.resolve_class(item.item.func) is klass
                   for item in w.items)]


def module_passed(model, expr: cst.BaseExpression, module: str, depth: int = 0) -> Optional[cst.Name]:
    """Where the file hands `module` (a qualified name: "jax.numpy") to what `expr` reads,
    as the imported name written there: `xp` in `def f(xp)` with a call `f(jnp)` somewhere,
    `self.xp` set from such a parameter, or an object of a class of this file whose
    `__getattr__` forwards to such a field (`getattr(self.module, name)`). One call site
    that passes the module is enough: that run reads it. None when no site does."""
    if depth > 2 * _DEPTH:  # each parameter, field and wrapper is a step
        return None
    if isinstance(expr, cst.Name):
        bindings = model.scope_of(expr).lookup(expr.value) or []
        if len(bindings) == 1 and bindings[0].kind == BindingKind.IMPORT:
            return expr if model.qualname(expr) == module else None
        if len(bindings) == 1 and bindings[0].kind == BindingKind.PARAM:
            passed = passed_arguments(model, expr) or []
            return next((found for _, arg in passed
                         if (found := module_passed(model, arg, module, depth + 1)) is not None), None)
        values = model.assigned_values(expr) or []
        return next((found for v in values if (found := module_passed(model, v, module, depth + 1)) is not None),
                    None)
    if isinstance(expr, cst.Attribute):
        values = model.attribute_assignments(expr) or []
        return next((found for v in values if (found := module_passed(model, v, module, depth + 1)) is not None),
                    None)
    if isinstance(expr, cst.Call):
        klass = model.resolve_class(expr.func)
        field = _forwarded_field(klass) if klass is not None else None
        return module_passed(model, field, module, depth + 1) if field is not None else None
    return None


def traced_modules(model, func: FunctionInfo, param: str, depth: int = 0) -> Optional[frozenset[str]]:
    """The modules (qualified names: "jax.numpy") `param` of `func` holds in the runs the
    trace makes: each traced caller's argument, or the default where it passes none,
    followed up through the caller's own parameters. An untraced call is no such run.
    None when a traced run is not a call of this file or passes something else."""
    from jaxlint.engine.functions import ViaKind

    if depth > 2 * _DEPTH or not func.contexts or param not in func.all_params:
        return None
    shifts = dict(call_sites(model, func))
    out: set[str] = set()
    for ctx in func.contexts.values():
        call = ctx.origin
        if ctx.via is not ViaKind.HELPER or not isinstance(call, cst.Call) or call not in shifts:
            return None
        arg = argument_for(call, func, param, shifts[call])
        if arg is None:
            if any(a.star for a in call.args) or param not in func.defaults:
                return None
            arg = func.defaults[param]
        found = _module_named(model, arg, depth)
        if found is None:
            return None
        out |= found
    return frozenset(out)


def _module_named(model, expr: cst.BaseExpression, depth: int) -> Optional[frozenset[str]]:
    if not isinstance(expr, cst.Name):
        return None
    bindings = model.scope_of(expr).lookup(expr.value) or []
    if len(bindings) != 1:
        return None
    if bindings[0].kind == BindingKind.IMPORT:
        q = model.qualname(expr)
        return frozenset({q}) if q is not None else None
    if bindings[0].kind == BindingKind.PARAM:
        caller = _function_with_param(model, expr)
        return traced_modules(model, caller, expr.value, depth + 1) if caller is not None else None
    return None


def _forwarded_field(klass: ClassInfo) -> Optional[cst.Attribute]:
    """`self.module` in `def __getattr__(self, name): return getattr(self.module, name)`:
    every attribute the object lacks is read from that field."""
    method = klass.methods.get("__getattr__")
    node = method.node if method is not None else None
    if not isinstance(node, cst.FunctionDef) or len(method.positional) != 2 \
            or not isinstance(node.body, cst.IndentedBlock) or len(node.body.body) != 1:
        return None
    line = node.body.body[0]
    ret = line.body[0] if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 else None
    call = ret.value if isinstance(ret, cst.Return) else None
    if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value == "getattr"
            and len(call.args) == 2):
        return None
    field, attr = call.args[0].value, call.args[1].value
    self_name, name_param = method.positional
    if isinstance(field, cst.Attribute) and isinstance(field.value, cst.Name) and field.value.value == self_name \
            and isinstance(attr, cst.Name) and attr.value == name_param:
        return field
    return None


def passed_arguments(model, name: cst.Name) -> Optional[list[tuple[cst.Call, cst.BaseExpression]]]:
    """What the call sites of this file pass to the parameter `name` reads
    (`time_call(apply_jit, x)` for `fn` in `def time_call(fn, *args)`), each with its
    call; sites that leave it to its default or pass it behind a star are skipped.
    None when `name` is not a parameter, or the parameter is rebound in the body."""
    func = _function_with_param(model, name)
    if func is None or len(func.scope.bindings.get(name.value, ())) != 1:
        return None
    out = []
    for call, shift in call_sites(model, func):
        arg = argument_for(call, func, name.value, shift)
        if arg is not None:
            out.append((call, arg))
    return out


def every_passed(model, name: cst.Name) -> Optional[list[cst.BaseExpression]]:
    """What each call of this file passes to the parameter `name`, where every call of its
    function passes it (none leaves it to a default or behind a star); else None."""
    passed = passed_arguments(model, name)
    if not passed:
        return None
    owner = model.function_of(name)
    while owner is not None and name.value not in owner.scope.bindings:
        owner = owner.enclosing
    if owner is None or len(call_sites(model, owner)) != len(passed):
        return None
    return [arg for _call, arg in passed]


def _function_with_param(model, name: cst.Name) -> Optional[FunctionInfo]:
    func = model.function_of(name)
    while func is not None and name.value not in func.scope.bindings:
        func = func.enclosing
    return func if func is not None and name.value in func.all_params else None


def _from_call_sites(model, func: FunctionInfo, param: str, depth: int) -> Optional[ClassInfo]:
    sites = call_sites(model, func, depth + 1) + transformed_call_sites(model, func)
    if not sites:
        return None
    found = []
    for call, shift in sites:
        arg = argument_for(call, func, param, shift)
        if arg is None:
            return None
        found.append(instance_class(model, arg, depth + 1))
    return _agreed(found)


def returned_function(model, name: cst.Name, depth: int = 0) -> Optional[FunctionInfo]:
    """`apply_fun` bound by `init_fun, apply_fun = Dropout(0.5)` (or `f = make(...)`,
    `ref = Nonbonded(1.2).to_reference()`), where the factory of this file (a function or
    a method) returns its own nested defs."""
    bindings = model.scope_of(name).lookup(name.value)
    if not bindings or len(bindings) != 1 or bindings[0].kind != BindingKind.ASSIGN:
        return None
    assign = bindings[0].node
    if not isinstance(assign, cst.Assign) or len(assign.targets) != 1 \
            or not isinstance(assign.value, cst.Call):
        return None
    target = assign.targets[0].target
    position = None
    if isinstance(target, (cst.Tuple, cst.List)):
        names = [el.value for el in target.elements]
        if not all(isinstance(n, cst.Name) for n in names):
            return None
        position = next((i for i, n in enumerate(names) if n.value == name.value), None)
        if position is None:
            return None
    elif not isinstance(target, cst.Name):
        return None
    return factory_result(model, assign.value, position, depth)


def factory_result(model, call: cst.Call, position: Optional[int] = None,
                   depth: int = 0) -> Optional[FunctionInfo]:
    """The nested def or lambda that `call`, a call of a factory of this file (a function
    or a method), returns: `make_step(0.1)` for `def make_step(lr): def step(...): ...;
    return step` (the item at `position` of a returned tuple when given)."""
    factory = function_of_callable(model, call.func, depth + 1)
    if factory is None or factory.is_lambda:
        return None
    found = []
    for ret in returns_of(model, factory):
        value = ret.value
        if position is not None:
            if not isinstance(value, (cst.Tuple, cst.List)) or len(value.elements) <= position:
                return None
            value = value.elements[position].value
        # `return lambda: next(self._iterator)`: a lambda is made by each call as a def is.
        if not isinstance(value, (cst.Name, cst.Lambda)):
            return None
        inner = model.resolve_function(value)
        if inner is None or inner.enclosing is not factory:
            return None
        found.append(inner)
    return found[0] if found and all(f is found[0] for f in found) else None


def returns_of(model, func: FunctionInfo) -> list[cst.Return]:
    """The `return value` statements of `func` itself (not of its nested functions)."""
    return [r for r in model.nodes(cst.Return) if model.function_of(r) is func and r.value is not None]


def _agreed(classes) -> Optional[ClassInfo]:
    classes = list(classes)
    if not classes or any(c is None for c in classes):
        return None
    return classes[0] if all(c is classes[0] for c in classes) else None


def attribute_calls(model, klass: ClassInfo, attr: str, depth: int = 0) -> list[cst.Call]:
    """The calls `obj.<attr>(...)` of this file where `obj` is an instance of `klass` or
    of a class related to it (`self` in its methods, an attribute or parameter every
    binding shows to hold one): where a callable the class stores as `self.<attr>` runs."""
    family = {klass, *klass.relatives}
    return [call for call in model.attribute_calls_named(attr)
            if instance_class(model, call.func.value, depth + 1) in family]


def changing_attributes(model, klass: ClassInfo) -> frozenset[str]:
    """The attributes of `klass` (and its relatives) that a method other than `__init__`
    sets: the object's state, as against its configuration (`self.use_jit`), which only
    the constructor sets."""
    out = set()
    for rel in {klass, *klass.relatives}:
        for attr, targets in rel.attribute_sites.items():
            if any(getattr(model.function_of(t), "name", "__init__") != "__init__" for t in targets):
                out.add(attr)
    return frozenset(out)
