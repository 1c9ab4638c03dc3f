"""The tables of docs/replication/tpds11.md (`TABLES`), rendered from the ``tpds11_*.csv`` files that
``python -m fairsched.replicate.tpds11.ablations`` writes to ``docs/replication/data``; the numbers in its prose are
in `fairsched.replicate.tpds11.doc_values`.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from fairsched.replicate._doc_format import fmt, markdown_table
from fairsched.replicate.tpds11.ablations import OPTIMAL
from fairsched.replicate.tpds11.paper import JOBS, ORGS

__all__ = ["TABLES", "trend_class"]

_ALGOS = {"local": "local", "mocca-exp": "MOCCA", "mocca+ilba": "MOCCA+ILBA"}


def table_curves(data: Path) -> str:
    """Fig. 8–9 as numbers: mean score per N (averaged over n, m) and per n (over N, m)."""
    frame = pd.read_csv(data / "tpds11_curves.csv")
    rows = []
    for (dist, algorithm), part in frame.groupby(["dist", "algorithm"], sort=False):
        cells = [fmt(part[(part["axis"] == axis) & (part["value"] == v)]["mean"].iloc[0])
                 for axis, values in (("N", ORGS), ("n", JOBS)) for v in values]
        rows.append((dist, _ALGOS[algorithm], *cells))
    return markdown_table(("dist", "algorithm", *(f"N = {v}" for v in ORGS),
                           *(f"n = {v}" for v in JOBS)), rows, "ll" + "r" * 8)


def table_trends(data: Path) -> str:
    """§7.2.4: mean score per (N, n); the paper: local rises with n except uni N = 2, 5; MOCCA and ILBA rise with n
    on swf and fall (or stay) on uni once n = 10 is left out."""
    frame = pd.read_csv(data / "tpds11_trends.csv")
    rows = []
    for (dist, algorithm, orgs), part in frame.groupby(["dist", "algorithm", "orgs"], sort=False):
        means = part.set_index("jobs")["mean"]
        rows.append((dist, _ALGOS[algorithm], orgs, *(fmt(means[n]) for n in JOBS), trend_class(means)))
    return markdown_table(("dist", "algorithm", "N", *(f"n = {n}" for n in JOBS), "n = 50 → 500"), rows,
                          "llr" + "r" * 4 + "l")


def table_m(data: Path) -> str:
    """§7.2.5: Welch's t-test between m values (paper p-values: local 0.35 / 0.56, MOCCA 0.11 / 0.24, ILBA 0.28 /
    0.31 for m = 32 vs 128 / 128 vs 512)."""
    frame = pd.read_csv(data / "tpds11_m_influence.csv")
    rows = [(r.dist, _ALGOS[r.algorithm], f"{r.m_a} vs {r.m_b}", fmt(r.mean_a, 3), fmt(r.mean_b, 3),
             f"{r.p_value:.2g}") for r in frame.itertuples()]
    return markdown_table(("dist", "algorithm", "m", "mean (first)", "mean (second)", "p-value"), rows, "lllrrr")


def table_facts(data: Path) -> str:
    """§7.2.1 correlations, §7.2.6 worst cases and §7.2.2 optimal rates, ours beside the paper's."""
    corr = pd.read_csv(data / "tpds11_correlations.csv").set_index("data")["pearson_r"]
    worst = pd.read_csv(data / "tpds11_worst.csv")
    optimal = pd.read_csv(data / "tpds11_optimal.csv").set_index(["dist", "algorithm"])["optimal"]
    w = worst.iloc[0]
    rows = [("§7.2.1 correlation of N and local's score, uni", "0.69",
             f"{fmt(corr['uni'])} (n ≥ 50: {fmt(corr['uni, n ≥ 50'])})"),
            ("§7.2.1 same, both data sets", "0.38", f"{fmt(corr['both'])} (n ≥ 50: {fmt(corr['both, n ≥ 50'])})"),
            ("§7.2.6 worst local score", "12.12 (uni, N = 20, n = 100)",
             f"{fmt(w['value'])} ({w['dist']}, N = {w['orgs']}, n = {w['jobs']}, m = {w['procs']})"),
            ("§7.2.6 MOCCA worse than local (%)", "9 (\"MOCCA achieved the worst results\")",
             fmt(worst.iloc[1]["value"], 1)),
            ("§7.2.2 ILBA score 1 (%), both data sets", "≥ 40", fmt(100 * optimal["both", "mocca+ilba"], 1)),
            ("§7.2.2 MOCCA score 1 (%), both data sets", "26", fmt(100 * optimal["both", "mocca-exp"], 1)),
            ("ILBA score 1 (%), uni / swf", "—", f"{fmt(100 * optimal['uni', 'mocca+ilba'], 1)} / "
                                                  f"{fmt(100 * optimal['swf', 'mocca+ilba'], 1)}"),
            ("MOCCA score 1 (%), uni / swf", "—", f"{fmt(100 * optimal['uni', 'mocca-exp'], 1)} / "
                                                  f"{fmt(100 * optimal['swf', 'mocca-exp'], 1)}")]
    return markdown_table(("what", "paper", "ours"), rows, "lll")


