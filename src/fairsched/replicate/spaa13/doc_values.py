"""The claims of docs/replication/spaa13.md's prose (`VALUES`: NAME -> renderer), each computed from the files that
``python -m fairsched.replicate.spaa13.doc`` ships to ``docs/replication/data``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from fairsched.replicate._doc_format import fmt
from fairsched.replicate.spaa13.doc import (
    RUN_FILE,
    SPANS_FILE,
    TIE_S,
    fig_rows,
    load_windows,
    mean_ratio,
    paper_table,
    points_leader,
    points_versus,
    reverse_measures,
    span_text,
    table_frame,
    verdict_holding,
    verdict_where,
    versus,
    wide,
)

__all__ = ["VALUES", "spec_cells", "spec_values"]


# ------------------------------------------------------------------------------------------------ prose claims
# Each returns the words of one claim of the doc's prose, so a result file that stops supporting it makes the doc
# stale (tests/test_replication_doc_tables.py) instead of wrong.

CLOSE = 0.10  # "close": within 10 % of the larger of two means


def _traces_phrase(hits: list[str], among: list[str]) -> str:
    if not hits:
        return "on neither trace" if len(among) == 2 else "on no trace"
    if hits == among:
        return "on both traces" if len(among) == 2 else "on every trace"
    return "on " + " and ".join(hits) + " only"


def _traces_where(data: Path, split: str, test: Callable[[Callable[[str], float]], bool]) -> str:
    """The traces of the table where `test(mean)` holds, `mean(policy)` being the trace's mean for `split`."""
    table = table_frame(data)
    traces = list(dict.fromkeys(table["trace"]))
    hits = [t for t in traces if test(lambda policy, t=t: mean_ratio(table, policy, trace=t, split=split))]
    return _traces_phrase(hits, traces)


def _close(x: float, y: float) -> bool:
    return abs(x - y) <= CLOSE * max(abs(x), abs(y))


def paper_order(data: Path) -> str:
    """Traces where the uniform split gives the paper's order RAND (N=15) < DIRECTCONTR < ROUNDROBIN."""
    return _traces_where(data, "uniform", lambda m: m("RAND (N=15)") < m("DIRECTCONTR") < m("ROUNDROBIN"))


def beside_paper(data: Path, trace: str, policy: str) -> str:
    """"160.7 against the paper's 161" (the table, uniform split)."""
    paper = paper_table()[trace][policy][0]
    ours = mean_ratio(table_frame(data), policy, trace=trace, split="uniform")
    return f"{fmt(ours, 1)} against the paper's {paper:g}"


def over_paper(data: Path, trace: str, policy: str) -> str:
    """Our uniform mean over the paper's, "3.3"."""
    paper = paper_table()[trace][policy][0]
    return f"{mean_ratio(table_frame(data), policy, trace=trace, split='uniform') / paper:.1f}"


def fig_ratio(data: Path, a: str, b: str, split: str | None = None) -> str:
    """Mean of `a` over the mean of `b` on all points of the figures (one split, if given): "64"."""
    fig = fig_rows(load_windows(data))
    where = {} if split is None else {"split": split}
    ratio = mean_ratio(fig, a, **where) / mean_ratio(fig, b, **where)
    return f"{ratio:.2g}" if ratio < 10 else f"{ratio:,.0f}"


def fig_mean(data: Path, policy: str, k_min: int = 2) -> str:
    fig = fig_rows(load_windows(data))
    return fmt(float(fig.loc[(fig["policy"] == policy) & (fig["orgs"] >= k_min), "ratio"].mean()), 1)


def fig_splits(data: Path, a: str, b: str) -> str:
    """The splits under which `a`'s mean over the figures' points is below `b`'s."""
    fig = fig_rows(load_windows(data))
    hits = [s for s in ("uniform", "zipf") if mean_ratio(fig, a, split=s) < mean_ratio(fig, b, split=s)]
    return {0: "with neither split", 2: "with both splits"}.get(len(hits), f"with the {hits[0]} split only")


def fig_max_median(data: Path, policies: tuple[str, ...] = ("RAND (N=15)", "RAND (N=75)", "DIRECTCONTR")) -> str:
    """The largest median over the figures' runs among `policies`, in seconds."""
    fig = fig_rows(load_windows(data))
    return fmt(max(float(fig.loc[fig["policy"] == p, "ratio"].median()) for p in policies), 1)


