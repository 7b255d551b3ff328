"""JAX's removed and deprecated APIs: one table, with the release of each change.

Every version here was read from JAX's CHANGELOG.md (jax-ml/jax) and checked
against the jax releases on PyPI (`pip download --no-deps jax==X`) and the
installed jax. `deprecated_in` is the first release that warned; `removed_in`
the first release without the name ("" when JAX removed it but the release is
not pinned down; `None` when it still exists). Which rule reports a name is
chosen by its `migration`; whether it fires depends on the target JAX version
(`target-jax-version`, default: the installed jax).

`new` is what the fix writes: an expression in which dotted `jax...` names are
spelled through the file's own imports (`jax.numpy.inf` becomes `jnp.inf`).
`safety` says whether that rewrite keeps the program's meaning ("safe"), may
change it ("unsafe", with the reason in `note`), or is only a suggestion
("display-only"). `same_name_in` names a module that still exports the removed
name under the same name, for rewriting `from X import name`.
"""

from __future__ import annotations

import functools

from dataclasses import dataclass
from typing import Optional

# The newest JAX release this table knows (the default target without jax installed).
NEWEST_KNOWN_JAX = "0.11.0"


@dataclass(frozen=True)
class RemovedAPI:
    """A JAX name that was deprecated or removed, and what to write instead."""

    # What to write instead, for messages (code in backticks).
    replacement: str
    # The first JAX release without it ("" when not pinned down, None when it still exists).
    removed_in: Optional[str]
    # Which migration (and so which rule) it belongs to.
    migration: str
    # The first JAX release that deprecated it ("" when unknown).
    deprecated_in: str = ""
    # The expression a fix writes instead (None: no automatic rewrite).
    new: Optional[str] = None
    safety: str = "safe"
    # Why a rewrite is unsafe or display-only.
    note: str = ""
    # A module that still has the same name (`from jax import tree_map` -> `from jax.tree_util import tree_map`).
    same_name_in: Optional[str] = None


def _group(migration: str, removed_in: Optional[str], deprecated_in: str,
           entries: dict[str, tuple]) -> dict[str, RemovedAPI]:
    """entries: name -> (replacement, new[, safety[, note[, same_name_in]]])."""
    out = {}
    for name, spec in entries.items():
        replacement, new, *rest = spec
        safety = rest[0] if len(rest) > 0 else "safe"
        note = rest[1] if len(rest) > 1 else ""
        same = rest[2] if len(rest) > 2 else None
        out[name] = RemovedAPI(replacement, removed_in, migration, deprecated_in, new, safety, note, same)
    return out


_TREE = "jax.tree_util"

