"""SPAA'13 §6.3: the tables and figures of docs/replication/spaa13.md, rendered from one result file.

``docs/replication/data/spaa13_windows.csv`` holds one row per (point, window, policy) of the run: ``table``
(fig4, fig5 or table), ``trace``, ``split``, ``orgs``, ``machines``, ``window`` (for the figures: the scenario seed's
index), ``policy``, ``ratio`` (Δψ/p_tot against REF, seconds). Every table of the doc and both figures are
computed from it here, so no number of the doc is typed by hand.

Regenerate (the run is resumable: its cells are kept in ``results/spaa13/sweep``)::

    fairsched replicate spaa13 --workers 2 --out results/spaa13   # shipped: the full run, 10 seeds per point
    python -m fairsched.replicate._spaa13_doc results/spaa13/spaa13_windows.csv
    python -m fairsched.replicate._doc_tables docs/replication/spaa13.md

The second command copies the per-window table into ``docs/replication/data`` (the columns above), the run's wall
and CPU time into ``spaa13_run.csv`` when the run's directory has a GNU time log (`ship_run_time`), and draws
``docs/img/spaa13-fig45.png`` and ``docs/img/spaa13-table.png`` from the table; it also writes the table traces'
spans (first to last submit) into ``spaa13_trace_spans.csv`` (``--trace-spans`` rewrites only that file). `VALUES`
renders the claims of the doc's prose from these files.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from fairsched._io import atomic_write
from fairsched.replicate._doc_format import fmt, markdown_table

__all__ = ["COLUMNS", "TABLES", "VALUES", "figures", "ship"]

FILE = "spaa13_windows.csv"
COLUMNS = ("table", "trace", "split", "orgs", "machines", "window", "policy", "ratio")
IMG_DIR = Path("docs/img")
FIG_PARTS = ("fig4", "fig5")
TABLE_POLICIES = ("RAND (N=15)", "DIRECTCONTR", "ROUNDROBIN", "FAIRSHARE", "UTFAIRSHARE", "RAND printed (N=15)")
FIG_POLICIES = ("ROUNDROBIN", "RAND (N=15)", "RAND (N=75)", "DIRECTCONTR", "RAND printed (N=15)",
                "RAND printed (N=75)")
TIE_S = 1e-9  # Δψ/p_tot within this (s) of each other count as a tie


def _load(data: Path) -> pd.DataFrame:
    return pd.read_csv(data / FILE)


def _cell(values: pd.Series) -> str:
    if values.empty:
        return "—"
    std = values.std(ddof=1) if len(values) > 1 else math.nan
    return f"{fmt(values.mean(), 1)} ({fmt(std, 1)})"


def _paper_table() -> dict[str, dict[str, tuple[float, float]]]:
    from fairsched.replicate.spaa13 import PAPER_TABLE

    return PAPER_TABLE


def table_workloads(data: Path) -> str:
    """§6.3.2: mean (std) of Δψ/p_tot per trace and policy, the paper beside ours with each split."""
    frame = _load(data)
    table = frame[frame["table"] == "table"]
    paper = _paper_table()
    rows = []
    for trace in dict.fromkeys(table["trace"]):
        for policy in TABLE_POLICIES:
            mine = table[(table["trace"] == trace) & (table["policy"] == policy)]
            cells = [_cell(mine.loc[mine["split"] == split, "ratio"]) for split in ("uniform", "zipf")]
            mean, std = paper.get(trace, {}).get(policy, (None, None))
            rows.append([trace, policy, "—" if mean is None else f"{mean:g} ({std:g})", *cells])
    windows = table.groupby(["trace", "split"])["window"].nunique()
    note = (f"Windows per (trace, split): {', '.join(f'{t} {s} {n}' for (t, s), n in windows.items())}; "
            "5 organizations; Δψ/p_tot in seconds, mean (sample std).\n\n")
    return note + markdown_table(["trace", "policy", "paper (uniform)", "ours, uniform", "ours, Zipf"], rows,
                                 "llrrr")


def _wide(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    return frame.pivot_table(index=[*keys, "window"], columns="policy", values="ratio").reset_index()


def _versus(wide: pd.DataFrame, a: str, b: str) -> str:
    """"a / b / ties": windows where a is fairer, where b is, and where they tie."""
    diff = wide[a] - wide[b]
    return f"{int((diff < -TIE_S).sum())} / {int((diff > TIE_S).sum())} / {int((diff.abs() <= TIE_S).sum())}"


def table_pairs(data: Path) -> str:
    """§6.3.2 window by window: contention, and which of two policies is fairer (a / b / ties)."""
    frame = _load(data)
    wide = _wide(frame[frame["table"] == "table"], ["trace", "split"])
    rows = []
    for (trace, split), group in wide.groupby(["trace", "split"], sort=False):
        policies = [p for p in TABLE_POLICIES if p in group]
        contended = int((group[policies].abs() > TIE_S).any(axis=1).sum())
        rows.append([trace, split, len(group), contended, _versus(group, "RAND (N=15)", "DIRECTCONTR"),
                     _versus(group, "DIRECTCONTR", "FAIRSHARE"), _versus(group, "DIRECTCONTR", "UTFAIRSHARE"),
                     _versus(group, "RAND (N=15)", "RAND printed (N=15)")])
    return markdown_table(["trace", "split", "windows", "any policy ≠ REF", "RAND / DC / tie", "DC / FS / tie",
                           "DC / UTFS / tie", "RAND / RAND printed / tie"], rows, "llrrrrrr")


def _figs(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[frame["table"].isin(FIG_PARTS)]


def table_fig_average(data: Path) -> str:
    """§6.3.1: the averages over every point of Figs. 4–5 (the only numbers the paper gives), by split."""
    from fairsched.replicate.spaa13 import PAPER_FIG

    fig = _figs(_load(data))
    rows = []
    for policy in FIG_POLICIES:
        mine = fig[fig["policy"] == policy]
        paper = PAPER_FIG.get(policy, (None, None))[0]
        rows.append([policy, "—" if paper is None else f"{paper:g}", _cell(mine["ratio"]),
                     fmt(mine["ratio"].median(), 1), fmt(mine.loc[mine["orgs"] > 2, "ratio"].mean(), 1),
                     fmt(mine.loc[mine["split"] == "uniform", "ratio"].mean(), 1),
                     fmt(mine.loc[mine["split"] == "zipf", "ratio"].mean(), 1)])
    seeds = fig.groupby(["table", "machines", "split", "orgs"])["window"].nunique()
    ks = sorted(fig["orgs"].unique())
    note = (f"{len(fig[fig['policy'] == FIG_POLICIES[0]])} runs: {fig.groupby(['machines', 'split']).ngroups} "
            f"configurations (machines × split) × k ∈ {{{', '.join(map(str, ks))}}} × "
            f"{_span(seeds)} seeds per point.\n\n")
    return note + markdown_table(["policy", "paper: mean", "ours: mean (std)", "ours: median", "ours: k ≥ 3",
                                  "ours: uniform", "ours: Zipf"], rows, "lrrrrrr")


def _span(values: pd.Series) -> str:
    low, high = int(values.min()), int(values.max())
    return str(low) if low == high else f"{low}–{high}"


def table_k2(data: Path) -> str:
    """§6.3.1 at k = 2: how many runs, and RAND's estimators there (15 draws of 2 orderings split unevenly)."""
    fig = _figs(_load(data))
    two = fig[fig["orgs"] == 2]
    rows = []
    for policy in FIG_POLICIES[1:]:
        mine = two[two["policy"] == policy]["ratio"]
        rows.append([policy, len(mine), int((mine.abs() > TIE_S).sum()), fmt(mine.mean(), 1),
                     fmt(mine.median(), 1), fmt(mine.max(), 1)])
    return markdown_table(["policy", "runs at k = 2", "runs ≠ REF", "mean", "median", "max"], rows, "lrrrrr")


