"""Facts about JAX's API, written once.

Every rule and the engine read these tables instead of matching strings on
their own. Each fact here was checked under jax 0.10.2 on the CPU (see the
tests in tests/test_jax_facts.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True)
class Transform:
    """A function transformation, and what it does to its function's arguments."""

    name: str
    # Python control flow on the traced arguments fails (values are abstract).
    # grad / jacfwd / jacrev / custom_jvp alone keep values concrete, so `if x > 0`
    # works under them.
    abstract: bool
    # The traced function is cached on its identity: side effects run once per
    # trace, and globals are read once (jit, pmap).
    cached: bool
    # Keyword arguments that name static parameters.
    static_argnums_kw: tuple[str, ...] = ()
    static_argnames_kw: tuple[str, ...] = ()
    # Options that may also be given by position after the function: vmap(f, in_axes).
    positional_options: tuple[str, ...] = ()
    # Values are JVP tracers: concrete enough for `if x > 0`, yet float(x) fails.
    differentiates: bool = False
    # Only array arguments are traced; Python values stay static (equinox's filter_*).
    arrays_only: bool = False
    # The option whose `None` entries pass their argument through untraced: vmap's
    # `in_axes=(0, None)`; shard_map's `in_specs=(P("x"), None)` (a Python int stays
    # one, checked under jax 0.10.2; `P()` makes it a tracer).
    untraced_none_option: str = ""
    # A call of the transformed function waits for its result before it returns, so a
    # clock read after it holds the work: equinox's filter_jit blocks on an output marker
    # (`marker.block_until_ready()` in equinox/_jit.py) to raise its runtime errors: in
    # every release from 0.11.8 on (read in the wheels: 0.11.7 and earlier do not wait),
    # which every equinox that runs with jax 0.10 is.
    waits_on_return: bool = False


_JIT = Transform("jit", abstract=True, cached=True,
                 static_argnums_kw=("static_argnums",), static_argnames_kw=("static_argnames",))
_PMAP = Transform("pmap", abstract=True, cached=True,
                  static_argnums_kw=("static_broadcasted_argnums",),
                  static_argnames_kw=("static_broadcasted_argnames",))
_VMAP = Transform("vmap", abstract=True, cached=False, positional_options=("in_axes", "out_axes"),
                  untraced_none_option="in_axes")
_CHECKPOINT = Transform("checkpoint", abstract=True, cached=False,
                        static_argnums_kw=("static_argnums",))
_GRAD = Transform("grad", abstract=False, cached=False, positional_options=("argnums",),
                  differentiates=True)
_JACFWD = Transform("jacfwd", abstract=False, cached=False, positional_options=("argnums",),
                    differentiates=True)
_JVP = Transform("jvp", abstract=False, cached=False, differentiates=True)
_LINEARIZE = Transform("linearize", abstract=False, cached=False, differentiates=True)
_VJP = Transform("vjp", abstract=False, cached=False, differentiates=True)
_CUSTOM = Transform("custom_derivative", abstract=False, cached=False,
                    static_argnums_kw=("nondiff_argnums",))
_EVAL_SHAPE = Transform("eval_shape", abstract=True, cached=False)
_SHARD_MAP = Transform("shard_map", abstract=True, cached=False, untraced_none_option="in_specs")
# jax.experimental.shard_map.shard_map(f, mesh, in_specs, out_specs) takes them by position.
_SHARD_MAP_EXPERIMENTAL = Transform("shard_map", abstract=True, cached=False,
                                    positional_options=("mesh", "in_specs", "out_specs"),
                                    untraced_none_option="in_specs")
# equinox's filtered transforms trace array leaves and keep every other leaf static.
_FILTER_JIT = Transform("filter_jit", abstract=True, cached=True, arrays_only=True,
                        waits_on_return=True)
_FILTER_VMAP = Transform("filter_vmap", abstract=True, cached=False, arrays_only=True)
_FILTER_GRAD = Transform("filter_grad", abstract=False, cached=False, differentiates=True,
                         arrays_only=True)
_MAKE_JAXPR = Transform("make_jaxpr", abstract=True, cached=False, static_argnums_kw=("static_argnums",))

#: Transforms that, applied outside jit, run their function's primitives one by one as
#: they come (nothing is cached on the function): lax control flow in it compiles its
#: program on each call as it does eagerly, so a body made anew compiles anew (jax 0.10.2:
#: `jax.vmap(f)(xs)` with `lax.scan(partial(step, p), ...)` in `f` logs `Compiling
#: jit(scan)` on every call, `jax.grad` twice per call; the same body object compiles once).
DISPATCHING_TRANSFORMS: frozenset[str] = frozenset({"vmap", "grad", "jacfwd", "jvp", "linearize", "vjp"})

#: Transforms used as decorators or wrappers: `@jax.jit`, `jax.vmap(f)`.
TRANSFORMS: dict[str, Transform] = {
    "jax.jit": _JIT,
    "jax.pjit": _JIT,
    "jax.experimental.pjit.pjit": _JIT,
    "jax.pmap": _PMAP,
    "jax.vmap": _VMAP,
    "jax.checkpoint": _CHECKPOINT,
    "jax.remat": _CHECKPOINT,
    "jax.ad_checkpoint.checkpoint": _CHECKPOINT,
    "jax.grad": _GRAD,
    "jax.value_and_grad": _GRAD,
    "jax.jacfwd": _JACFWD,
    "jax.jacrev": _GRAD,
    "jax.jacobian": _GRAD,  # jax.jacobian is jacrev under another name (jax/_src/api.py)
    "jax.hessian": _GRAD,
    "jax.jvp": _JVP,
    "jax.linearize": _LINEARIZE,
    "jax.vjp": _VJP,
    "jax.custom_jvp": _CUSTOM,
    "jax.custom_vjp": _CUSTOM,
    "jax.eval_shape": _EVAL_SHAPE,
    "jax.make_jaxpr": _MAKE_JAXPR,
    "jax.shard_map": _SHARD_MAP,
    "jax.experimental.shard_map.shard_map": _SHARD_MAP_EXPERIMENTAL,
    # Flax NNX's lifted transforms trace like JAX's (modules become graph-state pytrees).
    "flax.nnx.jit": _JIT,
    "flax.nnx.vmap": _VMAP,
    "flax.nnx.remat": _CHECKPOINT,
    "flax.nnx.grad": _GRAD,
    "flax.nnx.value_and_grad": _GRAD,
    "equinox.filter_jit": _FILTER_JIT,
    "equinox.filter_vmap": _FILTER_VMAP,
    "equinox.filter_grad": _FILTER_GRAD,
    "equinox.filter_value_and_grad": _FILTER_GRAD,
}

#: Kinds a user can give an extra transform in `[tool.jaxlint] extend-transforms`.
TRANSFORM_KINDS: dict[str, Transform] = {
    "jit": _JIT,
    "pmap": _PMAP,
    "vmap": _VMAP,
    "checkpoint": _CHECKPOINT,
    "grad": _GRAD,
}


@dataclass(frozen=True)
class BodyCall:
    """A lax control-flow primitive that traces Python callables (always abstractly)."""

    # Positions (or keywords) of the callable arguments.
    fn_positions: tuple[int, ...]
    fn_keywords: tuple[str, ...]
    # lax.switch takes a sequence of branches at this position.
    branch_list_position: int | None = None
    # False: the callable runs on whatever it is given (associative_scan calls it
    # eagerly outside jit), so it is abstract only inside an abstract trace.
    abstract: bool = True


#: lax control flow traces its bodies to jaxprs even outside jit, so Python control
#: flow on the carry / xs / index fails there too.
BODY_CALLS: dict[str, BodyCall] = {
    "jax.lax.scan": BodyCall((0,), ("f",)),
    "jax.lax.fori_loop": BodyCall((2,), ("body_fun",)),
    "jax.lax.while_loop": BodyCall((0, 1), ("cond_fun", "body_fun")),
    "jax.lax.cond": BodyCall((1, 2), ("true_fun", "false_fun")),
    "jax.lax.switch": BodyCall((), (), branch_list_position=1),
    "jax.lax.map": BodyCall((0,), ("f",)),
    "jax.lax.associative_scan": BodyCall((0,), ("fn",), abstract=False),
    "jax.lax.reduce": BodyCall((2,), ("computation",)),
    "jax.lax.custom_root": BodyCall((0, 2, 3), ()),
}

#: The argument of a lax loop whose pytree each positional parameter of its body gets, by
#: (position, keyword): scan's `f(carry, x)` gets `init`'s structure and a slice of each leaf
#: of `xs`; a tuple there is a tuple of tracers in the body, not a tracer. `None`: a value the
#: loop makes (fori_loop's index).
BODY_PARAMETER_SOURCES: dict[str, tuple] = {
    "jax.lax.scan": ((1, "init"), (2, "xs")),
    "jax.lax.fori_loop": (None, (3, "init_val")),
    "jax.lax.while_loop": ((2, "init_val"),),
    "jax.lax.map": ((1, "xs"),),
}

#: lax primitives that hand their trailing positional arguments (`*operands`) to the
#: body's parameters one by one: `lax.cond(pred, f, g, *operands)`, `lax.switch(i, fs, *operands)`.
BODY_OPERANDS_FROM: dict[str, int] = {"jax.lax.cond": 3, "jax.lax.switch": 2}

#: Modules whose functions return JAX arrays (traced inside a traced function).
ARRAY_MODULES: tuple[str, ...] = (
    "jax.numpy", "jax.lax", "jax.random", "jax.nn", "jax.scipy", "jax.image",
)
#: Modules a program may rename by assignment (`jnp = jax.numpy`): read through the alias.
ALIASED_MODULES: frozenset[str] = frozenset(ARRAY_MODULES) | {"jax", "numpy", "jax.tree", "jax.tree_util"}
ARRAY_FUNCTIONS: frozenset[str] = frozenset({
    "jax.device_put", "jax.pure_callback", "jax.block_until_ready",
})

#: Functions of the array modules that return static (Python / NumPy) values.
STATIC_ARRAY_FUNCTIONS: frozenset[str] = frozenset({
    "jax.numpy.shape", "jax.numpy.ndim", "jax.numpy.size", "jax.numpy.result_type",
    "jax.numpy.dtype", "jax.numpy.iinfo", "jax.numpy.finfo", "jax.numpy.issubdtype",
    "jax.numpy.promote_types", "jax.numpy.isdtype", "jax.numpy.can_cast",
    "jax.numpy.isscalar", "jax.numpy.iscomplexobj", "jax.numpy.isrealobj",
    "jax.numpy.broadcast_shapes", "jax.lax.broadcast_shapes", "jax.lax.dtype",
    "jax.lax.axis_size",
    "jax.numpy.issctype", "jax.numpy.obj2sctype",
})
#: flax linen's Module: `model.apply(variables, *args, method=..., rngs=..., mutable=...)`
#: runs `__call__` (or `method`) on `args`, inside whatever trace makes the call.
LINEN_MODULE_CLASSES: frozenset[str] = frozenset({"flax.linen.Module", "flax.linen.module.Module"})
LINEN_APPLY_OPTIONS: frozenset[str] = frozenset({
    "method", "rngs", "mutable", "capture_intermediates",
})
#: nnx modules: nnx.jit / nnx.grad / ... carry updates of their attributes out of the
#: trace (`self.count += 1` in `__call__` is nnx's state API), so writes to `self`
#: in their methods are not lost (flax 0.12.8).
STATEFUL_MODULE_CLASSES: frozenset[str] = frozenset({
    "flax.nnx.Module", "flax.nnx.Pytree", "flax.nnx.Object",
})
#: Layers built and called in one expression (`nn.Dense(4)(x)` in a linen `@nn.compact`
#: method): on a traced input each returns one traced array.
LAYER_CLASSES: frozenset[str] = frozenset(
    f"flax.linen.{n}" for n in (
        "Dense", "DenseGeneral", "Conv", "ConvTranspose", "ConvLocal", "Embed", "LayerNorm",
        "BatchNorm", "GroupNorm", "RMSNorm", "InstanceNorm", "Dropout",
        "MultiHeadDotProductAttention", "MultiHeadAttention", "SelfAttention",
    ))
#: Functions of the array modules that return a function or another object, not an
#: array: `jnp.vectorize(f)`, `jax.nn.initializers.normal()` (an initializer), the
#: classes (`lax.Precision(...)`, `RegularGridInterpolator(...)`). `jax.random.PRNGKey`
#: is the capitalised one that returns an array.
OBJECT_ARRAY_FUNCTIONS: frozenset[str] = frozenset({
    "jax.numpy.vectorize", "jax.numpy.frompyfunc", "jax.random.key_impl",
    "jax.lax.conv_dimension_numbers",
})
OBJECT_ARRAY_MODULES: tuple[str, ...] = ("jax.nn.initializers.",)
CAPITALISED_ARRAY_FUNCTIONS: frozenset[str] = frozenset({"jax.random.PRNGKey"})

