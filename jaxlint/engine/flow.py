"""Statements in execution order: the one walker that the value model
(`engine.evaluate`) and the key flow (`engine.keyflow`) share.

A `Flow` carries a state along each path through a block. Where paths meet, after
`if` / `else`, `try` handlers, `match` cases and around a loop, it joins their
states; a path that `return`s, `raise`s, `break`s or `continue`s has ended and
takes no part in what follows. An analysis says what its state is and what each
statement does to it:

- `copy`, `join`, `ended`, `end`, `resume`: the states;
- `simple`: one small statement (an assignment, a call, `return`, ...);
- `header`: what a compound statement does before its body (an `if` test, a `with`
  item, a `match` subject, the iterable of a `for`);
- `iteration`: what each pass of a loop does first (bind the `for` target, test the
  `while` condition);
- `split`: the states where an `if` test is true and where it is false;
- `handler`: entering an `except` clause; `define`: a `def` or `class` statement.

Loops run `loop_passes` times, each pass from the join of the state before the loop
and the end of the previous pass when `zero_iterations` is set (the body may not
run), else from the end of the previous pass (the body is assumed to run).
"""

from __future__ import annotations

from typing import Generic, TypeVar

import libcst as cst

S = TypeVar("S")

#: Small statements after which the path goes no further.
ENDS_PATH = (cst.Return, cst.Raise, cst.Break, cst.Continue)


class Flow(Generic[S]):
    loop_passes = 1
    zero_iterations = False

    def may_skip(self, loop: cst.CSTNode) -> bool:
        """Whether the body of `loop` may run zero times."""
        return self.zero_iterations

    # ------------------------------------------------------------------ states
    def copy(self, s: S) -> S:
        raise NotImplementedError

    def join(self, a: S, b: S) -> S:
        """Two live paths meeting."""
        raise NotImplementedError

    def ended(self, s: S) -> bool:
        raise NotImplementedError

    def end(self, s: S) -> S:
        """The state of a path that has ended."""
        raise NotImplementedError

    def resume(self, s: S, entry: S) -> S:
        """Going on after a path ended inside a loop body or a `try` (its `break`,
        `continue` or exception leads on): from `s`, or from `entry`, the state the
        loop or `try` started from."""
        raise NotImplementedError

    # ------------------------------------------------------------------ statements
    def simple(self, small: cst.BaseSmallStatement, s: S) -> S:
        return s

    def header(self, node: cst.CSTNode, s: S) -> S:
        return s

    def iteration(self, loop: cst.CSTNode, s: S) -> S:
        return s

    def split(self, test: cst.BaseExpression, s: S) -> tuple[S, S]:
        return s, self.copy(s)

    def handler(self, handler: cst.CSTNode, s: S) -> S:
        return s

    def define(self, node: cst.CSTNode, s: S) -> S:
        return s

    # ------------------------------------------------------------------ the walk
    def block(self, stmts, s: S) -> S:
        for stmt in stmts:
            if self.ended(s):
                return s
            s = self.stmt(stmt, s)
        return s

    def merge(self, a: S, b: S) -> S:
        """Paths meeting, some of which may have ended."""
        if self.ended(a):
            return b
        if self.ended(b):
            return a
        return self.join(a, b)

    def stmt(self, node: cst.CSTNode, s: S) -> S:
        t = type(node)
        if t is cst.SimpleStatementLine or t is cst.SimpleStatementSuite:
            for small in node.body:
                if self.ended(s):
                    return s
                s = self.simple(small, s)
                if isinstance(small, ENDS_PATH):
                    s = self.end(s)
            return s
        if t is cst.If:
            s = self.header(node, s)
            true, false = self.split(node.test, s)
            after_body = self.block(body(node), true)
            if node.orelse is None:
                after_else = false
            elif isinstance(node.orelse, cst.If):
                after_else = self.stmt(node.orelse, false)
            else:
                after_else = self.block(body(node.orelse), false)
            if self.ended(after_body) and self.ended(after_else):
                return after_body
            return self.merge(after_body, after_else)
        if t is cst.For or t is cst.While:
            return self.loop(node, s)
        if t is cst.With:
            return self.block(body(node), self.header(node, s))
        if t is cst.Try or t is cst.TryStar:
            return self.try_(node, s)
        if t is cst.Match:
            return self.match(node, s)
        if t is cst.FunctionDef or t is cst.ClassDef:
            return self.define(node, s)
        return s

    def loop(self, node, s: S) -> S:
        before = self.header(node, s)
        current = self.copy(before)
        for _ in range(self.loop_passes):
            end = self.block(body(node), self.iteration(node, current))
            if self.ended(end):
                end = self.resume(end, before)
            current = self.join(self.copy(before), end) if self.may_skip(node) else end
        if node.orelse is not None:
            current = self.block(body(node.orelse), current)
        return current

    def try_(self, node, s: S) -> S:
        before = self.copy(s)
        after = self.block(body(node), self.copy(s))
        if node.orelse is not None and not self.ended(after):
            after = self.block(body(node.orelse), after)
        # A handler may start from any point of the `try` body.
        reached = after if not self.ended(after) else self.resume(after, before)
        out = after
        for handler in node.handlers:
            start = self.handler(handler, self.join(self.copy(before), self.copy(reached)))
            out = self.merge(out, self.block(body(handler), start))
        if node.finalbody is not None:
            final = self.block(body(node.finalbody), out if not self.ended(out) else self.resume(out, before))
            out = final if not self.ended(out) else self.end(final)
        return out

    def match(self, node: cst.Match, s: S) -> S:
        s = self.header(node, s)
        # Without a catch-all `case _:`, no case may match.
        out = self.end(self.copy(s)) if any(_catch_all(c) for c in node.cases) else self.copy(s)
        for case in node.cases:
            start = self.copy(s)
            if case.guard is not None:
                start = self.header(case, start)
            out = self.merge(out, self.block(body(case), start))
        return out


def ends_path(stmt: cst.CSTNode) -> bool:
    """Whether control never goes on from `stmt` to the next statement of its block:
    a statement line that `return`s, `raise`s, `break`s or `continue`s, or an `if`
    with an `else` whose every arm does. The statements after it never run."""
    if isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
        return any(isinstance(small, ENDS_PATH) for small in stmt.body)
    if isinstance(stmt, cst.If):
        if stmt.orelse is None or not any(ends_path(s) for s in body(stmt)):
            return False
        if isinstance(stmt.orelse, cst.If):
            return ends_path(stmt.orelse)
        return any(ends_path(s) for s in body(stmt.orelse))
    return False


def reachable(stmts) -> list:
    """The statements of a block that can run: those up to the first that ends the
    path (`ends_path`); what follows it in the same block is dead code."""
    out = []
    for stmt in stmts:
        out.append(stmt)
        if ends_path(stmt):
            break
    return out


def body(node) -> list:
    """The statements of a compound statement's body; a one-line suite (`if c: x = 1`)
    is one statement, run like a statement line."""
    b = node.body
    if isinstance(b, cst.IndentedBlock):
        return list(b.body)
    if isinstance(b, cst.SimpleStatementSuite):
        return [b]
    return list(b)


def _catch_all(case: cst.MatchCase) -> bool:
    pattern = case.pattern
    return isinstance(pattern, cst.MatchAs) and pattern.pattern is None and case.guard is None