def table_points(data: Path) -> str:
    """§6.3.1 per point: mean Δψ/p_tot over the seeds (what ``spaa13_fig45.png`` plots against k)."""
    fig = _figs(_load(data))
    means = fig.pivot_table(index=["machines", "split", "orgs"], columns="policy", values="ratio", aggfunc="mean")
    rows = [[machines, split, k, *(fmt(means.loc[(machines, split, k), p], 1) for p in FIG_POLICIES)]
            for machines, split, k in means.index]
    return markdown_table(["machines", "split", "k", *FIG_POLICIES], rows, "llr" + "r" * len(FIG_POLICIES))


FAR_LESS_FAIR = 2.0  # "ROUNDROBIN is far less fair": its mean at least this many times the other's


def table_conclusions(data: Path) -> str:
    """SPAA'13 §6.3's conclusions, and PPAM'13's DIRECTCONTR-vs-FAIRSHARE one, judged on the paper's own numbers
    and on our means (all points of the figures; each trace of the table) with each split."""
    traces = list(dict.fromkeys(_table(data)["trace"]))
    return markdown_table(["conclusion", "paper's numbers", "ours: figs, uniform", f"table ({', '.join(traces)}), "
                           "uniform", "figs, Zipf", "table, Zipf"], _conclusion_rows(data), "llllll")