#: Attributes of an array that are static even when the array is traced.
STATIC_ATTRIBUTES: frozenset[str] = frozenset({
    "shape", "ndim", "dtype", "size", "itemsize", "nbytes", "weak_type", "sharding",
    "aval",
})

#: Attributes / methods of a JAX array that give another (traced) array.
ARRAY_ATTRIBUTES: frozenset[str] = frozenset({
    "T", "mT", "real", "imag", "at", "flat",
})
ARRAY_METHODS: frozenset[str] = frozenset({
    "sum", "mean", "prod", "max", "min", "std", "var", "all", "any", "argmax",
    "argmin", "argsort", "sort", "cumsum", "cumprod", "reshape", "transpose",
    "swapaxes", "squeeze", "ravel", "flatten", "astype", "clip", "round", "dot",
    "conj", "conjugate", "take", "repeat", "diagonal", "trace", "nonzero", "ptp",
    "set", "add", "multiply", "divide", "power", "apply", "get", "copy", "view",
    "block_until_ready", "__getitem__", "squeeze", "real", "imag",
})
#: Array methods that compute from the array alone: reductions, reshapes, casts.
ARRAY_OWN_METHODS: frozenset[str] = frozenset({
    "sum", "mean", "prod", "max", "min", "std", "var", "argmax", "argmin", "argsort", "sort",
    "cumsum", "cumprod", "reshape", "transpose", "swapaxes", "squeeze", "ravel", "flatten",
    "astype", "round", "conj", "conjugate", "diagonal", "trace",
})

#: Builtins whose result is static whatever their argument.
STATIC_BUILTINS: frozenset[str] = frozenset({
    "len", "isinstance", "issubclass", "type", "hasattr", "callable", "id", "str",
    "repr", "getattr_static", "print", "format",
})
#: Builtins that keep a traced argument traced (no conversion happens).
TRACED_BUILTINS: frozenset[str] = frozenset({"abs", "sum", "pow", "divmod", "round"})

#: Dict methods of a pytree: keys are static, values are traced.
PYTREE_KEY_METHODS: frozenset[str] = frozenset({"keys"})
PYTREE_VALUE_METHODS: frozenset[str] = frozenset({"values", "get", "pop"})
PYTREE_ITEM_METHODS: frozenset[str] = frozenset({"items"})


def array_module_function(qualname: str | None) -> bool:
    """Whether `qualname` names a function returning a JAX array."""
    if qualname is None:
        return False
    if qualname in ARRAY_FUNCTIONS:
        return True
    if qualname in STATIC_ARRAY_FUNCTIONS or qualname in OBJECT_ARRAY_FUNCTIONS \
            or qualname.startswith(OBJECT_ARRAY_MODULES):
        return False
    if qualname.rsplit(".", 1)[-1][:1].isupper() and qualname not in CAPITALISED_ARRAY_FUNCTIONS:
        return False  # a class
    return any(qualname.startswith(m + ".") for m in ARRAY_MODULES)


#: Functions returning boolean arrays (masks).
BOOLEAN_FUNCTIONS: frozenset[str] = frozenset(
    f"jax.numpy.{n}" for n in (
        "isnan", "isinf", "isfinite", "isneginf", "isposinf", "logical_and", "logical_or",
        "logical_not", "logical_xor", "greater", "greater_equal", "less", "less_equal",
        "equal", "not_equal", "isclose", "signbit", "isin", "iscomplex", "isreal",
    ))

@dataclass(frozen=True)
class SizeArgument:
    """The argument that fixes a data-dependent output size, and the data it reads."""

    keyword: str
    # Its position, where it may be given by position (`segment_sum(d, ids, 3)`).
    position: int | None = None
    # The position of the argument whose values decide the size.
    data: int = 0
    # Another spelling the message should warn about (`minlength` does not fix the size).
    not_enough: str | None = None


#: Functions whose output size depends on the data: under an abstract trace they
#: raise ConcretizationTypeError unless the size is given. The value says which
#: argument fixes the size, and which holds the data.
#: `jax.ops.segment_*` without `num_segments` compute max(segment_ids) + 1, and
#: `jnp.bincount` without `length` max(x) + 1 (`minlength` is not enough): both raise
#: ConcretizationTypeError under jit and vmap, and work under grad (jax 0.10.2).
SIZE_DEPENDENT_FUNCTIONS: dict[str, SizeArgument] = {
    **{f"jax.numpy.{n}": SizeArgument("size") for n in (
        "nonzero", "argwhere", "flatnonzero", "unique", "unique_values", "unique_counts",
        "unique_inverse", "unique_all", "union1d", "intersect1d", "setdiff1d", "setxor1d",
        "extract", "compress",
    )},
    **{f"jax.ops.{n}": SizeArgument("num_segments", position=2, data=1) for n in (
        "segment_sum", "segment_max", "segment_min", "segment_prod",
    )},
    "jax.numpy.bincount": SizeArgument("length", not_enough="minlength"),
}

#: NumPy functions that work on a tracer because NumPy hands them to the array's own
#: method (`np.sum(x)` calls `x.sum()`): the result is a tracer too. Checked under jax
#: 0.10.2 with numpy 2.4 inside `jax.jit`; `np.clip`, `np.nonzero`, `np.ptp`, `np.trace`
#: and `np.diagonal` convert the array instead and raise TracerArrayConversionError.
NUMPY_TO_ARRAY_METHOD: frozenset[str] = frozenset(
    f"numpy.{n}" for n in (
        "sum", "mean", "prod", "max", "min", "amax", "amin", "all", "any", "std", "var",
        "argmax", "argmin", "cumsum", "cumprod", "round", "around", "reshape", "transpose",
        "squeeze", "take", "repeat", "swapaxes", "argsort",
    ))
#: SciPy functions that convert an array argument with NumPy on entry, by (position,
#: keyword): a tracer there raises TracerArrayConversionError (checked under jax 0.10.2
#: with scipy 1.17 inside `jax.jit`, each with a traced argument at that place).
SCIPY_NUMPY_ARGUMENTS: dict[str, tuple[int, str]] = {
    "scipy.optimize.minimize": (1, "x0"),
    "scipy.optimize.least_squares": (1, "x0"),
    "scipy.optimize.root": (1, "x0"),
    "scipy.optimize.fsolve": (1, "x0"),
    "scipy.optimize.curve_fit": (3, "p0"),
    "scipy.integrate.solve_ivp": (2, "y0"),
    "scipy.integrate.odeint": (1, "y0"),
}
#: NumPy functions that work on a tracer because they read only static metadata.
NUMPY_METADATA: frozenset[str] = frozenset(
    f"numpy.{n}" for n in (
        "shape", "ndim", "size", "result_type", "dtype", "iinfo", "finfo", "issubdtype",
        "isscalar", "broadcast_shapes", "promote_types",
    ))
NUMPY_TRACER_SAFE: frozenset[str] = NUMPY_TO_ARRAY_METHOD | NUMPY_METADATA
#: Other SciPy functions that convert their array arguments with np.asarray (the solvers
#: with a starting point are in SCIPY_NUMPY_ARGUMENTS): given a tracer each raised
#: TracerArrayConversionError under jax.jit (jax 0.10.2, scipy 1.x, CPU). `brentq` and
#: `quad` fail otherwise (RuntimeError, TracerBoolConversionError) and are left out.
SCIPY_ARRAY_FUNCTIONS: frozenset[str] = frozenset({
    "scipy.optimize.minimize_scalar", "scipy.integrate.trapezoid",
    "scipy.linalg.solve", "scipy.linalg.expm", "scipy.special.erf", "scipy.special.logsumexp",
    "scipy.stats.norm.pdf", "scipy.interpolate.interp1d", "scipy.signal.convolve",
    "scipy.ndimage.gaussian_filter", "scipy.fft.fft",
})

#: Functions that take a shape (or sizes) and need it concrete under jit. The value
#: says which arguments hold sizes, and the error JAX raises when one is traced.
@dataclass(frozen=True)
class ShapeArgs:
    positions: tuple[int, ...]
    keywords: tuple[str, ...]
    raises: str = "TypeError"
    # Alternative that keeps the function traceable, for the message.
    fix: str = "compute sizes from x.shape with Python or NumPy arithmetic (static), not jnp"


SHAPE_FUNCTIONS: dict[str, ShapeArgs] = {
    "jax.numpy.zeros": ShapeArgs((0,), ("shape",)),
    "jax.numpy.ones": ShapeArgs((0,), ("shape",)),
    "jax.numpy.empty": ShapeArgs((0,), ("shape",)),
    "jax.numpy.full": ShapeArgs((0,), ("shape",)),
    "jax.numpy.eye": ShapeArgs((0, 1), ("N", "M")),
    "jax.numpy.identity": ShapeArgs((0,), ("n",)),
    "jax.numpy.tri": ShapeArgs((0, 1), ("N", "M")),
    "jax.numpy.broadcast_to": ShapeArgs((1,), ("shape",)),
    "jax.numpy.reshape": ShapeArgs((1,), ("shape", "newshape")),
    "jax.numpy.arange": ShapeArgs((0, 1, 2), ("start", "stop", "step"), "ConcretizationTypeError",
                                  "use a static size (x.shape[0]) or jnp.where over a fixed-size arange"),
    "jax.numpy.linspace": ShapeArgs((2,), ("num",), "ConcretizationTypeError"),
    "jax.numpy.repeat": ShapeArgs((1,), ("repeats",), "ConcretizationTypeError",
                                  "pass total_repeat_length= so the output size is static"),
    "jax.random.normal": ShapeArgs((1,), ("shape",)),
    "jax.random.uniform": ShapeArgs((1,), ("shape",)),
    "jax.random.bernoulli": ShapeArgs((2,), ("shape",)),
    "jax.random.randint": ShapeArgs((1,), ("shape",)),
    # lax's shape-taking functions: a traced size raises TypeError (jax 0.10.2).
    "jax.lax.full": ShapeArgs((0,), ("shape",)),
    "jax.lax.broadcast": ShapeArgs((1,), ("sizes",)),
    "jax.lax.broadcast_in_dim": ShapeArgs((1,), ("shape",)),
    "jax.lax.iota": ShapeArgs((1,), ("size",)),
    "jax.lax.reshape": ShapeArgs((1,), ("new_sizes",)),
    "jax.numpy.tile": ShapeArgs((1,), ("reps",)),
    # Sizes read by library functions; each traced one raises under jit and vmap, and
    # works under grad (jax 0.10.2). (jnp.histogram's `bins` may be traced edges: not here.)
    "jax.nn.one_hot": ShapeArgs((1,), ("num_classes",), "ConcretizationTypeError",
                                "pass the number of classes as a Python int (static)"),
    "jax.numpy.split": ShapeArgs((1,), ("indices_or_sections",), "ConcretizationTypeError"),
    "jax.numpy.array_split": ShapeArgs((1,), ("indices_or_sections",), "ConcretizationTypeError"),
    "jax.numpy.pad": ShapeArgs((1,), ("pad_width",), "ConcretizationTypeError"),
    "jax.numpy.bincount": ShapeArgs((), ("length",), "ConcretizationTypeError",
                                    "pass length= as a Python int (static)"),
    "jax.lax.dynamic_slice": ShapeArgs((2,), ("slice_sizes",), "TypeError",
                                       "slice sizes must be static (only the start indices may be traced)"),
    **{f"jax.ops.{n}": ShapeArgs((2,), ("num_segments",), "ConcretizationTypeError",
                                 "pass num_segments= as a Python int (static)")
       for n in ("segment_sum", "segment_max", "segment_min", "segment_prod")},
    # Sizes and orders that fix the output's shape; each traced one raises under jit and vmap
    # (jax 0.10.2, the error each one raised).
    "jax.scipy.special.multigammaln": ShapeArgs((1,), ("d",), "ConcretizationTypeError",
                                                "pass the dimension d as a Python int (static)"),
    **{f"jax.numpy.fft.{n}": ShapeArgs((1,), ("n",), "TracerIntegerConversionError",
                                       "pass the transform length n as a Python int (static)")
       for n in ("fft", "ifft", "rfft")},
    "jax.lax.top_k": ShapeArgs((1,), ("k",), "TracerBoolConversionError", "pass k as a Python int (static)"),
    "jax.lax.dynamic_slice_in_dim": ShapeArgs((2,), ("slice_size",), "TracerIntegerConversionError",
                                              "the slice size must be static (only the start may be traced)"),
    # scan's `length` fixes the number of steps (and the stacked outputs' size): a traced
    # one raises ConcretizationTypeError under jit (jax 0.10.2).
    "jax.lax.scan": ShapeArgs((3,), ("length",), "ConcretizationTypeError",
                              "pass length as a Python int (static), or let scan read it from xs"),
}
#: Array methods taking a shape: `x.reshape(n, -1)`.
SHAPE_METHODS: frozenset[str] = frozenset({"reshape", "broadcast_to"})

