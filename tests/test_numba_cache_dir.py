"""The numba cache directory follows the text of every module that uses numba (see `fairsched.__init__`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import fairsched
from fairsched import _numba_cache_dir


def test_the_cache_directory_changes_with_any_kernel_module_and_only_with_them(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "__pycache__").mkdir()
    kernel = tmp_path / "a" / "_kernels.py"
    caller = tmp_path / "loop.py"
    plain = tmp_path / "plain.py"
    kernel.write_text("from numba import njit\n@njit(cache=True)\ndef f(x):\n    return x + 1\n")
    caller.write_text("import numba\nfrom a._kernels import f\n")
    plain.write_text("X = 1\n")
    (tmp_path / "a" / "__pycache__" / "stale.py").write_text("import numba  # never read\n")
    first = _numba_cache_dir(str(tmp_path))
    assert first == os.path.join(str(tmp_path), "__pycache__", os.path.basename(first))
    assert os.path.basename(first).startswith("numba-") and len(os.path.basename(first)) == 6 + 16
    plain.write_text("X = 2\n")
    (tmp_path / "a" / "__pycache__" / "stale.py").write_text("import numba  # changed, still never read\n")
    assert _numba_cache_dir(str(tmp_path)) == first
    kernel.write_text(kernel.read_text().replace("x + 1", "x + 2"))
    second = _numba_cache_dir(str(tmp_path))
    assert second != first
    caller.write_text(caller.read_text() + "# a comment\n")
    assert _numba_cache_dir(str(tmp_path)) not in (first, second)


def test_the_package_sets_it_unless_the_user_did_and_kernels_cache_there(tmp_path: Path) -> None:
    """In a fresh interpreter: no NUMBA_CACHE_DIR -> the hashed directory, where a cached kernel lands; a user's own
    NUMBA_CACHE_DIR is kept."""
    package = os.path.dirname(os.path.abspath(fairsched.__file__))
    script = ("import os, fairsched, numpy as np\n"
              "from fairsched.shapley import shapley_values\n"
              "shapley_values(np.array([0.0, 1.0, 1.0, 3.0]))\n"
              "print(os.environ['NUMBA_CACHE_DIR'])\n")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    if not os.access(package, os.W_OK):
        pytest.skip("an installed, read-only package keeps numba's default cache")
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == _numba_cache_dir(package)
    assert any(name.endswith(".nbi") for _, _, files in os.walk(out.stdout.strip()) for name in files)
    mine = tmp_path / "mine"
    out = subprocess.run([sys.executable, "-c", script], env={**env, "NUMBA_CACHE_DIR": str(mine)},
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == str(mine)
