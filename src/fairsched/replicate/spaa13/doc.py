"""SPAA'13 §6.3: the tables and figures of docs/replication/spaa13.md, rendered from one result file.

``docs/replication/data/spaa13_windows.csv`` holds one row per (point, window, policy) of the run: ``table``
(fig4, fig5 or table), ``trace``, ``split``, ``orgs``, ``machines``, ``window`` (for the figures: the scenario seed's
index), ``policy``, ``ratio`` (Δψ/p_tot against REF, seconds). Every table of the doc and both figures are
computed from it here, so no number of the doc is typed by hand.

Regenerate (the run is resumable: its cells are kept in ``results/spaa13/sweep``)::

    fairsched replicate spaa13 --workers 2 --out results/spaa13   # shipped: the full run, 10 seeds per point
    python -m fairsched.replicate.spaa13.doc results/spaa13/spaa13_windows.csv
    python -m fairsched.replicate._doc_tables docs/replication/spaa13.md

The second command copies the per-window table into ``docs/replication/data`` (the columns above), the run's wall
and CPU time into ``spaa13_run.csv`` when the run's directory has a GNU time log (`ship_run_time`), and draws
``docs/img/spaa13-fig45.png`` and ``docs/img/spaa13-table.png`` from the table; it also writes the table traces'
spans (first to last submit) into ``spaa13_trace_spans.csv`` (``--trace-spans`` rewrites only that file). `VALUES`
(`fairsched.replicate.spaa13.doc_values`) renders the claims of the doc's prose from these files.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from fairsched._io import atomic_write
from fairsched.replicate._doc_format import fmt, markdown_table

__all__ = ["COLUMNS", "FILE", "RUN_FILE", "SPANS_FILE", "TABLES", "figures", "ship", "ship_run_time",
           "ship_trace_spans"]

FILE = "spaa13_windows.csv"
RUN_FILE = "spaa13_run.csv"
SPANS_FILE = "spaa13_trace_spans.csv"
COLUMNS = ("table", "trace", "split", "orgs", "machines", "window", "policy", "ratio")
IMG_DIR = Path("docs/img")
FIG_PARTS = ("fig4", "fig5")
TABLE_POLICIES = ("RAND (N=15)", "DIRECTCONTR", "ROUNDROBIN", "FAIRSHARE", "UTFAIRSHARE", "RAND printed (N=15)")
FIG_POLICIES = ("ROUNDROBIN", "RAND (N=15)", "RAND (N=75)", "DIRECTCONTR", "RAND printed (N=15)",
                "RAND printed (N=75)")
TIE_S = 1e-9  # Δψ/p_tot within this (s) of each other count as a tie


def load_windows(data: Path) -> pd.DataFrame:
    return pd.read_csv(data / FILE)


def _cell(values: pd.Series) -> str:
    if values.empty:
        return "—"
    std = values.std(ddof=1) if len(values) > 1 else math.nan
    return f"{fmt(values.mean(), 1)} ({fmt(std, 1)})"


def paper_table() -> dict[str, dict[str, tuple[float, float]]]:
    from fairsched.replicate.spaa13.paper import PAPER_TABLE

    return PAPER_TABLE


def table_workloads(data: Path) -> str:
    """§6.3.2: mean (std) of Δψ/p_tot per trace and policy, the paper beside ours with each split."""
    frame = load_windows(data)
    table = frame[frame["table"] == "table"]
    paper = paper_table()
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


def wide(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    return frame.pivot_table(index=[*keys, "window"], columns="policy", values="ratio").reset_index()


def versus(wide: pd.DataFrame, a: str, b: str) -> str:
    """"a / b / ties": windows where a is fairer, where b is, and where they tie."""
    diff = wide[a] - wide[b]
    return f"{int((diff < -TIE_S).sum())} / {int((diff > TIE_S).sum())} / {int((diff.abs() <= TIE_S).sum())}"


def table_pairs(data: Path) -> str:
    """§6.3.2 window by window: contention, and which of two policies is fairer (a / b / ties)."""
    frame = load_windows(data)
    pairs = wide(frame[frame["table"] == "table"], ["trace", "split"])
    rows = []
    for (trace, split), group in pairs.groupby(["trace", "split"], sort=False):
        policies = [p for p in TABLE_POLICIES if p in group]
        contended = int((group[policies].abs() > TIE_S).any(axis=1).sum())
        rows.append([trace, split, len(group), contended, versus(group, "RAND (N=15)", "DIRECTCONTR"),
                     versus(group, "DIRECTCONTR", "FAIRSHARE"), versus(group, "DIRECTCONTR", "UTFAIRSHARE"),
                     versus(group, "RAND (N=15)", "RAND printed (N=15)")])
    return markdown_table(["trace", "split", "windows", "any policy ≠ REF", "RAND / DC / tie", "DC / FS / tie",
                           "DC / UTFS / tie", "RAND / RAND printed / tie"], rows, "llrrrrrr")


def fig_rows(frame: pd.DataFrame) -> pd.DataFrame:
    return frame[frame["table"].isin(FIG_PARTS)]


def table_fig_average(data: Path) -> str:
    """§6.3.1: the averages over every point of Figs. 4–5 (the only numbers the paper gives), by split."""
    from fairsched.replicate.spaa13.paper import PAPER_FIG

    fig = fig_rows(load_windows(data))
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
            f"{span_text(seeds)} seeds per point.\n\n")
    return note + markdown_table(["policy", "paper: mean", "ours: mean (std)", "ours: median", "ours: k ≥ 3",
                                  "ours: uniform", "ours: Zipf"], rows, "lrrrrrr")


# §6.3.1 items 1-2: "up to 6·10^5" (ROUNDROBIN); "the maximal values of Δψ/p_tot are equal to 1767 and 25608"
# for RAND and DIRECTCONTR (the RAND of item 2 is the N = 75 one: its mean there, 79, is N = 75's).
PAPER_FIG_MAX = {"ROUNDROBIN": 6e5, "RAND (N=75)": 1767.0, "DIRECTCONTR": 25608.0}


def table_fig_maxima(data: Path) -> str:
    """§6.3.1's maxima beside its means: the paper's, and ours over every run and over the points' means (the
    paper does not say which it took), with each split."""
    from fairsched.replicate.spaa13.paper import PAPER_FIG

    fig = fig_rows(load_windows(data))
    points = fig.groupby(["table", "machines", "split", "orgs", "policy"])["ratio"].mean().reset_index()
    rows = []
    for policy in FIG_POLICIES:
        if policy not in PAPER_FIG:
            continue
        runs, means = fig[fig["policy"] == policy], points[points["policy"] == policy]
        paper_max = PAPER_FIG_MAX.get(policy)
        rows.append([policy, f"{PAPER_FIG[policy][0]:g}", "—" if paper_max is None else f"{paper_max:,.0f}",
                     fmt(runs["ratio"].mean(), 1), fmt(runs["ratio"].max(), 0), fmt(means["ratio"].max(), 0),
                     fmt(runs.loc[runs["split"] == "uniform", "ratio"].max(), 0),
                     fmt(runs.loc[runs["split"] == "zipf", "ratio"].max(), 0)])
    return markdown_table(["policy", "paper: mean", "paper: max", "ours: mean", "ours: max (runs)",
                           "ours: max (point means)", "max, uniform", "max, Zipf"], rows, "lrrrrrrr")


def span_text(values: pd.Series) -> str:
    low, high = int(values.min()), int(values.max())
    return str(low) if low == high else f"{low}–{high}"


def table_k2(data: Path) -> str:
    """§6.3.1 at k = 2: how many runs, and RAND's estimators there (15 draws of 2 orderings split unevenly)."""
    fig = fig_rows(load_windows(data))
    two = fig[fig["orgs"] == 2]
    rows = []
    for policy in FIG_POLICIES[1:]:
        mine = two[two["policy"] == policy]["ratio"]
        rows.append([policy, len(mine), int((mine.abs() > TIE_S).sum()), fmt(mine.mean(), 1),
                     fmt(mine.median(), 1), fmt(mine.max(), 1)])
    return markdown_table(["policy", "runs at k = 2", "runs ≠ REF", "mean", "median", "max"], rows, "lrrrrr")