#: Axis arguments: JAX reads an axis as a Python int while tracing, so a traced one
#: raises under jit and vmap. Function -> (position of `axis`, the error a traced int
#: raised under jax 0.10.2). A tuple of axes holding a tracer raises
#: TracerIntegerConversionError in the reductions (`jnp.sum(x, axis=(a,))`).
AXIS_ARGUMENTS: dict[str, tuple[int, str]] = {
    **{f"jax.numpy.{n}": (1, "ConcretizationTypeError") for n in (
        "sum", "mean", "max", "min", "prod", "std", "var", "all", "any", "expand_dims", "squeeze", "flip")},
    **{f"jax.numpy.{n}": (1, "TracerIntegerConversionError") for n in (
        "argmax", "argmin", "concatenate", "stack")},
    "jax.numpy.roll": (2, "ConcretizationTypeError"),
    "jax.numpy.take": (2, "TracerIntegerConversionError"),
    "jax.nn.softmax": (1, "ConcretizationTypeError"),
    # jitted inside JAX with a static axis: a tracer there cannot be hashed.
    **{f"jax.numpy.{n}": (1, "ValueError") for n in ("cumsum", "cumprod", "sort", "argsort", "median")},
    "jax.scipy.special.logsumexp": (1, "TypeError"),
}
#: The reductions, whose `axis` may be a tuple of axes.
AXIS_TUPLE_REDUCTIONS: frozenset[str] = frozenset(
    f"jax.numpy.{n}" for n in ("sum", "mean", "max", "min", "prod", "std", "var", "all", "any"))


# PRNG keys (JAX5xx) -----------------------------------------------------------

#: jax.random functions that draw numbers from their key (the first argument, or
#: `key=`): the same key gives the same numbers, every time.
RANDOM_SAMPLERS: frozenset[str] = frozenset(
    f"jax.random.{n}" for n in (
        "ball", "bernoulli", "beta", "binomial", "bits", "categorical", "cauchy",
        "chisquare", "choice", "dirichlet", "double_sided_maxwell", "exponential", "f",
        "gamma", "generalized_normal", "geometric", "gumbel", "laplace", "loggamma",
        "logistic", "lognormal", "maxwell", "multinomial", "multivariate_normal",
        "normal", "orthogonal", "pareto", "permutation", "poisson", "rademacher",
        "randint", "rayleigh", "t", "triangular", "truncated_normal", "uniform", "wald",
        "weibull_min",
    ))
#: Samplers that pick rows of their array argument (the second) by the key alone: one
#: key permutes, or chooses from, arrays of the same length the same way, which keeps
#: their rows aligned (images and their labels).
ALIGNING_SAMPLERS: frozenset[str] = frozenset({"jax.random.permutation", "jax.random.choice"})
#: Calls that choose, per element, between their arms (the arguments from this
#: index on): no element of the result reads two arms, so numbers drawn in different
#: arms never meet, whichever key drew them.
CHOOSING_CALLS: dict[str, int] = {"jax.lax.select": 1, "jax.lax.select_n": 1, "jax.numpy.where": 1}
#: jax.random functions that consume their key to make new ones: splitting the
#: same key twice gives the same keys. (`fold_in` mixes in data and does not
#: consume the key; `key_data`, `clone`, `PRNGKey`, `key` only make or inspect keys.)
RANDOM_SPLITTERS: frozenset[str] = frozenset({"jax.random.split"})
#: Calls whose result's first axis an argument gives, whatever the rest of its shape:
#: qualname -> (position, keyword, default). `jax.random.split(key, 8)` holds 8 keys, (8, 2)
#: for a `PRNGKey` and (8,) for a typed `jax.random.key` (checked under jax 0.10.2).
LEADING_AXIS_ARGUMENTS: dict[str, tuple[int, str, int]] = {"jax.random.split": (1, "num", 2)}
#: Library calls whose result, or the element of the tuple they return at the given
#: index (None: the whole result), holds no arrays, only the structure of what they are
#: given: nnx's GraphDef, a pytree's treedef. Made twice from objects of the same
#: structure they compare equal, even when the arrays differ (a model built again draws
#: new weights), so a trace that baked in the first computes what the second would
#: (checked under jax 0.10.2, flax 0.12.2: `nnx.split(M(rngs=rngs))[0]` twice is `==`,
#: and a jitted step closing over the old graphdef matches a fresh trace).
STRUCTURE_ONLY_RESULTS: dict[str, Optional[int]] = {
    "flax.nnx.split": 0,
    "flax.nnx.graphdef": None,
    "jax.tree_util.tree_structure": None,
    "jax.tree.structure": None,
    "jax.tree_util.tree_flatten": 1,
    "jax.tree.flatten": 1,
}
#: Libraries whose functions are pure: the result depends only on the values of the
#: arguments, and no argument changes. jax.random is one: the same key gives the same
#: draw (a key is a value, not a generator's state). NumPy's and Python's own
#: generators (`np.random.rand(3)`, `random.random()`) are not: each call draws anew.
PURE_LIBRARIES: tuple[str, ...] = ("jax.", "optax.", "math.", "numpy.")
#: Parts of a dotted name that mark a call whose result differs from run to run with
#: the same arguments (except under `jax.random`, which is keyed): host generators,
#: clocks, files, the environment, user input.
VARYING_CALL_PARTS: frozenset[str] = frozenset(
    {"random", "time", "datetime", "uuid", "secrets", "os", "sys", "input", "open"})
#: Builtins whose result depends only on their arguments' values.
PURE_BUILTINS: frozenset[str] = frozenset({
    "int", "float", "complex", "bool", "str", "bytes", "tuple", "list", "dict", "set", "frozenset",
    "range", "len", "abs", "min", "max", "sum", "round", "pow", "divmod", "sorted", "slice"})
#: Functions that make a key from a seed: the same seed gives the same key.
KEY_CONSTRUCTORS: frozenset[str] = frozenset({"jax.random.PRNGKey", "jax.random.key"})
#: Calls whose result is a key, or an array of keys.
KEY_MAKERS: frozenset[str] = KEY_CONSTRUCTORS | RANDOM_SPLITTERS | frozenset(
    {"jax.random.fold_in", "jax.random.clone", "jax.random.wrap_key_data"})
#: lax loops, whose body function runs once per iteration (by the names trace contexts use).
LAX_LOOP_BODIES: frozenset[str] = frozenset({"lax.scan", "lax.fori_loop", "lax.while_loop"})
#: Draws that pick positions: the same key for every leaf of a batch keeps the leaves
#: aligned (`tree_map(lambda x: permutation(key, x), batch)`), on purpose.
LEAF_ALIGNING_SAMPLERS: frozenset[str] = ALIGNING_SAMPLERS | frozenset(
    {"jax.random.randint", "jax.random.categorical"})
#: Functions that call their first argument once per leaf of a pytree: a key the mapped
#: function closes over is drawn from once per leaf, the same numbers each time.
PER_LEAF_MAPS: frozenset[str] = frozenset({
    "jax.tree_util.tree_map", "jax.tree.map", "jax.tree_map",
    "jax.tree_util.tree_map_with_path", "jax.tree.map_with_path",
})
#: lax control flow called outside a trace compiles its bodies as a program of its own,
#: cached on the identity of the body callables, like `jax.jit` of them: with jax 0.10.2,
#: five eager `lax.while_loop` calls on nested cond/body defs made anew each call compile
#: `jit(while)` five times (module-level defs: once); `lax.scan` on a nested def, and
#: `lax.fori_loop` (a `jit(scan)`) and `lax.cond` on lambdas, compile five times too.
#: Value: the name JAX compiles the program under.
EAGER_COMPILED_BODY_CALLS: dict[str, str] = {
    "jax.lax.while_loop": "while", "jax.lax.scan": "scan", "jax.lax.fori_loop": "scan",
    "jax.lax.cond": "cond",
}
#: Their keyword arguments that are the program's operands, not part of what it is: a new
#: `xs=` each call runs the same compiled program (`length=` / `unroll=` / bounds are not).
LAX_OPERAND_KEYWORDS: frozenset[str] = frozenset({"init", "xs", "init_val", "operand", "operands"})
#: lax loops: a jitted function built on one runs a chunk of steps as one program.
COMPILED_LOOPS: frozenset[str] = frozenset({
    "jax.lax.scan", "jax.lax.fori_loop", "jax.lax.while_loop", "jax.lax.map",
})
#: The same maps build their result with the structure of their second argument (the
#: first tree): `tree_map(lambda _: 0, (a, b))` is a tuple of 2, whatever the leaves.
STRUCTURE_OF_SECOND_ARGUMENT: frozenset[str] = PER_LEAF_MAPS
#: Transforms whose compile cache is keyed on the wrapped callable's value (equinox
#: hashes the static part of what it wraps), not on the new wrapper object: a fresh
#: `eqx.filter_jit(self.sample)` per pass is a cache hit (checked, equinox 0.13.8:
#: one trace in four passes), a fresh lambda or `functools.partial` is not.
VALUE_KEYED_TRANSFORMS: frozenset[str] = frozenset({"filter_jit"})
#: Wrappers that compare equal when what they wrap does (equinox transforms are
#: Modules, `jax.tree_util.Partial` a pytree): the callable to look at is their first argument.
EQUAL_BY_VALUE_WRAPPERS: frozenset[str] = frozenset({
    "equinox.filter_vmap", "equinox.filter_grad", "equinox.filter_value_and_grad",
    "equinox.filter_jit", "jax.tree_util.Partial",
})
#: Keyword arguments by which a model call says it draws nothing: dropout and other
#: noise off (flax's `deterministic=True` and `train=False`, equinox's `inference=True`,
#: haiku's `is_training=False`, `enable_dropout=False`). Keys passed to such a call are
#: not drawn from, so handing it the same keys again repeats no numbers.
RANDOMNESS_OFF_FLAGS: dict[str, bool] = {
    "deterministic": True, "inference": True, "train": False, "training": False,
    "is_training": False, "enable_dropout": False, "use_dropout": False,
}
#: Calls that read their array arguments only for shapes and dtypes: numbers drawn
#: only to be passed here are never used (`jax.eval_shape(f, x)`).
SHAPE_ONLY_CALLS: frozenset[str] = frozenset({
    "jax.eval_shape",
    # Reads `arr.shape` and `arr.sharding` (jax/_src/debugging.py): a layout display.
    "jax.debug.visualize_array_sharding", "jax.debug.inspect_array_sharding",
})
#: Builtins that read what a value is, not its numbers: its type, its length (an array's
#: first dimension), whether it has an attribute. A test that only checks a result with
#: them (`isinstance(metrics, dict)`) never looks at the numbers computed.
STRUCTURE_ONLY_CALLS: frozenset[str] = frozenset({
    "builtins.isinstance", "builtins.type", "builtins.len", "builtins.hasattr", "builtins.callable",
})
#: Methods that read what a container holds, not the numbers in it: a dict's keys
#: (`set(metrics.keys()) == expected`).
STRUCTURE_ONLY_METHODS: frozenset[str] = frozenset({"keys"})
#: Checks of finiteness: whether a value holds NaN or infinity. A test that checks a
#: result only with them (`assert jnp.all(jnp.isfinite(out))`) asks whether the code
#: overflows or divides by zero on ordinary inputs; finite draws from one key give a
#: finite result exactly when independent ones do, so the check reads no correlation.
FINITENESS_CALLS: frozenset[str] = frozenset({
    "jax.numpy.isfinite", "jax.numpy.isnan", "jax.numpy.isinf",
    "numpy.isfinite", "numpy.isnan", "numpy.isinf",
    "math.isfinite", "math.isnan", "math.isinf",
})
#: Comparisons of two arrays for equality (exact, or within a tolerance), as a value or as
#: a test's check: the first two positional arguments are compared.
EQUALITY_CHECKS: frozenset[str] = frozenset({
    "jax.numpy.allclose", "jax.numpy.isclose", "jax.numpy.array_equal", "jax.numpy.array_equiv",
    "numpy.allclose", "numpy.isclose", "numpy.array_equal", "numpy.array_equiv",
    "numpy.testing.assert_allclose", "numpy.testing.assert_array_equal",
    "numpy.testing.assert_array_almost_equal", "numpy.testing.assert_almost_equal",
    "numpy.testing.assert_equal", "chex.assert_trees_all_close", "chex.assert_trees_all_equal",
})
#: Test-case methods that check two values equal (unittest, absltest, JAX's own tests).
EQUALITY_ASSERT_METHODS: frozenset[str] = frozenset({
    "assertEqual", "assertAlmostEqual", "assertAllClose", "assertArraysEqual", "assertArraysAllClose",
})
#: Arrays of one repeated value whose numbers do not depend on an array they take:
#: `jnp.ones_like(x)` reads only x's shape and dtype. The value is the position of the
#: fill value among the arguments (or None: ones, zeros).
CONSTANT_ARRAYS: dict[str, Optional[int]] = {
    **{f"{ns}.{name}": None for ns in ("jax.numpy", "numpy")
       for name in ("ones", "zeros", "ones_like", "zeros_like")},
    **{f"{ns}.{name}": 1 for ns in ("jax.numpy", "numpy") for name in ("full", "full_like")},
}
#: Reductions of a boolean mask to one truth value: `jnp.all(jnp.isfinite(out))`.
TRUTH_REDUCTIONS: frozenset[str] = frozenset({
    "jax.numpy.all", "jax.numpy.any", "numpy.all", "numpy.any", "builtins.all", "builtins.any",
})
#: Methods of a jitted function that read their arguments only for shapes and dtypes:
#: `jax.jit(f).lower(x)` traces with abstract values (it accepts ShapeDtypeStructs).
ABSTRACT_METHODS: frozenset[str] = frozenset({"lower", "trace", "eval_shape"})
#: Methods whose arguments after the first (the key) are sample inputs read only for
#: their shapes: flax's `model.init(key, x)` and haiku's `transformed.init(key, x)`
#: build parameters from the key and the input's shape, not its values.
SHAPE_ONLY_METHODS: frozenset[str] = frozenset({"init"})


