"""Shared fixtures: where the real traces are, and the hypothesis profiles (CI is derandomized)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from tests.slurm_fixture import slurm_client, slurm_cluster, slurm_dir  # noqa: F401 - the real-Slurm fixtures (STYLE.md 2.9)

settings.register_profile("ci", derandomize=True, deadline=None, max_examples=60,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))

# The game cache (fairsched.audit.game_cache) stays off in the tests, here and in the commands they start, unless
# a test turns it on in its own directory: no test reads or writes ~/.cache, and none depends on an earlier run.
os.environ.setdefault("FAIRSCHED_GAME_CACHE", "off")

TRACES_DIR = Path(os.environ.get("FAIRSCHED_TRACES", Path(__file__).resolve().parents[2] / "shared" / "traces"))


def trace_path(name: str) -> Path:
    """Path of a real trace in ../shared/traces; skips the calling test cleanly when it is absent."""
    path = TRACES_DIR / name
    if not path.exists():
        pytest.skip(f"real trace {name} not found in {TRACES_DIR} (see docs/workloads.md to download it)")
    return path


@pytest.fixture
def traces_dir() -> Path:
    if not TRACES_DIR.is_dir():
        pytest.skip(f"real traces not found in {TRACES_DIR}")
    return TRACES_DIR


def run_main(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Call the console entry point as the shell would; return (exit code, stdout, stderr)."""
    from fairsched import cli

    try:
        cli.main(args)
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err
