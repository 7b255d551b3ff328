"""SARIF 2.1.0, as GitHub code scanning reads it.

Beyond the required fields, two things make the upload useful: URIs relative
to the repository root (with `uriBaseId`), so GitHub can place them on any
checkout; and `partialFingerprints.primaryLocationLineHash` computed from the
rule, the flagged line's text and its occurrence index, not its line number, so
an alert survives unrelated edits above it instead of being closed and reopened.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Optional
from urllib.parse import quote

from jaxlint import __version__
from jaxlint.formats import FormatContext, register, rule_url, verdict_suffix


SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SRCROOT = "%SRCROOT%"
# SARIF levels by severity: a deprecation (info) is a note.
_LEVELS = {"error": "error", "warning": "warning", "info": "note"}


def _rule_descriptor(code: str, rule) -> dict:
    from jaxlint.pages import page_text, section

    page = page_text(code) or ""
    full = " ".join(section(page, "What it does").split()) or rule.summary
    descriptor = {
        "id": code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": full},
        "help": {"text": page or rule.summary, "markdown": page or rule.summary},
        "defaultConfiguration": {
            "level": _LEVELS.get(rule.severity, "error"),
            "enabled": bool(rule.default),
        },
        "properties": {"tags": ["jax"], "precision": "high"},
    }
    url = rule_url(code)
    if url:  # the page itself is the help text; link only a page that exists
        descriptor["helpUri"] = url
    return descriptor


def _artifact_location(path: str, root: str) -> dict:
    absolute = os.path.abspath(path)
    try:
        rel = os.path.relpath(absolute, os.path.abspath(root))
    except ValueError:  # pragma: no cover - another drive on Windows
        rel = None
    if rel is None or rel == ".." or rel.startswith(".." + os.sep):
        return {"uri": Path(absolute).as_uri()}
    # quote() the bytes: a file name that is not UTF-8 holds surrogates (PEP 383).
    return {"uri": quote(os.fsencode(Path(rel).as_posix())), "uriBaseId": SRCROOT}


def fingerprints(findings, ctx: FormatContext) -> list[str]:
    """`primaryLocationLineHash` per finding (jaxlint.fingerprints: code + line text, then `:occurrence`)."""
    from jaxlint.fingerprints import fingerprints as compute

    return compute(findings, ctx.sources)


def _result(f, index: Optional[int], fingerprint: str, root: str) -> dict:
    message = f"{f.message}{verdict_suffix(f)}"
    if f.cell:
        message = f"cell {f.cell}, line {f.line}: {message}"
    result = {
        "ruleId": f.code,
        "level": _LEVELS.get(f.severity, "error"),
        "message": {"text": message},
        "locations": [{
            "physicalLocation": {
                "artifactLocation": _artifact_location(f.path, root),
                "region": {
                    "startLine": f.line,
                    "startColumn": f.col,
                    "endLine": f.end_line,
                    "endColumn": f.end_col,
                },
            },
        }],
        "partialFingerprints": {"primaryLocationLineHash": fingerprint},
    }
    if index is not None:
        result["ruleIndex"] = index
    props = {}
    if f.cell:
        props["cell"] = f.cell
    if f.verdict:
        props["verdict"] = f.verdict.get("verdict")
        props["confirm"] = f.verdict
    if props:
        result["properties"] = props
    return result


def _notification(d, root: str) -> dict:
    note = {"level": "error", "message": {"text": f"{d.code} {d.message}"},
            "locations": [{"physicalLocation": {"artifactLocation": _artifact_location(d.path, root)}}]}
    if d.line and not d.cell:  # a cell's line is not a line of the notebook file
        region = {"startLine": d.line}
        if d.col:
            region["startColumn"] = d.col
        note["locations"][0]["physicalLocation"]["region"] = region
    return note


def sarif_log(findings, diagnostics, ctx: FormatContext) -> dict:
    from jaxlint.rules import all_rules

    rules = all_rules()
    codes = list(rules)
    index = {code: i for i, code in enumerate(codes)}
    root = ctx.root or "."
    run = {
        "tool": {"driver": {
            "name": "jaxlint",
            "version": __version__,
            "semanticVersion": __version__,
            "rules": [_rule_descriptor(code, rules[code]) for code in codes],
        }},
        "originalUriBaseIds": {SRCROOT: {"uri": Path(os.path.abspath(root)).as_uri().rstrip("/") + "/"}},
        "columnKind": "unicodeCodePoints",
        "invocations": [{
            "executionSuccessful": True,
            "toolExecutionNotifications": [_notification(d, root) for d in diagnostics],
        }],
        "results": [_result(f, index.get(f.code), fp, root)
                    for f, fp in zip(findings, fingerprints(findings, ctx))],
    }
    if ctx.device:
        run["properties"] = {"confirmDevice": ctx.device}
    return {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}


@register("sarif")
def render(findings, diagnostics, ctx: FormatContext) -> str:
    return json.dumps(sarif_log(findings, diagnostics, ctx), indent=2) + "\n"
