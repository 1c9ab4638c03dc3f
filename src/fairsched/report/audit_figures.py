"""The figures of an audit's report.html (`fairsched.report.audit`): subsidies, contribution against utility,
usage and fair-share over calendar time, dominant shares as a rolling mean, waits, and the rolling windows.

Time axes show calendar dates in the log's time zone (SWF ``TimeZoneString``; a sacct log's local times as
written), or seconds of the log's clock when the log gives no start date. Every figure is drawn on its own
`matplotlib.figure.Figure` (no pyplot state), so nothing is left open and nothing is printed on stderr.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from fairsched.audit import AuditResult
from fairsched.report.html import Figure

SIZE = (7.5, 3.2)
DPI = 100
MAX_LINES = 12  # organizations drawn one line each; beyond, the ones with the most usage (the page says so)
ROLLING_POINTS = 12  # the dominant-share curve is a rolling mean over 1/12 of the window


def audit_figures(result: AuditResult) -> list[Figure]:
    """Every figure of the page, in page order."""
    figures = [_subsidies(result), _contribution(result)]
    figures += _over_time(result)
    figures.append(_dominant(result))
    figures.append(_waits(result))
    if result.windows is not None and len(result.windows):
        figures.append(_windows(result))
    return figures


def _figure() -> tuple[Any, Any]:
    from matplotlib.figure import Figure as MplFigure

    fig = MplFigure(figsize=SIZE, dpi=DPI, layout="constrained")
    return fig, fig.add_subplot()


def _encode(title: str, fig: Any, caption: str = "") -> Figure:
    return Figure.from_matplotlib(title, fig, caption=caption)


def zone_label(s: dict[str, Any]) -> str:
    """How the page names the time zone of the log's dates."""
    return s.get("time_zone") or "the log's local time, as written"


def log_dates(s: dict[str, Any], seconds: np.ndarray) -> Any:
    """Calendar dates of log times in the log's time zone (naive datetimes), or the seconds when the log has no
    UnixStartTime."""
    if s.get("origin_epoch") is None:
        return seconds
    moments = pd.to_datetime(np.asarray(seconds, dtype=np.float64) + s["origin_epoch"], unit="s", utc=True)
    if s.get("time_zone"):  # a zone the library checked (fairsched.audit.log)
        moments = moments.tz_convert(s["time_zone"])
    return moments.tz_localize(None).to_pydatetime()


def _time_axis(result: AuditResult, ax: Any, seconds: np.ndarray) -> Any:
    """x values for log times (calendar dates when the log has a start date) and the axis label."""
    x = log_dates(result.summary, seconds)
    if isinstance(x, np.ndarray) and x.dtype.kind == "f":
        ax.set_xlabel("seconds of the log's clock")
        return x
    import matplotlib.dates as mdates

    locator = mdates.AutoDateLocator()
    ax.xaxis.set_major_locator(locator)
    ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(locator))
    ax.set_xlabel(f"date ({zone_label(result.summary)})")
    return x


def _shown_orgs(result: AuditResult) -> tuple[list[str], str]:
    orgs = result.orgs.sort_values(["usage", "org"], ascending=[False, True])
    names = orgs["org"].tolist()
    if len(names) <= MAX_LINES:
        return sorted(names), ""
    return sorted(names[:MAX_LINES]), f"The {MAX_LINES} organizations with the most usage of {len(names)} are drawn."


def _legend(ax: Any, n: int) -> None:
    if n:
        ax.legend(fontsize=7, ncol=1 if n <= 6 else 2, loc="best")


def _subsidies(result: AuditResult) -> Figure:
    orgs = result.orgs
    fig, ax = _figure()
    hours = orgs["subsidy_cpu_hours"].to_numpy(np.float64)
    colors = ["#2a7ab0" if h >= 0 else "#c0504d" for h in np.nan_to_num(hours)]
    ax.bar(np.arange(len(orgs)), np.nan_to_num(hours), color=colors)
    ax.axhline(0, color="#444", linewidth=0.8)
    ax.set_xticks(np.arange(len(orgs)), orgs["org"].tolist(), rotation=30, ha="right")
    ax.set_ylabel("CPU-hours received (+) / given (−)")
    return _encode("Who subsidized whom, in CPU-hours", fig,
                   caption="Blue: received more than its share of the contribution; red: gave to the others.")


