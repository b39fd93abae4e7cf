"""The examples run and keep the ADI scheme's second order (as apps/adi_heat --check-order)."""
from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"


def run_example(name, *args):
    return subprocess.run([sys.executable, str(EXAMPLES / name), *args], capture_output=True,
                          text=True, timeout=300)


def test_adi_heat_numpy_second_order():
    r = run_example("adi_heat_numpy.py", "--check-order")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "second order confirmed" in r.stdout
    # The same error as the C++ app at h = 1/32 (apps/adi_heat --check-order: 2.719e-04).
    assert "-> 2.719e-04 (h = 1/32)" in r.stdout


def test_adi_heat_numpy_float():
    r = run_example("adi_heat_numpy.py", "--n", "24", "--steps", "3", "--precision", "float")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "max error against exp(-3 pi^2 t) sin sin sin" in r.stdout


def test_adi_heat_gpu_script_on_torch_cpu():
    pytest.importorskip("torch")
    r = run_example("adi_heat_gpu.py", "--framework", "torch", "--device", "cpu",
                    "--check-order")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "-> 2.719e-04 (h = 1/32)" in r.stdout