def above_from(data: Path, policy: str, other: str = "ROUNDROBIN") -> str:
    """The smallest k from which `policy`'s mean over the figures' configurations stays above `other`'s ("no k"
    if it never does)."""
    fig = fig_rows(load_windows(data))
    by_k = fig.pivot_table(index="orgs", columns="policy", values="ratio", aggfunc="mean")
    above = by_k[policy] > by_k[other]
    ks = [k for k in by_k.index if above.loc[k:].all()]
    return f"k = {ks[0]}" if ks else "no k"


def k2_outlier(data: Path, policy: str = "RAND (N=15)") -> str:
    """At k = 2: the largest run of `policy` and how many times the next largest it is."""
    fig = fig_rows(load_windows(data))
    runs = fig.loc[(fig["orgs"] == 2) & (fig["policy"] == policy), "ratio"].sort_values(ascending=False)
    top, second = float(runs.iloc[0]), float(runs.iloc[1])
    times = f"{top / second:,.0f} times the next largest" if second > TIE_S else "every other run is at 0"
    return f"{fmt(top, 0)} s, {times}"


def runs_versus(data: Path, a: str, b: str) -> str:
    """Runs (one seed of one point) of the figures where `a` is fairer, where `b` is, and ties."""
    return versus(wide(fig_rows(load_windows(data)), ["machines", "split", "orgs"]), a, b)


def table_cells_worse(data: Path, a: str, b: str) -> str:
    """"all 4": the (trace, split) cells of the table where `a`'s mean is above `b`'s."""
    table = table_frame(data)
    cells = list(dict.fromkeys(zip(table["trace"], table["split"], strict=True)))
    hits = sum(mean_ratio(table, a, trace=t, split=s) > mean_ratio(table, b, trace=t, split=s) for t, s in cells)
    return f"all {len(cells)}" if hits == len(cells) else f"{hits} of the {len(cells)}"


def contended_pairs(data: Path, split: str, a: str, b: str) -> str:
    """Per trace: windows where `a` is fairer than `b`, of the windows where they differ: "56 of the 70 LPC-EGEE
    windows"."""
    table = table_frame(data)
    pairs = wide(table[table["split"] == split], ["trace", "split"])
    parts = []
    for trace, group in pairs.groupby("trace", sort=False):
        diff = group[a] - group[b]
        parts.append(f"{int((diff < -TIE_S).sum())} of the {int((diff.abs() > TIE_S).sum())} {trace} windows")
    return " and ".join(parts)


def without_k2(data: Path, a: str, b: str) -> str:
    """Whether `b`'s figure average stays below `a`'s without k = 2, with both means."""
    fig = fig_rows(load_windows(data))
    three = fig[fig["orgs"] >= 3]
    mean_a, mean_b = mean_ratio(three, a), mean_ratio(three, b)
    word = "also" if mean_b < mean_a else "but not"
    return f"{word} without k = 2 ({a} {fmt(mean_a, 1)} against {b} {fmt(mean_b, 1)})"


def seeds_per_point(data: Path) -> str:
    fig = fig_rows(load_windows(data))
    return span_text(fig.groupby(["table", "machines", "split", "orgs"])["window"].nunique())


def run_time(data: Path) -> str:
    """The shipped run's wall and CPU time and how many of its cells it simulated (`ship` writes the file)."""
    info = pd.read_csv(data / RUN_FILE).iloc[0]
    return (f"{info['wall_s']:,.0f} s wall, {info['user_s'] + info['sys_s']:,.0f} s CPU (user + sys) for the "
            f"{int(info['cells_simulated'])} cells it simulated; the other {int(info['cells_resumed'])} of its "
            f"{int(info['cells_simulated'] + info['cells_resumed'])} cells were read back from an earlier run's "
            "stores")


def _power_of_ten(value: float) -> str:
    """2.1·10^7, the doc's way of writing a large round number."""
    exponent = math.floor(math.log10(value))
    return f"{value / 10 ** exponent:.1f}·10^{exponent}"


def disjoint_windows(data: Path) -> str:
    """Whether the table's windows per trace, end to end, fit in the trace's span ("can" / "cannot be in traces
    spanning 2.1·10^7 s (LPC-EGEE) and ...": `SPANS_FILE`)."""
    from fairsched.replicate.spaa13.paper import TABLE_LENGTH

    spans = pd.read_csv(data / SPANS_FILE).set_index("trace")["span_s"]
    windows = table_frame(data).groupby("trace")["window"].nunique()
    fit = all(windows[trace] * TABLE_LENGTH <= span for trace, span in spans.items())
    listed = " and ".join(f"{_power_of_ten(span)} s ({trace})" for trace, span in spans.items())
    return f"{'can' if fit else 'cannot'} be in traces spanning {listed}"


