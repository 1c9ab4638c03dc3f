"""The compare report's figure: how much each policy favours or harms each organization, against the reference.

One group of bars per organization, one bar per policy: (psi_u - psi*_u) / p_tot, the seconds by which the
policy speeds up (> 0) or delays (< 0) an average unit of the organization's work compared with the reference
(Skowron & Rzadca, SPAA'13 Sec. 6.3; PPAM'13 Sec. 5.1 sum the absolute values of these bars into Delta psi / p_tot).

Uses matplotlib's object API with the Agg canvas: no pyplot, so no global figure state and no display needed.
"""

from __future__ import annotations

import io

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from fairsched.experiment import CompareResult
from fairsched.report.tables import org_deviation

# Beyond this many organizations, tick labels are thinned out so that they stay legible.
MAX_LABELLED_ORGS = 24
DPI = 120


def utility_figure(result: CompareResult) -> Figure:
    """Grouped bars of (psi_u - psi*_u) / p_tot per organization and policy (the reference, all zeros, omitted)."""
    others = [outcome for name, outcome in result.policies.items() if name != result.reference]
    k = result.scenario.n_orgs
    width_in = float(np.clip(2.0 + 0.35 * k * max(len(others), 1), 7.0, 18.0))
    fig = Figure(figsize=(width_in, 4.8), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    x = np.arange(k)
    bar_width = 0.8 / max(len(others), 1)
    for i, outcome in enumerate(others):
        label = rf"{outcome.name}  ($\Delta\psi/p_{{tot}}$ = {_fmt(outcome.fairness.delta_psi_over_ptot)} s)"
        ax.bar(x - 0.4 + (i + 0.5) * bar_width, org_deviation(outcome, result), width=bar_width, label=label)
    ax.axhline(0.0, color="black", linewidth=0.8)
    _label_orgs(ax, result)
    ax.set_ylabel(r"$(\psi_u - \psi^*_u)\,/\,p_{tot}$   [s per unit of work]")
    ax.set_title(f"Per-organization utility relative to {result.reference} at t_end = {result.t_end:,} s\n"
                 f"{_subtitle(result)}", fontsize=10)
    if others:
        ax.legend(fontsize=8, loc="best", title="> 0 favoured, < 0 harmed", title_fontsize=8)
    else:
        ax.text(0.5, 0.5, f"only the reference ({result.reference}) was run: nothing to compare",
                transform=ax.transAxes, ha="center", va="center")
    ax.grid(axis="y", linewidth=0.4, alpha=0.6)
    return fig


def utility_png(result: CompareResult) -> bytes:
    """`utility_figure` rendered as PNG bytes (written atomically by `fairsched.report.export`)."""
    buffer = io.BytesIO()
    utility_figure(result).savefig(buffer, format="png")
    return buffer.getvalue()


def _label_orgs(ax, result: CompareResult) -> None:
    k = result.scenario.n_orgs
    machines = result.scenario.machines_per_org
    step = max(1, int(np.ceil(k / MAX_LABELLED_ORGS)))
    ticks = np.arange(0, k, step)
    ax.set_xticks(ticks, [f"org {u}\n{machines[u]} machine{'s' if machines[u] != 1 else ''}" for u in ticks],
                  fontsize=8)
    ax.set_xlim(-0.6, k - 0.4)
    ax.set_xlabel("organization (and the machines it contributes)")


def _subtitle(result: CompareResult) -> str:
    source = result.scenario.source or "hand-made scenario"
    if len(source) > 90:
        source = "…" + source[-89:]
    return (f"{source}; k = {result.scenario.n_orgs}, m = {result.scenario.n_machines}, "
            f"p_tot = {result.p_tot:,}, seed = {result.config.seed}")


def _fmt(value: float) -> str:
    if not np.isfinite(value):
        return "-"
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"
