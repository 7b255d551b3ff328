"""`[tool.jaxlint]` in pyproject.toml, merged with command-line options."""

from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Optional

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

from jaxlint.jax_api import TRANSFORM_KINDS


class ConfigError(Exception):
    """A configuration problem: reported in one line, exit code 2."""


DEFAULT_EXCLUDE = (
    ".bzr", ".direnv", ".eggs", ".git", ".hg", ".ipynb_checkpoints", ".mypy_cache", ".nox",
    ".pants.d", ".pytest_cache", ".pytype", ".ruff_cache", ".svn", ".tox", ".venv", ".jaxlint_cache",
    "__pypackages__", "__pycache__", "_build", "buck-out", "build", "dist", "node_modules",
    "site-packages", "venv",
)

_KEYS = {
    "select", "ignore", "extend-select", "per-file-ignores", "exclude", "extend-exclude",
    "force-exclude", "extend-transforms", "output-format", "target-jax-version",
    "confirm",  # [tool.jaxlint.confirm]: read by confirm mode (jaxlint.confirm.examples)
    "memory-limit",
}

#: What the analysis of one file may add to its process's memory, in bytes (`memory-limit`).
DEFAULT_MEMORY_LIMIT = 2 * 1024 ** 3


@dataclass(frozen=True)
class Settings:
    select: Optional[tuple[str, ...]] = None
    ignore: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    extend_exclude: tuple[str, ...] = ()
    force_exclude: bool = False
    # Extra transforms: dotted name -> kind ("jit", "vmap", "grad", ...).
    extend_transforms: tuple[tuple[str, str], ...] = ()
    output_format: Optional[str] = None
    # The JAX release the code must run on: removed-API rules fire for APIs removed at
    # or before it, JAX906 for APIs deprecated at it. None: the installed jax (read from
    # its metadata, never imported), or the newest release jaxlint knows.
    target_jax_version: Optional[str] = None
    # Bytes the analysis of one file may take (None: no cap); past it the file gets E902.
    memory_limit: Optional[int] = DEFAULT_MEMORY_LIMIT
    # Where the config was found: relative paths in it are relative to this.
    root: str = "."
    config_file: Optional[str] = None

    def enabled_codes(self) -> frozenset[str]:
        from jaxlint.rules import all_rules

        rules = all_rules()
        if self.select is None:
            base = {c for c, r in rules.items() if r.default}
        else:
            base = {c for c in rules if _matches(c, self.select)}
        base |= {c for c in rules if _matches(c, self.extend_select)}
        return frozenset(c for c in base if not _matches(c, self.ignore))

    def codes_for(self, path: str) -> frozenset[str]:
        """The enabled codes for one file, after per-file-ignores."""
        codes = self.enabled_codes()
        if not self.per_file_ignores:
            return codes
        rel = _relative(path, self.root)
        for pattern, ignored in self.per_file_ignores:
            if _glob_match(rel, pattern):
                codes = frozenset(c for c in codes if not _matches(c, ignored))
        return codes

    def is_excluded(self, path: str) -> bool:
        rel = _relative(path, self.root)
        parts = Path(rel).parts
        for pattern in self.exclude + self.extend_exclude:
            if _glob_match(rel, pattern) or any(fnmatch.fnmatchcase(p, pattern) for p in parts):
                return True
        return False

    def transforms(self) -> dict[str, str]:
        return dict(self.extend_transforms)


def _matches(code: str, selectors) -> bool:
    return any(code.startswith(s.upper()) for s in selectors) if selectors else False


def _relative(path: str, root: str) -> str:
    try:
        return os.path.relpath(os.path.abspath(path), os.path.abspath(root))
    except ValueError:  # pragma: no cover - different drives on Windows
        return path


def _glob_match(rel: str, pattern: str) -> bool:
    rel = rel.replace(os.sep, "/")
    pattern = pattern.rstrip("/")
    return fnmatch.fnmatchcase(rel, pattern) or fnmatch.fnmatchcase(rel, pattern + "/*") \
        or fnmatch.fnmatchcase("./" + rel, pattern)


