"""The split × DIRECTCONTR ranking of docs/replication/ppam13.md and the "jobs instead of users" row, rendered from
``docs/replication/data/ppam13_split_dc`` (10 windows, ``python -m fairsched.replicate.ppam13.split_dc``),
``ppam13_split_dc_100`` (100 windows: the fit, the status of each combination, the new windows and the run time,
``python -m fairsched.replicate.ppam13.split_dc100 collect``, with ``ppam13_variants_100``'s windows for the five
combinations that run holds) and from the quick grid (``ppam13_variants_quick``)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pandas as pd

from fairsched.replicate._doc_format import Renderer, fmt, markdown_table
from fairsched.replicate.ppam13.doc import QUICK, number_text, read_variants, variants_markdown
from fairsched.replicate.ppam13.paper import PAPER
from fairsched.replicate.ppam13.split_dc import FIT_FILE, GRID
from fairsched.replicate.ppam13.split_dc100 import FIT_FILE as FIT100_FILE
from fairsched.replicate.ppam13.split_dc100 import RUN_FILE as RUN100_FILE
from fairsched.replicate.ppam13.split_dc100 import STATUS_FILE, WINDOWS_FILE, combination_windows
from fairsched.replicate.ppam13.variants import PAPER_VARIANT, ROLES

__all__ = ["SPLIT_DC", "TABLES", "VALUES"]

SPLIT_DC = "ppam13_split_dc"
SPLIT_DC_100 = "ppam13_split_dc_100"  # python -m fairsched.replicate.ppam13.split_dc100 collect


def _fit(data: Path) -> pd.DataFrame:
    return pd.read_csv(data / SPLIT_DC / FIT_FILE)


def _fit100(data: Path) -> pd.DataFrame:
    """The fit on 100 windows of every combination that has them (`fairsched.replicate.ppam13.split_dc100`)."""
    return pd.read_csv(data / SPLIT_DC_100 / FIT100_FILE)


def _complete(data: Path) -> bool:
    """Whether every combination of the grid has its 100-window fit."""
    return set(_fit100(data)["variant"]) == {variant.name for variant in GRID}


def table_fit(data: Path) -> str:
    """The 15 combinations ranked by Σ |ln(ours / paper)| over PPAM'13 Table 2 and SPAA'13 §6.3.2 (18 means): by
    the 100-window fit when every combination has one, else by the 10-window fit with the 100-window one beside."""
    short, long = _fit(data), _fit100(data)
    short_fit, short_rank = dict(zip(short["variant"], short["fit"], strict=True)), dict(
        zip(short["variant"], short["rank"], strict=True))
    long_fit = dict(zip(long["variant"], long["fit"], strict=True))
    if _complete(data):
        rows = [(int(r.rank), r.split, r.directcontr, fmt(r.fit, 2), fmt(r.fit_ppam, 2), fmt(r.fit_spaa, 2),
                 fmt(r.fit_lpc, 2), fmt(r.fit_ricc, 2), r.worst, r.dc_ahead, fmt(short_fit[r.variant], 2),
                 int(short_rank[r.variant])) for r in long.itertuples()]
        return markdown_table(("rank", "split", "DIRECTCONTR", "fit, 100 windows (18 means)", "PPAM'13 T2 (12)",
                               "SPAA'13 (6)", "LPC-EGEE (9)", "RICC (9)", "furthest mean (ours / paper)",
                               "DIRECTCONTR < FAIRSHARE on", "fit, 10 windows", "rank, 10 windows"), rows,
                              "rllrrrrrllrr")
    rows = [(int(r.rank), r.split, r.directcontr, fmt(r.fit, 2),
             fmt(long_fit[r.variant], 2) if r.variant in long_fit else "", fmt(r.fit_ppam, 2), fmt(r.fit_spaa, 2),
             fmt(r.fit_lpc, 2), fmt(r.fit_ricc, 2), r.worst, r.dc_ahead) for r in short.itertuples()]
    return markdown_table(("rank", "split", "DIRECTCONTR", "fit (18 means)", "fit, 100 windows",
                           "PPAM'13 T2 (12)", "SPAA'13 (6)", "LPC-EGEE (9)", "RICC (9)",
                           "furthest mean (ours / paper)", "DIRECTCONTR < FAIRSHARE on"), rows, "rllrrrrrrll")


def table_means100(data: Path) -> str:
    """Mean Δψ/p_tot over the 100 windows of every combination that has them, beside the paper's (PPAM'13 Table 2),
    one table per trace, in the order of the 100-window fit."""
    windows = combination_windows(_new_windows(data), _finished(data), data)
    order = _fit100(data)["variant"].tolist()
    means = windows.groupby(["trace", "variant", "policy"])["ratio"].mean()
    wide = windows[windows["policy"].isin(["DIRECTCONTR", "FAIRSHARE"])].pivot_table(
        index=["trace", "variant", "window"], columns="policy", values="ratio")
    fairer = (wide["DIRECTCONTR"] < wide["FAIRSHARE"]).groupby(level=["trace", "variant"]).sum()
    behind = (wide["DIRECTCONTR"] > wide["FAIRSHARE"]).groupby(level=["trace", "variant"]).sum()
    paper = {(trace, label.split(" ")[0]): mean for (table, trace), values in PAPER.items() if table == "table2"
             for label, (mean, _) in values}
    blocks = []
    for trace in ("LPC-EGEE", "RICC"):
        rows = [("paper", *(number_text(paper[(trace, role)]) for role in ROLES), "")]
        rows += [(name, *(number_text(means[(trace, name, role)]) for role in ROLES),
                  f"{int(fairer[(trace, name)])} / {int(behind[(trace, name)])}") for name in order]
        blocks.append(f"**table2, {trace}** — mean Δψ/p_tot (s) over 100 windows; last column: windows where "
                      "DIRECTCONTR is fairer / less fair than FAIRSHARE\n\n"
                      + markdown_table(("combination", *ROLES, "DC vs FS"), rows))
    return "\n".join(blocks)


def _new_windows(data: Path) -> pd.DataFrame:
    return pd.read_csv(data / SPLIT_DC_100 / WINDOWS_FILE)


def _finished(data: Path) -> list[str]:
    status = pd.read_csv(data / SPLIT_DC_100 / STATUS_FILE)
    return status.loc[status["finished"], "variant"].tolist()


def table_means(data: Path) -> str:
    """Mean Δψ/p_tot per combination beside the paper's, per trace, and the conclusions checked on Table 2."""
    return variants_markdown(*read_variants(data / SPLIT_DC))


