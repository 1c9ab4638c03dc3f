"""Figures and tables of a sweep's results for a paper: ``fairsched results --plot`` and ``--table``.

A figure draws one metric's mean over the seeds (and drawn windows) with its 95 % interval:

* against a numeric option (``--x``; default: the first numeric option grouped by, e.g. ``orgs``, ``load``), one
  line per policy (``--series``, default ``policy``), with the interval as a band; the other grouped options make
  one panel each (``--facet`` picks one; default: every value combination of the rest);
* as bars, one group of bars per setting, when no option grouped by is numeric.

Axis labels, units and "lower is fairer" come from the metric registry (`fairsched.sweep.metrics`); intervals are
clipped to the metric's bounds (Δψ/p_tot ≥ 0, a utilization in [0, 1]); the reference policy (``is_reference``:
its Δψ/p_tot is 0 by definition) is left out unless asked for; ``log_y`` draws the y axis on a log scale. The
file's format is the one its suffix names (`fairsched.report.export.write_figure`).

A table (``--table latex|markdown|csv``) has one row per group and one column per metric, ``mean ± CI``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fairsched.errors import ConfigError
from fairsched.sweep.metrics import metric as registry_metric
from fairsched.sweep.metrics import option_label
from fairsched.sweep.results import SweepResults

if TYPE_CHECKING:
    from matplotlib.figure import Figure

TABLE_FORMATS: tuple[str, ...] = ("latex", "markdown", "csv")
_MAX_COLUMNS = 3  # panels per row


@dataclass(frozen=True)
class PlotOptions:
    """How ``results --plot`` draws (module docstring); None = the default of each."""

    x: str | None = None
    series: str | None = None
    facet: str | None = None
    with_reference: bool = False
    log_y: bool = False


def results_figure(results: SweepResults, metric: str, options: PlotOptions | None = None) -> Figure:
    """The figure of `metric` (module docstring)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    options = options or PlotOptions()
    if metric not in results.metrics:
        raise ConfigError(f"--plot: no metric {metric!r} in these results; choose one of {', '.join(results.metrics)}")
    rows = results.rows[results.rows["metric"] == metric]
    series = _series(results, options)
    if series is not None and not options.with_reference and results.references and series == "policy":
        rows = rows[~rows[series].astype(str).isin(results.references)]
    x = _x_axis(results, options, series)
    facets = _facets(results, options, series, x)
    panels = _panel_labels(rows, facets)
    n_cols = min(_MAX_COLUMNS, len(panels))
    n_rows = math.ceil(len(panels) / n_cols)
    fig = Figure(figsize=(4.2 * n_cols + 1.2, 3.4 * n_rows + 0.6), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(n_rows, n_cols, sharey=True, squeeze=False).ravel()
    entry = registry_metric(metric)
    for ax, (title, mine) in zip(axes, panels.items(), strict=False):
        if x is not None:
            _lines(ax, mine, x, series, entry)
            ax.set_xlabel(option_label(x))
        else:
            _bars(ax, mine, [c for c in results.group_by if c != series and c not in facets], series, entry)
        if title:
            ax.set_title(title, fontsize="medium")
        if options.log_y:
            ax.set_yscale("log")
        ax.grid(True, alpha=0.3)
    for ax in axes[len(panels):]:
        ax.set_visible(False)
    for ax in axes[::n_cols]:
        ax.set_ylabel(entry.label)
    better = f"; {entry.better}" if entry.better else ""
    fig.suptitle(f"{entry.symbol}: mean and 95% CI over seeds{better}", fontsize="medium")
    if series is not None and len(panels):
        legend = {label: handle for ax in axes[:len(panels)]  # every panel's series, once each
                  for handle, label in zip(*ax.get_legend_handles_labels(), strict=True)}
        handles, labels = list(legend.values()), list(legend)
        if handles:
            fig.legend(handles, labels, title=series, loc="outside right center", fontsize="small")
    return fig


def write_results_plot(results: SweepResults, metric: str, path: str | Path,
                       options: PlotOptions | None = None) -> Path:
    """Draw `metric` (`results_figure`) into `path`, in the format its suffix names."""
    from fairsched.report.export import write_figure

    write_figure(results_figure(results, metric, options), path)
    return Path(path)


def results_table_text(results: SweepResults, fmt: str) -> str:
    """One row per group, one column per metric, ``mean ± CI`` (``csv``: ``<metric>`` and ``<metric>_ci95``)."""
    if fmt not in TABLE_FORMATS:
        raise ConfigError(f"--table {fmt!r}: choose one of {', '.join(TABLE_FORMATS)}")
    groups = list(results.group_by)
    keyed: dict[tuple[Any, ...], dict[str, tuple[float, float]]] = {}
    for row in results.rows.to_dict("records"):
        keyed.setdefault(tuple(row[c] for c in groups), {})[row["metric"]] = (row["mean"], row["ci95"])
    metrics = list(results.metrics)
    if fmt == "csv":
        import pandas as pd

        records = [{**dict(zip(groups, key, strict=True)),
                    **{f"{m}{suffix}": values.get(m, (math.nan, math.nan))[i] for m in metrics
                       for i, suffix in enumerate(("", "_ci95"))}} for key, values in keyed.items()]
        return pd.DataFrame.from_records(records).to_csv(index=False, lineterminator="\n")
    head = [option_label(c) for c in groups] + [registry_metric(m).label for m in metrics]
    body = [[option_text(v) for v in key] + [_mean_ci(*values.get(m, (math.nan, math.nan)), fmt) for m in metrics]
            for key, values in keyed.items()]
    if fmt == "markdown":
        lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" if i < len(groups) else "---:"
                                                               for i in range(len(head))) + "|"]
        lines += ["| " + " | ".join(cells) + " |" for cells in body]
        return "\n".join(lines) + "\n"
    align = "l" * len(groups) + "r" * len(metrics)
    lines = [f"\\begin{{tabular}}{{{align}}}", "\\toprule", " & ".join(_latex(h) for h in head) + " \\\\",
             "\\midrule"]
    lines += [" & ".join(_latex(c) if i < len(groups) else c for i, c in enumerate(cells)) + " \\\\"
              for cells in body]
    lines += ["\\bottomrule", "\\end{tabular}"]
    return "\n".join(lines) + "\n"


