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

    python -m fairsched.replicate.tpds11.ablations base swf local hetero --out docs/replication/data
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
from fairsched.replicate.tpds11.paper import JOBS, OPTIMAL_TOLERANCE, ORGS, PROCS, TPDS11Config
from fairsched.replicate.tpds11.replication import run
from fairsched.scenario import zipf_weights
from fairsched.workload.lublin import LublinModel, sample_rigid_jobs

__all__ = ["HETERO_VARIANTS", "OPTIMAL", "SWF_FEWER_JOBS", "VARIANTS", "Variant", "analyses", "main", "run_variants",
           "welch_p"]

OPTIMAL = 1 + OPTIMAL_TOLERANCE


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
        for n_orgs in variant.overrides.get("orgs", ORGS):
            for n_jobs in variant.overrides.get("jobs", JOBS):
                for m in [-a for a in variant.overrides.get("shapes", ())] or PROCS:
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



def main(argv: list[str] | None = None) -> None:
    """``python -m fairsched.replicate.tpds11.ablations STEP... --out DIR [--workers N]``."""
    from fairsched._io import write_csv

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("steps", nargs="+", choices=("base", "swf", "local", "hetero"))
    parser.add_argument("--out", type=Path, default=Path("docs/replication/data"))
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    if "base" in args.steps:
        result = run(TPDS11Config(jobs=args.workers))
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