# Timing (JAX6xx) -----------------------------------------------------------------

#: Clock reads that start or stop a hand-made timer.
CLOCK_FUNCTIONS: frozenset[str] = frozenset({
    "time.time", "time.perf_counter", "time.monotonic", "time.process_time",
    "time.time_ns", "time.perf_counter_ns", "time.monotonic_ns",
    "timeit.default_timer",  # time.perf_counter since Python 3.3
    "datetime.datetime.now", "datetime.datetime.utcnow",
})
#: Calls whose device work is a few integer ops on a key: when they return, what is
#: left pending is microseconds (measured on CPU: `jax.random.split(key)` 0.57 ms
#: returned vs 0.73 ms waited for; `fold_in` and `PRNGKey` the same either way), so a
#: timer around them alone times what it means to.
INSTANT_WORK: frozenset[str] = KEY_MAKERS | frozenset({"jax.random.key_data"})
#: Decorators that make a generator function a context manager: what it runs before its
#: `yield` runs on entering a `with`, what follows on leaving it, after the `with` body.
CONTEXT_MANAGER_DECORATORS: frozenset[str] = frozenset({
    "contextlib.contextmanager", "contextlib.asynccontextmanager",
})
#: Transforms that, called eagerly on a jitted function (`jax.vmap(jf)(x)`), trace it and
#: compile the programs they make of it at that call, synchronously: the first call of a
#: transform of a fresh jit compiles like the first call of the jit itself. Measured
#: under jax 0.10.2 on the CPU, returned vs waited for: vmap 133 / 144 ms, grad 1273 / 1273,
#: value_and_grad 763 / 763, vmap(grad) 597 / 597, jacfwd 2509 / 2509, jacrev 2155 / 2155,
#: hessian 5487 / 5487 ms (later calls hit the cache: vmap 5.4 / 5.5 ms).
FIRST_CALL_COMPILING_TRANSFORMS: frozenset[str] = frozenset({
    "jax.vmap", "jax.grad", "jax.value_and_grad", "jax.jacfwd", "jax.jacrev", "jax.jacobian", "jax.hessian",
})
#: Timers that run a statement or callable themselves.
TIMEIT_FUNCTIONS: frozenset[str] = frozenset({"timeit.timeit", "timeit.repeat"})
#: Dispatch-bound timing (JAX601): JAX functions whose work is one pass over their
#: operands (elementwise math, reductions over all axes, building and slicing arrays):
#: their cost is the size of the largest operand or result.
LINEAR_COST_FUNCTIONS: frozenset[str] = frozenset(
    f"jax.numpy.{n}" for n in (
        "sin", "cos", "tan", "tanh", "sinh", "cosh", "arcsin", "arccos", "arctan", "exp", "exp2", "expm1",
        "log", "log1p", "log2", "log10", "sqrt", "square", "abs", "absolute", "negative", "sign", "floor",
        "ceil", "round", "clip", "maximum", "minimum", "add", "subtract", "multiply", "divide", "power",
        "where", "isnan", "isfinite", "sum", "mean", "max", "min", "prod", "any", "all", "zeros_like",
        "ones_like", "full_like", "empty_like", "array", "asarray", "stack", "concatenate", "hstack",
        "vstack", "linspace", "arange", "zeros", "ones", "full", "empty", "eye", "real", "imag", "conj",
        "conjugate", "angle",
    ))
#: Contractions: their cost is at most the product of their operands' sizes
#: ((m, k) @ (k, n) costs m*k*n <= (m*k)*(k*n)). `searchsorted(a, v)` too: its costliest
#: method, `compare_all`, compares every value with every element of `a`.
PRODUCT_COST_FUNCTIONS: frozenset[str] = frozenset(
    f"jax.numpy.{n}" for n in ("dot", "vdot", "inner", "matmul", "outer", "searchsorted"))
#: Matrix functions of one square (..., n, n) operand: LU, Cholesky and eigen
#: decompositions take n**3 operations per matrix, at most elements * n. The value says
#: what the result keeps of the operand's shape: the matrix, its last dim (one value per
#: row: eigenvalues) or neither (a determinant per matrix).
MATRIX_COST_FUNCTIONS: dict[str, str] = {
    **{f"jax.numpy.linalg.{n}": "matrix" for n in ("inv", "cholesky")},
    **{f"jax.numpy.linalg.{n}": "vector" for n in ("eigvals", "eigvalsh")},
    "jax.numpy.linalg.det": "scalar",
}
#: Functions whose cost depends on their `method=`: the default method, and the methods
#: within the bound above. `searchsorted`'s binary searches (`scan`, `scan_unrolled`)
#: touch each value log(n) times; `method="sort"` sorts the joined arrays, a cost these
#: tables do not bound (measured, 100-call loops on 100/50 values: 4-17% short at the
#: clock, against 0.2-2.8% for the others).
COST_BOUNDED_METHODS: dict[str, tuple[str, frozenset[str]]] = {
    "jax.numpy.searchsorted": ("scan", frozenset({"scan", "scan_unrolled", "compare_all"})),
}
#: The most elements one eagerly dispatched op may touch for the clock to miss nothing a
#: user would act on, by how the timer runs the work. Measured (jax 0.10.2, CPU, 2
#: shared cores; median of 5-100 runs, the clock read after the dispatch and again
#: after block_until_ready in the same run): a single eager 10-op elementwise chain reads
#: 2.6-3.0% short at 100-500 elements per op, 2.5-35% at 1,000-1,500 (three runs); a Python loop of 100
#: such chains reads 0.2-1.8% short up to 10,000 elements per op (3.4% at 1e6 on CPU; kept
#: at 1e4, below a dispatch on an accelerator too); one eager `vmap` of the chain (each
#: op a batched dispatch of ~250 us) reads 0.4-3.8% short at 1,500-10,000 elements per
#: op, 19% at 30,000. A jitted program is one dispatch of all its ops, so "jit" bounds
#: the elements of all the ops of one call together, in a loop of at least
#: DISPATCH_BOUND_MIN_CALLS calls: 100 calls of the jitted 10-op chain read 11-22% short
#: from 200 elements per op up, and 100 calls of a jitted chain of 240-255 elements over
#: all its ops (85 ops of 1 element to 3 of 64) 0.9-2.4% (0.2-0.4% for 1,000 calls; three
#: runs of 7 at load 6).
DISPATCH_BOUND_ELEMENTS: dict[str, int] = {"eager": 500, "repeated": 10_000, "vmap": 10_000, "jit": 256}
#: The fewest calls of a jitted program a timed loop must make for the last one, still in
#: flight at the clock, to be small against the dispatches it times.
DISPATCH_BOUND_MIN_CALLS = 100
#: The fewest eager dispatches a timed region must make for the tail the clock misses
#: (the last op in flight) to be small against what it times: the 10-op chain above.
DISPATCH_BOUND_MIN_OPS = 10
#: Calls that wait for a JAX array's computation to finish (they need its value
#: on the host). JAX dispatches asynchronously, so only these end the work.
BLOCKING_FUNCTIONS: frozenset[str] = frozenset({
    "jax.block_until_ready", "jax.device_get", "numpy.asarray", "numpy.array",
    "builtins.float", "builtins.int", "builtins.bool", "builtins.print",
    "builtins.repr", "builtins.str", "builtins.format",
})
BLOCKING_METHODS: frozenset[str] = frozenset({"block_until_ready", "item", "tolist"})
#: Of those, the ones that only wait: their result is the value they were given, so
#: called as a statement of its own they use nothing of it (`jax.block_until_ready(x)`).
WAIT_ONLY_FUNCTIONS: frozenset[str] = frozenset({"jax.block_until_ready"})
WAIT_ONLY_METHODS: frozenset[str] = frozenset({"block_until_ready"})
#: Ahead-of-time steps of a jitted function (`jax.jit(f).lower(x).compile()`): they
#: trace, lower and compile on the host and return when done, reading their array
#: arguments only for shapes and dtypes; a timer around them times the compiler.
AOT_METHODS: frozenset[str] = frozenset({"trace", "lower", "compile"})
#: Modules whose functions convert a JAX array argument to a host array first
#: (`np.dot(x, x.T)`, `np.exp(x)` return ndarrays), which waits for its computation.
HOST_ARRAY_MODULES: tuple[str, ...] = ("numpy",)
#: Methods of a NumPy array that convert their array argument to NumPy, which waits for
#: a JAX array's computation: `w.dot(v)` with `w` from NumPy returned an ndarray after as
#: long as `v.block_until_ready()` took (4.2 s for a pending 2000x2000 chain, nothing
#: left to wait for after it; jax 0.10.2, CPU). NumPy operators do not: `w @ v` and
#: `w * v` defer to the JAX array (`__array_priority__`) and return one, still pending.
NUMPY_CONVERTING_METHODS: frozenset[str] = frozenset({"dot"})


#: NumPy functions that return an ndarray, which is unhashable (so it cannot be a
#: static argument of jit). NumPy scalars (`np.float32(1)`, `np.sum(a)`) are hashable.
NUMPY_ARRAY_CONSTRUCTORS: frozenset[str] = frozenset(
    f"numpy.{n}" for n in (
        "array", "asarray", "zeros", "ones", "empty", "full", "arange", "linspace",
        "eye", "identity", "zeros_like", "ones_like", "full_like", "empty_like",
        "stack", "concatenate", "meshgrid",
    ))

#: NumPy functions that read arrays from a file: host data (`np.load` of a `.npz` gives
#: an NpzFile, whose entries are ndarrays too).
NUMPY_FILE_READERS: frozenset[str] = frozenset(
    f"numpy.{n}" for n in ("load", "loadtxt", "genfromtxt", "fromfile"))

#: NumPy functions whose result, iterated, gives NumPy arrays of one dimension or more
#: (`for x in np.indices(shape)`): indexing one with a tracer converts the tracer
#: (checked under jax 0.10.2 with numpy 2.4: TracerArrayConversionError for each). Rows of
#: other arrays may be NumPy scalars, which raise IndexError instead.
NUMPY_ARRAY_SEQUENCES: frozenset[str] = frozenset(
    f"numpy.{n}" for n in (
        "indices", "meshgrid", "split", "array_split", "hsplit", "vsplit", "dsplit", "nonzero",
    ))

#: dtypes that make a boolean array (`np.ones(n, dtype=bool)`: a mask).
BOOLEAN_DTYPES: frozenset[str] = frozenset({"builtins.bool", "numpy.bool_", "numpy.bool"})

#: jax.numpy functions that create a (concrete, unhashable) JAX array from Python values.
JAX_ARRAY_CONSTRUCTORS: frozenset[str] = frozenset(
    f"jax.numpy.{n}" for n in (
        "array", "asarray", "zeros", "ones", "empty", "full", "arange", "linspace",
        "eye", "identity", "zeros_like", "ones_like", "full_like", "stack", "concatenate",
    ))

