"""PRNG key reuse (JAX501-JAX503): two draws with the same key give the same numbers."""

from __future__ import annotations

import dataclasses
from typing import ClassVar, Optional

import jax

from jaxlint.confirm.flow import FLOW
from jaxlint.confirm.verdicts.base import (COULD_NOT_RUN, CONFIRMED, NOT_REPRODUCED, Evidence, Job,
                                           Verdict, first_line, verdict)


def _lines(draw: dict) -> list[int]:
    """The target file's lines on the stack at the draw, innermost first."""
    return draw.get("lines") or [draw["line"]]


def _where(draw: dict) -> str:
    lines = _lines(draw)
    return f"line {lines[0]}" + (f" (called from line {lines[1]})" if len(lines) > 1 else "")


def _same_numbers(a: dict, b: dict, field: str = "head") -> bool:
    """The first numbers of both draws agree: the same sampler on the same key gives the
    same leading numbers whatever the shape (threefry counts per element, as
    jax_threefry_partitionable does, on by default in jax 0.10.2; without it they differ)."""
    ha, hb = a.get(field), b.get(field)
    if ha is None or hb is None:
        return a["value"] == b["value"]
    n = min(len(ha), len(hb))
    return n > 0 and ha[:n] == hb[:n]


# Samplers that turn the key's own bits into numbers element by element, each number a monotone
# function of the same bits (checked under jax 0.10.2: tests/test_confirm_draws.py runs this
# table against JAX): two of one family on one key give numbers that are functions of each
# other. randint and choice split their key first (their numbers are each other's, not
# normal's); gamma, beta, poisson, t, permutation, categorical split too and belong to none.
_FAMILY = {**dict.fromkeys(("bits", "uniform", "normal", "bernoulli", "truncated_normal",
                            "exponential", "gumbel", "laplace", "logistic", "cauchy",
                            "rademacher"), "bits"),
           **dict.fromkeys(("randint", "choice"), "split-bits")}
_SEEN = 3  # numbers that can show an order: with two, any pair is ordered one way or the other
_KEY_MAKERS = ("split",)  # their numbers are new keys: a draw repeats only from those keys


def _monotone(a: list, b: list) -> Optional[str]:
    """"increasing" or "decreasing" when ordering the draws by `a`'s numbers orders `b`'s too."""
    pairs = list(zip(a, b))
    for word, sign in (("increasing", 1), ("decreasing", -1)):
        ys = [y for _, y in sorted(pairs, key=lambda p: (p[0], sign * p[1]))]
        if all(sign * (y2 - y1) >= 0 for y1, y2 in zip(ys, ys[1:])):
            return word
    return None


def _relation(a: dict, b: dict, field: str = "head") -> Optional[str]:
    """How the run shows `b`'s numbers follow from `a`'s (same key), or None: the same sampler
    giving the same numbers, or two samplers of one family whose numbers are equal or ordered
    alike. Two numbers are ordered alike one way or the other, so with fewer than three in
    common the order shows nothing and the family (checked against jax) is the evidence."""
    if a["fn"] == b["fn"] and _same_numbers(a, b, field):
        return "identical values"
    family = _FAMILY.get(a["fn"])
    ha, hb = a.get("head") or [], b.get("head") or []
    n = min(len(ha), len(hb))
    if family is None or family != _FAMILY.get(b["fn"]) or n < 1:
        return None
    if n >= 2 and ha[:n] == hb[:n]:
        return "identical values"
    if n < _SEEN:
        return f"numbers that are functions of each other ({a['fn']} and {b['fn']} of one key " \
               f"read the same bits; {n} number{'s' * (n != 1)} in common, too few to show an " \
               f"order)"
    order = _monotone([float(x) for x in ha[:n]], [float(x) for x in hb[:n]])
    return f"numbers that are {'an' if order == 'increasing' else 'a'} {order} function of each " \
           f"other (first {n} checked)" if order else None


def _children(split: dict) -> list[list]:
    """The keys a split made, as words (its numbers cut to the parent key's width)."""
    width = len(split.get("words") or []) or 2
    head = split.get("head") or []
    return [head[i:i + width] for i in range(0, len(head) - width + 1, width)]


def _repeats(draw: dict, split: dict, draws: list) -> tuple[list, list]:
    """A draw and a split of its key: the draws made from the children, and those of them
    that gave the draw's own numbers again (a repeat). A child is another key, so its numbers
    are unrelated unless they are the same: ordered alike is no evidence here."""
    children = [str(c) for c in _children(split)]
    made = [x for x in draws if x["key"] in children and x["fn"] not in _KEY_MAKERS]
    return made, [x for x in made if x["fn"] == draw["fn"] and _same_numbers(draw, x)]