#: Removed (or deprecated) JAX attributes, by qualified name.
API_CHANGES: dict[str, RemovedAPI] = {
    # jax.ops.index_*: deprecated in 0.2.22, removed in 0.3.2 (present in 0.3.1).
    # The fix for these is a call rewrite (jaxlint.fixes.removed_api), not a rename.
    **_group("index-update", "0.3.2", "0.2.22", {
        "jax.ops.index_update": ("`x.at[idx].set(y)`", None),
        "jax.ops.index_add": ("`x.at[idx].add(y)`", None),
        "jax.ops.index_mul": ("`x.at[idx].multiply(y)`", None),
        "jax.ops.index_min": ("`x.at[idx].min(y)`", None),
        "jax.ops.index_max": ("`x.at[idx].max(y)`", None),
        "jax.ops.index": ("a plain index in `x.at[...]`", None),
    }),
    # tree_multimap: deprecated in 0.3.5, removed in 0.3.16.
    **_group("tree-alias", "0.3.16", "0.3.5", {
        "jax.tree_multimap": ("`jax.tree.map`", "jax.tree.map", "safe", "", None),
        "jax.tree_util.tree_multimap": ("`jax.tree.map`", "jax.tree_util.tree_map"),
    }),
    # The top-level jax.tree_* aliases: deprecated in 0.4.26, removed in 0.6.0.
    **_group("tree-alias", "0.6.0", "0.4.26", {
        "jax.tree_map": ("`jax.tree.map` (or `jax.tree_util.tree_map`)", "jax.tree.map", "safe", "", _TREE),
        "jax.tree_leaves": ("`jax.tree.leaves` (or `jax.tree_util.tree_leaves`)", "jax.tree.leaves",
                            "safe", "", _TREE),
        "jax.tree_flatten": ("`jax.tree.flatten` (or `jax.tree_util.tree_flatten`)", "jax.tree.flatten",
                             "safe", "", _TREE),
        "jax.tree_unflatten": ("`jax.tree.unflatten` (or `jax.tree_util.tree_unflatten`)", "jax.tree.unflatten",
                               "safe", "", _TREE),
        "jax.tree_structure": ("`jax.tree.structure` (or `jax.tree_util.tree_structure`)", "jax.tree.structure",
                               "safe", "", _TREE),
        "jax.tree_transpose": ("`jax.tree.transpose` (or `jax.tree_util.tree_transpose`)", "jax.tree.transpose",
                               "safe", "", _TREE),
        "jax.treedef_is_leaf": ("`jax.tree_util.treedef_is_leaf`", "jax.tree_util.treedef_is_leaf",
                                "safe", "", _TREE),
    }),
    # NumPy's deprecated aliases: deprecated in 0.4.12, removed in 0.4.16 (present in 0.4.14).
    **_group("numpy-alias", "0.4.16", "0.4.12", {
        "jax.numpy.alltrue": ("`jnp.all`", "jax.numpy.all"),
        "jax.numpy.sometrue": ("`jnp.any`", "jax.numpy.any"),
        "jax.numpy.product": ("`jnp.prod`", "jax.numpy.prod"),
        "jax.numpy.cumproduct": ("`jnp.cumprod`", "jax.numpy.cumprod"),
    }),
    # NEP 52 clean-up: deprecated in 0.4.16, removed in 0.4.24 (changelog of 0.4.24).
    **_group("numpy-alias", "0.4.24", "0.4.16", {
        # in1d flattens its result; isin keeps the shape of its first argument.
        "jax.numpy.in1d": ("`jnp.isin(...).ravel()`", None),
        "jax.numpy.trapz": ("`jnp.trapezoid`", "jax.numpy.trapezoid"),
        "jax.numpy.row_stack": ("`jnp.vstack`", "jax.numpy.vstack"),
        "jax.numpy.NINF": ("`-jnp.inf`", "-jax.numpy.inf"),
        "jax.numpy.NZERO": ("`-0.0`", "-0.0"),
        "jax.numpy.PZERO": ("`0.0`", "0.0"),
        "jax.numpy.issubsctype": ("`jnp.issubdtype(x.dtype, t)`", None),
    }),
    # round_: deprecated in 0.4.32, removed in 0.4.38.
    **_group("numpy-alias", "0.4.38", "0.4.32", {
        "jax.numpy.round_": ("`jnp.round`", "jax.numpy.round"),
    }),
    # jnp.DeviceArray: deprecated in 0.4.7, removed in 0.4.14.
    **_group("device-array", "0.4.14", "0.4.7", {
        "jax.numpy.DeviceArray": ("`jax.Array`", "jax.Array"),
        "jax.interpreters.pxla.ShardedDeviceArray": ("`jax.Array`", "jax.Array"),
    }),
    # jax.interpreters.xla.DeviceArray: removed in 0.4.11.
    **_group("device-array", "0.4.11", "0.4.7", {
        "jax.interpreters.xla.DeviceArray": ("`jax.Array`", "jax.Array"),
    }),
    **_group("device-array", "", "", {
        "jax.interpreters.xla._DeviceArray": ("`jax.Array`", "jax.Array"),
        "jax.interpreters.xla._CppDeviceArray": ("`jax.Array`", "jax.Array"),
        "jaxlib.xla_extension.DeviceArray": ("`jax.Array`", "jax.Array"),
    }),
    # Key array types: deprecated in 0.4.16, removed in 0.4.24.
    **_group("device-array", "0.4.24", "0.4.16", {
        "jax.random.KeyArray": ("`jax.Array`", "jax.Array"),
        "jax.random.PRNGKeyArray": ("`jax.Array`", "jax.Array"),
    }),
    # jax.xla_computation: deprecated in 0.4.30, removed in 0.4.34.
    **_group("xla-computation", "0.4.34", "0.4.30", {
        "jax.xla_computation": ("`jax.jit(f).lower(*args).compiler_ir('hlo')`", None),
    }),
    # Other removed functions -------------------------------------------------
    # device_put_sharded / _replicated: deprecated in 0.8.1, removed in 0.10.0.
    **_group("removed-function", "0.10.0", "0.8.1", {
        "jax.device_put_sharded": (
            "`jax.device_put(jnp.stack(shards), jax.sharding.NamedSharding(mesh, P('x')))` "
            "(see JAX's pmap migration guide)", None),
        "jax.device_put_replicated": (
            "`jax.device_put(x, jax.sharding.NamedSharding(mesh, P()))` "
            "(see JAX's pmap migration guide)", None),
    }),
    # jax.lib.xla_bridge accessors: deprecated in 0.4.32; default_backend and
    # xla_client removed in 0.4.38, get_backend in 0.8.0.
    **_group("removed-function", "0.4.38", "0.4.32", {
        "jax.lib.xla_bridge.default_backend": ("`jax.default_backend()`", "jax.default_backend"),
        "jax.lib.xla_bridge.xla_client": ("the `jax.extend` APIs", None),
    }),
    **_group("removed-function", "0.8.0", "0.4.32", {
        "jax.lib.xla_bridge.get_backend": ("`jax.extend.backend.get_backend`", "jax.extend.backend.get_backend",
                                           "safe", "", "jax.extend.backend"),
    }),
    # jax.experimental.enable_x64 / disable_x64: deprecated in 0.8.0, gone in 0.10.2.
    **_group("removed-function", "0.10.0", "0.8.0", {
        "jax.experimental.enable_x64": ("`jax.enable_x64(True)`", None),
        "jax.experimental.disable_x64": ("`jax.enable_x64(False)`", None),
    }),
    # Accidental top-level exports ("jax.xla was an accidental export"): deprecated in
    # 0.4.7, present with a warning in 0.4.13, removed in 0.4.14 (read from jax/__init__.py
    # of both sdists). `jax.ad` is left out: jax 0.10 has a new `jax.ad` namespace.
    **_group("removed-function", "0.4.14", "0.4.7", {
        "jax.xla": ("`jax.extend.backend.get_backend()` for the backend, `jax.Device` for devices", None),
        "jax.pxla": ("`jax.interpreters.pxla`", None),
        "jax.partial_eval": ("`jax.interpreters.partial_eval`", None),
        "jax.ShapedArray": ("`jax.core.ShapedArray`", None),
        "jax.flatten_fun_nokwargs": ("`jax.api_util.flatten_fun_nokwargs`", None),
        "jax.curry": ("`functools.partial(functools.partial, f)`", None),
    }),
    # PartitionSpec's old homes: deprecated in 0.4.4, removed in 0.4.11 (read from the
    # sdists of 0.4.4, 0.4.10 and 0.4.11: jax/experimental/__init__.py, pjit.py, pxla.py).
    **_group("removed-function", "0.4.11", "0.4.4", {
        "jax.experimental.PartitionSpec": ("`jax.sharding.PartitionSpec`", "jax.sharding.PartitionSpec",
                                           "safe", "", "jax.sharding"),
        "jax.experimental.pjit.PartitionSpec": ("`jax.sharding.PartitionSpec`", "jax.sharding.PartitionSpec",
                                                "safe", "", "jax.sharding"),
        "jax.interpreters.pxla.PartitionSpec": ("`jax.sharding.PartitionSpec`", "jax.sharding.PartitionSpec",
                                                "safe", "", "jax.sharding"),
    }),
    # jax.experimental.pjit.with_sharding_constraint: deprecated by 0.4.20 (not in 0.4.14;
    # the first warning release is not pinned down), removed in 0.4.24.
    **_group("removed-function", "0.4.24", "", {
        "jax.experimental.pjit.with_sharding_constraint": (
            "`jax.lax.with_sharding_constraint`", "jax.lax.with_sharding_constraint", "safe", "", "jax.lax"),
    }),
    # jax.lax.prod: removed in 0.4.24 (deprecated in 0.4.11).
    **_group("removed-function", "0.4.24", "0.4.11", {
        "jax.lax.prod": ("`math.prod`", None),
    }),
    # "jax.partial, and jax.lax.partial were accidental exports that have now been removed.
    # Use functools.partial" (changelog of 0.2.21; they were functools.partial itself).
    **_group("removed-function", "0.2.21", "", {
        "jax.partial": ("`functools.partial`", "functools.partial", "safe", "", "functools"),
        "jax.lax.partial": ("`functools.partial`", "functools.partial", "safe", "", "functools"),
    }),
    # custom_transforms and its def*: deprecated in 0.1.63 for custom_jvp / custom_vjp
    # (changelog), gone from jax/__init__.py in 0.2.12 (read at tags jax-v0.2.11 / v0.2.12).
    **_group("removed-function", "0.2.12", "0.1.63", {
        "jax.custom_transforms": ("`jax.custom_vjp` (or `jax.custom_jvp`)", None),
        "jax.defvjp_all": ("`jax.custom_vjp` and its `defvjp(fwd, bwd)`", None),
        "jax.defvjp": ("`jax.custom_vjp` and its `defvjp(fwd, bwd)`", None),
        "jax.defjvp_all": ("`jax.custom_jvp` and its `defjvp(jvp)`", None),
        "jax.defjvp": ("`jax.custom_jvp` and its `defjvps(...)`", None),
    }),
    # jax.nn.normalize: deprecated in 0.3.5 for standardize (the shim returned standardize
    # itself); jax.lax.tie_in: deprecated in 0.4.24, "a no-op since JAX v0.2.0". Both
    # removed in 0.4.29 (changelog; AttributeError shims at tag jax-v0.4.29).
    **_group("removed-function", "0.4.29", "0.3.5", {
        "jax.nn.normalize": ("`jax.nn.standardize`", "jax.nn.standardize", "safe", "", "jax.nn"),
    }),
    **_group("removed-function", "0.4.29", "0.4.24", {
        "jax.lax.tie_in": ("`y` in place of `tie_in(x, y)` (a no-op since JAX 0.2.0)", None),
    }),
    # jax.lax.pdot / xeinsum, xmap's named-axis products: removed with xmap in 0.4.31
    # ("xmap has been deleted", changelog; in jax/lax/__init__.py at tag jax-v0.4.30, not v0.4.31).
    **_group("removed-function", "0.4.31", "", {
        "jax.lax.pdot": ("the local product summed with `jax.lax.psum(..., axis_name)` inside "
                         "`jax.shard_map` (xmap was removed)", None),
        "jax.lax.xeinsum": ("`jnp.einsum` on the local blocks summed with `jax.lax.psum(..., axis_name)` "
                            "inside `jax.shard_map` (xmap was removed)", None),
    }),
    # lax.infeed / outfeed and their primitives: deprecated in 0.6.0, removed in 0.7.0
    # (changelog), with no replacement in jax.lax.
    **_group("removed-function", "0.7.0", "0.6.0", {
        **{f"jax.lax.{n}": ("`jax.experimental.io_callback` to exchange data with the host "
                            "(JAX has no infeed/outfeed any more)", None)
           for n in ("infeed", "infeed_p", "outfeed", "outfeed_p")},
    }),
    # PositionalSharding and GSPMDSharding: deprecated in 0.6.0, removed in 0.7.0 (the
    # AttributeError shim of jax/sharding.py at tag jax-v0.7.0 says so; not in the changelog).
    **_group("removed-function", "0.7.0", "0.6.0", {
        "jax.sharding.PositionalSharding": ("`jax.NamedSharding` over a `jax.make_mesh` mesh", None),
        "jax.sharding.GSPMDSharding": ("`jax.NamedSharding`", None),
    }),
    # jax.sharding.PmapSharding: deprecated in 0.8.1, removed with the C++ pmap in 0.10.0.
    **_group("removed-function", "0.10.0", "0.8.1", {
        "jax.sharding.PmapSharding": ("`jax.NamedSharding`", None),
    }),
    # jax.core internals: deprecated in 0.10.0 (most moved to jax.extend.core), removed in 0.11.0.
    **_group("removed-function", "0.11.0", "0.10.0", {
        **{f"jax.core.{n}": (f"`jax.extend.core.{n}`", f"jax.extend.core.{n}") for n in (
            "CallPrimitive", "DebugInfo", "DropVar", "Effect", "Effects", "check_jaxpr",
            "concrete_or_error", "find_top_trace", "gensym", "get_opaque_trace_state",
            "jaxprs_in_params", "new_jaxpr_eqn", "no_effects", "primal_dtype_to_tangent_dtype",
            "valid_jaxtype")},
        **{f"jax.core.{n}": (f"`jax.errors.{n}`", f"jax.errors.{n}") for n in (
            "InconclusiveDimensionOperation", "JaxprTypeError")},
        **{f"jax.core.{n}": ("nothing: it has no public replacement", None) for n in (
            "abstract_token", "is_concrete", "is_constant_dim", "is_constant_shape", "call", "trace_ctx")},
    }),
    # Deprecated, still present in jax 0.10.2 ------------------------------------
    # Only what JAX itself warns about (DeprecationWarning at access, checked under
    # jax 0.10.2). `jax.pmap` is in maintenance mode but not deprecated: it warns
    # nothing, so it is not here.
    **_group("deprecated", None, "0.8.0", {
        "jax.experimental.pjit.pjit": ("`jax.jit`", "jax.jit"),
        "jax.experimental.shard_map.shard_map": (
            "`jax.shard_map`", "jax.shard_map", "unsafe",
            "jax.shard_map takes `mesh` and the specs by keyword, and `check_rep` is now `check_vma`"),
    }),
}

