"""CPU seconds per phase of a cold lint, in one process, by timers around each phase.

Usage: python benchmarks/profile_phases.py [CORPUS_DIR] [--select JAX] [--rules N]

Lints every .py file of the corpus (default /tmp/corpus, as `bench_lint.py`) the way a
worker does, in this process, and prints the CPU seconds (`time.process_time`) of each
phase: reading, Python's `ast` vetting, libcst's parse, the model (its walk, classes,
tracing, the value analysis), each rule, and the findings. A phase's time excludes the
phases timed inside it (a rule that builds the key flow is charged the rule's own time,
the key flow its own). `cProfile` inflates the Python parts several times against
libcst's native parser; these timers do not. Load on the machine still inflates CPU time
a little: compare runs taken back to back, with the load average printed at the end.
"""

from __future__ import annotations

import argparse
import glob
import os
import sys
import time
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from jaxlint import linter, source  # noqa: E402
from jaxlint.config import Settings  # noqa: E402
from jaxlint.engine import classes, evaluate, keyflow, model, tracing  # noqa: E402
from jaxlint.rules import all_rules  # noqa: E402

_spent: dict[str, float] = defaultdict(float)
_stack: list[list] = []  # [phase, start, time of the phases inside]


def _timed(phase: str, func):
    def wrapper(*args, **kwargs):
        _stack.append([phase, time.process_time(), 0.0])
        try:
            return func(*args, **kwargs)
        finally:
            name, start, inner = _stack.pop()
            took = time.process_time() - start
            _spent[name] += took - inner
            if _stack:
                _stack[-1][2] += took
    return wrapper


def _rule_check(code: str, check):
    def listed(self):
        return list(check(self))
    return _timed(f"rule {code}", listed)


def _instrument() -> None:
    source.read_source = _timed("read and decode", source.read_source)
    linter.read_source = source.read_source
    source.vet = _timed("ast vetting (set_aside, ast.parse)", source.vet)
    source.parse_module = _timed("libcst parse", source.parse_module)
    model.FileModel._walk_module = _timed("model: walk", model.FileModel._walk_module)
    model.FileModel.__init__ = _timed("model: walk", model.FileModel.__init__)
    classes.read_classes = _timed("model: classes", classes.read_classes)
    tracing.find_traced_functions = _timed("model: tracing", tracing.find_traced_functions)
    evaluate.analyse = _timed("model: value analysis", evaluate.analyse)
    keyflow.key_findings = _timed("key flow (JAX501-503)", keyflow.key_findings)
    linter._to_findings = _timed("findings and positions", linter._to_findings)
    linter._without_noqa = _timed("noqa", linter._without_noqa)
    linter._release = _timed("release model", linter._release)
    for code, rule_cls in all_rules().items():
        rule_cls.check = _rule_check(code, rule_cls.check)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus", nargs="?", default="/tmp/corpus")
    ap.add_argument("--select", default=None, help="rule prefixes, comma-separated (default: the default rules)")
    ap.add_argument("--rules", type=int, default=8, help="rules listed one by one (the costliest)")
    args = ap.parse_args()
    files = sorted(glob.glob(os.path.join(args.corpus, "**", "*.py"), recursive=True))
    settings = Settings(select=tuple(args.select.split(","))) if args.select else Settings()
    _instrument()
    lint = _timed("the rest (pre-filter, settings, bookkeeping)", linter._lint_text_here)
    findings = 0
    for path in files:
        text = source.read_source(path)
        if isinstance(text, str):
            findings += len(lint(text, path, settings, None, True, None).findings)
    total = sum(_spent.values())
    rules = {k: v for k, v in _spent.items() if k.startswith("rule ")}
    others = {k: v for k, v in _spent.items() if not k.startswith("rule ")}
    print(f"{len(files)} files, {findings} findings, {total:.2f} CPU s in all "
          f"(load average {os.getloadavg()[0]:.1f})")
    for name, secs in sorted(others.items(), key=lambda kv: -kv[1]):
        print(f"  {name:45s} {secs:6.2f} s {100 * secs / total:5.1f}%")
    secs = sum(rules.values())
    print(f"  {'rules, together':45s} {secs:6.2f} s {100 * secs / total:5.1f}%")
    for name, secs in sorted(rules.items(), key=lambda kv: -kv[1])[:args.rules]:
        print(f"    {name:43s} {secs:6.2f} s {100 * secs / total:5.1f}%")


if __name__ == "__main__":
    main()