def _unrelated(d: dict, other: dict, draws: list) -> str:
    """What the run showed of a same-key pair whose numbers do not follow from each other."""
    split = next((x for x in (d, other) if x["fn"] in _KEY_MAKERS), None)
    if split is not None:
        draw = other if split is d else d
        made, _ = _repeats(draw, split, draws)
        after = draws.index(split) > draws.index(draw)
        when = "split after it drew" if after else "split before it drew"
        kids = ", ".join(str(c) for c in _children(split)[:2])
        checked = f"{len(made)} draw{'s' * (len(made) != 1)} from the children, none repeats " \
                  f"the numbers of {draw['fn']} at line {draw['line']} (checked)" if made else \
            "no draw from the children ran here"
        return f"the key was {when}: the children {kids} are distinct from the drawn key; " \
               f"{checked}"
    ha, hb = other.get("head") or [], d.get("head") or []
    n = min(len(ha), len(hb))
    a, b = f"{other['fn']} {other['value']}", f"{d['fn']} {d['value']}"
    if d["fn"] == other["fn"] and _FAMILY.get(d["fn"]) is None:
        return f"{a} and {b}: the same sampler gave other numbers (other arguments: data, " \
               f"bounds, sizes)"
    splits = [x["fn"] for x in (other, d) if _FAMILY.get(x["fn"]) == "split-bits"]
    why = f" ({splits[0]} splits its key before it draws)" if len(splits) == 1 else ""
    ordered = n >= _SEEN and _monotone([float(x) for x in ha[:n]], [float(x) for x in hb[:n]])
    if ordered:  # by chance, with samplers of different families
        return f"{a} and {b} come from samplers that read the key differently{why}, although " \
               f"these {n} numbers happen to be ordered alike"
    return f"{a} and {b} are not a monotone function of each other (checked on {n} numbers){why}"


def _two_parameters(d: dict, other: dict, flagged: set) -> bool:
    """The flagged call passed one key to two parameters and each draw came through another
    one (the worker saw the key object in both and the callee's running statement naming one:
    `via`). Two draws through one parameter are the callee's own reuse, not the call's."""
    a, b = d.get("via"), other.get("via")
    return bool(a and b and a[0] == b[0] and a[0] in flagged and a[1] != b[1])


def _through(draw: dict) -> str:
    via = draw.get("via")
    return f" through parameter `{via[1]}`" if via else ""


@dataclasses.dataclass
class DrawEvidence(Evidence):
    """Two draws at the flagged sites with the same key; `key` empty when no two shared one."""

    kind: ClassVar[str] = "identical-draws"
    first_line: int = 0
    second_line: int = 0
    key: str = ""
    values: str = ""


def _meeting(d: dict, other: dict, result) -> Optional[str]:
    """Where both draws' numbers reach one result the program uses, or None.

    Identical numbers are harmless where they never meet: a draw multiplied by 0, a timing
    demo's discarded output, a state thrown away. So the run must show a value made from both
    that the program reads back (prints, formats, converts to NumPy or a float) or that the
    called function returns; a meeting in a value nobody reads is no evidence."""
    a, b = d.get("id"), other.get("id")
    if a is None or b is None:
        return None  # drawn inside a compiled call: their numbers cannot be followed there
    read = FLOW.read_together(a, b)
    if read:
        met = FLOW.met_at(a, b)
        return (f"met at line {met[0]}, " if met else "") + f"read together at line {read[0]}"
    if result is not None and FLOW.together(result, a, b):
        return "both in the function's result"
    return None


def _pairs(job: Job, draws: list, previous: Optional[int], flagged: set):
    """The flagged sites' draws with the same key whose numbers the run shows to follow from
    each other (identical, or one a function of the other): (d, other, field)."""
    for d, other, field in _same_key(job, draws, previous, flagged):
        if _related(d, other, field, draws):
            yield d, other, field


def _related(d: dict, other: dict, field: str, draws: list) -> bool:
    split = next((x for x in (d, other) if x["fn"] in _KEY_MAKERS), None)
    if split is not None and (d["fn"] != other["fn"]):
        return bool(_repeats(other if split is d else d, split, draws)[1])
    return _relation(other, d, field) is not None


