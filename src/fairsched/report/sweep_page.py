"""report.html of a sweep's store: the page ``fairsched sweep`` and ``fairsched results`` write into DIR.

One self-contained page (`fairsched.report.html`): the command that regenerates it, the spec (its text and the
grid it expands to), the progress (cells done, failed, computed now) and every failure with its message, the
results table (mean ± 95 % CI per group and metric), the paired comparisons when asked for, and one figure per
headline metric of the model (`fairsched.sweep.metrics.HEADLINE`, those the store has; else the first metric),
drawn as ``results --plot`` draws them (`fairsched.report.sweep_figures`), inlined as SVG.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fairsched.report.html import REPORT_FILE, Figure, Report, Table, write_report_html
from fairsched.report.sweep_figures import PlotOptions, option_text, results_figure
from fairsched.sweep.metrics import HEADLINE
from fairsched.sweep.paired import PairedResults
from fairsched.sweep.results import SweepResults
from fairsched.sweep.run import SweepSummary, n_cells
from fairsched.sweep.store import MANIFEST, SPEC_COPY, Store

MAX_FIGURES = 4


def sweep_report(out: str | Path, results: SweepResults, *, command: str, title: str,
                 summary: SweepSummary | None = None, paired: PairedResults | None = None,
                 plot: PlotOptions | None = None) -> Report:
    """The page of the store at `out` (module docstring); `summary` is what the sweep just did, if it ran."""
    out = Path(out)
    manifest = Store(out).manifest()
    spec_path = out / SPEC_COPY
    spec_text = spec_path.read_text(encoding="utf-8") if spec_path.is_file() else ""
    tables = [_grid_table(manifest.cells), _progress_table(results, summary)]
    if results.failed:
        tables.append(Table("Failed cells", ("cell", "seed", "point", "error"),
                            [(f["cell"], f["seed"], json.dumps(f["point"]), f["error"]) for f in results.failed]))
    tables.append(Table.from_frame("Results: mean, 95 % CI and std over the seeds (and windows) of each group",
                                   results.rows, note=f"groups: {', '.join(results.group_by) or 'none'}"))
    if paired is not None:
        tables.append(Table.from_frame(f"Paired against {paired.column} = {paired.baseline}", paired.rows,
                                       note=f"pairs match on {', '.join(paired.paired_on)}; each group averages "
                                            f"over the seeds{''.join(' and ' + a for a in paired.averaged_over)}"))
    figures = [Figure.from_matplotlib(name, results_figure(results, name, plot), format="svg")
               for name in figure_metrics(results)]
    failed = f", {len(results.failed)} failed" if results.failed else ""
    config: dict[str, Any] = {"model": manifest.model, "spec": manifest.spec, "store": str(out),
                              "cells": len(manifest.cells)}
    windows = {cell["window"] for cell in manifest.cells if "window" in cell}
    if windows:
        config["windows"] = len(windows)
    files = [name for name in (SPEC_COPY, MANIFEST) if (out / name).is_file()]
    return Report(title=title, command=command, config=config,
                  summary=f"{results.n_cells_done} of {n_cells(results.n_cells_total)} done{failed}",
                  tables=tables, figures=figures, files=files, text=[("spec.toml", spec_text)] if spec_text else [],
                  warnings=[f"cell {f['cell']} (seed {f['seed']}) failed: {f['error']}" for f in results.failed])


def write_sweep_report(out: str | Path, results: SweepResults, **kwargs: Any) -> Path:
    """Write `sweep_report` as ``out/report.html`` (atomically); returns its path."""
    write_report_html(sweep_report(out, results, **kwargs), out)
    return Path(out) / REPORT_FILE


def figure_metrics(results: SweepResults) -> list[str]:
    """The metrics drawn on the page: the model's headline metrics the results have, else the first metric."""
    wanted = [name for name in HEADLINE.get(results.model, ()) if name in results.metrics]
    if not wanted and results.metrics and len(results.rows):
        wanted = [results.metrics[0]]
    return wanted[:MAX_FIGURES] if len(results.rows) else []


def _grid_table(cells: tuple[dict[str, Any], ...]) -> Table:
    values: dict[str, list[Any]] = {}
    for cell in cells:
        for key, value in cell["point"].items():
            if value not in values.setdefault(key, []):
                values[key].append(value)
    seeds = sorted({cell["seed"] for cell in cells})
    rows = [(key, len(vals), ", ".join(map(option_text, vals))) for key, vals in values.items()]  # None: n/a
    rows.append(("seed", len(seeds), ", ".join(map(str, seeds))))
    windows = sorted({cell["window"] for cell in cells if "window" in cell})
    if windows:
        rows.append(("window (drawn)", len(windows), ", ".join(map(str, windows))))
    return Table("Grid: the options the spec varies", ("option", "values", "list"), rows)


def _progress_table(results: SweepResults, summary: SweepSummary | None) -> Table:
    rows: list[tuple[str, Any]] = [("cells", results.n_cells_total), ("done", results.n_cells_done),
                                   ("failed", len(results.failed)),
                                   ("to compute", results.n_cells_total - results.n_cells_done - len(results.failed))]
    if summary is not None:
        rows += [("computed by this run", summary.computed), ("reused from the store", summary.reused),
                 ("elapsed (s)", round(summary.elapsed_s, 1))]
    return Table("Progress", ("", "cells"), rows)