def option_text(value: Any) -> str:
    """An option's value in a table; ``n/a`` where it does not apply to the cell (None in its point, null in its
    rows: backfill's ``bf-*`` under another rule than ``slurm``, docs/sweeps.md).

    >>> option_text(None), option_text(3600), option_text("easy")
    ('n/a', '3600', 'easy')
    """
    import pandas as pd

    return "n/a" if value is None or (not isinstance(value, str | list | tuple) and pd.isna(value)) else str(value)


def _mean_ci(mean: float, ci: float, fmt: str) -> str:
    """``1.23 ± 0.04`` (markdown) or ``$1.23 \\pm 0.04$`` (LaTeX); the mean alone when n < 2."""
    if mean is None or (isinstance(mean, float) and math.isnan(mean)):
        return "–" if fmt == "markdown" else "--"
    text_mean, text_ci = f"{mean:.4g}", None if ci is None or math.isnan(ci) else f"{ci:.2g}"
    if fmt == "markdown":
        return text_mean if text_ci is None else f"{text_mean} ± {text_ci}"
    return f"${text_mean}$" if text_ci is None else f"${text_mean} \\pm {text_ci}$"


def _latex(text: str) -> str:
    replacements = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                    "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\^{}"}
    return "".join(replacements.get(ch, ch) for ch in str(text))


def _series(results: SweepResults, options: PlotOptions) -> str | None:
    if options.series is not None:
        _check_group(results, options.series, "--series")
        return options.series
    return "policy" if "policy" in results.group_by else None


def _x_axis(results: SweepResults, options: PlotOptions, series: str | None) -> str | None:
    if options.x is not None:
        _check_group(results, options.x, "--x")
        if options.x not in results.numeric:
            raise ConfigError(f"--x {options.x}: its values are not all numbers; numeric options grouped by: "
                              f"{', '.join(results.numeric) or 'none'}")
        return options.x
    return next((c for c in results.numeric if c != series), None)


def _facets(results: SweepResults, options: PlotOptions, series: str | None, x: str | None) -> list[str]:
    if options.facet is not None:
        _check_group(results, options.facet, "--facet")
        return [options.facet]
    rest = [c for c in results.group_by if c not in (series, x)]
    return rest if x is not None else []


