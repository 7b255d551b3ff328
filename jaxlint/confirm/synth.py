"""Argument synthesis (worker side, imports jax): abstract or concrete arguments per candidate.

Order of the try-list (measured on 14 functions, see the confirm-mode notes): annotations and
call sites first; then a float32 scalar (a vector turns `if x > 0` into a ValueError), int32
for values used as sizes, an int32 scalar, then ranks 1-3, then (2,).
"""

from __future__ import annotations

import collections
import dataclasses
import inspect
from dataclasses import dataclass, field
from typing import Any, Optional

import jax
import jax.numpy as jnp
import numpy as np

# (dtype, shape) per try-list step; None dtype = float32 unless the parameter is a size.
TRY_LIST = [(None, ()), ("int32", ()), ("float32", (4,)), ("float32", (4, 4)),
            ("float32", (2, 4, 4)), ("float32", (2,))]
_DIM_SIZES = [3, 4, 5, 2, 6, 7, 8, 9]


@dataclass
class Args:
    args: list[Any] = field(default_factory=list)
    kwargs: dict[str, Any] = field(default_factory=dict)
    static: set[str] = field(default_factory=set)
    desc: list[str] = field(default_factory=list)
    invented: bool = False  # synthesized: no call site of the program passes them

    @property
    def shapes(self) -> str:
        return ", ".join(self.desc)


class CannotBuild(Exception):
    """No argument of this kind can be made for a parameter (pytree, *args...)."""


def _dims(text: str, sizes: dict[str, int]) -> Optional[tuple[int, ...]]:
    shape = []
    for tok in text.split():
        tok = tok.lstrip("*#").split("=")[-1]
        if tok.isdigit():
            shape.append(int(tok))
        elif tok in ("...", "_"):
            continue
        else:
            if tok not in sizes:
                sizes[tok] = _DIM_SIZES[len(sizes) % len(_DIM_SIZES)]
            shape.append(sizes[tok])
    return tuple(shape)


def _static_value(p: dict, default: Any) -> Any:
    site = p.get("site") or {}
    if "value" in site:
        v = site["value"]
        return tuple(v) if site.get("list") else v
    if default is not inspect.Parameter.empty:
        return default
    ann = p.get("annotation")
    return {"int": 3, "bool": True, "float": 1.0, "str": "a"}.get(ann, 3)


def _fill(shape, dtype, concrete: bool):
    if not concrete:
        return jax.ShapeDtypeStruct(shape, jnp.dtype(dtype))
    if dtype == "bool":
        return jnp.ones(shape, dtype=bool)
    if "int" in dtype:
        return jnp.full(shape, 3, dtype=dtype)
    n = int(np.prod(shape)) if shape else 1
    # Distinct non-zero values: zeros would hide `x * SCALE` changing.
    return (jnp.arange(n, dtype=dtype).reshape(shape) * 0.5 + 1.5).astype(dtype)


def _describe(name: str, shape, dtype) -> str:
    return f"{name}: {jnp.dtype(dtype).name}[{','.join(str(d) for d in shape)}]"


def _array(step: int, concrete: bool):
    dtype, shape = TRY_LIST[step]
    dtype = dtype or "float32"
    return _fill(shape, dtype, concrete), _describe("", shape, dtype)[2:]


def _from_class(cls, step: int, concrete: bool, depth: int = 2):
    """A dataclass (or NamedTuple) instance: arrays for array fields, a guess for the rest."""
    if dataclasses.is_dataclass(cls):
        fields = [(f.name, f.type) for f in dataclasses.fields(cls) if f.init]
    elif isinstance(cls, type) and issubclass(cls, tuple) and hasattr(cls, "_fields"):
        hints = getattr(cls, "__annotations__", {})
        fields = [(n, hints.get(n)) for n in cls._fields]
    else:
        raise CannotBuild(f"{getattr(cls, '__name__', cls)} is not a dataclass")
    values = {}
    for name, ann in fields:
        ann_name = ann if isinstance(ann, str) else getattr(ann, "__name__", "")
        if ann_name in ("int", "float", "bool", "str"):
            values[name] = {"int": 3, "float": 1.0, "bool": True, "str": "a"}[ann_name]
        elif isinstance(ann, type) and depth > 0 and (dataclasses.is_dataclass(ann) or hasattr(ann, "_fields")):
            values[name] = _from_class(ann, step, concrete, depth - 1)
        else:
            values[name] = _array(step, concrete)[0]
    return cls(**values)


def _seed(i: int) -> int:
    return 1000 + i  # distinct per key parameter: equal keys would fake a reuse


