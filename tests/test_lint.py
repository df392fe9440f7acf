"""The tree passes ``ruff check`` with the rules in pyproject.toml (including the ban on
importing torch inside torchlike/)."""

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("ruff")

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_check_passes():
    res = subprocess.run([sys.executable, "-m", "ruff", "check", str(ROOT)], cwd=ROOT,
                         capture_output=True, text=True)
    assert res.returncode == 0, f"ruff check failed:\n{res.stdout}{res.stderr}"