def _conclusion_rows(data: Path) -> list[list[str]]:
    """`table_conclusions`' rows: claim, the paper's verdict, ours on figs / table with each split."""
    from fairsched.replicate.spaa13 import PAPER_FIG

    frame = _load(data)
    fig, table = _figs(frame), frame[frame["table"] == "table"]
    traces = list(dict.fromkeys(table["trace"]))
    paper_table = _paper_table()

    def mean(part: pd.DataFrame, policy: str, **where: str) -> float:
        mask = part["policy"] == policy
        for key, value in where.items():
            mask &= part[key] == value
        return float(part.loc[mask, "ratio"].mean())

    def verdict(holds: list[bool]) -> str:
        return "holds" if all(holds) else ("no" if not any(holds) else f"{sum(holds)} of {len(holds)}")

    # (conclusion, a, b, factor, on the figures, on the table): a * factor < b
    claims = [
        (f"ROUNDROBIN ≥ {FAR_LESS_FAIR:g}× less fair than RAND (N=15)", "RAND (N=15)", "ROUNDROBIN", FAR_LESS_FAIR,
         True, True),
        (f"ROUNDROBIN ≥ {FAR_LESS_FAIR:g}× less fair than DIRECTCONTR", "DIRECTCONTR", "ROUNDROBIN", FAR_LESS_FAIR,
         True, True),
        ("RAND (N=15) fairer than DIRECTCONTR", "RAND (N=15)", "DIRECTCONTR", 1.0, True, True),
        ("RAND (N=75) fairer than RAND (N=15)", "RAND (N=75)", "RAND (N=15)", 1.0, True, False),
        ("DIRECTCONTR fairer than FAIRSHARE (PPAM'13)", "DIRECTCONTR", "FAIRSHARE", 1.0, False, True),
    ]
    rows = []
    for claim, a, b, factor, on_figs, on_table in claims:
        paper = []
        if on_figs and a in PAPER_FIG and b in PAPER_FIG:
            paper.append(PAPER_FIG[a][0] * factor < PAPER_FIG[b][0])
        if on_table and all(a in paper_table[t] and b in paper_table[t] for t in traces):
            paper += [paper_table[t][a][0] * factor < paper_table[t][b][0] for t in traces]
        cells = [claim, verdict(paper) if paper else "—"]
        for split in ("uniform", "zipf"):
            figs = [mean(fig, a, split=split) * factor < mean(fig, b, split=split)] if on_figs else []
            tables = [mean(table, a, trace=t, split=split) * factor < mean(table, b, trace=t, split=split)
                      for t in traces] if on_table else []
            cells += [verdict(figs) if figs else "—", verdict(tables) if tables else "—"]
        rows.append(cells)
    return rows