def _paper_fig(policy: str) -> str:
    from fairsched.replicate.spaa13.paper import PAPER_FIG

    return f"{PAPER_FIG[policy][0]:g}"


_PAPER_POLICIES = ("RAND (N=15)", "DIRECTCONTR", "ROUNDROBIN")
VALUES = {
    "spaa13-seeds": seeds_per_point,
    "spaa13-run-time": run_time,
    "spaa13-table-paper-order": paper_order,
    "spaa13-table-lpc-rand": lambda data: beside_paper(data, "LPC-EGEE", "RAND (N=15)"),
    "spaa13-table-uniform-dc-utfs-close": lambda data: _traces_where(
        data, "uniform", lambda m: _close(m("DIRECTCONTR"), m("UTFAIRSHARE"))),
    "spaa13-table-uniform-fs-ahead": lambda data: _traces_where(
        data, "uniform", lambda m: m("FAIRSHARE") < m("DIRECTCONTR")),
    "spaa13-table-ricc-dc-over-paper": lambda data: over_paper(data, "RICC", "DIRECTCONTR"),
    "spaa13-table-zipf-dc-utfs-apart": lambda data: _traces_where(
        data, "zipf", lambda m: not _close(m("DIRECTCONTR"), m("UTFAIRSHARE"))),
    "spaa13-table-zipf-dc-ahead": lambda data: _traces_where(
        data, "zipf", lambda m: m("DIRECTCONTR") < m("FAIRSHARE")),
    "spaa13-table-zipf-dc-ahead-windows": lambda data: contended_pairs(data, "zipf", "DIRECTCONTR", "FAIRSHARE"),
    "spaa13-table-zipf-rand-fairest": lambda data: _traces_where(
        data, "zipf", lambda m: all(m("RAND (N=15)") < m(p) for p in _PAPER_POLICIES[1:])),
    "spaa13-printed-15-ratio": lambda data: fig_ratio(data, "RAND printed (N=15)", "RAND (N=15)"),
    "spaa13-printed-75-ratio": lambda data: fig_ratio(data, "RAND printed (N=75)", "RAND (N=75)"),
    "spaa13-table-printed-worse": lambda data: table_cells_worse(data, "RAND printed (N=15)", "RAND (N=15)"),
    "spaa13-printed-15-above-rr": lambda data: above_from(data, "RAND printed (N=15)"),
    "spaa13-printed-75-above-rr": lambda data: above_from(data, "RAND printed (N=75)"),
    "spaa13-paper-rand": lambda data: f"{_paper_fig('RAND (N=15)')} and {_paper_fig('RAND (N=75)')}",
    "spaa13-paper-dc": lambda data: _paper_fig("DIRECTCONTR"),
    "spaa13-paper-rr": lambda data: _paper_fig("ROUNDROBIN"),
    "spaa13-paper-rand-15": lambda data: _paper_fig("RAND (N=15)"),
    "spaa13-paper-rand-75": lambda data: _paper_fig("RAND (N=75)"),
    "spaa13-table-windows": lambda data: span_text(table_frame(data).groupby(["trace", "split"])["window"].nunique()),
    "spaa13-table-disjoint": disjoint_windows,
    "spaa13-rand-k3": lambda data: f"{fig_mean(data, 'RAND (N=15)', 3)} and {fig_mean(data, 'RAND (N=75)', 3)}",
    "spaa13-printed-k3": lambda data: (f"{fig_mean(data, 'RAND printed (N=15)', 3)} and "
                                       f"{fig_mean(data, 'RAND printed (N=75)', 3)}"),
    "spaa13-rr-over-rand": lambda data: fig_ratio(data, "ROUNDROBIN", "RAND (N=15)"),
    "spaa13-rr-over-dc": lambda data: fig_ratio(data, "ROUNDROBIN", "DIRECTCONTR"),
    "spaa13-rr-mean": lambda data: f"{fig_mean(data, 'ROUNDROBIN')} against the paper's {_paper_fig('ROUNDROBIN')}",
    "spaa13-dc-below-rand15": lambda data: fig_splits(data, "DIRECTCONTR", "RAND (N=15)"),
    "spaa13-dc-below-rand75": lambda data: fig_splits(data, "DIRECTCONTR", "RAND (N=75)"),
    "spaa13-dc-over-rand75": lambda data: fig_ratio(data, "DIRECTCONTR", "RAND (N=75)"),
    "spaa13-max-median": fig_max_median,
    "spaa13-k2-outlier": k2_outlier,
    "spaa13-points-rand-dc": lambda data: points_versus(data, "RAND (N=15)", "DIRECTCONTR"),
    "spaa13-runs-rand-dc": lambda data: runs_versus(data, "RAND (N=15)", "DIRECTCONTR"),
    "spaa13-points-rand75-rand15": lambda data: points_versus(data, "RAND (N=75)", "RAND (N=15)"),
    "spaa13-verdict-holding": lambda data: verdict_holding(data, (0, 1, 3)),
    "spaa13-verdict-rand-dc": lambda data: verdict_where(data, 2),
    "spaa13-verdict-reverse": reverse_measures,
    "spaa13-points-leader-rand-dc": lambda data: points_leader(data, "RAND (N=15)", "DIRECTCONTR"),
    "spaa13-without-k2-rand-dc": lambda data: without_k2(data, "RAND (N=15)", "DIRECTCONTR"),
    "spaa13-paper-dc-over-ours": lambda data: (
        f"{float(_paper_fig('DIRECTCONTR')) / mean_ratio(fig_rows(load_windows(data)), 'DIRECTCONTR'):.1f}"),
}


