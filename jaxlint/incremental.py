"""Incremental lint of a document that changes by edits (the language server's).

A full lint builds one model of the whole module, and a finding in one function can
depend on any other: who calls it and with what, whether something jits it, what a
callee returns, which globals are rebound. So an edit re-analyses the statements it
touched *and everything they are linked to*, and keeps the findings of the rest.

The unit is a top-level statement ("span": the statement with its decorators, the
blank lines and comments after it up to the next statement). Two spans are linked
when one may take from the module a name the other binds there (a function and its
callers, a helper and its users, a global and its readers; names local to a function,
lambda, comprehension or class body are not the module's), or reads or writes an
attribute name (`.attr`) the other writes or defines as a method or class attribute.
A name the model may list as rebound (bound twice at module level, or declared
`global`) links every use of it, local ones too: facts keyed by that name reach them.
Imports bind names but pass nothing on: two functions that both use `jnp` are not
linked through `import jax.numpy as jnp`. An edit of span S re-analyses A: the spans
reachable from S (old and new text) through links, transitively, and the spans of
previous findings whose messages name a line the edit may have moved.

Information flows between spans only through such names, and through what every
analysis sees: the module-level code, the imports, and any function that imports or
names x64 (the file-wide x64 and import facts). Those "context" spans are in every
re-analysis. So the findings of the spans in A, analysed in a module made of A and the
context spans (each at its own text; their lines, and the lines messages name, mapped
back to the document's), are those of the full module; the findings of every other
span are the previous run's, moved by the lines the edit added or removed.

Anything else is analysed in full: the first version, an edit of an import or of
anything that imports or names x64, a file with `import *`, `setattr`, `globals()`,
`exec` and the like (bindings no name shows), an edit whose statements do not parse
on their own, lines that `str.splitlines` numbers differently from Python, a file of
whose program-order walk (engine/order.py) may reach its limit of events, an
edit whose A and context make up more than half the file (a full run costs no more),
and a finding whose lines cannot be mapped. A version with a syntax error gets the full
run's diagnostic, and the next edit starts from the last version analysed.
"""

from __future__ import annotations

import ast
import bisect
import dataclasses
import gc
import itertools
import re
import warnings
from collections import Counter
from typing import Optional

from jaxlint.config import Settings
# The program-order walk stops after this many events: a part of the file could walk
# further than the whole did.
from jaxlint.engine.order import _MAX_EVENTS
from jaxlint.finding import FileResult, Finding
from jaxlint.source import PieceCache

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
# Line breaks of str.splitlines that Python's do not have (JAX100 numbers lines by splitlines).
_ODD_BREAKS = re.compile("[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
# How a message names a line (`model.line_of`): "rebound on line 12".
_LINE_REF = re.compile(r"\bline (\d+)")
# Names that bind or read module-level names no Name node shows.
_DYNAMIC = frozenset({"setattr", "delattr", "globals", "locals", "vars", "exec", "eval",
                      "__dict__", "__import__", "import_module", "__getattr__", "__builtins__"})

SINK, DEF, OTHER = "import", "def", "other"
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)

# A re-analysis larger than this share of the file's lines is a full one.
MAX_SHARE = 0.5


class _Span:
    """One top-level statement (or several sharing a line), as lines of the document."""

    __slots__ = ("n", "text", "kind", "defs", "names", "every", "sites", "declared", "context",
                 "dynamic", "file_wide")

    def __init__(self, n: int, text: str, nodes: list[ast.stmt]):
        self.n = n
        self.text = text
        if all(isinstance(node, (ast.Import, ast.ImportFrom)) for node in nodes):
            self.kind = SINK
        elif all(isinstance(node, _DEFS) for node in nodes):
            self.kind = DEF
        else:
            self.kind = OTHER
        (self.defs, self.names, self.every, self.sites, self.declared, imports,
         self.dynamic) = _summary(nodes, self.kind)
        # Facts of the whole file come from it: the modules it imports, whether it turns x64 on.
        self.file_wide = imports or self.dynamic or "x64" in text.lower()
        self.context = self.kind != DEF or self.file_wide


