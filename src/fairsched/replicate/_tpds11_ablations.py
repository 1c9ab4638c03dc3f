"""TPDS'11 §7: the runs and ablations behind docs/replication/tpds11.md.

Steps, each writing ``docs/replication/data/tpds11_*.csv``:

* ``base`` (1–3 min): `fairsched.replicate.tpds11.run` (seed 0, every experiment); its aggregate rows, and from its
  per-instance scores the figures the paper states that the rows do not: the per-N and per-n curves (Fig. 8–9),
  the §7.2.4 trends, §7.2.5 (m has no influence: Welch's t-test between m values), §7.2.6 (the worst local score,
  how often MOCCA scores worst), the §7.2.1 correlations between N and local's score, the share of optimal scores
  (§7.2.2), and the heterogeneous grids (§7.4) with and without n = 10;
* ``swf``, ``local``, ``hetero``: instance-generator variants (`VARIANTS`,
  `HETERO_VARIANTS`: plain data, a name and overrides), 10 instances per (dist, N, n, m) instead of 50, scored by
  local (HF), MOCCA and MOCCA+ILBA — for the swf gap (sizes scaled to m or not, q < m, run-time tail, fewer jobs,
  n per organization), the local-HF gap at N = 10/20 (local order, owner assignment, widths) and §7.4 (which
  cluster a job must fit).

Regenerate::

    python -m fairsched.replicate._tpds11_ablations base swf local hetero --out docs/replication/data
    python -m fairsched.replicate._doc_tables docs/replication/tpds11.md
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fairsched.mosp.generate import heterogeneous_procs, zipf_owners
from fairsched.mosp.instance import MospInstance
from fairsched.mosp.metrics import score
from fairsched.mosp.policies.ilba import ilba
from fairsched.mosp.policies.local import local_schedule
from fairsched.mosp.policies.mocca_exp import mocca_experimental
from fairsched.mosp.validate import check_mosp_schedule
from fairsched.replicate import tpds11
from fairsched.replicate._doc_tables import fmt, markdown_table
from fairsched.scenario import zipf_weights
from fairsched.workload.lublin import LublinModel, sample_rigid_jobs

__all__ = ["TABLES", "VARIANTS", "Variant", "run_variants", "welch_p"]

OPTIMAL = 1 + tpds11.OPTIMAL_TOLERANCE


@dataclass(frozen=True)
class Variant:
    """Instances of `dist` with `overrides`: ``local_order`` (hf, lpt, spt, rnd), ``owners`` ("iid" Zipf draws or
    "expected": the Zipf shares rounded, largest remainder), ``lublin_scaled`` (sizes scaled to m, else the
    model's 128-processor system capped at m), ``strict_width`` (q < m, "smaller than m"), ``jobs`` (the n
    values), ``per_org`` (n jobs per organization instead of n in all)."""

    group: str
    name: str
    dist: str
    overrides: Mapping[str, Any] = field(default_factory=dict)


SWF_FEWER_JOBS = "far fewer jobs: n = 10 and 50 only"
VARIANTS: tuple[Variant, ...] = (
    Variant("swf", "ours: sizes scaled to m, q ≤ m", "swf"),
    Variant("swf", "sizes scaled to m, q < m", "swf", {"strict_width": True}),
    Variant("swf", "unscaled model (128-processor system), q ≤ m", "swf", {"lublin_scaled": False}),
    Variant("swf", "unscaled model, q < m", "swf", {"lublin_scaled": False, "strict_width": True}),
    Variant("swf", "unscaled model, jobs with q ≥ m redrawn", "swf", {"lublin_scaled": False, "redraw": True}),
    # log p <= 10 (p <= 6.1 h) instead of 12: wide jobs draw log p from the long-job Gamma (mean 9.97, sd 0.39)
    # only, so a cap below ~9.5 would redraw them forever
    Variant("swf", "lighter run-time tail (p ≤ e^10 s ≈ 6 h)", "swf", {"max_log_runtime": 10.0}),
    # the number of jobs per organization (the doc's "far fewer jobs" explanation of the swf gap): the same
    # generator with only the small n of the grid, and n read as jobs per organization (N·n in all)
    Variant("swf-jobs", SWF_FEWER_JOBS, "swf", {"jobs": (10, 50)}),
    Variant("swf-jobs", "n jobs per organization (N·n in all)", "swf", {"per_org": True}),
    Variant("local", "ours: HF, i.i.d. Zipf owners", "uni", {"jobs": (50, 100, 500), "orgs": (2, 5, 10, 20)}),
    Variant("local", "LPT local order", "uni", {"jobs": (50, 100, 500), "orgs": (2, 5, 10, 20), "local_order": "lpt"}),
    Variant("local", "expected Zipf shares (no draw)", "uni",
            {"jobs": (50, 100, 500), "orgs": (2, 5, 10, 20), "owners": "expected"}),
    Variant("local", "q uniform in 1..m/2", "uni",
            {"jobs": (50, 100, 500), "orgs": (2, 5, 10, 20), "half_width": True}),
    Variant("local", "Zipf exponent s = 1.3", "uni", {"jobs": (50, 100, 500), "orgs": (2, 5, 10, 20), "zipf_s": 1.3}),
)
VARIANT_INSTANCES = 10
HETERO_VARIANTS: tuple[Variant, ...] = tuple(
    Variant("hetero", f"{dist}, {label}", dist, {"orgs": (10,), "jobs": (50, 100, 500), "shapes": (1, 2, 5, 10),
                                                 **extra})
    for dist in ("uni", "swf")
    for label, extra in (("ours: q ≤ the owner's cluster", {}), ("q ≤ the smallest cluster", {"fit_all": True})))


def _owners(n_jobs: int, n_orgs: int, rng: np.random.Generator, how: str, s: float = 1.4267) -> np.ndarray:
    if how == "iid":
        return zipf_owners(n_jobs, n_orgs, rng, s=s)
    share = zipf_weights(n_orgs, s) * n_jobs
    counts = np.floor(share).astype(np.int64)
    counts[np.argsort(-(share - counts), kind="stable")[: n_jobs - counts.sum()]] += 1
    return np.repeat(np.arange(n_orgs), counts)


def _instance(variant: Variant, n_orgs: int, n_jobs: int, m: int, rng: np.random.Generator) -> MospInstance:
    """One instance; `m` is the cluster size, or minus the Pareto shape of a heterogeneous grid (§7.4)."""
    o = variant.overrides
    procs = (heterogeneous_procs(n_orgs, rng, shape=float(-m)) if m < 0 else np.full(n_orgs, m, dtype=np.int64))
    n_jobs = n_jobs * n_orgs if o.get("per_org") else n_jobs
    owner = _owners(n_jobs, n_orgs, rng, o.get("owners", "iid"), o.get("zipf_s", 1.4267))
    size = np.full(n_jobs, procs.min()) if o.get("fit_all") else procs[owner]  # the cluster each job must fit
    cap = size - 1 if o.get("strict_width") else size
    if variant.dist == "uni":
        runtime = rng.integers(1, 51, size=n_jobs, dtype=np.int64)
        width = rng.integers(1, (size // 2 if o.get("half_width") else size) + 1, dtype=np.int64)
    else:
        model = LublinModel(max_log_runtime=o.get("max_log_runtime", LublinModel().max_log_runtime))
        system = size if o.get("lublin_scaled", True) else np.full(n_jobs, 2 ** int(model.u_hi))
        runtime, width = sample_rigid_jobs(n_jobs, system, rng, model)
        while o.get("redraw") and (again := np.flatnonzero(width >= size)).size:
            runtime[again], width[again] = sample_rigid_jobs(again.size, system[again], rng, model)
        width = np.minimum(width, cap)
    return MospInstance.from_arrays(procs, owner, runtime, width)


def run_variants(variants: tuple[Variant, ...] = VARIANTS, *, instances: int = VARIANT_INSTANCES,
                 seed: int = 0) -> pd.DataFrame:
    """One row per (variant, N, n, m, instance): the scores of local, MOCCA and MOCCA+ILBA (every schedule
    checked, MOCCA against its 3LB bound), the LB and whether it is p_max."""
    rows = []
    for v_index, variant in enumerate(variants):
        order = variant.overrides.get("local_order", "hf")
        for n_orgs in variant.overrides.get("orgs", tpds11.ORGS):
            for n_jobs in variant.overrides.get("jobs", tpds11.JOBS):
                for m in [-a for a in variant.overrides.get("shapes", ())] or tpds11.PROCS:
                    for i in range(instances):
                        key = (v_index, n_orgs, n_jobs, m if m > 0 else 10**6 - m, i)  # m < 0: a Pareto shape
                        child = np.random.SeedSequence(seed, spawn_key=key)
                        inst = _instance(variant, n_orgs, n_jobs, m, np.random.default_rng(child))
                        local = local_schedule(inst, order=order)
                        mocca = mocca_experimental(inst, local_order=order)
                        final = ilba(inst, mocca)
                        check_mosp_schedule(inst, final, local_order=order, delay_reference=mocca)
                        rows.append({"group": variant.group, "variant": variant.name, "dist": variant.dist,
                                     "orgs": n_orgs, "jobs": n_jobs, "procs": m, "index": i,
                                     "local": score(inst, local), "mocca": score(inst, mocca),
                                     "ilba": score(inst, final), "mocca_moved": bool(mocca.start.tolist() !=
                                                                                      local.start.tolist() or
                                                                                      mocca.cluster.tolist() !=
                                                                                      local.cluster.tolist()),
                                     "lb_is_pmax": bool(inst.runtime.max() >= inst.lower_bound()),
                                     "mean_width_over_m": float((inst.width / inst.procs[inst.owner]).mean())})
    return pd.DataFrame.from_records(rows)


# ------------------------------------------------------------------------------------ analyses of the base run

def welch_p(a: np.ndarray, b: np.ndarray) -> float:
    """Two-tailed p-value of Welch's unequal-variance t-test (the paper's "two-tailed, type 3 t-test"), with the
    normal approximation of Student's t (exact to < 1e-3 for the ≥ 500 degrees of freedom used here)."""
    va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
    t = (a.mean() - b.mean()) / math.sqrt(va + vb)
    return math.erfc(abs(t) / math.sqrt(2.0))


