"""Confirm on demand: confirm mode on one finding of one buffer, cancellable.

The server never runs user code unless asked: this is the only place it does,
for `workspace/executeCommand jaxlint.confirm`. It runs the service's confirm, the
code and sandbox of `jaxlint check --confirm`, on the editor's text, in the
service's child process (`service.CONFIRM_CHILD`). Cancelling (the progress's
cancel button, or `$/cancelRequest`) sends that child SIGTERM, on which confirm
mode's own cleanup kills its JAX worker.
"""

from __future__ import annotations

import asyncio
import json
import signal
import uuid
from typing import Any, Optional

from lsprotocol import types

from jaxlint import service


async def confirm_finding(ls, uri: str = "", code: str = "", line: int = 0, col: int = 0) -> dict[str, Any]:
    """The verdict on the finding `code` at `line`:`col` of `uri`; it also goes into the
    finding's diagnostic."""
    from jaxlint.server.app import _verdict_key

    pub = ls.published.get(uri)
    finding = next((f for f in (pub.findings if pub else ()) if (f.code, f.line, f.col) == (code, line, col)), None)
    if finding is None:
        return {"verdict": "could not run", "summary": f"no {code} finding at line {line}, column {col} of {uri}"}
    # A notebook cell: confirm runs the notebook's code cells, in order, as the editor has them.
    text = _notebook_json(ls, pub) if pub.cell is not None else pub.text
    target = ls.targets.get(pub.target)
    token = await _progress(ls, f"jaxlint: confirming {code} under JAX")
    try:
        verdict = await _run(ls, token, finding, pub.path, text, ls.confirm_timeout)
    finally:
        if token is not None:
            ls.work_done_progress.end(token, types.WorkDoneProgressEnd(message="done"))
    if verdict.get("verdict") != "cancelled" and target is not None:
        target.verdicts[_verdict_key(finding, pub.lines)] = {**verdict, "uri": uri}
        ls.republish(pub.target)
    return verdict


def _notebook_json(ls, pub) -> str:
    """The notebook as the editor holds it, as .ipynb JSON: its published code cells in order,
    the cells between them as empty markdown (only their numbers matter)."""
    code = {p.cell: p.text for p in ls.published.values() if p.target == pub.target and p.cell}
    cells = [{"cell_type": "code", "source": code[n]} if n in code else
             {"cell_type": "markdown", "source": ""} for n in range(1, max(code) + 1)]
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


async def _progress(ls, title: str) -> Optional[str]:
    caps = ls.client_capabilities.window
    if caps is None or not caps.work_done_progress:
        return None
    token = f"jaxlint-confirm-{uuid.uuid4()}"
    try:
        await ls.work_done_progress.create_async(token)
    except Exception:  # noqa: BLE001 - a client that refuses: no progress, the command still runs
        return None
    ls.work_done_progress.begin(token, types.WorkDoneProgressBegin(
        title=title, cancellable=True, message="starting JAX (this imports and runs the file)"))
    return token


async def _run(ls, token: Optional[str], finding, path: str, text: str, timeout: float) -> dict[str, Any]:
    proc = await asyncio.create_subprocess_exec(
        *service.CONFIRM_CHILD, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=None)
    request = service.confirm_request([finding], timeout, {path: text})
    cancelled = asyncio.wrap_future(ls.work_done_progress.tokens[token]) if token is not None else None
    work = asyncio.ensure_future(proc.communicate(request))
    try:
        waiting = {work} | ({cancelled} if cancelled is not None else set())
        await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
        if not work.done():  # the client cancelled the progress
            await _stop(proc)
            return {"verdict": "cancelled"}
        out, _ = work.result()
    except asyncio.CancelledError:  # $/cancelRequest, or the server shuts down
        await _stop(proc)
        raise
    try:
        confirmed, _ = service.confirm_reply(out, proc.returncode)
    except (service.ConfirmUnavailable, RuntimeError) as exc:
        return {"verdict": "could not run", "summary": str(exc)}
    return confirmed[0].verdict or {"verdict": "could not run", "summary": "no verdict"}


async def _stop(proc) -> None:
    """SIGTERM first: confirm mode's cleanup kills its JAX worker's process group."""
    if proc.returncode is None:
        try:
            proc.send_signal(signal.SIGTERM)
            await asyncio.wait_for(proc.wait(), 5)
        except (ProcessLookupError, asyncio.TimeoutError):
            try:
                proc.kill()
            except ProcessLookupError:
                pass
            await proc.wait()