def _summary(nodes: list[ast.stmt], kind: str):
    """(module-level names and `.attr`s bound, names and `.attr`s mentioned, imports, dynamic).

    A name mentioned is one that may be module-level: read or bound at module level, or
    free in a function, class, lambda or comprehension (not one of its locals)."""
    module_level = kind != DEF  # a def's own assignments bind locals
    defs: set[str] = set()
    names: set[str] = set()
    every: set[str] = set()
    sites: list[str] = []  # one per module-level binding
    facts = _Facts()
    for node in nodes:
        if kind == DEF:
            defs.update((node.name, "." + node.name))
        used, bound = _scope(None, [node], every, facts)
        names |= used
        sites.extend(bound)
        if module_level:
            defs.update(bound)
    names.update("." + n for n in facts.attributes)
    defs.update("." + n for n in facts.attributes_bound)
    defs |= facts.declared
    declared = facts.declared
    imports, dynamic = facts.imports, facts.dynamic
    names |= defs
    every |= names
    dynamic = dynamic or any("." + n in names for n in _DYNAMIC)
    return (frozenset(defs), frozenset(names), frozenset(every), Counter(sites), frozenset(declared),
            imports, dynamic)


class _Facts:
    """What `_scope` finds on its way through a statement, besides names."""

    def __init__(self) -> None:
        self.attributes: set[str] = set()  # read or written, and defined by a class
        self.attributes_bound: set[str] = set()
        self.declared: set[str] = set()  # `global` names
        self.imports = False
        self.dynamic = False  # binds names no Name shows


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef,
           ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _outer_parts(node: ast.AST) -> list:
    """What of a scope's node its enclosing scope evaluates: decorators, defaults,
    annotations, base classes, a comprehension's first iterable."""
    if isinstance(node, ast.comprehension):
        return []
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
        return [node.generators[0].iter]
    out = list(getattr(node, "decorator_list", ()))
    if isinstance(node, ast.ClassDef):
        return out + node.bases + [k.value for k in node.keywords]
    a = node.args
    out += [d for d in a.defaults + a.kw_defaults if d is not None]
    if not isinstance(node, ast.Lambda):
        out += [x.annotation for x in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg]
                if x is not None and x.annotation is not None]
        if node.returns is not None:
            out.append(node.returns)
    return out


def _inner_parts(node: ast.AST) -> list:
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
        gens = node.generators
        return [node.elt] + [g.target for g in gens] + [x for g in gens[1:] for x in [g.iter]] \
            + [c for g in gens for c in g.ifs]
    if isinstance(node, ast.DictComp):
        gens = node.generators
        return [node.key, node.value] + [g.target for g in gens] + [g.iter for g in gens[1:]] \
            + [c for g in gens for c in g.ifs]
    if isinstance(node, ast.Lambda):
        return [node.body]
    return list(node.body)


# Fields of Python's nodes that hold no node worth a visit (a Name's context, a string).
_NOT_NODES = frozenset({"ctx", "id", "attr", "arg", "type_comment", "kind", "level", "module", "is_async",
                        "conversion"})
_NODE_FIELDS: dict[type, tuple[str, ...]] = {ast.Constant: ()}
AST = ast.AST