def verdict_holding(data: Path, claims: tuple[int, ...]) -> str:
    """"hold": the conclusions (rows of `table_conclusions`) numbered `claims` hold in every judged column; else
    which do not."""
    rows = _conclusion_rows(data)
    failing = [rows[i][0] for i in claims if any(cell not in ("holds", "—") for cell in rows[i][2:])]
    return "hold" if not failing else "do not all hold (" + "; ".join(failing) + " fails somewhere)"


def verdict_where(data: Path, claim: int) -> str:
    """Where conclusion `claim` holds among figs / table × uniform / Zipf: "on the table (both splits) but not
    on the figures"."""
    cells = _conclusion_rows(data)[claim][2:]
    figs = [cells[0], cells[2]]
    table = [cells[1], cells[3]]

    def part(name: str, verdicts: list[str]) -> str:
        held = sum(v == "holds" for v in verdicts)
        return {2: f"on the {name} with both splits", 0: f"not on the {name}"}.get(held, f"on the {name} with one "
                                                                                      "split of two")
    return f"{part('table', table)}, {part('figures', figs)}"


def reverse_measures(data: Path, a: str = "RAND (N=15)", b: str = "DIRECTCONTR") -> str:
    """How many of the three figure measures (both splits' averages, the averages without k = 2, the points) put
    `b` ahead of `a`, in words."""
    fig = _figs(_load(data))
    three = fig[fig["orgs"] >= 3]
    votes = [all(_mean(fig, b, split=s) < _mean(fig, a, split=s) for s in ("uniform", "zipf")),
             _mean(three, b) < _mean(three, a), points_leader(data, a, b) == b]
    return {3: "by all three measures above", 0: "by none of the measures above"}.get(
        sum(votes), f"by {sum(votes)} of the three measures above")


def table_run(data: Path) -> str:
    """What the shipped file holds: points, windows (seeds) per point and runs, per part and split."""
    frame = _load(data)
    rows = []
    for (part, split), group in frame.groupby(["table", "split"], sort=False):
        per_point = group.groupby(["trace", "machines", "orgs"])["window"].nunique()
        ks = sorted(group["orgs"].unique())
        rows.append([part, split, ", ".join(dict.fromkeys(group["trace"])),
                     ", ".join(str(m) for m in sorted(group["machines"].unique())),
                     f"{ks[0]}–{ks[-1]}" if len(ks) > 1 else str(ks[0]), len(per_point), _span(per_point),
                     int(per_point.sum())])
    return markdown_table(["part", "split", "trace", "machines", "k", "points", "windows (seeds) per point",
                           "runs"], rows, "lllllrrr")


TABLES = {"spaa13-run": table_run, "spaa13-table": table_workloads, "spaa13-pairs": table_pairs,
          "spaa13-fig-average": table_fig_average, "spaa13-k2": table_k2, "spaa13-points": table_points,
          "spaa13-conclusions": table_conclusions}


