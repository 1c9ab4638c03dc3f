"""TPDS'11: the algorithm, not only the generator — MOCCA variants on the swf grid.

Reference: P.-F. Dutot, F. Pascual, K. Rzadca, D. Trystram, "Approximation algorithms for the multi-organization
scheduling problem", IEEE TPDS 22(11), 2011, §7.1 (the experimental MOCCA) and §7.2 (MOCCA 1.16 on swf, "MOCCA
worst in 9 % of instances").

Our experimental MOCCA (`fairsched.mosp.policies.mocca_exp`) is never worse than local: the jobs it moves end by
D = floor(3LB), before their owner's local makespan, a job that fits nowhere before D keeps its local place (the
fallback), and compaction only advances jobs. On the swf grid the lower bound is p_max in most instances, so D is
far out and MOCCA seldom moves a job. `MoccaVariant` changes one of the three things §7.1 leaves open:

* ``alpha``: the threshold αLB (the paper runs 3 and 4, §7.3; below 3 more jobs end after it and move);
* ``fallback``: ``"local"`` (ours) or ``"forward"``: phase 2 without the fallback — the jobs that fit nowhere
  before D are placed, highest first, where they finish earliest on any cluster they fit, after the others;
* ``compaction``: the jobs advanced after step 2, ``"moved"`` (ours), ``"all"`` (kept jobs too, in order of
  start) or ``"none"``.

`run_mocca_variants` scores every variant on the swf instances of ``tpds11_variants_swf.csv``'s ``ours`` rows
(the same seeds: 10 instances per (N, n, m)) and writes ``tpds11_mocca_variants.csv`` (one row per instance,
a score and a "moved" column per variant);
``python -m fairsched.replicate.tpds11.mocca_variants --out docs/replication/data``.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from fairsched.errors import InvalidScheduleError
from fairsched.mosp.engine import backward_list_schedule
from fairsched.mosp.instance import MospInstance, MospSchedule
from fairsched.mosp.metrics import score
from fairsched.mosp.policies._mocca_phases import compact_kernel, kept_profiles, largest_first, phase1
from fairsched.mosp.policies.local import local_schedule
from fairsched.mosp.validate import check_mosp_schedule
from fairsched.replicate.tpds11.ablations import VARIANT_INSTANCES, VARIANTS, _instance
from fairsched.replicate.tpds11.paper import JOBS, ORGS, PROCS

__all__ = ["GRID", "MOCCA_VARIANTS_FILE", "MoccaVariant", "mocca_variant", "run_mocca_variants", "summarize"]

MOCCA_VARIANTS_FILE = "tpds11_mocca_variants.csv"
PAPER_SWF_MOCCA, PAPER_WORSE_PERCENT = 1.16, 9.0  # §7.2.2 and §7.2.6


@dataclass(frozen=True)
class MoccaVariant:
    """One reading of §7.1's experimental MOCCA (module docstring); the defaults are ours."""

    alpha: float = 3.0
    fallback: str = "local"
    compaction: str = "moved"

    @property
    def name(self) -> str:
        return f"{self.alpha:g}LB, fallback {self.fallback}, compact {self.compaction}"


GRID: tuple[MoccaVariant, ...] = tuple(MoccaVariant(alpha, fallback, compaction)
                                       for alpha in (4.0, 3.0, 2.0, 1.5, 1.25, 1.0) for fallback in ("local", "forward")
                                       for compaction in ("moved", "all", "none"))


def mocca_variant(instance: MospInstance, variant: MoccaVariant, *, local_order: str = "hf") -> MospSchedule:
    """The experimental MOCCA under `variant`; with the defaults, the same schedule as
    `fairsched.mosp.policies.mocca_exp.mocca_experimental` (checked by the tests).

    >>> inst = MospInstance.from_arrays(procs=[4, 4, 4], owner=[0] * 6, runtime=[2] * 6, width=[3] * 6)
    >>> mocca_variant(inst, MoccaVariant()).start.tolist()
    [0, 2, 4, 6, 0, 0]
    """
    ph = phase1(instance, local_order=local_order, alpha=variant.alpha)
    restored = np.zeros(instance.n_jobs, dtype=bool)
    while True:
        prof = kept_profiles(instance, ph, restored)
        order = ph.order[~restored[ph.order]]
        new_cluster, new_start = backward_list_schedule(prof, instance.runtime, instance.width, order, ph.deadline,
                                                        largest_first(instance.procs)[::-1].copy())
        cluster, start = ph.local.cluster.copy(), ph.local.start.copy()
        cluster[order], start[order] = new_cluster[order], new_start[order]
        left = ph.order[cluster[ph.order] < 0]
        if not left.size or variant.fallback == "forward":
            break
        restored[left] = True  # the fallback: they keep their local place, step 2 is redone around them
    prof.grow(int(prof.size.max()) + 2 * (left.size + instance.n_jobs) + 1)
    for j in left:  # no fallback: where it finishes earliest, on any cluster it fits
        fits = [(prof.earliest_fit(c, int(instance.width[j]), int(instance.runtime[j])), c)
                for c in range(instance.n_orgs) if instance.width[j] <= instance.procs[c]]
        start[j], cluster[j] = min(fits)
        prof.reserve(int(cluster[j]), int(start[j]), int(instance.runtime[j]), int(instance.width[j]))
    moved = np.zeros(instance.n_jobs, dtype=bool)
    moved[ph.order] = ~restored[ph.order]
    jobs = {"moved": np.flatnonzero(moved), "all": np.arange(instance.n_jobs),
            "none": np.zeros(0, dtype=np.int64)}[variant.compaction]
    jobs = jobs[np.lexsort((jobs, start[jobs]))]
    compact_kernel(prof.times, prof.idle, prof.size, cluster, start, instance.runtime, instance.width, jobs)
    return MospSchedule(cluster=cluster, start=start, algorithm=f"mocca-exp ({variant.name})")