def _scope(scope: Optional[ast.AST], body: list, every: set[str], facts: _Facts):
    """(names the code of `scope` may take from the module, names local to it), for
    `scope` (None: module level, where every name is the module's) whose own code is `body`.
    At module level, the names bound come as a list, once per binding. `every` receives
    every name, local or not."""
    used: set[str] = set()
    bound: list[str] = []
    declared: set[str] = set()
    if scope is not None and not isinstance(scope, ast.ClassDef) and hasattr(scope, "args"):
        a = scope.args
        bound.extend(x.arg for x in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg] if x is not None)
    inner_free: set[str] = set()
    stack = list(body)
    while stack:
        node = stack.pop()
        t = type(node)
        if t is ast.Name:
            used.add(node.id)
            if type(node.ctx) is not ast.Load:
                bound.append(node.id)
            if node.id in _DYNAMIC:
                facts.dynamic = True
            continue
        if t is ast.Attribute:
            facts.attributes.add(node.attr)
            if type(node.ctx) is not ast.Load:
                facts.attributes_bound.add(node.attr)
        elif isinstance(node, _SCOPES):
            if t is not ast.Lambda and not isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp,
                                                             ast.GeneratorExp)):
                bound.append(node.name)
                used.add(node.name)
            if t is ast.ClassDef:
                members = set(_class_attributes(node))
                facts.attributes |= members
                facts.attributes_bound |= members
            stack.extend(_outer_parts(node))
            inner_free |= _scope(node, _inner_parts(node), every, facts)[0]
            continue
        elif t is ast.Global:
            declared.update(node.names)
        elif t is ast.Import or t is ast.ImportFrom:
            facts.imports = True
            for alias in node.names:
                if alias.name == "*":
                    facts.dynamic = True
                name = alias.asname or alias.name.split(".")[0]
                used.add(name)
                bound.append(name)
        elif t is ast.ExceptHandler or t is ast.MatchAs or t is ast.MatchStar:
            if node.name:
                used.add(node.name)
                bound.append(node.name)
        elif t is ast.MatchMapping and node.rest:
            used.add(node.rest)
            bound.append(node.rest)
        # ast.iter_child_nodes, for less: a large file's spans are a walk of its whole tree.
        fields = _NODE_FIELDS.get(t)
        if fields is None:
            fields = _NODE_FIELDS[t] = tuple(f for f in t._fields if f not in _NOT_NODES)
        for field in fields:
            v = getattr(node, field, None)
            if type(v) is list:
                stack.extend([x for x in v if isinstance(x, AST)])
            elif isinstance(v, AST):
                stack.append(v)
    facts.declared |= declared
    every |= used
    every.update(bound)
    if scope is None:
        return used | inner_free, bound
    local = set(bound) - declared
    if isinstance(scope, ast.ClassDef):
        # A class body's names are not its methods': their free names go out unfiltered.
        return (used - local) | inner_free | declared, local
    return ((used | inner_free) - local) | declared, local