def _best(data: Path) -> str:
    """``zipf s=2 / corrected (fit 3.41; next: ...)``."""
    fit = _fit(data)
    first, second = fit.iloc[0], fit.iloc[1]
    return (f"{first['split']} with DIRECTCONTR {first['directcontr']} (fit {fmt(first['fit'], 2)}; next "
            f"{second['split']} / {second['directcontr']}, {fmt(second['fit'], 2)})")


def _best100(data: Path) -> str:
    """Every combination with 100 windows ranked by its fit: ``composition / lowest first 7.01, ...``."""
    return ", ".join(f"{r.variant} {fmt(r.fit, 2)}" for r in _fit100(data).itertuples())


def _coverage100(data: Path) -> str:
    """Which combinations ran on 100 windows and which only on 10."""
    have = set(_fit100(data)["variant"])
    missing = [variant.name for variant in GRID if variant.name not in have]
    if not missing:
        return f"all {len(GRID)} combinations ran on 100 windows"
    return (f"{len(have)} of the {len(GRID)} combinations ran on 100 windows; only on 10: "
            + ", ".join(missing))


def _run100(data: Path) -> str:
    """The long run's cells and time: ``the 200 cells of 10 windows, 4,000 s wall, 3,000 s CPU (user + sys)``."""
    status = pd.read_csv(data / SPLIT_DC_100 / STATUS_FILE).drop_duplicates("run")  # a run's readings share cells
    cells = f"{int(status['cells_done'].sum())} of its {int(status['cells'].sum())} cells of 10 windows"
    if not (data / SPLIT_DC_100 / RUN100_FILE).exists():
        return f"{cells} so far (run in progress)"
    run = pd.read_csv(data / SPLIT_DC_100 / RUN100_FILE).iloc[0]
    return (f"{cells}, {fmt(run['wall_s'], 0)} s wall, {fmt(run['user_s'] + run['sys_s'], 0)} s CPU (user + sys)")