def _same_key(job: Job, draws: list, previous: Optional[int], flagged: set):
    """The flagged sites' draws with the same key: (d, other, field)."""
    here = [d for d in draws if flagged & set(_lines(d))]
    for d in here:
        for other in draws:
            if other is d or other["key"] != d["key"]:
                continue
            if previous is not None and previous not in flagged:
                # Two statements: neither draw may belong to both (a callee of one of them).
                if previous not in _lines(other) or flagged & set(_lines(other)) or \
                        previous in _lines(d):
                    continue
            elif not (flagged & {d["line"]} and flagged & {other["line"]}) and not (
                    # A helper the flagged line calls, drawing at one line on two calls (two
                    # draws at two lines may be one call's own reuse, not the flagged line's).
                    d["line"] == other["line"] and flagged & set(_lines(other))) \
                    and not _two_parameters(d, other, flagged):
                continue
            # Two statements that shuffle different data in the same order (a permutation's
            # order depends on the key and the length only). One line shuffling several
            # arrays with one key (`[permutation(key, a) for a in arrays]`) aligns them on
            # purpose: there the shuffled values themselves must repeat.
            field = "order" if previous is not None and previous not in flagged else "head"
            if "fold_in" in (d["fn"], other["fn"]):
                continue  # fold_in derives new keys from one key; different data, different draws
            yield d, other, field


def _describe(job: Job, d: dict, other: dict, field: str, previous: Optional[int],
              flagged: set, how: str):
    """The pair's lines, where it drew (for the summary), and what each draw gave."""
    first, second = (d["line"], d["line"]) if previous is None or previous in flagged \
        else (previous, job.line)
    where = f"line {second} drew twice" if first == second else \
        f"line {first} and line {second} drew"
    if _two_parameters(d, other, flagged) and not flagged & {d["line"], other["line"]}:
        a, b = sorted((other, d), key=lambda x: x["line"])
        first, second = a["line"], b["line"]
        where = f"line {job.line} passed one key to `{a['via'][1]}` and " \
                f"`{b['via'][1]}`, which drew at line {first} and line {second}"
    shown = [str((x.get(field) or [])[:3]) if field == "order" else x["value"]
             for x in (other, d)]
    what = " (shuffle order)" if field == "order" and d["fn"] == "permutation" else ""
    drawn = f"{other['fn']} at {_where(other)}{_through(other)} -> {shown[0]}{what}; " \
            f"{d['fn']} at {_where(d)}{_through(d)} -> {shown[1]}{what} " \
            f"(same key {d['key']}; drawn {how})"
    return first, second, where, shown, drawn