def figures(data: Path, out_dir: Path = IMG_DIR) -> dict[str, Path]:
    """Draw ``spaa13-fig45.png`` (Δψ/p_tot against k) and ``spaa13-table.png`` (§6.3.2) from the result file."""
    from fairsched.replicate._online_windows import bar_figure, k_figure
    from fairsched.replicate.spaa13 import table_rows

    frame = _load(data)
    frame = frame.assign(window_length=np.where(frame["table"] == "table", 500_000, 5_000_000))
    rows = table_rows(frame)
    drawn = {
        "spaa13-fig45.png": k_figure([r for r in rows if r["table"] in FIG_PARTS],
                                     "SPAA'13 Figs. 4–5: Δψ/p_tot against k (LPC-EGEE, first 5·10^6 s)"),
        "spaa13-table.png": bar_figure([r for r in rows if r["table"] == "table"],
                                       "SPAA'13 §6.3.2: Δψ/p_tot against REF (ours vs paper)"),
    }
    paths = {}
    for name, figure in drawn.items():
        path = Path(out_dir) / name
        with atomic_write(path, "wb") as handle:
            figure.savefig(handle, format="png", dpi=90, bbox_inches="tight")
        paths[name] = path
    return paths


def ship(windows_csv: Path, data: Path) -> Path:
    """Copy `COLUMNS` of a run's ``spaa13_windows.csv`` into `data` (REF's own rows, all zeros, left out), and,
    if the run's directory has a ``log.txt`` with a GNU time line, its run time into `RUN_FILE` (`ship_run_time`);
    the table traces' spans into `SPANS_FILE` (`ship_trace_spans`, which reads the traces)."""
    frame = pd.read_csv(windows_csv)
    frame = frame.loc[frame["policy"] != "REF", list(COLUMNS)]
    path = Path(data) / FILE
    with atomic_write(path) as handle:
        frame.to_csv(handle, index=False, float_format="%.6g")
    log = Path(windows_csv).parent / "log.txt"
    if log.exists():
        ship_run_time(log, Path(windows_csv).parent / "sweep", data)
    ship_trace_spans(data)
    return path


def ship_trace_spans(data: Path, traces_dir: Path | None = None) -> Path:
    """`SPANS_FILE` in `data`: for each trace of the shipped table, its first and last submit time after cleaning
    (the interval the table's window starts are drawn from, `_online_windows.window_starts`) and the span
    between them, in seconds."""
    from fairsched.replicate._online_windows import load_traces

    traces = list(dict.fromkeys(_table(data)["trace"]))
    rows = []
    for trace, workload in load_traces(traces, traces_dir).items():
        submit = workload.jobs["submit_time"]
        rows.append({"trace": trace, "first_submit": int(submit.min()), "last_submit": int(submit.max()),
                     "span_s": int(submit.max()) - int(submit.min())})
    path = Path(data) / SPANS_FILE
    with atomic_write(path) as handle:
        pd.DataFrame(rows).to_csv(handle, index=False)
    return path


def ship_run_time(log: Path, stores: Path, data: Path) -> Path:
    """`RUN_FILE` in `data`: the run's wall and CPU time (`read_time_log`) and how many of the sweep cells in
    `stores` it simulated, against those it read back from an earlier run (files older than the log's ``start
    HH:MM:SS`` line, on the log's date): a resumed run's time covers only the cells it simulated."""
    import datetime as dt
    import re

    from fairsched.replicate._ppam13_doc import write_run_info

    text = Path(log).read_text(encoding="utf-8")
    start = re.search(r"^start (\d\d):(\d\d):(\d\d)", text, re.M)
    cells = sorted(Path(stores).glob("*/cells/*.parquet"))
    resumed = 0
    if start is not None:
        ended = dt.datetime.fromtimestamp(Path(log).stat().st_mtime, tz=dt.UTC)
        began = ended.replace(hour=int(start[1]), minute=int(start[2]), second=int(start[3]), microsecond=0)
        began -= dt.timedelta(days=1) if began > ended else dt.timedelta(0)
        resumed = sum(cell.stat().st_mtime < began.timestamp() for cell in cells)
    return write_run_info(log, data, RUN_FILE, cells_simulated=len(cells) - resumed, cells_resumed=resumed)