#: Every other function of these modules returns a JAX array (or a tuple or list of
#: them), which is unhashable: `hash(jnp.sum(x))` raises "unhashable type:
#: 'jaxlib._jax.ArrayImpl'" (and 'PRNGKeyArray' for jax.random.key), so it cannot be a
#: static argument (jax 0.10.2). jax.lax is not here: its classes and helpers
#: (`lax.Precision(...)`, `lax.conv_dimension_numbers(...)`) give hashable values.
UNHASHABLE_RESULT_MODULES: tuple[str, ...] = ("jax.numpy.", "jax.random.")
#: ... except these, which return functions, dtypes or other hashable values.
HASHABLE_RESULT_FUNCTIONS: frozenset[str] = frozenset({
    "jax.numpy.vectorize", "jax.numpy.frompyfunc", "jax.random.key_impl",
})

# In-place updates (JAX3xx) and removed APIs (JAX9xx) ---------------------------

#: The methods of `x.at[idx]`. Each returns a new array (JAX arrays are
#: immutable), so a call whose result is dropped does nothing.
AT_METHODS: frozenset[str] = frozenset({
    "set", "add", "subtract", "multiply", "mul", "divide", "min", "max", "power",
    "apply", "get",
})
#: Augmented assignment -> the `.at[idx]` method doing the same update (all exist
#: in jax 0.10.2). Other operators (`//=`, `%=`, ...) become `.set(x[idx] OP v)`.
AUGMENTED_AT_METHODS: dict[str, str] = {
    "+=": "add", "-=": "subtract", "*=": "multiply", "/=": "divide", "**=": "power",
}


# Removed and deprecated APIs live in one versioned table (jaxlint/api_changes.py).
from jaxlint.api_changes import API_CHANGES, MODULE_CHANGES, RemovedAPI  # noqa: E402,F401

#: Removed JAX attributes, by qualified name (at some JAX release; rules check the target).
REMOVED_APIS: dict[str, RemovedAPI] = {k: v for k, v in API_CHANGES.items() if v.removed_in is not None}
#: Removed JAX modules: importing them raises ModuleNotFoundError.
REMOVED_MODULES: dict[str, RemovedAPI] = MODULE_CHANGES


# Values: what JAX functions return, and which classes are pytrees -----------------

#: Collectives that return a pytree shaped like their argument. Given a Python
#: constant they return a Python value: `lax.psum(1, "i")` is the axis size, an
#: int, under pmap, vmap and shard_map (checked under jax 0.10.2).
COLLECTIVES: frozenset[str] = frozenset(
    f"jax.lax.{n}" for n in (
        "psum", "pmean", "pmax", "pmin", "all_gather", "ppermute", "pshuffle", "pswapaxes",
        "all_to_all", "psum_scatter",
    ))
#: Functions that return their argument's pytree, with each leaf mapped.
PYTREE_PRESERVING: frozenset[str] = frozenset({
    "jax.lax.stop_gradient", "jax.device_put", "jax.block_until_ready",
    "jax.lax.with_sharding_constraint", "jax.device_get",
})
#: Functions that return their argument's primal value: under grad / jvp / vjp alone (no
#: abstract trace around them) the result is a concrete array, not a JVP tracer, so NumPy
#: converts it and float() reads it. Checked under jax 0.10.2: `np.array(lax.stop_gradient(y))`
#: works under grad, value_and_grad, jvp, vjp, linearize, jacfwd, jacrev, hessian and grad of
#: grad (an ArrayImpl); under jit, vmap, checkpoint, eval_shape or make_jaxpr, alone or with
#: grad, it raises TracerArrayConversionError.
PRIMAL_VALUE_FUNCTIONS: frozenset[str] = frozenset({"jax.lax.stop_gradient"})
#: lax control flow: the results are pytrees shaped like the carry / the
#: branches' outputs, so their structure is unknown here (never "an array").
CONTROL_FLOW_RESULTS: frozenset[str] = frozenset(
    f"jax.lax.{n}" for n in (
        "scan", "fori_loop", "while_loop", "cond", "switch", "map", "associative_scan",
        "custom_root", "custom_linear_solve", "reduce", "platform_dependent",
    ))
#: jax.tree / jax.tree_util functions whose result is a pytree of unknown structure.
TREE_MODULES: tuple[str, ...] = ("jax.tree", "jax.tree_util")

#: Decorators that make a class a pytree whose fields are its children.
PYTREE_CLASS_DECORATORS: frozenset[str] = frozenset({
    "flax.struct.dataclass", "chex.dataclass", "jax.tree_util.register_dataclass",
    "jax.tree_util.register_pytree_node_class", "jax.tree_util.register_static",
})
#: Decorators that register a class as a pytree with no leaves: the whole instance
#: is aux data, so every field is a Python value inside jit (`if cfg.flag:` traces).
STATIC_CLASS_DECORATORS: frozenset[str] = frozenset({"jax.tree_util.register_static"})
#: Base classes that make a subclass a pytree whose annotated fields are children.
PYTREE_BASES: frozenset[str] = frozenset({
    "flax.struct.PyTreeNode", "equinox.Module", "typing.NamedTuple", "flax.nnx.Pytree",
    "flax.nnx.Object",
})
#: `field(...)` calls that declare a static (metadata, not traced) field, and the
#: keyword that says so: `struct.field(pytree_node=False)`, `eqx.field(static=True)`.
STATIC_FIELD_CALLS: dict[str, tuple[str, bool]] = {
    "flax.struct.field": ("pytree_node", False),
    "equinox.field": ("static", True),
    "equinox.static_field": ("", True),  # every static_field() is static
    "dataclasses.field": ("metadata.static", True),  # register_dataclass's static metadata
    "chex.field": ("metadata.static", True),
}
#: Calls that register a class as a pytree with its flatten function, at this argument
#: position: `flatten(obj) -> (children, aux_data)`; what the aux data reads is static,
#: compared with `==` as part of jit's cache key.
PYTREE_FLATTEN_REGISTRATIONS: dict[str, int] = {
    "jax.tree_util.register_pytree_node": 1,
    "jax.tree_util.register_pytree_with_keys": 1,
}
#: Calls that return a new object each time, unequal to the one before: `jax.jit(f)`
#: twice gives two wrappers that are not `==` (checked, jax 0.10.2), and an optax
#: transformation is a NamedTuple of closures made by the call (`optax.adam(1e-3) ==
#: optax.adam(1e-3)` is False, optax 0.2.8). As a static argument or static pytree
#: part, each one is a new jit cache key.
FRESH_OBJECT_CALLS: frozenset[str] = frozenset({
    "jax.jit", "jax.pmap",
}) | frozenset(f"optax.{name}" for name in (
    "adabelief", "adadelta", "adafactor", "adagrad", "adam", "adamax", "adamaxw", "adamw",
    "adan", "amsgrad", "fromage", "lamb", "lars", "lion", "nadam", "nadamw", "noisy_sgd",
    "novograd", "optimistic_gradient_descent", "radam", "rmsprop", "sgd", "sm3", "yogi",
    "chain", "clip", "clip_by_global_norm", "masked", "multi_transform", "scale",
    "scale_by_adam", "scale_by_schedule", "add_decayed_weights",
    "apply_if_finite",
))
#: Calls that return a copy of a pytree with fields replaced, and how they name the
#: fields: `eqx.tree_at(lambda m: m.it, model, value)` by the attribute its first
#: argument reads, `dataclasses.replace(obj, it=value)` by keyword.
FIELD_REPLACING_CALLS: dict[str, str] = {
    "equinox.tree_at": "where",
    "dataclasses.replace": "keywords",
}
#: Pytree classes of libraries, with the fields they declare static.
LIBRARY_PYTREE_CLASSES: dict[str, frozenset[str]] = {
    "flax.training.train_state.TrainState": frozenset({"apply_fn", "tx"}),
    "flax.training.dynamic_scale.DynamicScale": frozenset({"backoff_factor", "growth_factor",
                                                           "growth_interval", "minimum_scale"}),
}
#: Classes whose instances are mutable boxes: `v[...] = x` and `v.value = x` are their API.
BOX_CLASSES: frozenset[str] = frozenset({
    "flax.nnx.Variable", "flax.nnx.Param", "flax.nnx.BatchStat", "flax.nnx.Cache",
    "flax.nnx.Intermediate", "flax.nnx.VariableState", "flax.nnx.Rngs", "flax.nnx.RngState",
    "flax.nnx.RngKey", "flax.nnx.RngCount", "flax.nnx.State",
    "jax.experimental.pallas.Ref", "jax.Ref", "jax.experimental.pallas.tpu.VMEM",
})
#: Kernels handed to these are traced with Refs (mutable boxes) as arguments.
KERNEL_CALLS: dict[str, int] = {
    "jax.experimental.pallas.pallas_call": 0,
    "jax.experimental.pallas.core_map": 0,
    "jax.experimental.pallas.kernel": 0,
    # Inside a kernel: scratch buffers and pipelined blocks reach the body as Refs too.
    "jax.experimental.pallas.run_scoped": 0,
    "jax.experimental.pallas.run_state": 0,
    "jax.experimental.pallas.tpu.emit_pipeline": 0,
    "jax.experimental.pallas.tpu.emit_pipeline_with_allocations": 0,
}
#: Calls that make a mutable array Ref (jax 0.10.2): `ref[i] = v` is its store API.
REF_CONSTRUCTORS: frozenset[str] = frozenset({
    "jax.new_ref", "jax.empty_ref", "jax.ref.new_ref", "jax.ref.empty_ref",
})
#: Annotations meaning a Python scalar; under a trace a non-static one is a traced
#: 0-d array all the same.
SCALAR_ANNOTATIONS: frozenset[str] = frozenset({
    "builtins.int", "builtins.float", "builtins.bool", "builtins.complex",
})
#: Exceptions that, caught around Python code in a traced function, make that
#: code a deliberate eager-only path (it handles the tracer case itself).
TRACER_ERRORS: frozenset[str] = frozenset({
    "builtins.Exception", "builtins.BaseException", "builtins.TypeError",
    "jax.errors.ConcretizationTypeError", "jax.errors.TracerBoolConversionError",
    "jax.errors.TracerIntegerConversionError", "jax.errors.TracerArrayConversionError",
    "jax.errors.NonConcreteBooleanIndexError", "jax.core.ConcretizationTypeError",
    "jax.errors.JAXTypeError", "builtins.IndexError",
})
#: Context managers of test frameworks that expect the code inside to raise: an error a
#: rule predicts there is the behaviour the test checks (`with pytest.raises(ValueError):`).
EXPECTED_ERROR_CONTEXTS: frozenset[str] = frozenset({
    "pytest.raises", "numpy.testing.assert_raises", "numpy.testing.assert_raises_regex",
    "chex.assert_raises",
})
#: unittest's methods of the same meaning, called on `self`.
EXPECTED_ERROR_METHODS: frozenset[str] = frozenset({"assertRaises", "assertRaisesRegex"})
#: `isinstance(x, T)` with one of these: true only for tracers (or arrays).
TRACER_TYPES: frozenset[str] = frozenset({"jax.core.Tracer"})
#: `isinstance(x, T)` with one of these is false for every tracer (a tracer is a
#: `jax.Array`, never a NumPy array or scalar): the true side is an eager path.
NUMPY_VALUE_TYPES: frozenset[str] = frozenset({"numpy.ndarray", "numpy.generic", "numpy.number"})
#: `f(x)` true only when `x` has a concrete value (False for a jit or vmap tracer).
CONCRETENESS_CHECKS: frozenset[str] = frozenset({"jax.core.is_concrete"})
#: Conversions that fail on the tracers of grad / jvp / vjp too (values concrete,
#: but wrapped): float(x), complex(x), x.tolist() and NumPy conversion raise, while
#: bool(x), int(x), x.item() and `if x > 0` work (checked under jax 0.10.2).
FAIL_UNDER_DIFFERENTIATION: frozenset[str] = frozenset({
    "builtins.float", "builtins.complex", "tolist", "numpy",
})


# Numerics (JAX7xx) --------------------------------------------------------------

