"""The flake8 plugin: a thin adapter over the engine the CLI uses.

Same findings, same messages. flake8 owns what it is good at: file discovery,
`--select` / `--ignore`, per-file-ignores and `# noqa` (including
`--disable-noqa`), so the adapter hands every finding over unfiltered by noqa.
Opt-in rules are added to flake8's default ignore list: `--extend-select JAX4`
(or an explicit `--select JAX`) turns them on, as `jaxlint --select` does.

Configuration: `[tool.jaxlint]` in the nearest pyproject.toml (as for the CLI),
plus flake8 options for setup.cfg / .flake8 / tox.ini users:
`jaxlint-extend-transforms` and `jaxlint-config`.
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any, Iterator, Optional

from jaxlint import __version__, service
from jaxlint.config import ConfigError, Settings, load_settings, parse_transforms
from jaxlint.linter import mentions_jax


def _parse_transform_option(values) -> tuple[tuple[str, str], ...]:
    """`equinox.filter_jit, my.batch=vmap` -> (("equinox.filter_jit", "jit"), ("my.batch", "vmap"))."""
    table = {}
    for item in values or ():
        item = item.strip()
        if not item:
            continue
        name, _, kind = item.partition("=")
        table[name.strip()] = kind.strip() or "jit"
    return parse_transforms(table, "--jaxlint-extend-transforms")


class JaxlintChecker:
    name = "jaxlint"
    version = __version__

    # Set once per flake8 run by parse_options.
    extend_transforms: tuple[tuple[str, str], ...] = ()
    config_path: Optional[str] = None
    option_error: Optional[str] = None
    _settings_by_dir: dict[str, Any] = {}

    # flake8 picks a plugin's kind from these parameter names: `tree` makes it per-file.
    def __init__(self, tree, filename: str = "stdin", lines=None):
        self.filename = filename
        self.lines = lines

    @classmethod
    def add_options(cls, manager) -> None:
        manager.add_option(
            "--jaxlint-extend-transforms", default="", parse_from_config=True, comma_separated_list=True,
            help="Extra JAX-like transforms for jaxlint: dotted names (jit-like) or name=kind "
                 "(kind: jit, vmap, pmap, grad, ...), comma-separated. Added to [tool.jaxlint] "
                 "extend-transforms.")
        manager.add_option(
            "--jaxlint-config", default=None, parse_from_config=True,
            help="A pyproject.toml (or TOML file with the [tool.jaxlint] keys) to use instead "
                 "of searching upwards from each file.")
        from jaxlint.rules import all_rules

        opt_in = [code for code, rule in all_rules().items() if not rule.default]
        if opt_in:
            manager.extend_default_ignore(opt_in)

    @classmethod
    def parse_options(cls, options) -> None:
        cls._settings_by_dir = {}
        cls.option_error = None
        cls.config_path = getattr(options, "jaxlint_config", None) or None
        try:
            cls.extend_transforms = _parse_transform_option(
                getattr(options, "jaxlint_extend_transforms", None))
        except ConfigError as exc:
            cls.extend_transforms = ()
            cls.option_error = str(exc)

    @classmethod
    def settings_for(cls, filename: str) -> Settings:
        """Settings for a file, cached per directory (one pyproject search per directory)."""
        directory = os.path.dirname(os.path.abspath(filename))
        key = cls.config_path or directory
        settings = cls._settings_by_dir.get(key)
        if settings is None:
            settings = load_settings(directory, cls.config_path)
            if cls.extend_transforms:
                settings = replace(settings, extend_transforms=settings.extend_transforms
                                   + cls.extend_transforms)
            cls._settings_by_dir[key] = settings
        return settings

    def _text(self) -> str:
        if self.lines is not None:
            return "".join(self.lines)
        with open(self.filename, encoding="utf-8", errors="replace") as fh:
            return fh.read()

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        # One exception in a plugin aborts the whole flake8 run: contain everything per file.
        try:
            yield from self._run()
        except Exception as exc:
            yield 1, 0, f"JAX000 jaxlint internal error: {type(exc).__name__}: {exc}; please report it", type(self)

    def _run(self) -> Iterator[tuple[int, int, str, type]]:
        if self.option_error:
            yield 1, 0, f"JAX000 jaxlint configuration error: {self.option_error}", type(self)
            return
        text = self._text()
        try:
            settings = self.settings_for(self.filename)
        except ConfigError as exc:
            yield 1, 0, f"JAX000 jaxlint configuration error: {exc}", type(self)
            return
        extra = {name.split(".")[0] for name, _ in settings.extend_transforms}
        if not mentions_jax(text, extra):
            return  # cheap pre-filter: libcst parses only files that mention jax
        codes = _codes_for(settings, self.filename)
        # libcst can crash the interpreter on input Python accepts: the service parses in a
        # forked child, so the crash costs this file, not flake8's worker (and its whole run).
        result = service.lint_source(self.filename, text, settings, codes, apply_noqa=False)
        for f in result.findings:
            yield f.line, max(f.col - 1, 0), f"{f.code} {f.message}", type(self)
        for d in result.diagnostics:
            # Syntax errors are flake8's own E999; report only what flake8 cannot see
            # (a file jaxlint cannot analyse safely gets one JAX000, under jaxlint's prefix).
            if d.code == "JAX000":
                yield d.line or 1, max((d.col or 1) - 1, 0), f"JAX000 {d.message}", type(self)
            elif d.code != "E999":
                yield d.line or 1, max((d.col or 1) - 1, 0), f"JAX000 jaxlint cannot analyse this file: {d.message}", type(self)


def _codes_for(settings: Settings, path: str) -> frozenset[str]:
    """Every rule [tool.jaxlint] does not turn off; flake8's select / ignore do the rest.

    Opt-in rules are included here and sit in flake8's default ignore, so flake8's
    own `--extend-select` reaches them.
    """
    if settings.select is None:
        settings = replace(settings, select=("JAX",))
    return settings.codes_for(path)
