""""Could not run" says what this machine lacks, first in the summary and as the record's `why`:
a device the program asks for (a GPU, a device count), a name an installed module lacks,
a data file."""

from __future__ import annotations

from pathlib import Path

import pytest

from confirm_table import verdicts_by_name
from jaxlint.finding import Finding

pytest.importorskip("jax")

D = Path(__file__).parent / "confirm_cases" / "reasons"


def bool_at(name: str) -> Finding:
    path = str(D / name)
    lines = Path(path).read_text().splitlines()
    line = next(i for i, text in enumerate(lines, 1) if "# case:" in text)
    return Finding(path=path, line=line, col=1, end_line=line, end_col=1, code="JAX201",
                   message="", function="f", function_line=line - 1,
                   confirm={"kind": "trace-error", "expected": "TracerBoolConversionError"})


CASES = {
    "wants_gpu.py": ("missing device (RuntimeError: Unknown backend", "device"),
    "wants_devices.py": ("missing device (line 3 asserts the device count)", "device"),
    "old_name.py": ("missing name in module json", "package"),
    "data_file.py": ("missing file no_such_dataset_dir/train.npy", "file"),
}


@pytest.fixture(scope="module")
def got():
    return verdicts_by_name({name: bool_at(name) for name in CASES})


@pytest.mark.parametrize("name", sorted(CASES))
def test_could_not_run_says_what_is_missing(got, name):
    v = got[name]
    summary, why = CASES[name]
    assert v["verdict"] == "could not run", v
    assert v["summary"].startswith(summary), v
    assert v["record"]["why"] == why, v