#: 64-bit dtypes, by name (`jnp.float64`, `np.float64`, `"float64"`) -> the dtype
#: they name. JAX gives a 32-bit one instead while x64 is off (the default).
#: Checked under jax 0.10.2: each request gives the 32-bit dtype, with a UserWarning
#: "Explicitly requested dtype float64 requested in zeros is not available".
#: The platform-sized aliases are 64-bit too: `jnp.float_` is float64, `jnp.int_` int64,
#: `np.intp` / `np.longlong` int64 (checked: `jnp.zeros(2, dtype=jnp.float_)` gives float32
#: with the same warning).
X64_DTYPES: dict[str, str] = {
    "float64": "float64", "double": "float64", "float_": "float64",
    "int64": "int64", "int_": "int64", "intp": "int64", "longlong": "int64",
    "uint64": "uint64", "uint": "uint64", "uintp": "uint64", "ulonglong": "uint64",
    "complex128": "complex128", "cdouble": "complex128", "complex_": "complex128",
}
#: What each 64-bit dtype becomes while x64 is off.
X64_NARROWED: dict[str, str] = {
    "float64": "float32", "int64": "int32", "uint64": "uint32", "complex128": "complex64",
}
#: The same dtypes as strings NumPy accepts (`dtype="f8"`).
#: NumPy 2 rejects the strings "float_" and "complex_" (TypeError), so they are left out.
X64_DTYPE_STRINGS: dict[str, str] = {
    **{name: dtype for name, dtype in X64_DTYPES.items() if name not in ("float_", "complex_")},
    "f8": "float64", "i8": "int64", "u8": "uint64", "c16": "complex128",
}
#: NumPy's default-type aliases, 64-bit in jax.numpy too (jax 0.10.2: `jnp.float_` is
#: float64, `jnp.full(..., dtype=jnp.float_)` gives float32 with the UserWarning).
X64_DTYPES.update({"float_": "float64", "complex_": "complex128", "int_": "int64", "uint": "uint64"})
#: Modules whose dtype objects these names are (`jnp.float64`, `np.float64`).
#: Array modules a function may take as a parameter (`xp=np`, `xp=jnp`): distinct
#: objects, so `xp is np` on a parameter known to hold one of them is decided.
BACKEND_MODULES = frozenset({"numpy", "jax.numpy"})

X64_DTYPE_MODULES: tuple[str, ...] = ("jax.numpy", "numpy")
#: Calls that turn x64 on (for the whole process, or in a `with` block).
#: `jax.config.update("jax_enable_x64", ...)` and `JAX_ENABLE_X64` are found by their
#: string; these are the calls that need none.
X64_ENABLING_CALLS: frozenset[str] = frozenset({
    "jax.enable_x64", "jax.experimental.enable_x64", "jax.experimental.x64_context.enable_x64",
})
#: The option's name, as a config string, an environment variable or an attribute
#: (`jax.config.jax_enable_x64 = True`), compared lowercased.
X64_OPTION = "jax_enable_x64"
#: JAX functions (besides `jax.numpy.*` / `jax.random.*`, checked by `dtype=`) that
#: take a dtype, and its position: -> (positional index, keyword).
X64_DTYPE_ARGUMENTS: dict[str, tuple[int, str]] = {
    "jax.lax.convert_element_type": (1, "new_dtype"),
    "jax.numpy.array": (1, "dtype"), "jax.numpy.asarray": (1, "dtype"),
    "jax.numpy.zeros": (1, "dtype"), "jax.numpy.ones": (1, "dtype"),
    "jax.numpy.empty": (1, "dtype"), "jax.numpy.full": (2, "dtype"),
    "jax.numpy.zeros_like": (1, "dtype"), "jax.numpy.ones_like": (1, "dtype"),
    "jax.numpy.empty_like": (1, "dtype"), "jax.numpy.full_like": (2, "dtype"),
    "jax.random.normal": (2, "dtype"), "jax.random.uniform": (2, "dtype"),
}
#: Prefixes of the JAX functions whose `dtype=` keyword is checked.
X64_JAX_MODULES: tuple[str, ...] = ("jax.numpy.", "jax.random.", "jax.lax.", "jax.nn.", "jax.scipy.")
#: jax.numpy functions that only describe a dtype (no array is made): never flagged.
X64_DTYPE_QUERIES: frozenset[str] = frozenset(
    f"jax.numpy.{n}" for n in (
        "dtype", "finfo", "iinfo", "issubdtype", "can_cast", "promote_types", "result_type",
    ))
#: Clock readings that are seconds (or nanoseconds) since 1970: about 1.8e9 s, where
#: float32's spacing is 128 s (int32 cannot hold the nanoseconds at all). Passed to a
#: jitted function while x64 is off, they arrive as float32 (checked under jax 0.10.2).
#: `perf_counter` / `monotonic` count from an arbitrary origin, often small: not here.
EPOCH_CLOCK_CALLS: frozenset[str] = frozenset({"time.time", "time.time_ns"})
# Numerics (JAX7xx): where-NaN gradients

#: Functions whose derivative is inf or NaN where the input is out of range (0 for
#: sqrt / log, -1 for log1p, +-1 for arcsin / arccos). In a branch of
#: `jnp.where(cond, f(x), y)` that is not taken, reverse-mode differentiation still
#: multiplies that derivative by 0: 0 * inf = NaN in the gradient (checked under
#: jax 0.10.2 with jax.grad, value_and_grad, jacrev, vjp and jit(grad(...))).
NAN_GRADIENT_FUNCTIONS: frozenset[str] = frozenset({
    "jax.numpy.sqrt", "jax.numpy.log", "jax.numpy.log2", "jax.numpy.log10", "jax.numpy.log1p",
    "jax.numpy.arcsin", "jax.numpy.arccos", "jax.numpy.reciprocal",
    "jax.lax.sqrt", "jax.lax.rsqrt", "jax.numpy.cbrt", "jax.lax.log", "jax.lax.log1p",
})
#: Where each of them has an infinite derivative (or no value): "zero" at 0 only,
#: "nonpositive" at 0 and below. A `jnp.where` that excludes none of those points
#: is fine (`jnp.where(x < 1, jnp.sqrt(x), 1)`: the untaken x >= 1 are finite).
#: Functions not listed here (log1p, arcsin, arccos) are taken as singular anywhere.
NAN_GRADIENT_SINGULAR: dict[str, str] = {
    "jax.numpy.sqrt": "nonpositive", "jax.numpy.log": "nonpositive", "jax.numpy.log2": "nonpositive",
    "jax.numpy.log10": "nonpositive", "jax.lax.sqrt": "nonpositive", "jax.lax.rsqrt": "nonpositive",
    "jax.lax.log": "nonpositive", "jax.numpy.reciprocal": "zero", "jax.numpy.cbrt": "zero",
}
#: Roots that are 0 exactly where their argument is, and share its sign where defined:
#: a condition comparing the root with 0 (`dist > 0` for `dist = jnp.sqrt(d2)`) compares
#: the argument with 0, so it holds the singular point in its untaken side all the same
#: (`x ** p` with 0 < p < 1 too).
ZERO_PRESERVING_ROOTS: frozenset[str] = frozenset({"jax.numpy.sqrt", "jax.lax.sqrt", "jax.numpy.cbrt"})
#: Norms: 0 at a zero vector, where their derivative is NaN (`jax.grad(jnp.linalg.norm)` of
#: zeros is NaN under jax 0.10.2), as a root of a sum of squares is.
ZERO_SINGULAR_NORMS: frozenset[str] = frozenset({"jax.numpy.linalg.norm"})
#: Elementwise calls that are 0 wherever their argument is (`jnp.square(d)`, `jnp.abs(d)`):
#: the diagonal of a pairwise self-difference stays 0 through them.
ZERO_KEEPING_CALLS: frozenset[str] = frozenset({
    "jax.numpy.square", "jax.numpy.abs", "jax.numpy.absolute", "jax.lax.square", "jax.lax.abs",
})
#: `jnp.expand_dims(x, axis)`: a new axis at `axis`, as `x[:, None]` writes it.
EXPAND_DIMS: frozenset[str] = frozenset({"jax.numpy.expand_dims"})
#: Division spelled as a call, divisor second: `jnp.divide(a, b)` is `a / b`, and its
#: derivative in either operand (1 / b, -a / b**2) is infinite at b = 0.
NAN_GRADIENT_DIVISIONS: frozenset[str] = frozenset({
    "jax.numpy.divide", "jax.numpy.true_divide", "jax.lax.div",
})
#: `jnp.power(x, p)`: NaN gradient at x = 0 when p is fractional or negative.
NAN_GRADIENT_POWERS: frozenset[str] = frozenset({"jax.numpy.power", "jax.numpy.float_power"})
#: Selections that keep an operand's values where a boolean condition holds and drop the rest:
#: qualname -> (the condition's position, the operand's kept where it holds, the operand's kept
#: where it does not, or None). Reverse mode gives every dropped element a cotangent of 0 and multiplies it by
#: the operand's own derivative there, so an operation with an infinite derivative at a dropped
#: element makes the gradient NaN (0 * inf) whichever selection drops it (checked under jax
#: 0.10.2: `x ** 0.5` dropped at x = 0 by each of these gives a NaN gradient).
NAN_GRADIENT_SELECTIONS: dict[str, tuple[int, int, Optional[int]]] = {
    "jax.numpy.where": (0, 1, 2), "jax.lax.select": (0, 1, 2),
    "jax.numpy.compress": (0, 1, None), "jax.numpy.extract": (0, 1, None),
}
#: Selections whose result has as many elements as the condition has True ones: like a
#: boolean-mask index (`y[x > 0]`), they raise under jit (NonConcreteBooleanIndexError, JAX205)
#: before any gradient is taken, unless `size=` fixes the length.
MASK_SIZED_SELECTIONS: frozenset[str] = frozenset({"jax.numpy.compress", "jax.numpy.extract"})
#: Reductions whose `where=` mask drops elements of their first argument the same way
#: (`jnp.sum(x ** 0.5, where=x > 0)` has a NaN gradient at x = 0; checked under jax 0.10.2).
NAN_GRADIENT_MASKED_REDUCTIONS: frozenset[str] = frozenset({
    f"jax.numpy.{name}" for name in (
        "sum", "prod", "mean", "var", "std", "max", "min", "amax", "amin",
        "nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin")
} | {"jax.nn.logsumexp", "jax.scipy.special.logsumexp"})
#: Wrappers that keep an argument in range, so its derivative stays finite:
#: the double-where pattern, and clamping (`jnp.maximum(x, eps)`, `jnp.clip`).
NAN_GRADIENT_SAFE_WRAPPERS: frozenset[str] = frozenset({
    "jax.numpy.where", "jax.numpy.maximum", "jax.numpy.clip", "jax.lax.max", "jax.lax.clamp",
})
#: Transforms that only push tangents forward: a NaN derivative of an untaken
#: branch is selected away (jax.jvp / jax.linearize give a finite tangent).
FORWARD_ONLY_TRANSFORMS: frozenset[str] = frozenset({"jvp", "linearize", "jacfwd"})

# Performance hints (opt-in)

#: A Python `for` loop in traced code is unrolled: every iteration is traced and
#: inlined into the program. Compile time of `x = jnp.sin(x) * 1.01 + i` in a loop,
#: measured under jax 0.10.2 on CPU: 10 iterations 0.04 s, 100: 0.16 s, 300: 0.64 s,
#: 1000: 3.0 s, against 0.03-0.04 s for `lax.fori_loop` at every length. From this
#: many iterations on, the loop is reported (JAX407).
UNROLLED_LOOP_ITERATIONS: int = 100
#: A shorter loop (from UNROLLED_LOOP_MIN_ITERATIONS on) is reported when its unrolled
#: program is at least this many operations (estimated per iteration: one per JAX call or
#: arithmetic on a traced value, a called function of the file counted through, a random
#: draw by the table below): as large as 200 iterations of the one-line body above.
#: Measured under jax 0.10.2 on CPU (2 shared cores, load 18-27): that body, 300 jaxpr
#: equations (100 iterations) compiles in 1.6 s and 900 in 3.3 s; a 13-operation complex
#: series unrolled 99 times (1,290 equations) in 28.5 s, a loop drawing with
#: `split` + `normal` 49 times (935 top-level equations) in 88 s.
UNROLLED_LOOP_OPERATIONS: int = 600
UNROLLED_LOOP_MIN_ITERATIONS: int = 32
#: Operations a `jax.random` draw adds to the program, counted through its nested jaxprs
#: (jax 0.10.2: `normal` 16, `uniform` 14, `split` 3, and each runs the threefry hash,
#: one primitive that XLA expands into many).
RANDOM_DRAW_OPERATIONS: int = 15
#: Calls that copy an array to the host, waiting for the computation that makes it
#: (JAX602 reports them on every iteration of a loop of jitted steps).
HOST_SYNC_FUNCTIONS: frozenset[str] = frozenset({
    "builtins.float", "builtins.int", "builtins.print", "numpy.asarray", "numpy.array",
    "jax.device_get",
})
HOST_SYNC_METHODS: frozenset[str] = frozenset({"item", "tolist"})
#: Where a host copy of a metric goes when it is only logged: `print`, `logging`,
#: and the methods of loggers, progress bars, writers and lists. A copy used for
#: anything else (an action handed to an environment) is needed on every step.
LOGGING_FUNCTIONS: frozenset[str] = frozenset({"builtins.print", "wandb.log"})
LOGGING_MODULES: tuple[str, ...] = ("logging.", "absl.logging.")
LOGGING_METHODS: frozenset[str] = frozenset({
    "append", "extend", "add_scalar", "add_scalars", "log", "info", "debug", "warning", "write",
    "set_postfix", "set_description", "log_metrics", "write_scalars", "scalar",
})


