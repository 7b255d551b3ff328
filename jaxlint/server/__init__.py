"""`jaxlint server`: a language server for editors (LSP over standard input and output).

The server is an edge, like the output formats and the flake8 adapter: findings,
configuration, `# noqa`, fixes, rule pages and confirm mode are the CLI's own code.

- `app`: the LSP features (pygls): documents and notebooks in, diagnostics, code
  actions, hovers and the `jaxlint.confirm` command out.
- `worker`: the warm analysis process. It parses and lints, so a file that crashes
  or hangs the parser costs that file's diagnostics, never the server.
- `analysis`: what the worker runs: the CLI's configuration, linter and fixes, with
  parsed top-level statements kept between edits.
- `convert`: findings as LSP diagnostics and fixes as LSP edits, in the client's units.
- `confirming`: confirm mode on one buffer, in a process that cancelling kills.

pygls and lsprotocol come with the `server` extra: `pip install 'jaxlint[server]'`.
"""

from __future__ import annotations

import importlib.util
from typing import Optional

INSTALL_HINT = "jaxlint server needs pygls and lsprotocol: pip install 'jaxlint[server]'"


def missing_dependency() -> Optional[str]:
    """The hint to print when the server's dependencies are not installed, else None."""
    if any(importlib.util.find_spec(name) is None for name in ("pygls", "lsprotocol")):
        return INSTALL_HINT
    return None
