"""One small online sweep (k = 2, 3, 4 organizations × 3 seeds, two policies) that the sweep tests share."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fairsched.sweep import run_sweep

ONLINE_SPEC = """[sweep]
model = "online"
seeds = 3
[base]
policies = "roundrobin,fairshare"
reference = "fairshare"
window-length = 20000
[grid]
orgs = [2, 3, 4]
"""


def online_store(folder: Path, **options: Any) -> Path:
    """Write `ONLINE_SPEC` into `folder`, run its 9 cells with one worker and return the store's path."""
    (folder / "spec.toml").write_text(ONLINE_SPEC)
    summary = run_sweep(folder / "spec.toml", folder / "out", workers=1, **options)
    assert (summary.computed, summary.failed) == (9, 0)
    return folder / "out"