#: Removed attributes of JAX arrays, by attribute name (the receiver is a `jax.Array`).
#: Read from jax/_src/array.py of each release (`pip download --no-deps jax==X`).
ARRAY_ATTRIBUTE_CHANGES: dict[str, RemovedAPI] = {
    # DeviceArray's own methods: `jax.Array`, the default array type since 0.4.1, never had them.
    **_group("device-array", "0.4.1", "", {
        "to_py": ("`np.asarray(x)`", None),
        "block_host_until_ready": ("`x.block_until_ready()`", None),
    }),
    # Deprecated in 0.4.22, removed (AttributeError) in 0.4.27.
    **_group("device-array", "0.4.27", "0.4.22", {
        "device_buffer": ("`x.addressable_data(0)`", None),
        "device_buffers": ("`[s.data for s in x.addressable_shards]`", None),
    }),
    # `x.device()`: deprecated in 0.4.21, removed in 0.4.27; from 0.4.31 `device` is a
    # property holding the Device, so the call raises TypeError ('Device' object is not callable).
    **_group("device-array", "0.4.27", "0.4.21", {
        "device": ("`x.device` (a property) or `x.devices()`", None),
    }),
}
#: Removed array methods whose name came back as a property: only calling them fails,
#: and the name alone says nothing about the receiver, so the rule needs it to be an array.
ARRAY_METHODS_NOW_PROPERTIES: dict[str, str] = {"device": "0.4.31"}

