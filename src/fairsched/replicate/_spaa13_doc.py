"""SPAA'13 §6.3: the tables and figures of docs/replication/spaa13.md, rendered from one result file.

``docs/replication/data/spaa13_windows.csv`` holds one row per (point, window, policy) of the run: ``table``
(fig4, fig5 or table), ``trace``, ``split``, ``orgs``, ``machines``, ``window`` (for the figures: the scenario seed's
index), ``policy``, ``ratio`` (Δψ/p_tot against REF, seconds). Every table of the doc and both figures are
computed from it here, so no number of the doc is typed by hand.

Regenerate (the run is resumable: its cells are kept in ``results/spaa13/sweep``)::

    fairsched replicate spaa13 --fig-seeds 10 --out results/spaa13
    python -m fairsched.replicate._spaa13_doc results/spaa13/spaa13_windows.csv
    python -m fairsched.replicate._doc_tables docs/replication/spaa13.md

The second command copies the per-window table into ``docs/replication/data`` (the columns above) and draws
``docs/img/spaa13-fig45.png`` and ``docs/img/spaa13-table.png`` from it.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from fairsched._io import atomic_write
from fairsched.replicate._doc_tables import fmt, markdown_table

__all__ = ["COLUMNS", "TABLES", "figures", "ship"]

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
    return markdown_table(["conclusion", "paper's numbers", "ours: figs, uniform", f"table ({', '.join(traces)}), "
                           "uniform", "figs, Zipf", "table, Zipf"], rows, "llllll")


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
    """Copy `COLUMNS` of a run's ``spaa13_windows.csv`` into `data` (REF's own rows, all zeros, left out)."""
    frame = pd.read_csv(windows_csv)
    frame = frame.loc[frame["policy"] != "REF", list(COLUMNS)]
    path = Path(data) / FILE
    with atomic_write(path) as handle:
        frame.to_csv(handle, index=False, float_format="%.6g")
    return path


def main(argv: list[str] | None = None) -> None:
    """``python -m fairsched.replicate._spaa13_doc [WINDOWS_CSV]``: ship the file (if given), draw the figures."""
    from fairsched.replicate._doc_tables import DATA_DIR

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("windows_csv", nargs="?", type=Path, help="a run's spaa13_windows.csv to ship")
    args = parser.parse_args(argv)
    if args.windows_csv is not None:
        ship(args.windows_csv, DATA_DIR)
    for path in figures(DATA_DIR).values():
        sys.stdout.write(f"{path}\n")


if __name__ == "__main__":
    main()