def build(fplan: dict, sig: inspect.Signature, step: int, concrete: bool,
          static_names: set[str], skip_first: bool = False, namespace: Optional[dict] = None) -> Args:
    """Arguments for try-list step `step` (0-based). Raises CannotBuild."""
    out = Args()
    sizes: dict[str, int] = {}
    n_keys = 0
    plan_params = {p["name"]: p for p in fplan.get("params", [])}
    params = list(sig.parameters.values())
    if skip_first and params:
        params = params[1:]
    for par in params:
        if par.kind in (par.VAR_POSITIONAL, par.VAR_KEYWORD):
            continue
        p = plan_params.get(par.name, {"name": par.name})
        site = p.get("site") or {}
        # A parameter the program's transforms do not trace (vmap's in_axes=None, a default
        # never passed) is a Python value there, so it is one here.
        untraced = fplan.get("abstract") and fplan.get("traced") is not None \
            and par.name not in fplan["traced"] and not _array_site(site)
        is_static = par.name in static_names or p.get("static") or untraced
        passed = fplan.get("passed")
        if par.default is not inspect.Parameter.empty and passed is not None \
                and par.name not in passed:
            # Every call the module makes leaves it out: the program runs with its default
            # (a key built once when the `def` ran, a flag), so any other value is staged.
            if is_static:
                out.static.add(par.name)
            out.desc.append(f"{par.name} left to its default (no call passes it)")
            continue
        if is_static:
            if par.default is not inspect.Parameter.empty and "value" not in site:
                out.static.add(par.name)
                continue  # the default stays
            value = _static_value(p, par.default)
            out.static.add(par.name)
            out.desc.append(f"{par.name}={value!r}")
        elif p.get("key") or site.get("key"):
            seed = _seed(n_keys)
            n_keys += 1
            value = jax.random.PRNGKey(seed) if concrete else jax.ShapeDtypeStruct((2,), jnp.uint32)
            out.desc.append(f"{par.name}: PRNGKey({seed})")
        elif (cls := _annotated_class(p, namespace)) is not None:
            value = _from_class(cls, step, concrete)
            out.desc.append(f"{par.name}: {cls.__name__}(...) from its fields, arrays "
                            f"{_array(step, concrete)[1]}")
        elif p.get("attrs") and not p.get("keys"):
            # `state.step`, `state.params`: a namedtuple (a pytree) with those fields.
            fields = [a for a in p["attrs"] if a.isidentifier() and not a.startswith("_")]
            if not fields:
                raise CannotBuild(f"`{par.name}`: no usable fields")
            nt = collections.namedtuple(f"{par.name}_fields", fields)
            value = nt(*[_array(step, concrete)[0] for _ in fields])
            out.desc.append(f"{par.name}: namedtuple({', '.join(fields)}) of {_array(step, concrete)[1]}")
        elif p.get("items"):
            # `for layer in params: layer["w"]`: a list of two dicts with those keys.
            value = [{k: _array(step, concrete)[0] for k in p["items"]} for _ in range(2)]
            out.desc.append(f"{par.name}: 2 x {{{', '.join(map(repr, p['items']))}}} of "
                            f"{_array(step, concrete)[1]}")
        elif "shape" in site or "dims" in p:
            shape = tuple(site["shape"]) if "shape" in site else _dims(p["dims"], sizes)
            dtype = site.get("dtype") or p.get("dtype") or "float32"
            if site.get("numpy") and concrete:
                value = np.asarray(_fill(shape, dtype, True))
                out.desc.append("numpy " + _describe(par.name, shape, dtype))
            else:
                value = _fill(shape, dtype, concrete)
                out.desc.append(_describe(par.name, shape, dtype))
        elif "value" in site and not isinstance(site["value"], (list, str, type(None))):
            v = site["value"]
            dtype = "bool" if isinstance(v, bool) else "int32" if isinstance(v, int) else "float32"
            value = _fill((), dtype, concrete)
            if concrete:
                value = jnp.asarray(v, dtype=dtype)
            out.desc.append(_describe(par.name, (), dtype))
        elif p.get("keys"):
            # A dict of arrays keyed as the function body subscripts it (`params["w"]`).
            dtype, shape = TRY_LIST[step]
            dtype = dtype or "float32"
            value = {k: _fill(shape, dtype, concrete) for k in p["keys"]}
            out.desc.append(f"{par.name}: {{{', '.join(map(repr, p['keys']))}}} of "
                            + _describe("", shape, dtype)[2:])
        elif par.default is not inspect.Parameter.empty and p.get("default") is not False \
                and not _is_arraylike(par.default):
            continue  # a Python default (a flag, a name): leave it
        else:
            ann = p.get("annotation")
            if ann in ("int", "bool", "float"):
                dtype, shape = {"int": "int32", "bool": "bool", "float": "float32"}[ann], ()
            elif p.get("size"):
                dtype, shape = "int32", ()  # used as a size (`range(n)`): an integer scalar
            else:
                dtype, shape = TRY_LIST[step]
                if dtype is None:
                    dtype = "float32"
            value = _fill(shape, dtype, concrete)
            out.desc.append(_describe(par.name, shape, dtype))
        if par.kind == par.KEYWORD_ONLY:
            out.kwargs[par.name] = value
        elif len(out.args) != _positional_index(params, par):
            out.kwargs[par.name] = value  # an earlier parameter kept its default
        else:
            out.args.append(value)
    return out


def _array_site(site: dict) -> bool:
    return "shape" in site or site.get("key", False)


def _annotated_class(p: dict, namespace: Optional[dict]):
    text = p.get("ann_text")
    if not text or namespace is None or not text.replace(".", "").isidentifier():
        return None
    try:
        cls = eval(text, dict(namespace))  # a dotted name only: no call runs
    except Exception:  # noqa: BLE001
        return None
    if isinstance(cls, type) and (dataclasses.is_dataclass(cls) or
                                  (issubclass(cls, tuple) and hasattr(cls, "_fields"))):
        return cls
    return None


def _positional_index(params, par) -> int:
    i = 0
    for q in params:
        if q is par:
            return i
        if q.kind in (q.POSITIONAL_ONLY, q.POSITIONAL_OR_KEYWORD):
            i += 1
    return i


def _is_arraylike(v) -> bool:
    return isinstance(v, (jax.Array, np.ndarray))


def steps_for(fplan: dict) -> int:
    """How many try-list steps make a difference: one when nothing is guessed."""
    for p in fplan.get("params", []):
        if not p.get("static") and "dims" not in p and "shape" not in (p.get("site") or {}) \
                and not p.get("key") and p.get("annotation") not in ("int", "bool", "float"):
            return len(TRY_LIST)
    return 1