def confirm(job: Job) -> Verdict:
    state = job.state
    # The program's own draws, its jitted calls included (recorded as they ran).
    draws = [d for d in state["import_draws"]]
    how, shapes, result = "at import", "", None
    flagged = set(range(job.line, job.end_line + 1))
    if isinstance(job.confirm.get("draw_line"), int):
        flagged.add(job.confirm["draw_line"])  # a key defaulted on the `def` line draws here
    previous = job.confirm.get("previous_line")
    previous = int(previous) if isinstance(previous, int) or str(previous).isdigit() else None
    # The line drawing again (a loop): one draw of a compiled computation compares nothing, as
    # a draw from a constant key runs once however many iterations use it (grad hoists it out
    # of the loop); one draw run as Python ran it shows the line drew once.
    again = previous is None or previous in flagged

    def lone_traced(ds) -> bool:
        at = [d for d in ds if flagged & set(_lines(d))]
        return again and len(at) == 1 and at[0].get("traced", False)

    def unmet(ds) -> bool:
        """Same-key pairs at the sites, none seen to meet: drawn under jit (not followed), or
        in a function whose result the program's own call dropped. Calling the function
        shows what it returns."""
        pairs = list(_pairs(job, ds, previous, flagged))
        return bool(pairs) and all(_meeting(d, o, None) is None for d, o, _ in pairs)

    ran = draws
    if (lone_traced(draws) or unmet(draws)
            or not any(flagged & set(_lines(d)) for d in draws)) and job.f.get("function"):
        entry = job.entry()
        sig, is_method, static, _, eager = job.callables(entry)
        how, last = f"calling {job.f.get('function')} without jit", None
        for a in job.args_list(entry, sig, is_method, static, concrete=True):
            start = len(state["draws"])
            FLOW.enabled = True  # follow the numbers from this call's first draw on
            state["draw_sites"] = dict.fromkeys(state.get("draw_sites") or (), 0)
            try:
                with jax.disable_jit():  # keys stay concrete, so the draws can be compared
                    result = eager(*a.args, **a.kwargs)
            except Exception as exc:  # noqa: BLE001 - wrong guess of argument shapes
                last = (exc, a.shapes)
                continue
            finally:
                FLOW.stop()
                FLOW.enabled = False
            draws, shapes, last = state["draws"][start:], a.shapes, None
            break
        if any(flagged & set(_lines(d)) for d in ran) and (
                last is not None or not any(flagged & set(_lines(d)) for d in draws)):
            # The call raised, or drew nothing there (a generator, stepped only by the
            # program's `next`): the import's draws are what the program did.
            draws, how, shapes, result = ran, "at import", "", None
        elif last is not None:
            return verdict(COULD_NOT_RUN, f"the function raised {type(last[0]).__name__}",
                           f"{first_line(last[0])} (with {last[1]})", last[1])
        elif unmet(ran) and not any(_meeting(d, o, result) for d, o, _ in
                                    _pairs(job, draws, previous, flagged)):
            # The call showed no meeting either: the import's same-key draws are the evidence.
            draws, how, shapes, result = ran, "at import", "", None
    here = [d for d in draws if flagged & set(_lines(d))]
    if not here:
        return verdict(COULD_NOT_RUN, f"no random draw ran at line {job.line}", f"tried {how}",
                       shapes)
    if lone_traced(draws):
        return verdict(COULD_NOT_RUN, f"line {job.line} drew once: nothing to compare",
                       f"tried {how}", shapes)
    # The flagged sites: the earlier draw the rule names (`previous_line`: a draw there, or in
    # what that line calls), else the flagged line itself drawing again (a loop). A key equal
    # to some other draw's proves nothing, and equal numbers prove nothing until they meet.
    unmet = None
    for d, other, field in _pairs(job, draws, previous, flagged):
        first, second, where, shown, drawn = _describe(job, d, other, field, previous, flagged,
                                                       how)
        meeting = _meeting(d, other, result)
        if meeting is None:
            unmet = unmet or (where, d, other, drawn)
            continue
        related = _relation(other, d, field)
        same = ", giving the same shuffle" if d["fn"] == other["fn"] == "permutation" else \
            f", giving {related}" if related else \
            ", whose children drew the same numbers again"  # a split's repeat (_repeats)
        return verdict(CONFIRMED, f"{where} with the same key{same}", DrawEvidence(
            first_line=first, second_line=second, key=d["key"],
            values=f"{shown[0]} / {shown[1]}", note=f"{drawn}; {meeting}"), shapes)
    if unmet is not None:
        where, d, other, drawn = unmet
        if d.get("id") is None or other.get("id") is None:
            why = "they were drawn inside a compiled call, where their numbers are not followed"
        else:
            met = FLOW.met_at(d["id"], other["id"])
            why = (f"they met at line {met[0]} in a value the program never read" if met else
                   "no value the program read or returned was made from both") + \
                  (" (too many values to follow)" if FLOW.full else "")
        return verdict(NOT_REPRODUCED, f"{where} with the same key, but the numbers never "
                                       f"reached one result together",
                       DrawEvidence(first_line=other["line"], second_line=d["line"], key=d["key"],
                                    values=f"{other['value']} / {d['value']}", note=f"{drawn}; {why}"),
                       shapes)
    for d, other, field in _same_key(job, draws, previous, flagged):
        # One key at both sites, but no number repeats: a key proves nothing by itself.
        first, second, where, shown, drawn = _describe(job, d, other, field, previous, flagged,
                                                       how)
        return verdict(NOT_REPRODUCED, f"{where} with the same key, but the numbers do not "
                                       f"repeat", DrawEvidence(
            first_line=first, second_line=second, key=d["key"], values=f"{shown[0]} / {shown[1]}",
            note=f"{drawn}; {_unrelated(d, other, draws)}"), shapes)
    through = {d["via"][1] for d in draws if d.get("via") and d["via"][0] in flagged}
    if len(through) == 1:
        # The call passed one key to two parameters, but only one of them drew (twice, maybe:
        # that is the callee's own reuse, not this line's).
        name = through.pop()
        return verdict(NOT_REPRODUCED, f"line {job.line} passed one key to two parameters, but "
                                       f"every draw under it came through `{name}`",
                       DrawEvidence(first_line=job.line, second_line=job.line,
                                    values=", ".join(d["value"] for d in here[:2]),
                                    note=f"{len(draws)} draws ({how}); the draws under line "
                                         f"{job.line} all came through parameter `{name}`"),
                       shapes)
    sites = {previous} if previous is not None else flagged
    at = " and ".join(f"line {n}" for n in sorted(sites | {job.line}))
    return verdict(NOT_REPRODUCED, "the flagged draws used different keys",
                   DrawEvidence(first_line=min(sites | {job.line}), second_line=job.line,
                                values=", ".join(d["value"] for d in here[:2]),
                                note=f"{len(draws)} draws ({how}); no two draws at {at} share a key"),
                   shapes)