def table_heterogeneous(data: Path) -> str:
    """§7.4: MOCCA+ILBA per Pareto shape a, mean (std), all n and without n = 10."""
    frame = pd.read_csv(data / "tpds11_heterogeneous.csv")
    frame = frame[frame["algorithm"] == "mocca+ilba"]
    rows = []
    for a in sorted(frame["shape"].unique()):
        cells = []
        for dist in ("uni", "swf"):
            for jobs in ("all n", "n ≥ 50"):
                r = frame[(frame["shape"] == a) & (frame["dist"] == dist) & (frame["jobs"] == jobs)].iloc[0]
                cells.append(f"{r['mean']:.3f} ({r['std']:.3f}), {100 * r['optimal']:.0f} %")
        rows.append((int(a), *cells))
    return markdown_table(("a", "uni, all n", "uni, n ≥ 50", "swf, all n", "swf, n ≥ 50"), rows, "lrrrr")


def table_hetero(data: Path) -> str:
    """§7.4 variants: MOCCA+ILBA per Pareto shape, mean (std), for each n (N = 10, 10 instances per cell)."""
    frame = pd.read_csv(data / "tpds11_hetero_variants.csv")
    shapes = list(dict.fromkeys(frame["procs"]))
    rows = []
    for (name, jobs), part in frame.groupby(["variant", "jobs"], sort=False):
        cells = [f"{g['ilba'].mean():.3f} ({g['ilba'].std(ddof=0):.3f})" for _, g in part.groupby("procs",
                                                                                                 sort=False)]
        rows.append((name, jobs, *cells, f"{part['ilba'].mean():.3f} ({part['ilba'].std(ddof=0):.3f})"))
    return markdown_table(("instances", "n", *(f"a = {-p}" for p in shapes), "all a"), rows, "lr" + "r" * 5)


def table_variants(data: Path, group: str) -> str:
    """Generator variants: mean scores of local, MOCCA, MOCCA+ILBA, share of score 1, LB = p_max share."""
    frame = pd.read_csv(data / f"tpds11_variants_{group}.csv")
    rows = []
    for name, part in frame.groupby("variant", sort=False):
        cells = [fmt(part[c].mean(), 3) for c in ("local", "mocca", "ilba")]
        if group == "local":
            cells = [fmt(part[part["orgs"] == n]["local"].mean()) for n in ORGS] + cells[1:]
        rows.append((name, *cells, fmt(100 * part["mocca_moved"].mean(), 0),
                     fmt(100 * (part["ilba"] <= OPTIMAL).mean(), 0), fmt(100 * part["lb_is_pmax"].mean(), 0),
                     fmt(part["mean_width_over_m"].mean())))
    head = (("local", "MOCCA", "MOCCA+ILBA") if group == "swf" else
            ("local, N = 2 (paper 1.57)", "N = 5 (3.00)", "N = 10 (4.93)", "N = 20 (7.35)", "MOCCA", "MOCCA+ILBA"))
    return markdown_table(("instances", *head, "MOCCA moved a job (%)", "ILBA score 1 (%)", "LB = p_max (%)",
                           "mean q / m"), rows)


def table_results(data: Path) -> str:
    """`fairsched replicate tpds11` (seed 0): the rows with a paper value, and local on every N."""
    frame = pd.read_csv(data / "tpds11_rows.csv", dtype={"orgs": str, "jobs": str, "procs": str})
    homo = frame[frame["experiment"] == "homogeneous"]
    keep = ((homo["orgs"] == "all") & (homo["jobs"] == "all")) | (homo["jobs"] == "50-500")
    rows = [(r.dist, r.orgs, r.jobs, _ALGOS[r.algorithm], f"{r.mean:.3f} ({r.std:.3f})",
             f"{100 * r.optimal_fraction:.0f} %", "—" if pd.isna(r.paper_mean) else f"**{r.paper_mean:.2f}**")
            for r in homo[keep].itertuples()]
    return markdown_table(("dist", "N", "n", "algorithm", "ours: mean (std)", "score 1", "paper"), rows, "lllllrr")


def table_policies(data: Path) -> str:
    """§7.3 (Fig. 10): MOCCA (3LB or 4LB cut) + ILBA per local order, all instances."""
    frame = pd.read_csv(data / "tpds11_rows.csv", dtype={"orgs": str, "jobs": str})
    frame = frame[(frame["experiment"] == "local-policies") & (frame["orgs"] == "all")]
    rows = []
    for order, part in frame.groupby("local_order", sort=False):
        cells = []
        for dist in ("uni", "swf"):
            for threshold in (3, 4):
                r = part[(part["dist"] == dist) & (part["threshold"] == threshold)].iloc[0]
                paper = "" if pd.isna(r["paper_mean"]) else f" (paper **{r['paper_mean']:.4f}**)"
                cells.append(f"{r['mean']:.3f}{paper}")
        rows.append((order.upper(), *cells))
    return markdown_table(("local order", "uni, 3LB", "uni, 4LB", "swf, 3LB", "swf, 4LB"), rows, "lrrrr")



def trend_class(means: pd.Series) -> str:
    """§7.2.4's direction of a (dist, algorithm, N) row from n = 50 to 500: ``rises``, ``falls or flat`` (by at
    most 0.005 per step) or ``mixed``."""
    if all(means[b] >= means[a] for a, b in ((50, 100), (100, 500))):
        return "rises"
    if all(means[b] <= means[a] + 0.005 for a, b in ((50, 100), (100, 500))):
        return "falls or flat"
    return "mixed"




TABLES = {"tpds11-results": table_results, "tpds11-policies": table_policies,
          "tpds11-curves": table_curves, "tpds11-trends": table_trends, "tpds11-m": table_m,
          "tpds11-facts": table_facts, "tpds11-heterogeneous": table_heterogeneous,
          "tpds11-swf": lambda d: table_variants(d, "swf"), "tpds11-local": lambda d: table_variants(d, "local"),
          "tpds11-hetero": table_hetero}