def _contribution(result: AuditResult) -> Figure:
    orgs = result.orgs
    fig, ax = _figure()
    x = np.arange(len(orgs))
    ax.bar(x - 0.2, orgs["psi"].astype(float), 0.4, label="ψ (recorded utility)")
    phi = orgs["phi"].to_numpy(np.float64)
    err = np.nan_to_num(np.vstack([phi - orgs["phi_low"].to_numpy(np.float64),
                                   orgs["phi_high"].to_numpy(np.float64) - phi]))
    ax.bar(x + 0.2, np.nan_to_num(phi), 0.4, label="φ (Shapley contribution)", yerr=err)
    ax.set_xticks(x, orgs["org"].tolist(), rotation=30, ha="right")
    ax.set_ylabel("ψsp at the end (unit·s)")
    ax.legend(fontsize=8)
    return _encode("Contribution against utility", fig,
                   caption="Bars above their φ: the organization got more than it brought.")


def _over_time(result: AuditResult) -> list[Figure]:
    usage = result.usage_over_time
    entitled = dict(zip(result.orgs["org"], result.orgs["entitled_share"], strict=True))
    shown, note = _shown_orgs(result)
    figures = []
    for column, title, ylabel in (("usage_share", "Usage share over time against the entitled share (dashed)",
                                   "cumulative usage share"),
                                  ("fairshare_factor", "Slurm classic fair-share factor over time",
                                   "F = 2^(−U/S)")):
        fig, ax = _figure()
        for i, org in enumerate(shown):
            part = usage[usage["org"] == org]
            x = _time_axis(result, ax, part["time"].to_numpy(np.float64))
            line, = ax.plot(x, part[column].to_numpy(np.float64), label=str(org), color=f"C{i % 10}")
            if column == "usage_share":
                ax.axhline(entitled[org], color=line.get_color(), linestyle="--", linewidth=0.8)
        ax.set_ylabel(ylabel)
        _legend(ax, len(shown))
        figures.append(_encode(title, fig, caption=note))
    return figures


def _dominant(result: AuditResult) -> Figure:
    frame = result.dominant_over_time
    shown, note = _shown_orgs(result)
    fig, ax = _figure()
    times = np.unique(frame["time"].to_numpy(np.float64))
    points = max(1, times.size // ROLLING_POINTS)
    span = float(times[-1] - times[0]) if times.size > 1 else 0.0
    window = span * points / max(times.size - 1, 1)
    for i, org in enumerate(shown):
        part = frame[frame["org"] == org]
        smooth = pd.Series(part["dominant_share"].to_numpy(np.float64)).rolling(points, min_periods=1,
                                                                                center=True).mean()
        x = _time_axis(result, ax, part["time"].to_numpy(np.float64))
        ax.plot(x, smooth.to_numpy(), label=str(org), color=f"C{i % 10}", linewidth=1.2)
    ax.set_ylabel("DRF dominant share (rolling mean)")
    ax.set_ylim(bottom=0)
    _legend(ax, len(shown))
    return _encode("Dominant shares over time", fig,
                   caption=f"Rolling mean over {_duration(window)} ({points} steps) of each organization's "
                           "largest share of the CPUs, memory and GPUs in use. " + note)


def _duration(seconds: float) -> str:
    if seconds >= 2 * 86400:
        return f"{seconds / 86400:,.1f} days"
    if seconds >= 2 * 3600:
        return f"{seconds / 3600:,.1f} hours"
    return f"{seconds:,.0f} s"


def _waits(result: AuditResult) -> Figure:
    fig, ax = _figure()
    jobs = result.jobs.dropna(subset=["wait"])
    shown, note = _shown_orgs(result)
    drawn = 0
    for org in shown:
        part = jobs[jobs["org"] == org]
        if part.empty:
            continue
        wait = np.sort(part["wait"].to_numpy(np.float64))
        ax.step(np.maximum(wait, 1), np.arange(1, wait.size + 1) / wait.size, where="post", label=str(org))
        drawn += 1
    ax.set_xscale("log")
    ax.set_xlabel("wait (s, log scale; 0 shown at 1)")
    ax.set_ylabel("fraction of jobs")
    _legend(ax, drawn)
    return _encode("Wait CDF per organization", fig, caption=note)


def _windows(result: AuditResult) -> Figure:
    windows = result.windows
    fig, ax = _figure()
    shown, note = _shown_orgs(result)
    for i, org in enumerate(shown):
        part = windows[windows["org"] == org]
        if part.empty:
            continue
        x = _time_axis(result, ax, part["window_start"].to_numpy(np.float64))
        ax.plot(x, part["gap_rel"].to_numpy(np.float64), marker="o", label=str(org), color=f"C{i % 10}")
    ax.axhline(0, color="#444", linewidth=0.8)
    ax.yaxis.set_major_formatter(_percent_formatter())
    ax.set_ylabel("ψ vs its share of the contribution")
    _legend(ax, len(shown))
    return _encode("Rolling windows: received (+) or gave (−), relative to its contribution", fig,
                   caption="One point per window (--every), at its start; each window is audited on its own. "
                           + note)


def _percent_formatter() -> Any:
    from matplotlib.ticker import PercentFormatter

    return PercentFormatter(xmax=1.0)
