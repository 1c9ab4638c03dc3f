"""Rendering sweeps: the progress bar of ``fairsched sweep``, its summary and dry-run listing, and the tables,
JSON documents of ``fairsched results`` (``--baseline``: the paired comparisons). Figures and paper tables:
`fairsched.report.sweep_figures`; report.html: `fairsched.report.sweep_page`."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from fairsched.report.sweep_figures import (
    option_text,
    write_results_plot,  # noqa: F401  (re-exported: its old home)
)
from fairsched.sweep.paired import PairedResults
from fairsched.sweep.results import SweepResults
from fairsched.sweep.run import SweepProgress, SweepSummary, n_cells
from fairsched.sweep.spec import Cell


@contextlib.contextmanager
def sweep_progress(*, enabled: bool) -> Iterator[SweepProgress | None]:
    """A rich bar on stderr (cells done/total, failures, elapsed, ETA), only when enabled and stderr is a terminal."""
    console = Console(stderr=True)
    if not (enabled and console.is_terminal):
        yield None
        return
    columns = (TextColumn("cells"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[failed]} failed"),
               TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task("cells", total=None, failed=0)
        first: list[int] = []

        def update(done: int, total: int, failed: int) -> None:
            if not first:  # reused cells are not progress: the ETA counts only cells computed now
                first.append(done)
                bar.update(task, total=total - done, completed=0, failed=failed)
                return
            bar.update(task, completed=done - first[0], failed=failed)

        yield update


def summary_json(summary: SweepSummary) -> dict[str, Any]:
    """``fairsched sweep --json``."""
    return {"n_cells_total": summary.n_cells_total, "computed": summary.computed, "reused": summary.reused,
            "failed": summary.failed, "out": str(summary.out), "errors": summary.errors,
            "elapsed_s": round(summary.elapsed_s, 3)}


def summary_lines(summary: SweepSummary) -> list[str]:
    """The plain lines ``fairsched sweep`` prints at the end."""
    lines = [f"{cell}: failed: {error}" for cell, error in summary.errors.items()]
    lines.append(f"{n_cells(summary.n_cells_total)}: {summary.computed} computed, {summary.reused} reused, "
                 f"{summary.failed} failed ({summary.elapsed_s:.1f} s); results in {summary.out} "
                 f"(fairsched results {summary.out})")
    return lines


def plan_table(plan: list[tuple[Cell, bool]]) -> Table:
    """``fairsched sweep --dry-run``: one line per cell, its options, seed, key and whether it is stored."""
    options = list(dict.fromkeys(key for cell, _ in plan for key in cell.point))
    done = sum(stored for _, stored in plan)
    table = Table(title=f"{n_cells(len(plan))}, {done} already in the store, {len(plan) - done} to compute",
                  title_justify="left")
    for name in ["#", *options, "seed", "key", "stored"]:
        table.add_column(name, justify="right" if name in ("#", "seed") else "left")
    for cell, stored in plan:
        table.add_row(str(cell.index), *(option_text(cell.point.get(o, "")) for o in options), str(cell.seed), cell.key,
                      "yes" if stored else "")
    return table


def plan_json(plan: list[tuple[Cell, bool]]) -> dict[str, Any]:
    """``fairsched sweep --dry-run --json``."""
    return {"n_cells_total": len(plan), "n_cells_done": sum(stored for _, stored in plan),
            "cells": [{"index": c.index, "key": c.key, "seed": c.seed, "point": c.point, "stored": stored}
                      for c, stored in plan]}


def results_json(results: SweepResults) -> dict[str, Any]:
    """``fairsched results --json``: ``rows`` (one per group and metric), cell counts and the failed cells."""
    rows = results.rows.astype(object).where(results.rows.notna(), None).to_dict("records")
    return {"rows": rows, "group_by": list(results.group_by), "metrics": list(results.metrics),
            "n_cells_done": results.n_cells_done, "n_cells_total": results.n_cells_total, "failed": results.failed}


def results_table(results: SweepResults) -> Table:
    """Mean ± 95 % CI (and std, n) per group and metric."""
    title = f"{results.n_cells_done} of {n_cells(results.n_cells_total)} done"
    if results.failed:
        title += f", {len(results.failed)} failed"
    table = Table(title=title, title_justify="left")
    for name in [*results.group_by, "metric", "n", "mean", "± 95% CI", "std"]:
        table.add_column(name, justify="left" if name in (*results.group_by, "metric") else "right")
    for row in results.rows.to_dict("records"):
        table.add_row(*(option_text(row[c]) for c in results.group_by), row["metric"], str(row["n"]), _fmt(row["mean"]),
                      _fmt(row["ci95"]), _fmt(row["std"]))
    return table


def paired_json(paired: PairedResults) -> dict[str, Any]:
    """``fairsched results --baseline C=V --json``: ``rows`` (one per group, compared value and metric), ``pairs``
    (one per pair and metric), the baseline, the groups, what pairs match on and what was averaged over."""
    def records(frame: Any) -> list[dict[str, Any]]:
        return frame.astype(object).where(frame.notna(), None).to_dict("records")

    return {"baseline": {"column": paired.column, "value": paired.baseline}, "group_by": list(paired.group_by),
            "paired_on": list(paired.paired_on), "averaged_over": list(paired.averaged_over),
            "metrics": list(paired.metrics), "n_cells_done": paired.n_cells_done,
            "n_cells_total": paired.n_cells_total, "rows": records(paired.rows), "pairs": records(paired.pairs)}


def paired_table(paired: PairedResults) -> Table:
    """Per group, compared value and metric: n pairs, the two means, the mean difference and ratio with their
    paired 95 % intervals (Student t, percentile bootstrap) and the Wilcoxon signed-rank p-value."""
    averaged = "".join(f" and {name}" for name in paired.averaged_over)
    table = Table(title=f"Paired against {paired.column} = {paired.baseline} ({paired.n_cells_done} of "
                        f"{n_cells(paired.n_cells_total)} done): value − baseline and value / baseline per pair",
                  caption=f"pairs match on {', '.join(paired.paired_on)}; each group averages over the seeds"
                          f"{averaged} (no pair crosses two conditions); 95 % intervals of the mean: Student t, "
                          "percentile bootstrap",
                  title_justify="left", caption_justify="left")
    keys = [*paired.group_by, paired.column]
    for name in [*keys, "metric", "n", "baseline", "mean", "Δ", "Δ 95% t", "Δ 95% bootstrap", "ratio",
                 "ratio 95% t", "ratio 95% bootstrap", "Wilcoxon p"]:
        table.add_column(name, justify="left" if name in (*keys, "metric") else "right")
    for row in paired.rows.to_dict("records"):
        table.add_row(*(str(row[c]) for c in keys), row["metric"], str(row["n"]), _fmt(row["baseline_mean"]),
                      _fmt(row["mean"]), _fmt(row["diff"]), _interval(row["diff_t_low"], row["diff_t_high"]),
                      _interval(row["diff_boot_low"], row["diff_boot_high"]), _fmt(row["ratio"]),
                      _interval(row["ratio_t_low"], row["ratio_t_high"]),
                      _interval(row["ratio_boot_low"], row["ratio_boot_high"]), _fmt(row["wilcoxon_p"]))
    return table


def _interval(low: Any, high: Any) -> str:
    if any(v is None or (isinstance(v, float) and math.isnan(v)) for v in (low, high)):
        return "—"
    return f"[{_fmt(float(low))}, {_fmt(float(high))}]"


def _fmt(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    return f"{value:,.4g}" if isinstance(value, float) else str(value)
