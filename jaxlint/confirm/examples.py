"""Example calls a user names for confirm mode, in pyproject.toml:

    [tool.jaxlint.confirm]
    examples = { "train.step" = "init_params(jax.random.key(0)), jnp.ones((8, 3))" }

The key is `module.function` (the module's dotted name inside a package, else the file's
stem; a method is `module.Class.method`). The value is an argument list, written as in a call,
evaluated in the module's own namespace after import. Confirm mode tries it before any
argument it would synthesize.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

try:
    import tomllib
except ImportError:  # pragma: no cover - Python < 3.11
    import tomli as tomllib  # type: ignore[no-redef]


def _table(start: str) -> tuple[Optional[Path], dict]:
    p = Path(start).resolve().parent
    for d in [p, *p.parents]:
        candidate = d / "pyproject.toml"
        if not candidate.is_file():
            continue
        try:
            data = tomllib.loads(candidate.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            return None, {}
        tool = data.get("tool", {}).get("jaxlint")
        if tool is not None:
            conf = tool.get("confirm", {}) if isinstance(tool, dict) else {}
            return candidate, conf if isinstance(conf, dict) else {}
    return None, {}


def for_module(path: str, modname: str) -> dict[str, str]:
    """{qualname: argument-list text} for the functions of one module."""
    _, conf = _table(path)
    table = conf.get("examples", {})
    if not isinstance(table, dict):
        return {}
    out = {}
    for key, expr in table.items():
        if isinstance(key, str) and isinstance(expr, str) and key.startswith(modname + "."):
            out[key[len(modname) + 1:]] = expr
    return out
