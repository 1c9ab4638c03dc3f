"""The files of the online replications (PPAM'13, SPAA'13): the table and per-window CSVs, and the Δψ/p_tot plots
(written only when a replication is given an ``out_dir``; matplotlib is imported only to draw).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fairsched.replicate._online_windows import REF, ROW_KEYS, OnlineReplicationResult, to_json

__all__ = ["LINTHRESH", "SYMLOG_NOTE", "bar_figure", "k_figure", "write_outputs"]


def write_outputs(result: OnlineReplicationResult, out_dir: str | Path, prefix: str,
                  figures: dict[str, Any]) -> dict[str, Path]:
    """Write ``<prefix>_table.csv`` (the rows), ``<prefix>_windows.csv`` and one PNG per figure, atomically."""
    from fairsched._io import atomic_write  # writing is optional

    out = Path(out_dir)
    files: dict[str, Path] = {}
    table = pd.DataFrame(to_json(result)["rows"], columns=list(ROW_KEYS))
    for name, frame in (("table", table), ("windows", result.per_window)):
        path = out / f"{prefix}_{name}.csv"
        with atomic_write(path) as handle:
            frame.to_csv(handle, index=False)
        files[name] = path
    for name, figure in figures.items():
        path = out / f"{prefix}_{name}.png"
        with atomic_write(path, "wb") as handle:
            figure.savefig(handle, format="png", dpi=110, bbox_inches="tight")
        files[name] = path
    return files


LINTHRESH = 1.0
"""Δψ/p_tot axes are symmetric-log (``symlog``): logarithmic above `LINTHRESH` seconds, linear below, so a zero (a
policy that matched REF exactly) is drawn at 0 instead of being dropped as on a log axis."""
SYMLOG_NOTE = f"symlog axis: linear below {LINTHRESH:g} s, so 0 (= REF's ψ exactly) is drawn at 0"


def _symlog(axes: Any) -> None:
    axes.set_yscale("symlog", linthresh=LINTHRESH)
    _, high = axes.get_ylim()
    axes.set_ylim(0, max(3 * high, 10 * LINTHRESH))  # headroom above the tallest bar on the log part
    axes.set_ylabel("Δψ / p_tot (s), symlog")


def bar_figure(rows: Sequence[dict[str, Any]], title: str) -> Any:
    """One panel per (table, trace, split): mean Δψ/p_tot per policy, ours beside the paper's (`SYMLOG_NOTE`)."""
    from matplotlib.figure import Figure  # plotting is optional

    panels = list(dict.fromkeys((row["table"], row["trace"], row["split"]) for row in rows
                                if row["policy"] != REF.label))
    figure = Figure(figsize=(5.5 * max(1, len(panels)), 4.4))
    for number, (table, trace, split) in enumerate(panels, start=1):
        axes = figure.add_subplot(1, len(panels), number)
        mine = [row for row in rows if (row["table"], row["trace"], row["split"]) == (table, trace, split)
                and row["policy"] != REF.label]
        x = np.arange(len(mine))
        ours = [row["mean"] for row in mine]
        paper = [np.nan if row["paper_mean"] is None else row["paper_mean"] for row in mine]
        axes.bar(x - 0.2, ours, 0.4, label="fairsched")
        if not all(np.isnan(paper)):
            axes.bar(x + 0.2, paper, 0.4, label="paper")
        axes.set_xticks(x, [row["policy"] for row in mine], rotation=35, ha="right", fontsize=8)
        _symlog(axes)
        axes.set_title(f"{trace}, {table} ({split}, {mine[0]['windows']} windows)", fontsize=9)
        axes.legend(fontsize=8)
    figure.suptitle(f"{title}\n{SYMLOG_NOTE}", fontsize=10)
    figure.tight_layout(rect=(0, 0, 1, 0.9))
    return figure


def k_figure(rows: Sequence[dict[str, Any]], title: str) -> Any:
    """One panel per (machines, split): mean Δψ/p_tot against the number of organizations k, per policy
    (`SYMLOG_NOTE`; a point at 0 is a policy that matched REF at every seed; RAND printed dashed)."""
    from matplotlib.figure import Figure  # plotting is optional

    panels = list(dict.fromkeys((row["machines"], row["split"]) for row in rows if row["orgs"] is not None))
    columns = 2
    figure = Figure(figsize=(11, 3.6 * math.ceil(len(panels) / columns) + 0.4))
    for number, (machines, split) in enumerate(panels, start=1):
        axes = figure.add_subplot(math.ceil(len(panels) / columns), columns, number)
        mine = [row for row in rows if (row["machines"], row["split"]) == (machines, split)]
        for policy in dict.fromkeys(row["policy"] for row in mine if row["policy"] != REF.label):
            points = sorted((row["orgs"], row["mean"]) for row in mine if row["policy"] == policy)
            axes.plot([k for k, _ in points], [v for _, v in points], marker="o", markersize=3, label=policy,
                      linestyle="--" if "printed" in policy else "-")
        _symlog(axes)
        axes.set_xticks(sorted({row["orgs"] for row in mine}))
        axes.set_xlabel("organizations k")
        axes.set_title(f"{machines} machines, {split}", fontsize=9)
        axes.legend(fontsize=6)
    figure.suptitle(f"{title}\n{SYMLOG_NOTE}", fontsize=10)
    figure.tight_layout(rect=(0, 0, 1, 0.95))
    return figure