def _check_group(results: SweepResults, name: str, flag: str) -> None:
    if name not in results.group_by:
        raise ConfigError(f"{flag} {name}: not a column grouped by; the groups are {', '.join(results.group_by)} "
                          "(choose them with --group-by)")


def _panel_labels(rows: Any, facets: list[str]) -> dict[str, Any]:
    if not facets:
        return {"": rows}
    panels: dict[str, Any] = {}
    for values, part in rows.groupby(facets, sort=False, dropna=False):
        values = values if isinstance(values, tuple) else (values,)
        panels[", ".join(f"{option_label(c)} = {v}" for c, v in zip(facets, values, strict=True))] = part
    return panels


def _band(entry: Any, mean: Any, ci: Any) -> tuple[list[float], list[float]]:
    """The 95 % interval mean ± ci clipped to the metric's bounds (NaN where there is none)."""
    low = [entry.clip(m - c) if not math.isnan(c) else math.nan for m, c in zip(mean, ci, strict=True)]
    high = [entry.clip(m + c) if not math.isnan(c) else math.nan for m, c in zip(mean, ci, strict=True)]
    return low, high


def _lines(ax: Any, rows: Any, x: str, series: str | None, entry: Any) -> None:
    """One line per series against `x`; a row whose `x` is null (the option does not apply to its cell, e.g.
    ``bf_window`` under ``easy``) is the same for every x: a dashed level with its band."""
    import pandas as pd

    at = pd.to_numeric(rows[x], errors="coerce").astype(float)
    groups = rows.groupby(series, sort=False) if series is not None else [(entry.symbol, rows)]
    for name, part in groups:
        part = part.assign(_x=at[part.index]).sort_values("_x", kind="stable")
        mean, ci = part["mean"].astype(float).tolist(), part["ci95"].astype(float).tolist()
        low, high = _band(entry, mean, ci)
        known = part["_x"].notna().tolist()
        pick = [i for i, ok in enumerate(known) if ok]
        (line,) = ax.plot(part["_x"][known], [mean[i] for i in pick], marker="o", markersize=4,
                          label=str(name) if pick else f"_{name}")  # "_": no legend entry for an empty line
        ax.fill_between(part["_x"][known], [low[i] for i in pick], [high[i] for i in pick], color=line.get_color(),
                        alpha=0.2, linewidth=0)
        for i in (i for i, ok in enumerate(known) if not ok):
            ax.axhline(mean[i], color=line.get_color(), linestyle="--", label=f"{name} ({option_label(x)} n/a)")
            if not math.isnan(low[i]):
                ax.axhspan(low[i], high[i], color=line.get_color(), alpha=0.1, linewidth=0)
    values = sorted(set(at.dropna().tolist()))
    if rows[x].dtype.kind in "iuO" and len(values) <= 12 and all(v == int(v) for v in values):  # no 2.5 tick
        ax.set_xticks(values)


def _bars(ax: Any, rows: Any, settings: list[str], series: str | None, entry: Any) -> None:
    label = rows[settings].astype(str).agg(", ".join, axis=1) if settings else rows["metric"]
    labels = list(dict.fromkeys(label))
    names = list(dict.fromkeys(rows[series])) if series else [entry.symbol]
    width = 0.8 / max(1, len(names))
    for i, name in enumerate(names):
        mine = rows[rows[series] == name] if series else rows
        mean, ci = mine["mean"].astype(float).tolist(), mine["ci95"].astype(float).tolist()
        low, high = _band(entry, mean, ci)
        below = [m - lo if not math.isnan(lo) else 0.0 for m, lo in zip(mean, low, strict=True)]
        above = [hi - m if not math.isnan(hi) else 0.0 for m, hi in zip(mean, high, strict=True)]
        x = [labels.index(v) + (i - (len(names) - 1) / 2) * width for v in label[mine.index]]
        ax.bar(x, mean, width, yerr=[below, above], capsize=3, label=str(name))
    ax.set_xticks(range(len(labels)), labels, rotation=30 if len(labels) > 4 else 0,
                  ha="right" if len(labels) > 4 else "center")
    ax.set_xlabel(", ".join(option_label(c) for c in settings))