def main(argv: list[str] | None = None) -> None:
    """``python -m fairsched.replicate._spaa13_doc [WINDOWS_CSV]``: ship the file (if given), draw the figures."""
    from fairsched.replicate._doc_format import DATA_DIR

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("windows_csv", nargs="?", type=Path, help="a run's spaa13_windows.csv to ship")
    parser.add_argument("--trace-spans", action="store_true",
                        help=f"only rewrite {SPANS_FILE} from the traces ($FAIRSCHED_TRACES or ../shared/traces)")
    args = parser.parse_args(argv)
    if args.trace_spans:
        sys.stdout.write(f"{ship_trace_spans(DATA_DIR)}\n")
        return
    if args.windows_csv is not None:
        ship(args.windows_csv, DATA_DIR)
    for path in figures(DATA_DIR).values():
        sys.stdout.write(f"{path}\n")



# ------------------------------------------------------------------------------------------------ prose claims
# Each returns the words of one claim of the doc's prose, so a result file that stops supporting it makes the doc
# stale (tests/test_replication_doc_tables.py) instead of wrong.

CLOSE = 0.10  # "close": within 10 % of the larger of two means
RUN_FILE = "spaa13_run.csv"
SPANS_FILE = "spaa13_trace_spans.csv"


def _mean(frame: pd.DataFrame, policy: str, **where: object) -> float:
    mask = frame["policy"] == policy
    for key, value in where.items():
        mask &= frame[key] == value
    return float(frame.loc[mask, "ratio"].mean())


def _table(data: Path) -> pd.DataFrame:
    frame = _load(data)
    return frame[frame["table"] == "table"]


def _traces_phrase(hits: list[str], among: list[str]) -> str:
    if not hits:
        return "on neither trace" if len(among) == 2 else "on no trace"
    if hits == among:
        return "on both traces" if len(among) == 2 else "on every trace"
    return "on " + " and ".join(hits) + " only"


def _traces_where(data: Path, split: str, test: Callable[[Callable[[str], float]], bool]) -> str:
    """The traces of the table where `test(mean)` holds, `mean(policy)` being the trace's mean for `split`."""
    table = _table(data)
    traces = list(dict.fromkeys(table["trace"]))
    hits = [t for t in traces if test(lambda policy, t=t: _mean(table, policy, trace=t, split=split))]
    return _traces_phrase(hits, traces)


def _close(x: float, y: float) -> bool:
    return abs(x - y) <= CLOSE * max(abs(x), abs(y))


def paper_order(data: Path) -> str:
    """Traces where the uniform split gives the paper's order RAND (N=15) < DIRECTCONTR < ROUNDROBIN."""
    return _traces_where(data, "uniform", lambda m: m("RAND (N=15)") < m("DIRECTCONTR") < m("ROUNDROBIN"))


def beside_paper(data: Path, trace: str, policy: str) -> str:
    """"160.7 against the paper's 161" (the table, uniform split)."""
    paper = _paper_table()[trace][policy][0]
    return f"{fmt(_mean(_table(data), policy, trace=trace, split='uniform'), 1)} against the paper's {paper:g}"


def over_paper(data: Path, trace: str, policy: str) -> str:
    """Our uniform mean over the paper's, "3.3"."""
    paper = _paper_table()[trace][policy][0]
    return f"{_mean(_table(data), policy, trace=trace, split='uniform') / paper:.1f}"


def fig_ratio(data: Path, a: str, b: str, split: str | None = None) -> str:
    """Mean of `a` over the mean of `b` on all points of the figures (one split, if given): "64"."""
    fig = _figs(_load(data))
    where = {} if split is None else {"split": split}
    ratio = _mean(fig, a, **where) / _mean(fig, b, **where)
    return f"{ratio:.2g}" if ratio < 10 else f"{ratio:,.0f}"


def fig_mean(data: Path, policy: str, k_min: int = 2) -> str:
    fig = _figs(_load(data))
    return fmt(float(fig.loc[(fig["policy"] == policy) & (fig["orgs"] >= k_min), "ratio"].mean()), 1)