def _best100_with_next(data: Path) -> str:
    fit = _fit100(data)
    first, second = fit.iloc[0], fit.iloc[1]
    return (f"{first['split']} with DIRECTCONTR {first['directcontr']} (fit {fmt(first['fit'], 2)}; next "
            f"{second['split']} / {second['directcontr']}, {fmt(second['fit'], 2)})")


def _best100_headline(data: Path) -> str:
    """The best 100-window fit among the combinations where DIRECTCONTR is fairer than FAIRSHARE on both traces:
    ``composition / corrected (fit 9.64, rank 2 of 6)``."""
    fit = _fit100(data)
    both = fit[fit["dc_ahead"] == "LPC-EGEE, RICC"]
    if both.empty:
        return "none"
    first = both.iloc[0]
    return f"{first['variant']} (fit {fmt(first['fit'], 2)}, rank {int(first['rank'])} of {len(fit)})"


def _ten_vs_hundred(data: Path) -> str:
    """How the 10-window ranking predicts the 100-window one, over the combinations with both: Spearman's ρ and
    the 10-window ranks of the 100-window best: ``ρ = 0.43 over 7 combinations``."""
    long = _fit100(data)[["variant", "fit"]]
    both = long.merge(_fit(data)[["variant", "fit"]], on="variant", suffixes=("_100", "_10"))
    rho = both["fit_100"].rank().corr(both["fit_10"].rank())
    return f"ρ = {rho:.2f} over {len(both)} combinations"


def _ten_over_hundred(data: Path) -> str:
    """The 10-window fit over the 100-window fit of the same combination, lowest to highest: ``1.9 to 3.2``."""
    both = _fit100(data)[["variant", "fit"]].merge(_fit(data)[["variant", "fit"]], on="variant",
                                                   suffixes=("_100", "_10"))
    ratio = both["fit_10"] / both["fit_100"]
    return f"{ratio.min():.1f} to {ratio.max():.1f}"


def _spread100(data: Path) -> str:
    """On 100 windows, how far the reading of DIRECTCONTR moves a split's fit (largest range among the splits with
    two readings or more) against the range of the splits' best fits: ``at most 0.47; the splits' best: 2.68``."""
    fit = _fit100(data)
    readings = fit.groupby("split")["fit"].agg(["min", "max", "size"])
    several = readings[readings["size"] >= 2]
    within = (several["max"] - several["min"]).max() if len(several) else float("nan")
    best = readings["min"]
    return (f"the reading of DIRECTCONTR moves a split's fit by at most {fmt(within, 2)} (over the "
            f"{len(several)} splits with two readings or more), the split moves the best fit by "
            f"{fmt(best.max() - best.min(), 2)}")


def _by(column: str, windows: int = 10) -> Renderer:
    """The best fit of each value of `column` (split or DIRECTCONTR variant) on 10 or 100 windows:
    ``multinomial 4.1, zipf s=2 3.4``."""
    def render(data: Path) -> str:
        best = (_fit if windows == 10 else _fit100)(data).groupby(column, sort=False)["fit"].min().sort_values()
        return ", ".join(f"{name} {fmt(value, 2)}" for name, value in best.items())
    return render


def _dc_ahead_splits(data: Path, windows: int = 10) -> str:
    """The combinations where DIRECTCONTR is fairer than FAIRSHARE on both traces (the papers' Table 2), by split:
    ``composition: 0 of 3; ...; zipf s=2: 3 of 3``."""
    fit = (_fit if windows == 10 else _fit100)(data)
    both = fit[fit["dc_ahead"] == "LPC-EGEE, RICC"]
    parts = []
    for split, group in fit.groupby("split", sort=False):
        hits = both[both["split"] == split]
        parts.append(f"{split}: {len(hits)} of {len(group)}")
    return "; ".join(parts)


