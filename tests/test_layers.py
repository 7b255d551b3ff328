"""One service layer: every front end is an adapter on `jaxlint.service`, and none imports
another, so no front end can reach into another's internals (the server once took the
target-version logic from the CLI, and the fix command its exit code).

Read from the source with `ast`: every import, at the top of a module or inside a function.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "jaxlint"

# Each front end: the modules that make it up.
FRONT_ENDS = {
    "command line": ("jaxlint.cli", "jaxlint.fix_command", "jaxlint.__main__"),
    "language server": ("jaxlint.server",),
    "flake8 plugin": ("jaxlint.flake8_plugin",),
    "MCP server": ("jaxlint.mcp_server",),
}
# `jaxlint server` and `jaxlint mcp` start the servers: the command line may import their
# entry points (and the LSP one's dependency check), nothing else of them.
STARTERS = {("jaxlint.cli", "jaxlint.server", "missing_dependency"), ("jaxlint.cli", "jaxlint.server.app", "serve"),
            ("jaxlint.cli", "jaxlint.mcp_server", "serve")}


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, text: str | None = None) -> list[tuple[str, str]]:
    """(module, name) for every import in the file; name "" for `import module`."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = []
    text = path.read_text(encoding="utf-8") if text is None else text
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            out.extend((alias.name, "") for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the package up
                parent = package.split(".")
                parent = parent[:len(parent) - (node.level - 1)]
                base = ".".join(parent + ([base] if base else []))
            for alias in node.names:
                # `from jaxlint import cli` imports the module jaxlint.cli.
                out.append((f"{base}.{alias.name}", "") if base == "jaxlint" else (base, alias.name))
    return out


def _front_end(module: str):
    for name, prefixes in FRONT_ENDS.items():
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return name
    return None


SOURCES = sorted(PACKAGE.rglob("*.py"))


def test_every_front_end_exists():
    modules = {_module_name(p) for p in SOURCES}
    for prefixes in FRONT_ENDS.values():
        assert any(m == p or m.startswith(p + ".") for p in prefixes for m in modules), prefixes


@pytest.mark.parametrize("path", [p for p in SOURCES if _front_end(_module_name(p))],
                         ids=lambda p: str(p.relative_to(PACKAGE.parent)))
def test_no_front_end_imports_another(path):
    module = _module_name(path)
    mine = _front_end(module)
    crossing = [(target, name) for target, name in _imports(path)
                if _front_end(target) not in (None, mine) and (module, target, name) not in STARTERS]
    assert crossing == []


@pytest.mark.parametrize("path", [p for p in SOURCES if not _front_end(_module_name(p))],
                         ids=lambda p: str(p.relative_to(PACKAGE.parent)))
def test_the_layers_below_import_no_front_end(path):
    assert [t for t, _ in _imports(path) if _front_end(t)] == []


def test_the_mcp_server_imports_neither_click_nor_the_cli():
    targets = {t for t, _ in _imports(PACKAGE / "mcp_server.py")}
    assert not {t for t in targets if t == "click" or t.startswith(("click.", "jaxlint.cli"))}
    assert "jaxlint.service" in targets


def test_the_rule_sees_imports_in_functions_and_relative_ones():
    """The old cycle's imports: inside a function, and relative."""
    text = "def f():\n    from jaxlint.cli import _with_target\n\nfrom ..fix_command import run_fix\n"
    found = sorted(_imports(PACKAGE / "server" / "analysis.py", text))
    assert found == [("jaxlint.cli", "_with_target"), ("jaxlint.fix_command", "run_fix")]
    assert {_front_end(t) for t, _ in found} == {"command line"}