def spec_cells(name: str, axes: tuple[str, ...]) -> str:
    """A shipped spec's cell count as its factors, "4 × 2 × 9 × 10 = 720": the ``[[zip]]`` blocks' length (the
    configurations), then `axes` of ``[grid]`` in the order given."""
    from fairsched.replicate._common import SPECS_DIR
    from fairsched.sweep import load_spec

    spec = load_spec(SPECS_DIR / name)
    factors = [len(next(iter(block.values()))) for block in spec.zips] + [len(spec.grid[a]) for a in axes]
    return f"{' × '.join(map(str, factors))} = {len(spec.points()) * len(spec.seeds)}"


def spec_values(name: str, axis: str) -> str:
    """One axis of a shipped spec: a ``[grid]`` axis's values ("2, 4, 6, 8, 10", their count for
    ``first-window``), or a ``[base]`` value."""
    from fairsched.replicate._common import SPECS_DIR
    from fairsched.sweep import load_spec

    spec = load_spec(SPECS_DIR / name)
    if axis not in spec.grid:
        return str(spec.base[axis])
    values = spec.grid[axis]
    return str(len(values)) if axis == "first-window" else ", ".join(map(str, values))


def _chunk(data: Path) -> str:
    from fairsched.replicate.spaa13.paper import CHUNK

    return str(CHUNK)


VALUES.update({
    "spaa13-figs-cells": lambda data: spec_cells("spaa13-figs.toml", ("split", "orgs", "first-window")),
    "spaa13-table-cells": lambda data: spec_cells("spaa13-table.toml", ("trace", "split", "first-window")),
    "spaa13-table-chunk": _chunk,
    "spaa13-quick-ks": lambda data: spec_values("spaa13-figs-quick.toml", "orgs"),
    "spaa13-quick-seeds": lambda data: spec_values("spaa13-figs-quick.toml", "first-window"),
    "spaa13-quick-windows": lambda data: spec_values("spaa13-table-quick.toml", "windows"),
})



def _max_over_paper(policy: str) -> Callable[[Path], str]:
    """Our largest Δψ/p_tot over every run of Figs. 4–5 as a share of the paper's stated maximum: ``0.15``."""
    from fairsched.replicate.spaa13.doc import PAPER_FIG_MAX

    def render(data: Path) -> str:
        fig = fig_rows(load_windows(data))
        return fmt(float(fig.loc[fig["policy"] == policy, "ratio"].max()) / PAPER_FIG_MAX[policy], 2)
    return render


VALUES.update({
    "spaa13-max-over-paper-rr": _max_over_paper("ROUNDROBIN"),
    "spaa13-max-over-paper-dc": _max_over_paper("DIRECTCONTR"),
    "spaa13-max-over-paper-rand": _max_over_paper("RAND (N=75)"),
})