def _class_attributes(node: ast.ClassDef):
    for item in node.body:
        if isinstance(item, _DEFS):
            yield item.name
        elif isinstance(item, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            for target in item.targets if isinstance(item, ast.Assign) else [item.target]:
                for sub in ast.walk(target):
                    if isinstance(sub, ast.Name):
                        yield sub.id


def _parse(text: str) -> Optional[ast.Module]:
    from jaxlint.data_statements import set_aside

    try:
        aside = set_aside(text)
        if aside is not None:
            return aside[1]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _spans(body: list[ast.stmt], lines: list[str], base: int, end: int) -> Optional[list[_Span]]:
    """The spans of lines[base:end], whose statements (numbered from `base`) are `body`."""
    groups: list[list] = []  # [first line, last line, statements], 0-based in the document
    for node in body:
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", ())]) - 1 + base
        last = (node.end_lineno or node.lineno) - 1 + base
        if groups and first <= groups[-1][1]:
            groups[-1][1] = max(groups[-1][1], last)
            groups[-1][2].append(node)
        else:
            groups.append([first, last, [node]])
    if not groups:
        return None
    starts = [base] + [g[0] for g in groups[1:]]
    ends = starts[1:] + [end]
    return [_Span(e - s, "".join(lines[s:e]), g[2]) for g, s, e in zip(groups, starts, ends)]


def link_groups(spans: list[_Span]) -> list[int]:
    """For each span, the first span of its group: the spans linked to one another (as the
    module's docstring defines links), directly or through others. Nothing passes between
    two groups, so the findings of a group's spans, analysed in a module of the group and
    the context spans, are those of the whole module (`jaxlint.parallel` analyses a large
    file in two halves of its groups)."""
    index = Document()
    for span in spans:
        index._index(span)
    first = list(range(len(spans)))
    number = {id(span): i for i, span in enumerate(spans)}

    def root(i: int) -> int:
        while first[i] != i:
            first[i] = first[first[i]]
            i = first[i]
        return i

    for name, every in index._every.items():
        if index._rebound(name):
            linked = every
        elif index._definers.get(name):
            linked = index._mentions.get(name, ())
        else:  # bound only by imports, or not at module level: passes nothing on
            continue
        if len(linked) > 1:
            roots = [root(number[id(sp)]) for sp in linked]
            low = min(roots)
            for i in roots:
                first[i] = low
    return [root(i) for i in range(len(spans))]


class Document:
    """One open document: its last text, spans and findings, and parse caches."""

    def __init__(self, max_share: float = MAX_SHARE) -> None:
        self.max_share = max_share
        self.pieces = PieceCache()  # for full runs
        self._slice_pieces = PieceCache()  # for re-analyses
        self._settings: Optional[tuple] = None
        self._lines: list[str] = []
        self._spans: Optional[list[_Span]] = None
        self._result: Optional[FileResult] = None
        self._reset_index()
        # What the latest lint did: ("full", why), or ("incremental", share of the file
        # analysed, statements re-analysed).
        self.last: tuple = ("full", "first version")
        self._events = 0  # bound on the program-order walk's events in the whole file
        self._pending: Optional[tuple] = None  # a full run's version, not indexed yet

    def lint(self, text: str, path: str, settings: Settings) -> FileResult:
        key = (path, settings)
        result = None
        self.settle()
        if self._spans is not None and key == self._settings:
            enabled = gc.isenabled()
            gc.disable()  # as in the linter: a parse and a model make many objects, few cycles
            try:
                result = self._incremental(text, path, settings)
            finally:
                if enabled:
                    gc.enable()
        else:
            self.last = ("full", "first version" if self._spans is None else "settings changed")
        if result is None:
            result, events = self._lint_all(text, path, settings)
            if result.diagnostics and self._spans is not None and key == self._settings:
                # A syntax error while typing: the next edit starts from the last version
                # analysed (kept whole: a fallback that changed it dropped it).
                return result
            self._spans = None
            self._events = events
            # What the next edit needs of this version is worked out in `settle`, after
            # the reply (the server's worker calls it while the editor waits for nothing).
            self._pending = (text, settings, result)
        self._settings = key
        return result

    def settle(self) -> None:
        """Index the version a full run analysed, if not done yet."""
        if self._pending is not None:
            pending, self._pending = self._pending, None
            self._remember(*pending)

    # ------------------------------------------------------------ full runs
    def _lint_all(self, text: str, path: str, settings: Settings) -> tuple[FileResult, int]:
        """`lint_text(text, path, settings)` in this process, and the events of its
        program-order walk."""
        from jaxlint.linter import analyse_text, needs_analysis

        if not needs_analysis(text, settings):
            return FileResult(path), 0
        models = []
        enabled = gc.isenabled()
        gc.disable()
        try:
            result = analyse_text(text, path, settings, None, True, self.pieces,
                                  on_model=lambda model: models.append(model.program_events))
        finally:
            if enabled:
                gc.enable()
        return result, sum(models)

    def _remember(self, text: str, settings: Settings, result: FileResult) -> None:
        from jaxlint.linter import needs_analysis

        self._reset_index()
        if result.diagnostics or not needs_analysis(text, settings) or _ODD_BREAKS.search(text):
            return
        tree = _parse(text)
        lines = _LINE.findall(text)
        spans = _spans(tree.body, lines, 0, len(lines)) if tree is not None else None
        if spans is None:
            return
        for span in spans:
            self._index(span)
        self._lines, self._spans, self._result = lines, spans, result

    def _reset_index(self) -> None:
        self._mentions: dict[str, set[_Span]] = {}  # by the names a span may take from the module
        self._every: dict[str, set[_Span]] = {}  # by every name, local ones too
        self._definers: dict[str, set[_Span]] = {}  # spans other than imports that bind the name
        self._sites: Counter = Counter()  # module-level bindings of each name
        self._declared: Counter = Counter()  # spans declaring the name `global`
        self._dynamic = 0  # spans that bind names no Name shows

    def _index(self, span: _Span) -> None:
        for name in span.names:
            self._mentions.setdefault(name, set()).add(span)
        for name in span.every:
            self._every.setdefault(name, set()).add(span)
        if span.kind != SINK:
            for name in span.defs:
                self._definers.setdefault(name, set()).add(span)
        self._sites.update(span.sites)
        self._declared.update(span.declared)
        self._dynamic += span.dynamic

    def _unindex(self, span: _Span) -> None:
        for name in span.names:
            self._mentions[name].discard(span)
        for name in span.every:
            self._every[name].discard(span)
        if span.kind != SINK:
            for name in span.defs:
                self._definers[name].discard(span)
        self._sites.subtract(span.sites)
        self._declared.subtract(span.declared)
        self._dynamic -= span.dynamic

    def _rebound(self, name: str) -> bool:
        """Whether the model may list `name` in `global_writes`: bound twice at module level,
        or declared `global`. Facts keyed by that name reach every use of it, local or not."""
        return self._sites[name] >= 2 or self._declared[name] > 0

    # ------------------------------------------------------------ edits
    def _full(self, why: str) -> None:
        self.last = ("full", why)
        return None

    def _incremental(self, text: str, path: str, settings: Settings) -> Optional[FileResult]:
        from jaxlint import noqa
        from jaxlint.linter import _extra_roots, analyse_text, mentions_jax

        old, new = self._lines, _LINE.findall(text)
        spans = self._spans
        n_old, n_new = len(old), len(new)
        common = min(n_old, n_new)
        p = 0
        while p < common and old[p] == new[p]:
            p += 1
        if p == n_old == n_new:
            self.last = ("unchanged",)
            return _copy(self._result)
        s = 0
        while s < common - p and old[n_old - 1 - s] == new[n_new - 1 - s]:
            s += 1
        # The previous text was analysed: only the new lines can exempt this one.
        changed = "".join(new[p:n_new - s])
        if not mentions_jax(text, _extra_roots(settings)) \
                or noqa.file_is_exempt(changed) or _ODD_BREAKS.search(changed):
            return self._full("no analysis, or odd line breaks")
        # The spans of the changed lines; for lines inserted between two, both.
        starts = list(itertools.accumulate((sp.n for sp in spans), initial=0))
        old_spans, old_firsts = spans, starts
        if p < n_old - s:
            lo, hi = p, n_old - s - 1
        else:
            lo, hi = max(p - 1, 0), min(p, n_old - 1)
        i0 = bisect.bisect_right(starts, lo) - 1
        i1 = max(bisect.bisect_right(starts, hi) - 1, i0)
        region_start, region_end = starts[i0], starts[i1 + 1]
        delta = n_new - n_old
        tree = _parse("".join(new[region_start:region_end + delta]))
        if tree is None:
            return self._full("the edited statements do not parse on their own")
        added = _spans(tree.body, new, region_start, region_end + delta)
        removed = spans[i0:i1 + 1]
        if added is None:
            return self._full("no statement left in the edited lines")
        if any(sp.file_wide for sp in removed + added):
            return self._full("an import or x64 edited")

        # From here on the document's state is the new text's (a fallback rebuilds it).
        self._spans = None
        edited = set().union(*(sp.sites.keys() | sp.declared for sp in removed + added))
        was_rebound = {name for name in edited if self._rebound(name)}
        for sp in removed:
            self._unindex(sp)
        for sp in added:
            self._index(sp)
        spans = spans[:i0] + added + spans[i1 + 1:]
        if self._dynamic:
            return self._full("bindings no name shows (import *, setattr, globals(), ...)")
        gone = set(map(id, removed))
        kept = []  # (previous finding, its span), outside the edited statements
        for f in self._result.findings:
            span = old_spans[min(bisect.bisect_right(old_firsts, f.line - 1) - 1, len(old_spans) - 1)]
            if id(span) not in gone:
                kept.append((f, span))
        # A finding whose message names a line the edit may have moved is found again.
        named = {span for f, span in kept
                 if any(int(n) - 1 >= region_start for n in _LINE_REF.findall(f.message))}
        affected = self._linked(added, removed, named, was_rebound)
        starts = list(itertools.accumulate((sp.n for sp in spans), initial=0))
        chosen = [i for i, sp in enumerate(spans) if sp in affected or sp.context]
        if sum(spans[i].n for i in chosen) > self.max_share * n_new:
            return self._full(f"the edit is linked to {len(affected)} statements")

        # The module of the chosen spans; its line k + offset is document line k.
        parts, where, firsts, line = [], [], [], 0
        for i in chosen:
            parts.append(spans[i].text)
            firsts.append(line)
            where.append((starts[i] - line, spans[i] in affected))
            line += spans[i].n

        def to_document(line: int) -> Optional[int]:
            k = bisect.bisect_right(firsts, line - 1) - 1
            return line + where[k][0] if k >= 0 else None

        # The walk's events of the whole file are at most those of the last full run plus
        # those of every re-analysis since; below the walk's limit, no part of the file
        # walks further than the whole.
        events = []
        sliced = analyse_text("".join(parts), path, settings, None, True, self._slice_pieces,
                              document_line=to_document,
                              on_model=lambda model: events.append(model.program_events))
        if sliced.diagnostics:
            return self._full("a diagnostic")
        self._events += sum(events)
        if self._events >= _MAX_EVENTS:
            return self._full("the program-order walk may have reached its limit")
        findings = []
        for f in sliced.findings:
            k = bisect.bisect_right(firsts, f.line - 1) - 1
            if k >= 0 and where[k][1]:
                moved = _moved(f, to_document)
                if moved is None:
                    return self._full("a finding reaches outside its statement")
                findings.append(moved)

        def old_to_new(line: int) -> Optional[int]:
            if line - 1 < region_start:
                return line
            if line - 1 >= region_end:
                return line + delta
            return None

        for f, span in kept:
            if span in affected:
                continue
            moved = _moved(f, old_to_new)
            if moved is None:
                return self._full("a kept finding reaches into the edited statements")
            findings.append(moved)
        findings.sort(key=lambda f: f.sort_key)
        result = FileResult(path, findings=findings)
        self._lines, self._spans, self._result = new, spans, result
        self.last = ("incremental", round(sum(spans[i].n for i in chosen) / max(n_new, 1), 3), len(affected))
        return _copy(result)

    def _linked(self, added: list[_Span], removed: list[_Span], more: set[_Span],
                was_rebound: set[str]) -> set[_Span]:
        """The spans whose findings an edit (spans `removed` became `added`) may change, and
        those linked to `more`: the spans whose findings are found again. `was_rebound`: the
        names rebound before the edit (`_rebound`) that it may have changed."""
        affected = set(added) | more
        carried = set().union(*(sp.defs for sp in removed + added))  # what the edit may rebind
        todo = list(set().union(*(sp.every for sp in [*added, *removed, *more])))
        seen: set[str] = set()
        mentions, every, definers = self._mentions, self._every, self._definers
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            reached = ()
            if self._rebound(name) or name in was_rebound:
                reached = every.get(name, ())
            elif definers.get(name) or name in carried:
                reached = mentions.get(name, ())
            # else: bound only by imports, or not at module level: passes nothing on
            for sp in reached:
                if sp not in affected:
                    affected.add(sp)
                    if sp.kind != SINK:
                        todo.extend(sp.every)
        return affected


def _copy(result: FileResult) -> FileResult:
    return FileResult(result.path, findings=list(result.findings), diagnostics=list(result.diagnostics))


def _moved(f: Finding, to: "callable") -> Optional[Finding]:
    """`f` with every line number mapped by `to` (None: a line that has no image)."""
    line, end_line = to(f.line), to(f.end_line)
    function_line = to(f.function_line) if f.function_line is not None else None
    if line is None or end_line is None or (f.function_line is not None and function_line is None):
        return None
    fix = f.fix
    if fix and fix.get("edits"):
        edits = []
        for e in fix["edits"]:
            e = dict(e)
            for key in ("location", "end_location"):
                if isinstance(e.get(key), dict) and "row" in e[key]:
                    row = to(e[key]["row"])
                    if row is None:
                        return None
                    e[key] = {**e[key], "row": row}
            edits.append(e)
        fix = {**fix, "edits": edits}
    if (line, end_line, function_line, fix) == (f.line, f.end_line, f.function_line, f.fix):
        return f
    return dataclasses.replace(f, line=line, end_line=end_line, function_line=function_line, fix=fix)