def fig_splits(data: Path, a: str, b: str) -> str:
    """The splits under which `a`'s mean over the figures' points is below `b`'s."""
    fig = _figs(_load(data))
    hits = [s for s in ("uniform", "zipf") if _mean(fig, a, split=s) < _mean(fig, b, split=s)]
    return {0: "with neither split", 2: "with both splits"}.get(len(hits), f"with the {hits[0]} split only")


def fig_max_median(data: Path, policies: tuple[str, ...] = ("RAND (N=15)", "RAND (N=75)", "DIRECTCONTR")) -> str:
    """The largest median over the figures' runs among `policies`, in seconds."""
    fig = _figs(_load(data))
    return fmt(max(float(fig.loc[fig["policy"] == p, "ratio"].median()) for p in policies), 1)


def above_from(data: Path, policy: str, other: str = "ROUNDROBIN") -> str:
    """The smallest k from which `policy`'s mean over the figures' configurations stays above `other`'s ("no k"
    if it never does)."""
    fig = _figs(_load(data))
    by_k = fig.pivot_table(index="orgs", columns="policy", values="ratio", aggfunc="mean")
    above = by_k[policy] > by_k[other]
    ks = [k for k in by_k.index if above.loc[k:].all()]
    return f"k = {ks[0]}" if ks else "no k"


def k2_outlier(data: Path, policy: str = "RAND (N=15)") -> str:
    """At k = 2: the largest run of `policy` and how many times the next largest it is."""
    fig = _figs(_load(data))
    runs = fig.loc[(fig["orgs"] == 2) & (fig["policy"] == policy), "ratio"].sort_values(ascending=False)
    top, second = float(runs.iloc[0]), float(runs.iloc[1])
    times = f"{top / second:,.0f} times the next largest" if second > TIE_S else "every other run is at 0"
    return f"{fmt(top, 0)} s, {times}"


def points_versus(data: Path, a: str, b: str) -> str:
    """Points of the figures (mean over seeds) where `a` is fairer, where `b` is, and ties: "30 / 35 / 7"."""
    fig = _figs(_load(data))
    means = fig.pivot_table(index=["machines", "split", "orgs"], columns="policy", values="ratio", aggfunc="mean")
    diff = means[a] - means[b]
    return f"{int((diff < -TIE_S).sum())} / {int((diff > TIE_S).sum())} / {int((diff.abs() <= TIE_S).sum())}"


def runs_versus(data: Path, a: str, b: str) -> str:
    """Runs (one seed of one point) of the figures where `a` is fairer, where `b` is, and ties."""
    return _versus(_wide(_figs(_load(data)), ["machines", "split", "orgs"]), a, b)


def table_cells_worse(data: Path, a: str, b: str) -> str:
    """"all 4": the (trace, split) cells of the table where `a`'s mean is above `b`'s."""
    table = _table(data)
    cells = list(dict.fromkeys(zip(table["trace"], table["split"], strict=True)))
    hits = sum(_mean(table, a, trace=t, split=s) > _mean(table, b, trace=t, split=s) for t, s in cells)
    return f"all {len(cells)}" if hits == len(cells) else f"{hits} of the {len(cells)}"


def contended_pairs(data: Path, split: str, a: str, b: str) -> str:
    """Per trace: windows where `a` is fairer than `b`, of the windows where they differ: "56 of the 70 LPC-EGEE
    windows"."""
    table = _table(data)
    wide = _wide(table[table["split"] == split], ["trace", "split"])
    parts = []
    for trace, group in wide.groupby("trace", sort=False):
        diff = group[a] - group[b]
        parts.append(f"{int((diff < -TIE_S).sum())} of the {int((diff.abs() > TIE_S).sum())} {trace} windows")
    return " and ".join(parts)