def _resolve(start: str) -> Path:
    """`start` as an absolute path; a symbolic-link loop resolves as far as it can.

    Path.resolve() raises RuntimeError on a loop (Python 3.11); the loop itself is
    reported by discovery, and the config is still looked up from its folder.
    """
    try:
        return Path(start).resolve()
    except (RuntimeError, OSError):
        return Path(os.path.abspath(start))


def _is_file(p: Path) -> bool:
    try:
        return p.is_file()
    except OSError:
        return False


def _is_dir(p: Path) -> bool:
    try:
        return p.is_dir()
    except OSError:
        return False


def _exists(p: Path) -> bool:
    try:
        return p.exists()
    except OSError:  # ELOOP on Python versions whose exists() raises it
        return False


def find_pyproject(start: str) -> Optional[Path]:
    """The nearest pyproject.toml with a [tool.jaxlint] table, from `start` upwards."""
    p = _resolve(start)
    if _is_file(p) or not _exists(p):
        p = p.parent
    for d in [p, *p.parents]:
        candidate = d / "pyproject.toml"
        if candidate.is_file():
            try:
                data = tomllib.loads(candidate.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
                raise ConfigError(f"{candidate}: cannot read: {exc}") from None
            if "jaxlint" in data.get("tool", {}):
                return candidate
    return None


def _str_list(key: str, value, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: `{key}` must be a list of strings")
    return tuple(value)


_SELECTOR = re.compile(r"[A-Z]+[0-9]*")


def validate_codes(selectors, where: str) -> None:
    from jaxlint.rules import all_rules

    codes = all_rules()
    for s in selectors:
        up = s.upper()
        if not _SELECTOR.fullmatch(up):
            # "" is a prefix of every code: `ignore = [""]` would turn every rule off.
            raise ConfigError(f"{where}: invalid rule code or prefix {s!r} (codes look like JAX201 "
                              f"or a prefix such as JAX2)")
        if up in ("ALL", "JAX"):
            continue
        if not any(c.startswith(up) for c in codes):
            raise ConfigError(f"{where}: unknown rule code or prefix `{s}` (see `jaxlint rules`)")


def load_table(table: dict, where: str, root: str) -> Settings:
    unknown = set(table) - _KEYS
    if unknown:
        raise ConfigError(f"{where}: unknown key `{sorted(unknown)[0]}` in [tool.jaxlint] "
                          f"(known: {', '.join(sorted(_KEYS))})")
    kw: dict = {"root": root, "config_file": where}
    for key, attr in (("select", "select"), ("ignore", "ignore"), ("extend-select", "extend_select")):
        if key in table:
            vals = _str_list(key, table[key], where)
            validate_codes(vals, where)
            kw[attr] = tuple("JAX" if v.upper() == "ALL" else v for v in vals)
    if "exclude" in table:
        kw["exclude"] = _str_list("exclude", table["exclude"], where)
    if "extend-exclude" in table:
        kw["extend_exclude"] = _str_list("extend-exclude", table["extend-exclude"], where)
    if "force-exclude" in table:
        if not isinstance(table["force-exclude"], bool):
            raise ConfigError(f"{where}: `force-exclude` must be true or false")
        kw["force_exclude"] = table["force-exclude"]
    if "per-file-ignores" in table:
        pfi = table["per-file-ignores"]
        if not isinstance(pfi, dict):
            raise ConfigError(f"{where}: `per-file-ignores` must be a table of glob = [codes]")
        items = []
        for pattern, codes in pfi.items():
            vals = _str_list(f"per-file-ignores.{pattern}", codes, where)
            validate_codes(vals, where)
            items.append((pattern, vals))
        kw["per_file_ignores"] = tuple(items)
    if "extend-transforms" in table:
        kw["extend_transforms"] = parse_transforms(table["extend-transforms"], where)
    if "output-format" in table:
        kw["output_format"] = str(table["output-format"])
    if "target-jax-version" in table:
        kw["target_jax_version"] = parse_target(table["target-jax-version"], where)
    if "memory-limit" in table:
        kw["memory_limit"] = parse_memory(table["memory-limit"], where)
    if "confirm" in table:
        conf = table["confirm"]
        if not isinstance(conf, dict) or set(conf) - {"examples"} \
                or not isinstance(conf.get("examples", {}), dict) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in conf.get("examples", {}).items()):
            raise ConfigError(f"{where}: [tool.jaxlint.confirm] takes one key, `examples`, a table "
                              f"of \"module.function\" = \"arguments\"")
    return Settings(**kw)


def parse_target(value, where: str) -> str:
    """A JAX version such as "0.4.26"."""
    from jaxlint.api_changes import known_version

    if not isinstance(value, str) or not known_version(value):
        raise ConfigError(f"{where}: `target-jax-version` must be a JAX version such as \"0.4.26\", "
                          f"not {value!r}")
    return value.strip()


_SIZE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*(?:([KMG])(?:I?B)?)?\s*", re.I)


def parse_memory(value, where: str) -> Optional[int]:
    """A size: an integer of MiB (2048), or "2GiB", "2G", "512MB", "512M" (binary units);
    0 or "none": no cap."""
    text = str(value) if isinstance(value, int) and not isinstance(value, bool) else value
    if isinstance(text, str) and text.strip().lower() == "none":
        return None
    m = _SIZE.fullmatch(text) if isinstance(text, str) else None
    if m is None:
        raise ConfigError(f"{where}: `memory-limit` must be a size such as \"2GiB\" or \"512MiB\", "
                          f"a number of MiB, or \"none\", not {value!r}")
    size = float(m.group(1)) * 1024 ** {"K": 1, "M": 2, "G": 3}[(m.group(2) or "M").upper()]
    return int(size) or None


def parse_transforms(value, where: str) -> tuple[tuple[str, str], ...]:
    """`["equinox.filter_jit"]` (jit-like) or `{"my.vmap" = "vmap"}`."""
    if isinstance(value, list):
        value = {name: "jit" for name in _str_list("extend-transforms", value, where)}
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: `extend-transforms` must be a list of dotted names "
                          f"or a table of name = kind")
    out = []
    for name, kind in value.items():
        if kind not in TRANSFORM_KINDS:
            raise ConfigError(f"{where}: extend-transforms: unknown kind `{kind}` for `{name}` "
                              f"(known: {', '.join(TRANSFORM_KINDS)})")
        out.append((name, kind))
    return tuple(out)


def load_settings(start: str, config_path: Optional[str] = None) -> Settings:
    """Settings from `config_path`, or from the nearest pyproject.toml above `start`."""
    path = Path(config_path) if config_path else find_pyproject(start)
    if path is None:
        p = _resolve(start)
        return Settings(root=str(p if _is_dir(p) else p.parent))
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    table = data.get("tool", {}).get("jaxlint", data if path.name != "pyproject.toml" else {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.jaxlint] must be a table")
    return load_table(table, str(path), str(path.parent.resolve()))


def override(settings: Settings, **changes) -> Settings:
    """Command-line options win over the file."""
    clean = {k: v for k, v in changes.items() if v is not None}
    for key in ("select", "ignore", "extend_select"):
        if key in clean:
            validate_codes(clean[key], f"--{key.replace('_', '-')}")
    if "extend_exclude" in clean:
        clean["extend_exclude"] = settings.extend_exclude + tuple(clean["extend_exclude"])
    if "extend_select" in clean:
        clean["extend_select"] = settings.extend_select + tuple(clean["extend_select"])
    if "ignore" in clean:
        clean["ignore"] = settings.ignore + tuple(clean["ignore"])
    return replace(settings, **clean)
