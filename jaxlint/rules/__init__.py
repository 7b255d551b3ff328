"""The rule registry: every `Rule` subclass in this package, by code."""

from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache

from jaxlint.rules.base import Report, Rule

__all__ = ["Report", "Rule", "all_rules", "get_rule"]


@lru_cache(maxsize=1)
def all_rules() -> dict[str, type[Rule]]:
    """Every rule, keyed by code, in code order."""
    found: dict[str, type[Rule]] = {}
    for mod in pkgutil.iter_modules(__path__):
        if not mod.name.startswith("jax"):
            continue
        module = importlib.import_module(f"{__name__}.{mod.name}")
        for obj in vars(module).values():
            # A rule defines its own `code`; shared bases and mixins do not.
            if isinstance(obj, type) and issubclass(obj, Rule) and "code" in vars(obj) \
                    and obj.__module__ == module.__name__:
                if obj.code in found:  # pragma: no cover - a packaging mistake
                    raise RuntimeError(f"duplicate rule code {obj.code}")
                found[obj.code] = obj
    return dict(sorted(found.items()))


def get_rule(code: str) -> type[Rule] | None:
    return all_rules().get(code.upper())
