"""The split × DIRECTCONTR ranking of docs/replication/ppam13.md and the "jobs instead of users" row, rendered from
``docs/replication/data/ppam13_split_dc`` (``python -m fairsched.replicate.ppam13.split_dc``) and from the quick
grid (``ppam13_variants_quick``)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from fairsched.replicate._doc_format import fmt, markdown_table
from fairsched.replicate.ppam13.doc import QUICK, RUN100, read_variants, variants_markdown
from fairsched.replicate.ppam13.split_dc import FIT_FILE, fit
from fairsched.replicate.ppam13.variants import PAPER_VARIANT

__all__ = ["SPLIT_DC", "TABLES", "VALUES"]

SPLIT_DC = "ppam13_split_dc"
# The combinations the 100-window variants run (ppam13_variants_100) holds, by its variant names.
RUN100_NAMES = {"shipped": "multinomial / corrected", "zipf": "zipf s=1.4267 / corrected",
                "zipf s=1": "zipf s=1 / corrected", "zipf s=2": "zipf s=2 / corrected",
                "zipf+dc printed": "zipf s=1.4267 / printed"}


def _fit(data: Path) -> pd.DataFrame:
    return pd.read_csv(data / SPLIT_DC / FIT_FILE)


def _fit100(data: Path) -> dict[str, float]:
    """The same fit on the 100-window variants run, for the combinations it holds (`RUN100_NAMES`)."""
    cells = read_variants(data / RUN100)[0]
    cells = cells[cells["variant"].isin(RUN100_NAMES)].assign(variant=lambda f: f["variant"].map(RUN100_NAMES))
    return dict(zip(*fit(cells)[["variant", "fit"]].to_numpy().T, strict=True))


def table_fit(data: Path) -> str:
    """The 15 combinations ranked by Σ |ln(ours / paper)| over PPAM'13 Table 2 and SPAA'13 §6.3.2 (18 means),
    with the same fit on 100 windows where the 100-window variants run has the combination."""
    long = _fit100(data)
    rows = [(int(r.rank), r.split, r.directcontr, fmt(r.fit, 2), fmt(long[r.variant], 2) if r.variant in long
             else "", fmt(r.fit_ppam, 2), fmt(r.fit_spaa, 2), fmt(r.fit_lpc, 2), fmt(r.fit_ricc, 2), r.worst,
             r.dc_ahead) for r in _fit(data).itertuples()]
    return markdown_table(("rank", "split", "DIRECTCONTR", "fit (18 means)", "fit, 100 windows",
                           "PPAM'13 T2 (12)", "SPAA'13 (6)", "LPC-EGEE (9)", "RICC (9)",
                           "furthest mean (ours / paper)", "DIRECTCONTR < FAIRSHARE on"), rows, "rllrrrrrrll")


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
    """The 100-window run's combinations ranked by the same fit: ``multinomial / corrected 8.01, ...``."""
    ranked = sorted(_fit100(data).items(), key=lambda item: item[1])
    return ", ".join(f"{name} {fmt(value, 2)}" for name, value in ranked)


def _by(column: str) -> object:
    """The best fit of each value of `column` (split or DIRECTCONTR variant): ``multinomial 4.1, zipf s=2 3.4``."""
    def render(data: Path) -> str:
        best = _fit(data).groupby(column, sort=False)["fit"].min().sort_values()
        return ", ".join(f"{name} {fmt(value, 2)}" for name, value in best.items())
    return render


def _dc_ahead_splits(data: Path) -> str:
    """The combinations where DIRECTCONTR is fairer than FAIRSHARE on both traces (the papers' Table 2), by split:
    ``every Zipf combination; no multinomial or composition one``."""
    fit = _fit(data)
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


TABLES = {"ppam13-split-dc-fit": table_fit, "ppam13-split-dc-means": table_means}
VALUES = {"ppam13-split-dc-best": _best, "ppam13-split-dc-by-split": _by("split"),
          "ppam13-split-dc-by-dc": _by("directcontr"), "ppam13-split-dc-dc-ahead": _dc_ahead_splits,
          "ppam13-split-dc-run": _run, "ppam13-split-dc-windows": _windows, "ppam13-jobs-row": _jobs_row,
          "ppam13-split-dc-best-as-paper": _paper_conclusions_kept, "ppam13-split-dc-100": _best100}