def _run(data: Path) -> str:
    run = pd.read_csv(data / SPLIT_DC / "ppam13_split_dc_run.csv").iloc[0]
    return (f"{int(run['windows'])} windows per trace, {fmt(run['wall_s'], 0)} s wall, "
            f"{fmt(run['cpu_s'], 0)} s CPU")


def _windows(data: Path) -> str:
    return str(int(pd.read_csv(data / SPLIT_DC / "ppam13_split_dc_run.csv").iloc[0]["windows"]))


def _jobs_row(data: Path) -> str:
    """PPAM'13 §5.1, "spreading jobs instead of users gives the same conclusions", on the quick grid: how many of
    the conclusion checks come out as with users, and where DIRECTCONTR beats FAIRSHARE under each."""
    cells, conclusions, _ = read_variants(data / QUICK)
    marks = conclusions[conclusions["variant"].isin(["shipped", "jobs"])].fillna("")
    wide = marks.pivot_table(index=["conclusion", "table", "trace"], columns="variant", values="holds",
                             aggfunc="first")
    same = int((wide["shipped"] == wide["jobs"]).sum())
    differ = [f"({c}) {t.replace('table', 'T')} {tr}".strip() for (c, t, tr), r in wide.iterrows()
              if r["shipped"] != r["jobs"]]
    means = cells[cells["variant"].isin(["shipped", "jobs"])].pivot_table(
        index=["variant", "table", "trace"], columns="policy", values="mean")
    ahead = {v: int((means.loc[v, "DIRECTCONTR"] < means.loc[v, "FAIRSHARE"]).sum()) for v in ("shipped", "jobs")}
    total = len(means.loc["jobs"])
    windows = int(cells["windows"].max())
    word = "holds" if same == len(wide) else ("partly" if same else "no")
    text = (f"{word}: the same verdict on {same} of the {len(wide)} checks ({windows} windows per cell)"
            + (f", not on {', '.join(differ)}" if differ else "")
            + f"; DIRECTCONTR fairer than FAIRSHARE in {ahead['jobs']} of the {total} cells with jobs spread, "
              f"{ahead['shipped']} with users spread")
    return text


def _paper_conclusions_kept(data: Path) -> str:
    """How many of the paper's own conclusion checks the best combination reproduces (Table 2 only)."""
    fit = _fit(data)
    _, conclusions, _ = read_variants(data / SPLIT_DC)
    paper = conclusions[conclusions["variant"] == PAPER_VARIANT].set_index(["conclusion", "trace"])["holds"]
    best = conclusions[conclusions["variant"] == fit.iloc[0]["variant"]].set_index(["conclusion", "trace"])["holds"]
    same = int((best.reindex(paper.index) == paper).sum())
    return f"{same} of the {len(paper)}"


TABLES = {"ppam13-split-dc-fit": table_fit, "ppam13-split-dc-means": table_means,
          "ppam13-split-dc-means-100": table_means100}
VALUES = {"ppam13-split-dc-best": _best, "ppam13-split-dc-by-split": _by("split"),
          "ppam13-split-dc-by-dc": _by("directcontr"), "ppam13-split-dc-dc-ahead": _dc_ahead_splits,
          "ppam13-split-dc-run": _run, "ppam13-split-dc-windows": _windows, "ppam13-jobs-row": _jobs_row,
          "ppam13-split-dc-best-as-paper": _paper_conclusions_kept, "ppam13-split-dc-100": _best100,
          "ppam13-split-dc-100-coverage": _coverage100, "ppam13-split-dc-100-run": _run100,
          "ppam13-split-dc-100-best": _best100_with_next, "ppam13-split-dc-100-by-split": _by("split", 100),
          "ppam13-split-dc-100-by-dc": _by("directcontr", 100),
          "ppam13-split-dc-100-dc-ahead": partial(_dc_ahead_splits, windows=100),
          "ppam13-split-dc-100-best-headline": _best100_headline, "ppam13-split-dc-10-vs-100": _ten_vs_hundred,
          "ppam13-split-dc-10-over-100": _ten_over_hundred, "ppam13-split-dc-100-spread": _spread100}