def table_points(data: Path) -> str:
    """§6.3.1 per point: mean Δψ/p_tot over the seeds (what ``spaa13_fig45.png`` plots against k)."""
    fig = fig_rows(load_windows(data))
    means = fig.pivot_table(index=["machines", "split", "orgs"], columns="policy", values="ratio", aggfunc="mean")
    rows = [[machines, split, k, *(fmt(means.loc[(machines, split, k), p], 1) for p in FIG_POLICIES)]
            for machines, split, k in means.index]
    return markdown_table(["machines", "split", "k", *FIG_POLICIES], rows, "llr" + "r" * len(FIG_POLICIES))


FAR_LESS_FAIR = 2.0  # "ROUNDROBIN is far less fair": its mean at least this many times the other's


def table_conclusions(data: Path) -> str:
    """SPAA'13 §6.3's conclusions, and PPAM'13's DIRECTCONTR-vs-FAIRSHARE one, judged on the paper's own numbers
    and on our means (all points of the figures; each trace of the table) with each split."""
    traces = list(dict.fromkeys(table_frame(data)["trace"]))
    return markdown_table(["conclusion", "paper's numbers", "ours: figs, uniform", f"table ({', '.join(traces)}), "
                           "uniform", "figs, Zipf", "table, Zipf"], _conclusion_rows(data), "llllll")