# Transform usage (JAX8xx) --------------------------------------------------------

@dataclass(frozen=True)
class Differentiation:
    """How a differentiating transform reads its function's output and its options.

    Each field was checked under jax 0.10.2 (flax 0.12.8, equinox 0.13.8) on the CPU.
    """

    # The label for messages: `jax.grad`, `nnx.value_and_grad`.
    label: str
    # grad / value_and_grad: the output must be a scalar (or `(scalar, aux)` with
    # has_aux=True); anything else raises TypeError "Gradient only defined for
    # scalar-output functions" when the result is called.
    scalar_output: bool
    # Positions, after the function, of `argnums` and `has_aux` when given by
    # position (None: keyword-only, or no such option).
    argnums_position: int | None
    has_aux_position: int | None
    # What the call raises when has_aux=True and the output is not a pair:
    # (for a single value, for a tuple of another length). None: not measured
    # or not an error this rule can name.
    aux_single_error: str | None
    aux_length_error: str | None
    # What the call raises when an argnums index is at or past the number of
    # positional arguments the call passes (negative indices below -n: ValueError).
    argnums_error: str | None = None
    has_argnums: bool = True
    # value_and_grad: the result is `(value, grads)`, or `((value, aux), grads)` with
    # has_aux=True; grad with has_aux=True gives `(grads, aux)`. Unpacking it into a
    # target of another length raises ValueError ("not enough values to unpack
    # (expected 3, got 2)"), and `(loss, aux), grads = value_and_grad(f)(x)` without
    # has_aux raises TypeError ("iteration over a 0-d array"): jax, nnx and equinox alike.
    returns_value: bool = False


#: Transforms whose result, called without options (no argnums, no has_aux), is a pytree
#: of the first argument's structure: `jax.grad(loss)(params)` gives one gradient per leaf
#: of `params`, in the same lists, tuples and dicts.
GRADIENT_OF_FIRST_ARGUMENT: frozenset[str] = frozenset({"jax.grad"})

_AUX = "TypeError"
#: Differentiating transforms, by qualified name.
DIFFERENTIATING: dict[str, Differentiation] = {
    "jax.grad": Differentiation("jax.grad", True, 1, 2, _AUX, _AUX, "TypeError"),
    "jax.value_and_grad": Differentiation("jax.value_and_grad", True, 1, 2, _AUX, _AUX,
                                          "TypeError", returns_value=True),
    "jax.jacrev": Differentiation("jax.jacrev", False, 1, 2, _AUX, _AUX, "ValueError"),
    "jax.jacobian": Differentiation("jax.jacobian", False, 1, 2, _AUX, _AUX, "ValueError"),
    "jax.jacfwd": Differentiation("jax.jacfwd", False, 1, 2, None, None, "ValueError"),
    "jax.hessian": Differentiation("jax.hessian", False, 1, 2, _AUX, _AUX, "ValueError"),
    # nnx: `(loss,)`-less outputs fail while unpacking: a scalar with TypeError
    # ("iteration over a 0-d array"), a 3-tuple with ValueError ("too many values").
    "flax.nnx.grad": Differentiation("nnx.grad", True, None, None, "TypeError", "ValueError",
                                     "TypeError"),
    "flax.nnx.value_and_grad": Differentiation("nnx.value_and_grad", True, None, None,
                                               "TypeError", "ValueError", "TypeError",
                                               returns_value=True),
    "equinox.filter_grad": Differentiation("eqx.filter_grad", True, None, None, _AUX, _AUX,
                                           has_argnums=False),
    "equinox.filter_value_and_grad": Differentiation("eqx.filter_value_and_grad", True, None,
                                                     None, _AUX, _AUX, has_argnums=False,
                                                     returns_value=True),
}

#: Differentiating transforms whose `argnums` (0 when not given) index the positional
#: arguments of each call (checked, jax 0.10.2): a call passing fewer, every argument by
#: keyword included (`jax.grad(f)(x=1.0)`), raises `argnums_error` (grad and value_and_grad:
#: TypeError "requires at least 1 positional arguments to be passed by the caller"; the jac*
#: and hessian: ValueError "Positional argument indices ...").
ARGNUMS_OF_CALL_POSITIONALS: frozenset[str] = frozenset({
    "jax.grad", "jax.value_and_grad", "jax.jacrev", "jax.jacobian", "jax.jacfwd", "jax.hessian"})

#: vmap's options, checked against the call (jax 0.10.2): `in_axes` given as a
#: tuple or list must have one entry per positional argument the call passes
#: (ValueError "vmap in_axes must be an int, None, or a tuple of entries
#: corresponding to the positional arguments passed to the function"); an axis
#: must be below the argument's rank (ValueError "vmap was requested to map its
#: argument along axis 2, which implies that its rank should be at least 3");
#: `out_axes` must be a tree prefix of the output (ValueError "vmap out_axes
#: specification must be a tree prefix of the corresponding value").
#: Only jax.vmap: nnx.vmap and equinox.filter_vmap read their axes differently.
VMAP_TRANSFORMS: dict[str, tuple[int, int]] = {
    # qualified name -> positions of in_axes and out_axes after the function
    "jax.vmap": (1, 2),
}

#: Compiling transforms that take donated arguments: the options naming them.
#: A donated JAX array is deleted by the call whenever an output can reuse its
#: buffer (same shape and dtype), on the CPU too under jax 0.10.2; reading it
#: afterwards raises RuntimeError "Array has been deleted", passing it to another
#: jitted call ValueError "Buffer has been deleted or donated". A NumPy array is
#: copied to the device, and only the copy is donated.
DONATING_TRANSFORMS: dict[str, tuple[str, str | None]] = {
    "jax.jit": ("donate_argnums", "donate_argnames"),
    "jax.pmap": ("donate_argnums", None),
}
#: Reads of a deleted array that still work: its metadata stays.
DELETED_ARRAY_SAFE_ATTRIBUTES: frozenset[str] = frozenset({
    "shape", "dtype", "ndim", "size", "is_deleted", "delete", "sharding", "aval", "weak_type",
})
#: jax.numpy functions and array methods that always return one array (never a
#: tuple): a `return jnp.mean(l)` is a single value, not `(value, aux)`.
SINGLE_ARRAY_FUNCTIONS: frozenset[str] = frozenset(
    f"jax.numpy.{n}" for n in (
        "sum", "mean", "max", "min", "prod", "std", "var", "average", "nanmean", "nansum",
        "dot", "vdot", "matmul", "einsum", "square", "abs", "exp", "log", "sqrt", "tanh",
        "where", "linalg.norm", "maximum", "minimum", "logaddexp", "inner", "tensordot",
    )) | frozenset({"jax.nn.logsumexp", "jax.scipy.special.logsumexp"})
SINGLE_ARRAY_METHODS: frozenset[str] = frozenset({
    "sum", "mean", "max", "min", "prod", "std", "var", "dot",
})
#: Elementwise functions: the result has the broadcast shape of the arguments, so an
#: argument of rank 1 or more makes the output non-scalar (JAX801 at the call).
ELEMENTWISE_FUNCTIONS: frozenset[str] = frozenset(
    f"jax.numpy.{n}" for n in (
        "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arctanh",
        "exp", "exp2", "expm1", "log", "log1p", "log2", "log10", "sqrt", "cbrt", "square",
        "abs", "absolute", "negative", "positive", "reciprocal", "sign", "floor", "ceil",
        "round", "power", "float_power", "maximum", "minimum", "add", "subtract", "multiply",
        "divide", "true_divide", "logaddexp", "clip", "where", "heaviside", "hypot",
    )) | frozenset(f"jax.nn.{n}" for n in (
        "relu", "relu6", "sigmoid", "softplus", "silu", "swish", "gelu", "elu", "selu", "celu",
        "leaky_relu", "log_sigmoid", "hard_tanh", "soft_sign", "tanh",
    ))
#: Array constructors whose rank the code states: (position, keyword) of the shape.
SHAPED_CONSTRUCTORS: dict[str, tuple[int, str]] = {
    "jax.numpy.zeros": (0, "shape"), "jax.numpy.ones": (0, "shape"),
    "jax.numpy.empty": (0, "shape"), "jax.numpy.full": (0, "shape"),
    "jax.random.normal": (1, "shape"), "jax.random.uniform": (1, "shape"),
    "numpy.zeros": (0, "shape"), "numpy.ones": (0, "shape"), "numpy.empty": (0, "shape"),
}
#: Array constructors of a fixed rank.
FIXED_RANK_CONSTRUCTORS: dict[str, int] = {
    "jax.numpy.arange": 1, "jax.numpy.eye": 2, "jax.numpy.identity": 2,
    "numpy.arange": 1, "numpy.eye": 2,
}
#: Calls whose result is on the device (a JAX array or a pytree of them).
DEVICE_PUT_FUNCTIONS: frozenset[str] = frozenset({
    "jax.device_put", "jax.device_put_replicated", "jax.device_put_sharded",
    "flax.jax_utils.replicate",
})
#: Builtins that read only an array's metadata: they work on a deleted array.
METADATA_BUILTINS: frozenset[str] = frozenset({
    "builtins.len", "builtins.isinstance", "builtins.type", "builtins.id",
})

# Numerics (JAX7xx): out-of-bounds indexing

#: Constructors whose result's shape is written in the call as a literal:
#: -> (position, keyword) of the shape argument. (`jnp.arange`, `linspace`, `eye`,
#: `identity` and `jnp.array` of a list display have their own readings.)
LITERAL_SHAPE_CONSTRUCTORS: dict[str, tuple[int, str]] = {
    "jax.numpy.zeros": (0, "shape"), "jax.numpy.ones": (0, "shape"),
    "jax.numpy.empty": (0, "shape"), "jax.numpy.full": (0, "shape"),
    # Samplers take the key first: `jax.random.normal(key, (vocab_size, dim))`.
    "jax.random.normal": (1, "shape"), "jax.random.uniform": (1, "shape"),
}
#: NumPy constructors that take the same shape arguments as their jax.numpy namesakes.
NUMPY_SAME_SHAPE: frozenset[str] = frozenset({
    "jax.numpy.zeros", "jax.numpy.ones", "jax.numpy.empty", "jax.numpy.full",
    "jax.numpy.linspace", "jax.numpy.arange", "jax.numpy.array", "jax.numpy.asarray",
})
#: NumPy constructors whose positional arguments are the dimensions (`randn(10, 4)`).
NUMPY_DIMS_CONSTRUCTORS: frozenset[str] = frozenset({"numpy.random.randn", "numpy.random.rand"})
#: Calls whose result has their first argument's shape (a NumPy array's included):
#: `jax.device_put(np.arange(10))` is a JAX array of shape (10,).
SHAPE_KEEPING_CALLS: frozenset[str] = frozenset({
    "jax.device_put", "jax.numpy.asarray", "jax.numpy.array", "jax.lax.stop_gradient",
})
#: Transforms applied where a function is called that pass its arguments through with
#: their shapes (not vmap / pmap, which take an axis off).
SHAPE_PRESERVING_TRANSFORMS: frozenset[str] = frozenset({
    "jax.jit", "jax.grad", "jax.value_and_grad", "jax.checkpoint", "jax.remat", "jax.jacrev", "jax.jacobian",
    "jax.jacfwd", "jax.hessian",
})
#: `jnp.linspace(start, stop)` makes this many points when `num` is not given.
LINSPACE_DEFAULT_NUM = 50
#: `jnp.array` / `jnp.asarray` of a list display: one row per element, so axis 0 has
#: the display's length.
LIST_ARRAY_CONSTRUCTORS: frozenset[str] = frozenset({"jax.numpy.array", "jax.numpy.asarray"})
#: Gathers whose out-of-bounds behaviour is chosen by a `mode=` keyword; without it,
#: an index out of range raises nothing (checked under jax 0.10.2, eagerly and under
#: jit): `x[5]` and `x.at[5].get()` clamp to the last element (`x[-5]` to the first),
#: `jnp.take(x, 5)` / `x.take(5)` fill (NaN for floats, the minimum for ints), and
#: `x.at[5].set(v)` / `.add(v)` / ... drop the update. NumPy raises IndexError.
#: The modes: "clip", "fill" (with `fill_value=`), "drop", "promise_in_bounds";
#: jnp.take also "wrap" ("raise" is NotImplementedError).
TAKE_FUNCTIONS: frozenset[str] = frozenset({"jax.numpy.take"})
#: Index arrays written as literals: `x[jnp.array([4])]` gathers row 4 (a list index is a
#: TypeError in JAX, so the report's `x[[13]]` is written this way now).
INDEX_ARRAY_CONSTRUCTORS: frozenset[str] = frozenset({
    "jax.numpy.array", "jax.numpy.asarray", "numpy.array", "numpy.asarray",
})