def run_mocca_variants(variants: tuple[MoccaVariant, ...] = GRID, *, instances: int = VARIANT_INSTANCES,
                       seed: int = 0, cells: tuple[tuple[int, int, int], ...] | None = None) -> pd.DataFrame:
    """One row per (N, n, m, instance) of the swf grid: local's score (HF), whether LB = p_max, and per variant its
    score (column: the variant's name) and whether it moved a job (``moved: <name>``). Every schedule is checked
    (capacity, widths; not the local constraint, which a variant without the fallback may break: that is what it
    measures). `cells`: the (N, n, m) to run (None = the whole grid, in its order)."""
    base = VARIANTS[0]  # "ours: sizes scaled to m, q ≤ m", the instances of tpds11_variants_swf.csv's first rows
    rows = []
    grid = cells if cells is not None else tuple((n, j, m) for n in ORGS for j in JOBS for m in PROCS)
    for n_orgs, n_jobs, m in grid:
        for i in range(instances):
            child = np.random.SeedSequence(seed, spawn_key=(0, n_orgs, n_jobs, m, i))
            inst = _instance(base, n_orgs, n_jobs, m, np.random.default_rng(child))
            local = local_schedule(inst, order="hf")
            row = {"orgs": n_orgs, "jobs": n_jobs, "procs": m, "index": i, "local": score(inst, local),
                   "lb_is_pmax": bool(inst.runtime.max() >= inst.lower_bound())}
            for variant in variants:
                schedule = mocca_variant(inst, variant)
                broken = check_mosp_schedule(inst, schedule, local_constraint=False)
                if broken:
                    raise InvalidScheduleError(f"{variant.name}: {broken[0]}")
                row[variant.name] = score(inst, schedule)
                row[f"moved: {variant.name}"] = bool(np.any(schedule.start != local.start)
                                                     or np.any(schedule.cluster != local.cluster))
            rows.append(row)
    return pd.DataFrame.from_records(rows)


def summarize(frame: pd.DataFrame, variants: tuple[MoccaVariant, ...] = GRID) -> pd.DataFrame:
    """One row per variant of `frame` (`run_mocca_variants`' table): alpha, fallback, compaction, mean score,
    std, instances, worse than / equal to local (%), moved a job (%), standard error of the mean."""
    tolerance = 1e-12
    rows = []
    for variant in variants:
        if variant.name not in frame:
            continue
        scores, local = frame[variant.name], frame["local"]
        rows.append({"variant": variant.name, "alpha": variant.alpha, "fallback": variant.fallback,
                     "compaction": variant.compaction, "mean": scores.mean(), "std": scores.std(ddof=1),
                     "instances": int(scores.size), "worse": 100 * float((scores > local + tolerance).mean()),
                     "same": 100 * float(((scores - local).abs() <= tolerance).mean()),
                     "moved": 100 * float(frame[f"moved: {variant.name}"].mean())})
    out = pd.DataFrame(rows)
    out["standard_error"] = out["std"] / np.sqrt(out["instances"])
    return out


def main(argv: list[str] | None = None) -> None:
    """``python -m fairsched.replicate.tpds11.mocca_variants --out DIR``: the CSV and the run's seconds."""
    from fairsched._io import write_csv

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/replication/data"))
    args = parser.parse_args(argv)
    started, cpu = time.perf_counter(), time.process_time()
    frame = run_mocca_variants()
    write_csv(frame, args.out / MOCCA_VARIANTS_FILE)
    write_csv(pd.DataFrame([{"wall_s": time.perf_counter() - started, "cpu_s": time.process_time() - cpu}]),
              args.out / "tpds11_mocca_variants_run.csv")


if __name__ == "__main__":
    main()