def points_leader(data: Path, a: str, b: str) -> str:
    """Which of `a` and `b` is fairer (mean over seeds) at more points of the figures; "neither" on a tie."""
    fairer_a, fairer_b, _ = (int(n) for n in points_versus(data, a, b).split(" / "))
    return a if fairer_a > fairer_b else (b if fairer_b > fairer_a else "neither")


def without_k2(data: Path, a: str, b: str) -> str:
    """Whether `b`'s figure average stays below `a`'s without k = 2, with both means."""
    fig = _figs(_load(data))
    three = fig[fig["orgs"] >= 3]
    mean_a, mean_b = _mean(three, a), _mean(three, b)
    word = "also" if mean_b < mean_a else "but not"
    return f"{word} without k = 2 ({a} {fmt(mean_a, 1)} against {b} {fmt(mean_b, 1)})"


def seeds_per_point(data: Path) -> str:
    fig = _figs(_load(data))
    return _span(fig.groupby(["table", "machines", "split", "orgs"])["window"].nunique())


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
    from fairsched.replicate.spaa13_cell import TABLE_LENGTH

    spans = pd.read_csv(data / SPANS_FILE).set_index("trace")["span_s"]
    windows = _table(data).groupby("trace")["window"].nunique()
    fit = all(windows[trace] * TABLE_LENGTH <= span for trace, span in spans.items())
    listed = " and ".join(f"{_power_of_ten(span)} s ({trace})" for trace, span in spans.items())
    return f"{'can' if fit else 'cannot'} be in traces spanning {listed}"


def _paper_fig(policy: str) -> str:
    from fairsched.replicate.spaa13 import PAPER_FIG

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
    "spaa13-table-windows": lambda data: _span(_table(data).groupby(["trace", "split"])["window"].nunique()),
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
        f"{float(_paper_fig('DIRECTCONTR')) / _mean(_figs(_load(data)), 'DIRECTCONTR'):.1f}"),
}


def spec_cells(name: str, axes: tuple[str, ...]) -> str:
    """A shipped spec's cell count as its factors, "4 × 2 × 9 × 10 = 720": the ``[[zip]]`` blocks' length (the
    configurations), then `axes` of ``[grid]`` in the order given."""
    from fairsched.replicate.spaa13 import SPECS_DIR
    from fairsched.sweep import load_spec

    spec = load_spec(SPECS_DIR / name)
    factors = [len(next(iter(block.values()))) for block in spec.zips] + [len(spec.grid[a]) for a in axes]
    return f"{' × '.join(map(str, factors))} = {len(spec.points()) * len(spec.seeds)}"


def spec_values(name: str, axis: str) -> str:
    """One axis of a shipped spec: a ``[grid]`` axis's values ("2, 4, 6, 8, 10", their count for
    ``first-window``), or a ``[base]`` value."""
    from fairsched.replicate.spaa13 import SPECS_DIR
    from fairsched.sweep import load_spec

    spec = load_spec(SPECS_DIR / name)
    if axis not in spec.grid:
        return str(spec.base[axis])
    values = spec.grid[axis]
    return str(len(values)) if axis == "first-window" else ", ".join(map(str, values))


def _chunk(data: Path) -> str:
    from fairsched.replicate.spaa13 import CHUNK

    return str(CHUNK)


VALUES.update({
    "spaa13-figs-cells": lambda data: spec_cells("spaa13-figs.toml", ("split", "orgs", "first-window")),
    "spaa13-table-cells": lambda data: spec_cells("spaa13-table.toml", ("trace", "split", "first-window")),
    "spaa13-table-chunk": _chunk,
    "spaa13-quick-ks": lambda data: spec_values("spaa13-figs-quick.toml", "orgs"),
    "spaa13-quick-seeds": lambda data: spec_values("spaa13-figs-quick.toml", "first-window"),
    "spaa13-quick-windows": lambda data: spec_values("spaa13-table-quick.toml", "windows"),
})


if __name__ == "__main__":
    main()