#: Removed JAX modules: importing them raises ModuleNotFoundError. `new` is the
#: module to import instead when it is a drop-in replacement.
MODULE_CHANGES: dict[str, RemovedAPI] = {
    # The jax.config submodule: deprecated in 0.4.25, removed in 0.4.29. `jax.config`
    # the attribute (and `from jax import config`) still work.
    "jax.config": RemovedAPI("`import jax` and `jax.config.update(...)`", "0.4.29", "config-module", "0.4.25"),
    # Aliases of jax.example_libraries since 0.2.25, removed in 0.3.16.
    "jax.experimental.optimizers": RemovedAPI(
        "`jax.example_libraries.optimizers`", "0.3.16", "removed-module", "0.2.25",
        "jax.example_libraries.optimizers"),
    "jax.experimental.stax": RemovedAPI(
        "`jax.example_libraries.stax`", "0.3.16", "removed-module", "0.2.25", "jax.example_libraries.stax"),
    # host_callback: deprecated in 0.4.26, raises NotImplementedError from 0.4.35, removed in 0.8.0.
    "jax.experimental.host_callback": RemovedAPI(
        "`jax.debug.callback` (or `jax.experimental.io_callback`, `jax.pure_callback`)",
        "0.8.0", "removed-module", "0.4.26"),
    # jax.experimental.maps and xmap: deprecated in 0.4.26, removed in 0.4.31.
    "jax.experimental.maps": RemovedAPI("`jax.shard_map` (xmap was removed)", "0.4.31", "removed-module", "0.4.26"),
    # jax.abstract_arrays: deprecated in 0.4.12, removed in 0.4.17.
    "jax.abstract_arrays": RemovedAPI("`jax.core.ShapedArray`", "0.4.17", "removed-module", "0.4.12"),
    # jax.linear_util and jax.prng: removed in 0.4.24.
    "jax.linear_util": RemovedAPI("`jax.extend.linear_util`", "0.4.24", "removed-module", "0.4.16",
                                  "jax.extend.linear_util", "unsafe",
                                  "the functions there have changed signatures (wrap_init takes debug_info)"),
    # jax.experimental.export: deprecated in 0.4.30, removed in 0.4.36.
    "jax.experimental.export": RemovedAPI(
        "`jax.export` (its `export` takes a jitted function)", "0.4.36", "removed-module", "0.4.30"),
    # jax.util: removed in 0.8.0.
    "jax.util": RemovedAPI("the standard library or your own helpers", "0.8.0", "removed-module", ""),
    # The jax.lib.xla_bridge module: removed in 0.9.0 (its functions were deprecated from 0.4.32).
    "jax.lib.xla_bridge": RemovedAPI("`jax.extend.backend` and `jax.default_backend()`", "0.9.0",
                                     "removed-module", "0.4.32", "jax.extend.backend", "unsafe",
                                     "only `get_backend` and a few other accessors moved there"),
}