def analyses(scores: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The derived tables of the ``base`` step (module docstring), by file stem."""
    homo = scores[scores["experiment"] == "homogeneous"]
    curves = (homo.groupby(["dist", "algorithm", "orgs"])["score"].agg(["mean", "std", "count"]).reset_index()
              .assign(axis="N", value=lambda f: f["orgs"]).drop(columns="orgs"))
    per_n = (homo.groupby(["dist", "algorithm", "jobs"])["score"].agg(["mean", "std", "count"]).reset_index()
             .assign(axis="n", value=lambda f: f["jobs"]).drop(columns="jobs"))
    per_n_by_n = (homo.groupby(["dist", "algorithm", "orgs", "jobs"])["score"].mean().rename("mean").reset_index())
    m_rows = []
    for (dist, algorithm), part in homo.groupby(["dist", "algorithm"]):
        by_m = {m: g["score"].to_numpy() for m, g in part.groupby("procs")}
        for a, b in ((32, 128), (128, 512)):
            m_rows.append({"dist": dist, "algorithm": algorithm, "m_a": a, "m_b": b, "mean_a": by_m[a].mean(),
                           "mean_b": by_m[b].mean(), "p_value": welch_p(by_m[a], by_m[b])})
    for algorithm, part in homo.groupby("algorithm"):
        by_m = {m: g["score"].to_numpy() for m, g in part.groupby("procs")}
        for a, b in ((32, 128), (128, 512)):
            m_rows.append({"dist": "both", "algorithm": algorithm, "m_a": a, "m_b": b, "mean_a": by_m[a].mean(),
                           "mean_b": by_m[b].mean(), "p_value": welch_p(by_m[a], by_m[b])})
    local = homo[homo["algorithm"] == "local"]
    corr = []
    for label, frame in (("uni", local[local["dist"] == "uni"]), ("uni, n ≥ 50", local[(local["dist"] == "uni")
                                                                                          & (local["jobs"] != 10)]),
                         ("both", local), ("both, n ≥ 50", local[local["jobs"] != 10])):
        corr.append({"data": label, "instances": len(frame),
                     "pearson_r": float(np.corrcoef(frame["orgs"], frame["score"])[0, 1])})
    worst_local = local.loc[local["score"].idxmax()]
    wide = homo.pivot_table(index=["dist", "orgs", "jobs", "procs", "index"], columns="algorithm", values="score")
    worst = pd.DataFrame([{"what": "worst local score", "dist": worst_local["dist"], "orgs": worst_local["orgs"],
                           "jobs": worst_local["jobs"], "procs": worst_local["procs"], "value": worst_local["score"]},
                          {"what": "instances where MOCCA scores worse than local (%)", "dist": "both",
                           "orgs": "all", "jobs": "all", "procs": "all",
                           "value": 100 * float((wide["mocca-exp"] > wide["local"] + 1e-12).mean())},
                          {"what": "instances where MOCCA scores the same as local (%)", "dist": "both",
                           "orgs": "all", "jobs": "all", "procs": "all",
                           "value": 100 * float((abs(wide["mocca-exp"] - wide["local"]) <= 1e-12).mean())}])
    optimal = (homo.assign(optimal=homo["score"] <= OPTIMAL).groupby(["dist", "algorithm"])["optimal"].mean()
               .reset_index())
    both = homo.assign(optimal=homo["score"] <= OPTIMAL).groupby("algorithm")["optimal"].mean().reset_index()
    optimal = pd.concat([optimal, both.assign(dist="both")], ignore_index=True)
    hetero = scores[scores["experiment"] == "heterogeneous"]
    het = []
    for label, frame in (("all n", hetero), ("n ≥ 50", hetero[hetero["jobs"] != 10])):
        g = frame.groupby(["dist", "algorithm", "shape"])["score"].agg(["mean", "std", "count"]).reset_index()
        g["optimal"] = frame.assign(o=frame["score"] <= OPTIMAL).groupby(["dist", "algorithm", "shape"])["o"].mean(
        ).to_numpy()
        het.append(g.assign(jobs=label))
    return {"tpds11_curves": pd.concat([curves, per_n], ignore_index=True), "tpds11_trends": per_n_by_n,
            "tpds11_m_influence": pd.DataFrame(m_rows), "tpds11_correlations": pd.DataFrame(corr),
            "tpds11_worst": worst, "tpds11_optimal": optimal, "tpds11_heterogeneous": pd.concat(het)}


# ------------------------------------------------------------------------------------------ the doc's tables

_ALGOS = {"local": "local", "mocca-exp": "MOCCA", "mocca+ilba": "MOCCA+ILBA"}


def table_curves(data: Path) -> str:
    """Fig. 8–9 as numbers: mean score per N (averaged over n, m) and per n (over N, m)."""
    frame = pd.read_csv(data / "tpds11_curves.csv")
    rows = []
    for (dist, algorithm), part in frame.groupby(["dist", "algorithm"], sort=False):
        cells = [fmt(part[(part["axis"] == axis) & (part["value"] == v)]["mean"].iloc[0])
                 for axis, values in (("N", tpds11.ORGS), ("n", tpds11.JOBS)) for v in values]
        rows.append((dist, _ALGOS[algorithm], *cells))
    return markdown_table(("dist", "algorithm", *(f"N = {v}" for v in tpds11.ORGS),
                           *(f"n = {v}" for v in tpds11.JOBS)), rows, "ll" + "r" * 8)


def table_trends(data: Path) -> str:
    """§7.2.4: mean score per (N, n); the paper: local rises with n except uni N = 2, 5; MOCCA and ILBA rise with n
    on swf and fall (or stay) on uni once n = 10 is left out."""
    frame = pd.read_csv(data / "tpds11_trends.csv")
    rows = []
    for (dist, algorithm, orgs), part in frame.groupby(["dist", "algorithm", "orgs"], sort=False):
        means = part.set_index("jobs")["mean"]
        rows.append((dist, _ALGOS[algorithm], orgs, *(fmt(means[n]) for n in tpds11.JOBS), _trend_class(means)))
    return markdown_table(("dist", "algorithm", "N", *(f"n = {n}" for n in tpds11.JOBS), "n = 50 → 500"), rows,
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
            cells = [fmt(part[part["orgs"] == n]["local"].mean()) for n in tpds11.ORGS] + cells[1:]
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


# ------------------------------------------------------------------------------ the doc's numbers in prose

def _row(dist: str, algorithm: str, *, experiment: str = "homogeneous", orgs: str = "all", jobs: str = "all",
         order: str = "hf", column: str = "mean", digits: int = 2, percent: bool = False) -> Any:
    """One aggregate of ``tpds11_rows.csv`` (`fairsched replicate tpds11`)."""
    def render(data: Path) -> str:
        rows = pd.read_csv(data / "tpds11_rows.csv", dtype={"orgs": str, "jobs": str})
        row = rows[(rows["experiment"] == experiment) & (rows["dist"] == dist) & (rows["orgs"] == orgs)
                   & (rows["jobs"] == jobs) & (rows["algorithm"] == algorithm) & (rows["local_order"] == order)]
        value = float(row.iloc[0][column])
        return fmt(100 * value if percent else value, digits)
    return render


def _policy_rows(data: Path, dist: str) -> pd.DataFrame:
    """The §7.3 rows of `dist` (every local order and threshold, all N and n) of ``tpds11_rows.csv``."""
    rows = pd.read_csv(data / "tpds11_rows.csv", dtype={"orgs": str, "jobs": str})
    return rows[(rows["experiment"] == "local-policies") & (rows["dist"] == dist) & (rows["orgs"] == "all")]


def _local_policies_range(dist: str, *, digits: int = 2) -> Any:
    """``low–high`` of the §7.3 means over every local order and threshold."""
    def render(data: Path) -> str:
        means = _policy_rows(data, dist)
        return f"{fmt(means['mean'].min(), digits)}–{fmt(means['mean'].max(), digits)}"
    return render


# §7.3 (Fig. 10) as the paper states it: every local order and threshold scores 1.24–1.31 on uni, 1.01–1.02 on swf.
PAPER_POLICIES = {"uni": (1.24, 1.31), "swf": (1.01, 1.02)}
ORDERS = ("hf", "lpt", "spt", "rnd")


def _policies_spread(dist: str) -> Any:
    """§7.3 "local policies barely matter" on `dist`: ``matches`` when our spread over every order and threshold
    is at most 1.25 × the paper's (a smaller spread matters even less), else ``direction only``; with both
    spreads."""
    def render(data: Path) -> str:
        means = _policy_rows(data, dist)
        ours = float(means["mean"].max() - means["mean"].min())
        low, high = PAPER_POLICIES[dist]
        word = "matches" if ours <= 1.25 * (high - low) else "direction only"
        return f"{word} on {dist} (spread {fmt(ours, 3)} against the paper's {fmt(high - low, 2)})"
    return render


def _lpt_best(dist: str) -> Any:
    """§7.3 "LPT is best" on `dist`, per threshold (3LB, 4LB), means compared at 3 decimals (the table's):
    ``matches on swf (LPT best at 3LB and 4LB)`` or ``no on uni (3LB: HF 1.202 against LPT 1.214; ...)``."""
    def render(data: Path) -> str:
        part = _policy_rows(data, dist)
        notes, best_everywhere = [], True
        for threshold in (3, 4):
            means = part[part["threshold"] == threshold].set_index("local_order")["mean"].round(3)
            others = means.drop("lpt")
            rival = str(others.idxmin())
            if means["lpt"] < others.min():
                continue
            best_everywhere = False
            how = "ties with" if means["lpt"] == others.min() else "behind"
            notes.append(f"{threshold}LB: LPT {fmt(means['lpt'], 3)} {how} {rival.upper()} {fmt(others.min(), 3)}")
        if best_everywhere:
            return f"matches on {dist} (LPT best at 3LB and 4LB)"
        return f"no on {dist} ({'; '.join(notes)})"
    return render


# §7.2.1: the paper's Pearson correlations of N and local's score; ours "matches" within 0.05 of them.
PAPER_CORRELATION = {"uni": 0.69, "both": 0.38}
CORRELATION_MATCH = 0.05


def _correlation_verdict(data_set: str) -> Any:
    """``matches`` (within `CORRELATION_MATCH` of the paper's r), ``direction only`` (same sign) or ``no``."""
    def render(data: Path) -> str:
        ours = float(pd.read_csv(data / "tpds11_correlations.csv").set_index("data").loc[data_set, "pearson_r"])
        paper = PAPER_CORRELATION[data_set]
        if abs(ours - paper) <= CORRELATION_MATCH:
            return "matches"
        return "direction only" if ours * paper > 0 else "no"
    return render


def _optimal(dist: str, algorithm: str) -> Any:
    def render(data: Path) -> str:
        frame = pd.read_csv(data / "tpds11_optimal.csv")
        row = frame[(frame["dist"] == dist) & (frame["algorithm"] == algorithm)]
        return fmt(100 * float(row.iloc[0]["optimal"]), 1)
    return render


def _correlation(data_set: str) -> Any:
    def render(data: Path) -> str:
        frame = pd.read_csv(data / "tpds11_correlations.csv").set_index("data")
        return fmt(float(frame.loc[data_set, "pearson_r"]), 2)
    return render


def _worst_local(data: Path) -> str:
    frame = pd.read_csv(data / "tpds11_worst.csv").set_index("what")
    return fmt(float(frame.loc["worst local score", "value"]), 1)


def _local_variant(variant: str, orgs: int | None = None, *, column: str = "local", percent: bool = False) -> Any:
    """A variant of the local-gap table (``tpds11_variants_local.csv``): its mean `column` at N = `orgs` (None:
    every N), as a percentage with `percent`."""
    def render(data: Path) -> str:
        frame = pd.read_csv(data / "tpds11_variants_local.csv")
        part = frame[(frame["variant"] == variant) & ((frame["orgs"] == orgs) if orgs is not None else True)]
        value = float(part[column].mean())
        return fmt(100 * value, 0) if percent else fmt(value, 2)
    return render


def _m_p(dist: str, algorithm: str, *, how: str = "min", pair: tuple[int, int] | None = None) -> Any:
    """§7.2.5's p-values (``tpds11_m_influence.csv``): the least / greatest over both pairs of m, or one pair's
    (`dist` or `algorithm` "any": every one)."""
    def render(data: Path) -> str:
        frame = pd.read_csv(data / "tpds11_m_influence.csv")
        part = frame[((frame["algorithm"] == algorithm) if algorithm != "any" else True)
                     & ((frame["dist"] == dist) if dist != "any" else True)]
        if pair is not None:
            part = part[(part["m_a"] == pair[0]) & (part["m_b"] == pair[1])]
        values = part["p_value"]
        return fmt(float(values.min() if how == "min" else values.max()), 3 if how == "max" else 2)
    return render


def _trend_class(means: pd.Series) -> str:
    """§7.2.4's direction of a (dist, algorithm, N) row from n = 50 to 500: ``rises``, ``falls or flat`` (by at
    most 0.005 per step) or ``mixed``."""
    if all(means[b] >= means[a] for a, b in ((50, 100), (100, 500))):
        return "rises"
    if all(means[b] <= means[a] + 0.005 for a, b in ((50, 100), (100, 500))):
        return "falls or flat"
    return "mixed"


def _trend_claim(dist: str, algorithm: str, expect: str, orgs: tuple[int, ...] = tpds11.ORGS) -> Any:
    """Whether `algorithm` on `dist` goes the way §7.2.4 says (`expect`, a `_trend_class`) for each N of `orgs`:
    ``holds for every N``, ``holds for N = 5, 10, 20; not for N = 2 (mixed)`` or ``does not hold (N = 10: ...)``."""
    def render(data: Path) -> str:
        frame = pd.read_csv(data / "tpds11_trends.csv")
        part = frame[(frame["dist"] == dist) & (frame["algorithm"] == algorithm)]
        found = {n: _trend_class(part[part["orgs"] == n].set_index("jobs")["mean"]) for n in orgs}
        good = [n for n in orgs if found[n] == expect]
        bad = "; ".join(f"N = {n}: {found[n]}" for n in orgs if found[n] != expect)
        if len(good) == len(orgs):
            return "holds for every N" if len(orgs) > 1 else "holds"
        if not good:
            return f"does not hold ({bad})"
        return f"holds for N = {', '.join(map(str, good))}; not for {bad}"
    return render


# §7.2.4's claims, as the trend section of docs/replication/tpds11.md checks them: (dist, algorithm, expected
# direction from n = 50 to 500, the N it is claimed for).
TREND_CLAIMS: tuple[tuple[str, str, str, tuple[int, ...]], ...] = (
    ("swf", "local", "rises", tpds11.ORGS), ("uni", "local", "rises", (10, 20)),
    ("swf", "mocca-exp", "rises", tpds11.ORGS), ("swf", "mocca+ilba", "rises", tpds11.ORGS),
    ("uni", "mocca-exp", "falls or flat", tpds11.ORGS), ("uni", "mocca+ilba", "falls or flat", tpds11.ORGS))


def _trend_count(data: Path) -> str:
    """Over every (claim, N) of `TREND_CLAIMS`: ``matches for 13 of the 22 (claim, N) cases, no for 9``."""
    frame = pd.read_csv(data / "tpds11_trends.csv")
    found = []
    for dist, algorithm, expect, orgs in TREND_CLAIMS:
        part = frame[(frame["dist"] == dist) & (frame["algorithm"] == algorithm)]
        found += [_trend_class(part[part["orgs"] == n].set_index("jobs")["mean"]) == expect for n in orgs]
    return f"matches for {sum(found)} of the {len(found)} (claim, N) cases, no for {len(found) - sum(found)}"


M_NO_INFLUENCE_P = 0.05


def _m_count(data: Path) -> str:
    """§7.2.5 over each data set, algorithm and pair of m: ``matches in 10 of the 12 tests (p ≥ 0.05); no for
    local on swf, m = 128 vs 512 (p = 1.4e-05); ...``."""
    frame = pd.read_csv(data / "tpds11_m_influence.csv")
    frame = frame[frame["dist"] != "both"]
    names = {"local": "local", "mocca-exp": "MOCCA", "mocca+ilba": "MOCCA+ILBA"}
    bad = frame[frame["p_value"] < M_NO_INFLUENCE_P]
    text = (f"matches in {len(frame) - len(bad)} of the {len(frame)} tests (p ≥ {M_NO_INFLUENCE_P:g}, one per "
            "data set, algorithm and pair of m)")
    if bad.empty:
        return text
    return text + "; no for " + "; ".join(f"{names[r.algorithm]} on {r.dist}, m = {r.m_a} vs {r.m_b} "
                                          f"(p = {r.p_value:.2g})" for r in bad.itertuples())


def _m_swf_worst(data: Path) -> str:
    """The largest p-value of local and MOCCA on swf between m = 128 and 512 (both below 0.001 when m matters)."""
    frame = pd.read_csv(data / "tpds11_m_influence.csv")
    part = frame[(frame["dist"] == "swf") & frame["algorithm"].isin(["local", "mocca-exp"])
                 & (frame["m_a"] == 128) & (frame["m_b"] == 512)]
    return f"{part['p_value'].max():.2g}"


def _worst_share(what: str) -> Any:
    def render(data: Path) -> str:
        frame = pd.read_csv(data / "tpds11_worst.csv").set_index("what")
        return fmt(float(frame.loc[what, "value"]), 0)
    return render


def _mocca_worse(data: Path) -> str:
    """How often MOCCA scores worse than local (§7.2.6): ``never worse than local`` or the share."""
    frame = pd.read_csv(data / "tpds11_worst.csv").set_index("what")
    share = float(frame.loc["instances where MOCCA scores worse than local (%)", "value"])
    return "never worse than local" if share == 0 else f"worse than local on {fmt(share, 1)} % of the instances"


def _swf_variants(column: str, how: str, *, digits: int = 2, percent: bool = False) -> Any:
    """Over the swf generator variants of group ``swf`` (``tpds11_variants_swf.csv``, without the job-count ones):
    the ``range`` (``low–high``) or the ``min`` of the variants' mean `column`; ``below3`` = the share (%) of their
    instances where local scores below 3."""
    def render(data: Path) -> str:
        frame = pd.read_csv(data / "tpds11_variants_swf.csv")
        frame = frame[frame["group"] == "swf"]  # the readings of "adjusted", not the job-count variants
        if how == "below3":
            return fmt(100 * float((frame["local"] < 3).mean()), 0)
        means = frame.groupby("variant", sort=False)[column].mean() * (100 if percent else 1)
        if how == "min":
            return fmt(float(means.min()), digits)
        return f"{fmt(float(means.min()), digits)}–{fmt(float(means.max()), digits)}"
    return render


# §7.2.2: the paper's swf means of MOCCA and MOCCA+ILBA.
PAPER_SWF = {"mocca": 1.16, "ilba": 1.03}


def _swf_jobs_verdict(variant: str) -> Any:
    """A job-count variant of the swf generator against the paper's swf means (`PAPER_SWF`): ``matches`` when MOCCA
    and MOCCA+ILBA are both within two standard errors of the paper's, ``direction only`` when both are closer to
    it than our default generator's, else ``no``; with the means."""
    def render(data: Path) -> str:
        frame = pd.read_csv(data / "tpds11_variants_swf.csv")
        part, ours = frame[frame["variant"] == variant], frame[frame["variant"] == frame["variant"].iloc[0]]
        means = {c: float(part[c].mean()) for c in PAPER_SWF}
        errors = {c: float(part[c].std(ddof=1) / math.sqrt(len(part))) for c in PAPER_SWF}
        if all(abs(means[c] - PAPER_SWF[c]) <= 2 * errors[c] for c in PAPER_SWF):
            word = "matches"
        elif all(abs(means[c] - PAPER_SWF[c]) < abs(ours[c].mean() - PAPER_SWF[c]) for c in PAPER_SWF):
            word = "direction only"
        else:
            word = "no"
        return (f"{word} (MOCCA {fmt(means['mocca'], 3)} ± {fmt(2 * errors['mocca'], 3)}, MOCCA+ILBA "
                f"{fmt(means['ilba'], 3)} ± {fmt(2 * errors['ilba'], 3)}; paper {fmt(PAPER_SWF['mocca'])} and "
                f"{fmt(PAPER_SWF['ilba'])})")
    return render


def _curve(dist: str, algorithm: str, axis: str, value: int) -> Any:
    """One point of the Fig. 8–9 curves (``tpds11_curves.csv``)."""
    def render(data: Path) -> str:
        frame = pd.read_csv(data / "tpds11_curves.csv")
        row = frame[(frame["dist"] == dist) & (frame["algorithm"] == algorithm) & (frame["axis"] == axis)
                    & (frame["value"] == value)]
        return fmt(float(row.iloc[0]["mean"]))
    return render


def _threshold_gap(data: Path) -> str:
    """The largest difference between the 3LB and 4LB cuts over every local order and data set (§7.3)."""
    rows = pd.read_csv(data / "tpds11_rows.csv", dtype={"orgs": str, "jobs": str})
    part = rows[(rows["experiment"] == "local-policies") & (rows["orgs"] == "all")]
    wide = part.pivot_table(index=["dist", "local_order"], columns="threshold", values="mean")
    return fmt(float((wide[3.0] - wide[4.0]).abs().max()), 3)


# §7.4 as the paper states it: uni "between 1.15 and 1.12, standard deviation less than 0.04"; swf "average
# score less than 1 + 10^-4 and variance less than 10^-3".
PAPER_HETERO_UNI = (1.12, 1.15, 0.04)
PAPER_HETERO_SWF = (1e-4, 1e-3)


def _hetero_cells(data: Path) -> pd.DataFrame:
    """MOCCA+ILBA per (variant, n, Pareto shape) of ``tpds11_hetero_variants.csv``: mean, std (ddof 0), var."""
    frame = pd.read_csv(data / "tpds11_hetero_variants.csv")
    cells = frame.groupby(["variant", "dist", "jobs", "procs"], sort=False)["ilba"]
    return pd.DataFrame({"mean": cells.mean(), "std": cells.std(ddof=0), "var": cells.var(ddof=0)}).reset_index()


def _hetero_matching_rows(data: Path, dist: str) -> tuple[list[str], int]:
    """The (variant, n) rows of `dist` that meet the paper's §7.4 figures for every shape a, and how many rows."""
    cells = _hetero_cells(data)
    cells = cells[cells["dist"] == dist]
    if dist == "uni":
        low, high, sigma = PAPER_HETERO_UNI
        ok = (cells["mean"].round(2) >= low) & (cells["mean"].round(2) <= high) & (cells["std"] < sigma)
    else:
        ok = (cells["mean"] < 1 + PAPER_HETERO_SWF[0]) & (cells["var"] < PAPER_HETERO_SWF[1])
    rows = cells.assign(ok=ok).groupby(["variant", "jobs"], sort=False)["ok"].all()
    return [f"{variant}, n = {jobs}" for (variant, jobs), good in rows.items() if good], len(rows)


def _hetero_paper_match(dist: str) -> Any:
    """Which (variant, n) rows meet the paper's §7.4 figures for every shape a: ``variant, n = 500; ...``."""
    def render(data: Path) -> str:
        found, _ = _hetero_matching_rows(data, dist)
        return "; ".join(found) if found else "no row"
    return render


def _hetero_range(dist: str, column: str, *, variant: str | None = None, jobs: int | None = None,
                  exclude: tuple[str, int] | None = None, how: str = "range", digits: int = 3) -> Any:
    """``low–high`` (or the ``max``) of the per-shape `column` (mean or std) of the §7.4 variant rows of `dist`,
    restricted to `variant` and `jobs`, without the row `exclude` = (variant, n)."""
    def render(data: Path) -> str:
        cells = _hetero_cells(data)
        keep = cells["dist"] == dist
        if variant is not None:
            keep &= cells["variant"] == variant
        if jobs is not None:
            keep &= cells["jobs"] == jobs
        if exclude is not None:
            keep &= ~((cells["variant"] == exclude[0]) & (cells["jobs"] == exclude[1]))
        values = cells[keep][column]
        if how == "max":
            return fmt(float(values.max()), digits)
        return f"{fmt(float(values.min()), digits)}–{fmt(float(values.max()), digits)}"
    return render


def _hetero_full(column: str, *, digits: int = 2) -> Any:
    """``low–high`` over the Pareto shapes of MOCCA+ILBA's mean or std on uni, every n (the base run, §7.4)."""
    def render(data: Path) -> str:
        frame = pd.read_csv(data / "tpds11_heterogeneous.csv")
        part = frame[(frame["dist"] == "uni") & (frame["algorithm"] == "mocca+ilba") & (frame["jobs"] == "all n")]
        return f"{fmt(float(part[column].min()), digits)}–{fmt(float(part[column].max()), digits)}"
    return render


def _hetero_worse_rows(data: Path) -> tuple[list[str], int]:
    """§7.4 "heterogeneity does not worsen ILBA", checked on every row of the variants table (10 instances per cell)
    and of the base run (every n): the rows where the mean at a = 1 (most heterogeneous) exceeds the mean at a = 10
    by more than the largest standard deviation of the row's cells, and how many rows there are."""
    rows = [(f"{variant}, n = {jobs}", part.set_index("procs")["mean"].loc[-1],
             part.set_index("procs")["mean"].loc[-10], part["std"].max())
            for (variant, jobs), part in _hetero_cells(data).groupby(["variant", "jobs"], sort=False)]
    base = pd.read_csv(data / "tpds11_heterogeneous.csv")
    base = base[(base["algorithm"] == "mocca+ilba") & (base["jobs"] == "all n")]
    rows += [(f"{dist}, base run, every n", part.set_index("shape")["mean"].loc[1],
              part.set_index("shape")["mean"].loc[10], part["std"].max()) for dist, part in base.groupby("dist")]
    worse = [f"{name} ({fmt(a1, 3)} at a = 1 against {fmt(a10, 3)} at a = 10, σ ≤ {fmt(spread, 3)})"
             for name, a1, a10, spread in rows if a1 - a10 > spread]
    return worse, len(rows)


def _hetero_no_worse(data: Path) -> str:
    """`_hetero_worse_rows` as a sentence: ``holds in all 14 rows`` or ``holds in 13 of 14 rows; not on ...``."""
    worse, total = _hetero_worse_rows(data)
    if not worse:
        return f"holds in all {total} rows"
    return f"holds in {total - len(worse)} of {total} rows; not on {'; '.join(worse)}"


def _hetero_verdicts(data: Path) -> str:
    """§7.4 summed up as counts of rows: the direction ("does not worsen", `_hetero_worse_rows`) and the paper's
    figures (`_hetero_matching_rows`, both data sets)."""
    worse, total = _hetero_worse_rows(data)
    found = [_hetero_matching_rows(data, dist) for dist in ("uni", "swf")]
    matched, rows = sum(len(f) for f, _ in found), sum(n for _, n in found)
    return (f"does not worsen: matches in {total - len(worse)} of {total} rows, no in {len(worse)}; the paper's "
            f"figures: matches in {matched} of the {rows} variant rows, no in {rows - matched}")


ZIPF_13 = "Zipf exponent s = 1.3"
VALUES = {
    "tpds11-m-ilba-min-p": _m_p("any", "mocca+ilba"),
    "tpds11-m-both-mocca-p": _m_p("both", "mocca-exp", how="max", pair=(128, 512)),
    "tpds11-local-lb-pmax": _local_variant("ours: HF, i.i.d. Zipf owners", column="lb_is_pmax", percent=True),
    "tpds11-local-half-n10": _local_variant("q uniform in 1..m/2", 10),
    "tpds11-local-half-n20": _local_variant("q uniform in 1..m/2", 20),
    "tpds11-local-zipf-n10": _local_variant(ZIPF_13, 10),
    "tpds11-local-zipf-n20": _local_variant(ZIPF_13, 20),
    "tpds11-local-zipf-n2": _local_variant(ZIPF_13, 2),
    "tpds11-local-zipf-n5": _local_variant(ZIPF_13, 5),
    "tpds11-local-uni-n10": _row("uni", "local", orgs="10", jobs="50-500"),
    "tpds11-local-uni-n20": _row("uni", "local", orgs="20", jobs="50-500"),
    "tpds11-mocca-uni": _row("uni", "mocca-exp"),
    "tpds11-ilba-uni": _row("uni", "mocca+ilba"),
    "tpds11-mocca-swf": _row("swf", "mocca-exp"),
    "tpds11-ilba-swf": _row("swf", "mocca+ilba"),
    "tpds11-local-swf": _row("swf", "local"),
    "tpds11-local-uni": _row("uni", "local"),
    "tpds11-optimal-ilba": _optimal("both", "mocca+ilba"),
    "tpds11-optimal-mocca": _optimal("both", "mocca-exp"),
    "tpds11-correlation-uni": _correlation("uni"),
    "tpds11-correlation-uni-n50": _correlation("uni, n ≥ 50"),
    "tpds11-correlation-both": _correlation("both"),
    "tpds11-worst-local": _worst_local,
    "tpds11-policies-uni": _local_policies_range("uni"),
    "tpds11-policies-swf": _local_policies_range("swf", digits=3),
    "tpds11-lpt-uni": _row("uni", "mocca3+ilba", experiment="local-policies", order="lpt", digits=3),
    "tpds11-lpt-swf": _row("swf", "mocca3+ilba", experiment="local-policies", order="lpt", digits=3),
    "tpds11-trend-a-swf": _trend_claim("swf", "local", "rises"),
    "tpds11-trend-a-uni": _trend_claim("uni", "local", "rises", orgs=(10, 20)),
    "tpds11-trend-b-mocca": _trend_claim("swf", "mocca-exp", "rises"),
    "tpds11-trend-b-ilba": _trend_claim("swf", "mocca+ilba", "rises"),
    "tpds11-trend-c-mocca": _trend_claim("uni", "mocca-exp", "falls or flat"),
    "tpds11-trend-c-ilba": _trend_claim("uni", "mocca+ilba", "falls or flat"),
    "tpds11-m-uni-min-p": _m_p("uni", "any"),
    "tpds11-m-swf-max-p": _m_swf_worst,
    "tpds11-mocca-worse": _mocca_worse,
    "tpds11-mocca-same": _worst_share("instances where MOCCA scores the same as local (%)"),
    "tpds11-swf-mocca-range": _swf_variants("mocca", "range"),
    "tpds11-swf-ilba-range": _swf_variants("ilba", "range"),
    "tpds11-swf-mocca-min": _swf_variants("mocca", "min"),
    "tpds11-swf-moved-range": _swf_variants("mocca_moved", "range", digits=0, percent=True),
    "tpds11-swf-local-range": _swf_variants("local", "range", digits=1),
    "tpds11-swf-local-below3": _swf_variants("local", "below3"),
    "tpds11-swf-fewer-jobs": _swf_jobs_verdict(SWF_FEWER_JOBS),
    "tpds11-swf-per-org": _swf_jobs_verdict("n jobs per organization (N·n in all)"),
    "tpds11-curve-swf-mocca-n10": _curve("swf", "mocca-exp", "n", 10),
    "tpds11-curve-swf-mocca-n50": _curve("swf", "mocca-exp", "n", 50),
    "tpds11-curve-swf-mocca-n500": _curve("swf", "mocca-exp", "n", 500),
    "tpds11-local-uni-n2": _row("uni", "local", orgs="2", jobs="50-500"),
    "tpds11-local-uni-n5": _row("uni", "local", orgs="5", jobs="50-500"),
    "tpds11-threshold-gap": _threshold_gap,
    "tpds11-hetero-no-worse": _hetero_no_worse,
    "tpds11-hetero-verdicts": _hetero_verdicts,
    "tpds11-policies-spread-uni": _policies_spread("uni"),
    "tpds11-policies-spread-swf": _policies_spread("swf"),
    "tpds11-lpt-best-uni": _lpt_best("uni"),
    "tpds11-lpt-best-swf": _lpt_best("swf"),
    "tpds11-correlation-verdict-uni": _correlation_verdict("uni"),
    "tpds11-correlation-verdict-both": _correlation_verdict("both"),
    "tpds11-trend-count": _trend_count,
    "tpds11-m-count": _m_count,
    "tpds11-hetero-uni-match": _hetero_paper_match("uni"),
    "tpds11-hetero-swf-match": _hetero_paper_match("swf"),
    "tpds11-hetero-uni-fit500-mean": _hetero_range("uni", "mean", variant="uni, q ≤ the smallest cluster", jobs=500),
    "tpds11-hetero-uni-fit500-std": _hetero_range("uni", "std", variant="uni, q ≤ the smallest cluster", jobs=500),
    "tpds11-hetero-uni-other-mean": _hetero_range("uni", "mean", exclude=("uni, q ≤ the smallest cluster", 500),
                                                  digits=1),
    "tpds11-hetero-uni-other-std": _hetero_range("uni", "std", exclude=("uni, q ≤ the smallest cluster", 500),
                                                 how="max", digits=1),
    "tpds11-hetero-full-mean": _hetero_full("mean"),
    "tpds11-hetero-full-std": _hetero_full("std"),
    "tpds11-hetero-swf-fit500": _hetero_range("swf", "mean", variant="swf, q ≤ the smallest cluster", jobs=500,
                                              digits=2),
    "tpds11-hetero-swf-ours500": _hetero_range("swf", "mean", variant="swf, ours: q ≤ the owner's cluster",
                                               jobs=500, digits=2),
}

TABLES = {"tpds11-results": table_results, "tpds11-policies": table_policies,
          "tpds11-curves": table_curves, "tpds11-trends": table_trends, "tpds11-m": table_m,
          "tpds11-facts": table_facts, "tpds11-heterogeneous": table_heterogeneous,
          "tpds11-swf": lambda d: table_variants(d, "swf"), "tpds11-local": lambda d: table_variants(d, "local"),
          "tpds11-hetero": table_hetero}


def main(argv: list[str] | None = None) -> None:
    """``python -m fairsched.replicate._tpds11_ablations STEP... --out DIR [--workers N]``."""
    from fairsched._io import write_csv

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("steps", nargs="+", choices=("base", "swf", "local", "hetero"))
    parser.add_argument("--out", type=Path, default=Path("docs/replication/data"))
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    if "base" in args.steps:
        result = tpds11.run(tpds11.TPDS11Config(jobs=args.workers))
        write_csv(pd.DataFrame.from_records(result.rows), args.out / "tpds11_rows.csv")
        for stem, frame in analyses(result.scores).items():
            write_csv(frame, args.out / f"{stem}.csv")
    for group in ("swf", "local"):
        if group in args.steps:  # the swf file also holds the job-count variants ("swf-jobs", listed last)
            chosen = tuple(v for v in VARIANTS if v.group in (group, f"{group}-jobs"))
            write_csv(run_variants(chosen), args.out / f"tpds11_variants_{group}.csv")
    if "hetero" in args.steps:
        write_csv(run_variants(HETERO_VARIANTS), args.out / "tpds11_hetero_variants.csv")


if __name__ == "__main__":
    main()
