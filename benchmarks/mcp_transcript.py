"""One agent-style session with `jaxlint mcp`, printed as a transcript.

The MCP SDK's stdio client starts the server and does what a coding agent does with a
buggy training script: lint it, read the page of a finding, fix it (a diff, then written),
lint again, and confirm what is left under JAX. Run from the repository root:

    JAX_PLATFORMS=cpu python benchmarks/mcp_transcript.py
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client

ROOT = Path(__file__).resolve().parent.parent

TRAIN = '''\
import jax
import jax.numpy as jnp


def loss(params, x, y):
    pred = x * params["w"] + params["b"]
    return jnp.mean((pred - y) ** 2)


@jax.jit
def train_step(params, x, y, lr):
    grads = jax.grad(loss)(params, x, y)
    if lr > 0.01:
        lr = 0.01
    return jax.tree_map(lambda p, g: p - lr * g, params, grads)


def make_batch(key, n):
    x = jax.random.normal(key, (n, 3))
    noise = jax.random.normal(key, (n,))
    return x, x.sum(axis=1) + 0.1 * noise
'''


def show(title: str, arguments: dict, result, started: float) -> None:
    """What the server answered, condensed: each finding on one line (`fix` reduced to its
    applicability), the diff as text; the full JSON is what the agent reads."""
    print(f"\n>>> {title} {json.dumps(arguments)}  ({time.monotonic() - started:.2f} s)")
    text = result.content[0].text if result.content else ""
    if result.is_error:
        print(f"[tool error] {text}")
        return
    if title == "explain_rule":
        print("\n".join(text.splitlines()[:6]) + "\n[... the rest of the page ...]")
        return
    answer = json.loads(text)
    for key, value in answer.items():
        if key in ("findings", "remaining"):
            print(f"{key}:")
            for f in value:
                brief = {k: v for k, v in f.items() if k not in ("path", "end_line", "end_column")}
                brief["fix"] = f["fix"] and f["fix"]["applicability"]
                print("  " + json.dumps(brief))
        elif key == "diff":
            print("diff:\n" + value.rstrip())
        elif key == "source":
            print(f"source: ({len(value)} characters, the fixed file)" if value else "source: null")
        else:
            print(f"{key}: {json.dumps(value)}")


async def main() -> None:
    with tempfile.TemporaryDirectory(prefix="jaxlint-mcp-demo-") as work:
        script = Path(work) / "train.py"
        script.write_text(TRAIN, encoding="utf-8")
        env = {"PYTHONPATH": str(ROOT), "JAX_PLATFORMS": os.environ.get("JAX_PLATFORMS", "cpu")}
        params = StdioServerParameters(command=sys.executable, args=["-m", "jaxlint", "mcp"], env=env, cwd=work)
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            init = await session.initialize()
            tools = await session.list_tools()
            print(f"server {init.server_info.name} {init.server_info.version}; tools: "
                  + ", ".join(t.name for t in tools.tools))

            async def call(tool: str, arguments: dict, progress=None):
                started = time.monotonic()
                result = await session.call_tool(tool, arguments, progress_callback=progress)
                show(tool, arguments, result, started)
                return result

            await call("lint", {"path": str(script)})
            await call("explain_rule", {"code": "JAX201"})
            await call("fix", {"path": str(script)})
            await call("fix", {"path": str(script), "write": True})
            await call("lint", {"path": str(script)})

            async def progress(done: float, total: float | None, message: str | None) -> None:
                print(f"    progress {done:.0f}/{total:.0f}: {message}")

            await call("confirm", {"path": str(script), "timeout_s": 120}, progress)


if __name__ == "__main__":
    anyio.run(main)