@functools.lru_cache(maxsize=256)
def parse_version(text: str) -> tuple[int, ...]:
    """"0.4.26" -> (0, 4, 26); a suffix (rc1, .dev) is ignored."""
    out = []
    for part in text.strip().split("."):
        digits = ""
        for ch in part:
            if not ch.isdigit():
                break
            digits += ch
        if not digits:
            break
        out.append(int(digits))
    return tuple(out)


@functools.lru_cache(maxsize=None)
def installed_jax_version() -> Optional[str]:
    """The installed jax's version, from its metadata (static mode never imports jax)."""
    from importlib import metadata

    try:
        return metadata.version("jax")
    except metadata.PackageNotFoundError:
        return None


def default_target() -> str:
    return installed_jax_version() or NEWEST_KNOWN_JAX


def removed_at(api: RemovedAPI, target: Optional[str]) -> bool:
    """Whether the name is gone in JAX `target` (None: the default target)."""
    if api.removed_in is None:
        return False
    if api.removed_in == "":
        return True
    return parse_version(api.removed_in) <= parse_version(target or default_target())


def deprecated_at(api: RemovedAPI, target: Optional[str]) -> bool:
    """Whether the name exists but is deprecated in JAX `target`."""
    if removed_at(api, target) or not api.deprecated_in:
        return False
    return parse_version(api.deprecated_in) <= parse_version(target or default_target())


def known_version(text: str) -> bool:
    return bool(parse_version(text)) and len(parse_version(text)) >= 2