def _conclusion_rows(data: Path) -> list[list[str]]:
    """`table_conclusions`' rows: claim, the paper's verdict, ours on figs / table with each split."""
    from fairsched.replicate.spaa13.paper import PAPER_FIG

    frame = load_windows(data)
    fig, table = fig_rows(frame), frame[frame["table"] == "table"]
    traces = list(dict.fromkeys(table["trace"]))
    table_values = paper_table()

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
        if on_table and all(a in table_values[t] and b in table_values[t] for t in traces):
            paper += [table_values[t][a][0] * factor < table_values[t][b][0] for t in traces]
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
    fig = fig_rows(load_windows(data))
    three = fig[fig["orgs"] >= 3]
    votes = [all(mean_ratio(fig, b, split=s) < mean_ratio(fig, a, split=s) for s in ("uniform", "zipf")),
             mean_ratio(three, b) < mean_ratio(three, a), points_leader(data, a, b) == b]
    return {3: "by all three measures above", 0: "by none of the measures above"}.get(
        sum(votes), f"by {sum(votes)} of the three measures above")


def table_run(data: Path) -> str:
    """What the shipped file holds: points, windows (seeds) per point and runs, per part and split."""
    frame = load_windows(data)
    rows = []
    for (part, split), group in frame.groupby(["table", "split"], sort=False):
        per_point = group.groupby(["trace", "machines", "orgs"])["window"].nunique()
        ks = sorted(group["orgs"].unique())
        rows.append([part, split, ", ".join(dict.fromkeys(group["trace"])),
                     ", ".join(str(m) for m in sorted(group["machines"].unique())),
                     f"{ks[0]}–{ks[-1]}" if len(ks) > 1 else str(ks[0]), len(per_point), span_text(per_point),
                     int(per_point.sum())])
    return markdown_table(["part", "split", "trace", "machines", "k", "points", "windows (seeds) per point",
                           "runs"], rows, "lllllrrr")


def mean_ratio(frame: pd.DataFrame, policy: str, **where: object) -> float:
    """The mean Δψ/p_tot of `policy` over the rows of `frame` matching every ``column=value`` of `where`."""
    mask = frame["policy"] == policy
    for key, value in where.items():
        mask &= frame[key] == value
    return float(frame.loc[mask, "ratio"].mean())


def table_frame(data: Path) -> pd.DataFrame:
    """The §6.3.2 table's rows of the shipped result file."""
    frame = load_windows(data)
    return frame[frame["table"] == "table"]


def points_versus(data: Path, a: str, b: str) -> str:
    """Points of the figures (mean over seeds) where `a` is fairer, where `b` is, and ties: "30 / 35 / 7"."""
    fig = fig_rows(load_windows(data))
    means = fig.pivot_table(index=["machines", "split", "orgs"], columns="policy", values="ratio", aggfunc="mean")
    diff = means[a] - means[b]
    return f"{int((diff < -TIE_S).sum())} / {int((diff > TIE_S).sum())} / {int((diff.abs() <= TIE_S).sum())}"


def points_leader(data: Path, a: str, b: str) -> str:
    """Which of `a` and `b` is fairer (mean over seeds) at more points of the figures; "neither" on a tie."""
    fairer_a, fairer_b, _ = (int(n) for n in points_versus(data, a, b).split(" / "))
    return a if fairer_a > fairer_b else (b if fairer_b > fairer_a else "neither")


TABLES = {"spaa13-run": table_run, "spaa13-table": table_workloads, "spaa13-pairs": table_pairs,
          "spaa13-fig-average": table_fig_average, "spaa13-fig-maxima": table_fig_maxima,
          "spaa13-k2": table_k2, "spaa13-points": table_points,
          "spaa13-conclusions": table_conclusions}


def figures(data: Path, out_dir: Path = IMG_DIR) -> dict[str, Path]:
    """Draw ``spaa13-fig45.png`` (Δψ/p_tot against k) and ``spaa13-table.png`` (§6.3.2) from the result file."""
    from fairsched.replicate._online_plots import bar_figure, k_figure
    from fairsched.replicate.spaa13.replication import table_rows

    frame = load_windows(data)
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

    traces = list(dict.fromkeys(table_frame(data)["trace"]))
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

    from fairsched.replicate._doc_format import write_run_info

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
    """``python -m fairsched.replicate.spaa13.doc [WINDOWS_CSV]``: ship the file (if given), draw the figures."""
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


if __name__ == "__main__":
    main()