# Python sequences given to jax.numpy (JAX208) --------------------------------------

#: Functions that take arrays and reject a Python list or tuple in their place, with
#: the positional arguments where they do: `jnp.sum([1, 2])` raises "TypeError: sum
#: requires ndarray or scalar arguments, got <class 'list'> at position 0.", eagerly
#: and under jit, for a list of numbers or of arrays alike. Measured under jax 0.10.2
#: by calling every function of jax.numpy (and jax.numpy.linalg, jax.nn) with a list
#: and a tuple at each position. Functions that take a sequence on purpose
#: (`jnp.array`, `asarray`, `stack`, `concatenate`, `hstack`, `vstack`, `column_stack`,
#: `block`, `einsum`, `select`'s lists, `split`'s indices, shapes and axes) accept them
#: and are not here.
SEQUENCE_REJECTING_FUNCTIONS: dict[str, tuple[int, ...]] = {
    **{f"jax.numpy.{n}": (0,) for n in (
        "abs", "absolute", "acos", "acosh", "all", "amax", "amin", "angle", "any",
        "append", "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh",
        "argmax", "argmin", "argsort", "argwhere", "around", "array_split", "asin",
        "asinh", "astype", "atan", "atanh", "bincount", "bitwise_count",
        "bitwise_invert", "bitwise_not", "broadcast_to", "cbrt", "ceil", "choose",
        "clip", "conj", "conjugate", "copy", "cos", "cosh", "count_nonzero", "cumprod",
        "cumsum", "cumulative_prod", "cumulative_sum", "deg2rad", "degrees", "diag",
        "diag_indices_from", "diagflat", "diagonal", "diff", "dsplit", "ediff1d",
        "empty_like", "exp", "exp2", "expand_dims", "expm1", "fabs", "flatnonzero",
        "flip", "fliplr", "flipud", "floor", "frexp", "histogramdd", "hsplit", "i0",
        "imag", "invert", "iscomplex", "isfinite", "isinf", "isnan", "isneginf",
        "isposinf", "isreal", "log", "log10", "log1p", "log2", "logical_not",
        "matrix_transpose", "max", "mean", "median", "min", "modf", "moveaxis",
        "nan_to_num", "nanargmax", "nanargmin", "nancumprod", "nancumsum", "nanmax",
        "nanmean", "nanmedian", "nanmin", "nanprod", "nanstd", "nansum", "nanvar",
        "negative", "nonzero", "ones_like", "packbits", "pad", "permute_dims",
        "piecewise", "poly", "polyder", "polyint", "positive", "prod", "ptp", "rad2deg",
        "radians", "ravel", "real", "reciprocal", "reshape", "rint", "roll", "roots",
        "rot90", "round", "sign", "signbit", "sin", "sinc", "sinh", "sort",
        "sort_complex", "spacing", "split", "sqrt", "square", "squeeze", "std", "sum",
        "tan", "tanh", "tile", "trace", "transpose", "tril", "tril_indices_from",
        "trim_zeros", "triu", "triu_indices_from", "trunc", "unique", "unique_all",
        "unique_counts", "unique_inverse", "unique_values", "unpackbits",
        "unravel_index", "unstack", "unwrap", "vander", "var", "vsplit", "zeros_like"
    )},
    **{f"jax.numpy.{n}": (0, 1) for n in (
        "add", "allclose", "arctan2", "atan2", "bitwise_and", "bitwise_left_shift",
        "bitwise_or", "bitwise_right_shift", "bitwise_xor", "compress", "convolve",
        "copysign", "corrcoef", "correlate", "cov", "cross", "delete", "digitize",
        "divide", "divmod", "dot", "equal", "extract", "float_power", "floor_divide",
        "fmax", "fmin", "fmod", "full_like", "gcd", "greater", "greater_equal",
        "heaviside", "histogram", "histogram2d", "histogram_bin_edges", "hypot",
        "inner", "intersect1d", "isclose", "isin", "kron", "lcm", "ldexp", "left_shift",
        "less", "less_equal", "linspace", "logaddexp", "logaddexp2", "logical_and",
        "logical_or", "logical_xor", "matmul", "matvec", "maximum", "minimum", "mod",
        "multiply", "nanpercentile", "nanquantile", "nextafter", "not_equal", "outer",
        "percentile", "polyadd", "polydiv", "polymul", "polysub", "polyval", "pow",
        "power", "quantile", "remainder", "repeat", "right_shift", "searchsorted",
        "setdiff1d", "setxor1d", "subtract", "take", "take_along_axis", "tensordot",
        "trapezoid", "true_divide", "union1d", "vdot", "vecdot", "vecmat"
    )},
    **{f"jax.numpy.{n}": (0, 1, 2) for n in (
        "atleast_1d", "atleast_2d", "atleast_3d", "broadcast_arrays", "insert",
        "interp", "ix_", "meshgrid", "place", "where"
    )},
    **{f"jax.numpy.linalg.{n}": (0,) for n in (
        "cholesky", "cond", "det", "eig", "eigh", "eigvals", "eigvalsh", "inv",
        "matrix_norm", "matrix_rank", "norm", "pinv", "qr", "slogdet", "svd", "svdvals",
        "tensorinv", "vector_norm"
    )},
    # Measured separately (the survey above missed them): list bounds of clip, the
    # values of append, the second operand of these linalg functions, and jnp.fft.
    # (`einsum` is left out: its interleaved form takes lists of axis numbers.)
    **{f"jax.numpy.{n}": (0, 1, 2) for n in ("clip",)},
    **{f"jax.numpy.{n}": (0, 1) for n in ("append",)},
    **{f"jax.numpy.linalg.{n}": (0, 1) for n in (
        "cross", "lstsq", "matmul", "outer", "solve", "tensordot", "tensorsolve", "vecdot",
    )},
    **{f"jax.numpy.fft.{n}": (0,) for n in (
        "fft", "fft2", "fftn", "fftshift", "hfft", "ifft", "ifft2", "ifftn", "ifftshift",
        "irfft", "irfft2", "irfftn", "rfft", "rfft2", "rfftn",
    )},
    **{f"jax.nn.{n}": (0,) for n in (
        "celu", "elu", "gelu", "glu", "hard_silu", "hard_swish", "hard_tanh",
        "leaky_relu", "log_sigmoid", "log_softmax", "logsumexp", "mish", "relu",
        "relu6", "selu", "silu", "soft_sign", "softmax", "softplus", "sparse_plus",
        "squareplus", "standardize", "swish"
    )},
}

# Numerics (JAX7xx): integer overflow

#: The integer dtypes JAX has while x64 is off, with their ranges. A Python int
#: literal out of range is an OverflowError in `jnp.array(2**40)`, `jnp.int32(3e9)`
#: and `x + 2**40`, but these calls wrap it silently (jax 0.10.2): `jnp.full(3,
#: 2**40)` is [0, 0, 0], `jnp.full(3, 300, dtype=jnp.uint8)` is [44, 44, 44],
#: `jnp.arange(2**31 - 1, 2**31 + 2)` is [2147483647, -2147483648, -2147483647],
#: `lax.convert_element_type(2**40, jnp.int32)` is 0; no warning.
INT_DTYPE_RANGES: dict[str, tuple[int, int]] = {
    "int8": (-2**7, 2**7 - 1), "int16": (-2**15, 2**15 - 1), "int32": (-2**31, 2**31 - 1),
    "uint8": (0, 2**8 - 1), "uint16": (0, 2**16 - 1), "uint32": (0, 2**32 - 1),
}
#: The dtype of a Python int given to JAX, while x64 is off.
DEFAULT_INT_DTYPE = "int32"
#: Calls that wrap an out-of-range int literal silently: -> (positions, keywords) of
#: the values, and the (position, keyword) of the dtype (None: no dtype argument).
WRAPPING_INT_CALLS: dict[str, tuple[tuple[int, ...], tuple[str, ...], tuple[int, str] | None]] = {
    "jax.numpy.full": ((1,), ("fill_value",), (2, "dtype")),
    "jax.lax.full": ((1,), ("fill_value",), (2, "dtype")),
    "jax.numpy.arange": ((0, 1, 2), ("start", "stop", "step"), (3, "dtype")),
    "jax.lax.convert_element_type": ((0,), ("operand",), (1, "new_dtype")),
}

#: Conversions that refuse an int outside the default int dtype, at once (measured,
#: jax 0.10.2, x64 off: `jnp.asarray(2**31)` raises "OverflowError: Python int
#: 2147483648 too large to convert to int32"; `jnp.array` the same): -> position of
#: the value. Given a dtype, they convert to it instead: only the bare call counts.
RAISING_INT_CALLS: dict[str, int] = {"jax.numpy.asarray": 0, "jax.numpy.array": 0}
#: Python ints the standard library states: `sys.maxsize` is 2**63 - 1 on the 64-bit
#: platforms JAX runs on.
KNOWN_INT_CONSTANTS: dict[str, int] = {"sys.maxsize": 2**63 - 1}
#: Seeds and fold-in data that JAX converts from a Python int and refuses out of range,
#: whatever x64 says (measured, jax 0.10.2: `fold_in(key, 2**32)` and `fold_in(key, -1)`
#: raise "OverflowError: Python integer ... out of bounds for uint32"; `PRNGKey(2**63)`
#: and `key(2**63)` raise "OverflowError: Python int too large to convert to C long"):
#: -> (position, keyword, lowest, highest).
SEED_INT_RANGES: dict[str, tuple[int, str, int, int]] = {
    "jax.random.fold_in": (1, "data", 0, 2**32 - 1),
    "jax.random.PRNGKey": (0, "seed", -2**63, 2**63 - 1),
    "jax.random.key": (0, "seed", -2**63, 2**63 - 1),
}
#: The width in bits of a hashlib digest: `int(hashlib.sha512(b).hexdigest(), 16)` is an
#: int of up to 512 bits, below 2**64 only once in 2**448.
DIGEST_BITS: dict[str, int] = {
    "hashlib.md5": 128, "hashlib.sha1": 160, "hashlib.sha224": 224, "hashlib.sha256": 256,
    "hashlib.sha384": 384, "hashlib.sha512": 512, "hashlib.blake2b": 512, "hashlib.blake2s": 256,
    "hashlib.sha3_224": 224, "hashlib.sha3_256": 256, "hashlib.sha3_384": 384, "hashlib.sha3_512": 512,
}


# Confirm mode: what JAX's error says when a rule's problem happens

#: For rules whose exception class alone is not evidence (a plain TypeError or
#: ValueError can come from anything on the line), the words of JAX's own message,
#: one of which the raised error must contain to confirm the finding. Measured under
#: jax 0.10.2 (flax 0.12.8 for nnx) on the CPU.
ERROR_WORDING: dict[str, tuple[str, ...]] = {
    # jnp.tile(a, reps) with traced reps (jax 0.10.2): the reps tuple of tracers is a jaxpr
    # parameter, and JAX rejects it as unhashable.
    "JAX207": ("Shapes must be 1D sequences of concrete values of integer type",
               "parameters to jaxpr equations must have __hash__ and __eq__ methods"),
    "JAX208": ("requires ndarray or scalar arguments",),
    "JAX209": ("Slice entries must be static integers",
               "Array slice indices must have static start/stop/step"),
    "JAX404": ("Non-hashable static arguments are not supported",),
    "JAX406": ("static_argnums", "static_argnames", "static_broadcasted_argnums"),
    "JAX801": ("Gradient only defined for scalar-output functions",),
    "JAX802": ("to return a two-element tuple", "iteration over a 0-d array",
               "values to unpack (expected 2)"),
    "JAX803": ("differentiating with respect to argnums", "Positional argument indices",
               # grad of a jitted function whose argument it differentiates is static
               "Non-hashable static arguments are not supported"),
    "JAX804": ("vmap in_axes must be", "vmap was requested to map its argument along axis",
               "vmap out_axes specification must be a tree prefix",
               "vmap got inconsistent sizes for array axes to be mapped"),
    "JAX805": ("Array has been deleted", "Buffer has been deleted or donated"),
    "JAX806": ("values to unpack", "iteration over a 0-d array"),
}


#: Transforms whose calls wait for the result before returning (`Transform.waits_on_return`).
WAITING_TRANSFORMS: frozenset[str] = frozenset(
    t.name for t in TRANSFORMS.values() if t.waits_on_return)
