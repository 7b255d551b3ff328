import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("JAX_PLATFORMS", "cpu")


@pytest.fixture
def lint():
    """Findings for a code string, as a sorted list of (line, code)."""
    from jaxlint.linter import lint_string

    def run(code, select=None, **kw):
        return sorted((f.line, f.code) for f in lint_string(code, select=select, **kw))

    return run
