"""Networking'20 §VII: the ablations behind docs/replication/networking20.md.

Each gap between the paper and `fairsched.replicate.networking20` is tested by running named variants side by
side on the same Google slice. A variant is plain data — a group, a name and parameter overrides — so that it
converts into a sweep spec; `run_variants` turns them into one long table (one row per variant × setting ×
algorithm) written to ``docs/replication/data/networking20_ablations.csv``:

* ``sptf_reading`` — §VII's SPTF as named (shortest first, `sptf`) and as written ("non-increasing order of their
  processing times", `lptf`), offline and online, beside PBA and FIFO;
* ``delta0`` — online PBA with δ₀ from 60 s to the paper's literal 3.3·10⁵ s, and constant intervals (α = 0);
* ``production`` — the §VII production-class filter (trace priority ≥ 9) off and on;
* ``slice`` — the halves of the slice, and its multi-task jobs only;
* ``synthetic`` — instances of the paper's size by our estimate (`google_like_instance`: 19,000 jobs, 200
  machines, ~30 tasks per job, at most 200), one per seed, offline and online (arrivals uniform over a span that
  puts the busiest machine's work at 1.8 times it, the paper's as read from its Fig. 1a; δ₀ = a tenth of the
  span), with both readings of SPTF;
* ``tau`` — linear utilities with τ = makespan + d (offline) or the online bound + d, for d from 1 s to τ itself.

``theorem3`` (the counterexample of docs/openshop.md) is a separate table of PBA's outcome per seed.

Regenerate (the run's wall and CPU seconds go to ``networking20_ablations_run.csv``, which the doc quotes; the
doc's tables are then rebuilt from the CSVs)::

    python -m fairsched.replicate.networking20.ablations --out docs/replication/data
    python -m fairsched.replicate._doc_tables docs/replication/networking20.md
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fairsched.openshop import experiment as openshop_experiment
from fairsched.openshop import run_online, solve
from fairsched.openshop.experiment import horizon, run_openshop
from fairsched.openshop.generate import google_like_instance
from fairsched.openshop.instance import OpenShopInstance
from fairsched.openshop.metrics import minmax_key, summary
from fairsched.openshop.metrics import utilities as metric_utilities
from fairsched.openshop.validate import validate_openshop_schedule
from fairsched.replicate._common import default_traces_dir
from fairsched.replicate.networking20.paper import Networking20Config
from fairsched.replicate.networking20.replication import run
from fairsched.workload.google import PRODUCTION_PRIORITY, read_google

__all__ = ["THEOREM3_TIMES", "VARIANTS", "Variant", "main", "run_variants", "slice_report", "theorem3_table"]

GOOGLE = "google-clusterdata-2011-2"
PAPER_DELTA0_S = 3.3e5
EQUAL = ("pba", "sptf", "lptf", "fifo")
# The paper's size by the project's estimate (docs/replication/networking20.md, Data): jobs, machines, the mean of
# the log-normal tasks per job (30 once rounded up and capped at 200), busiest machine's work / arrival span.
SYNTHETIC_JOBS, SYNTHETIC_MACHINES, SYNTHETIC_TASKS_PER_JOB, SYNTHETIC_LOAD = 19_000, 200, 32.0, 1.8
SYNTHETIC_SEEDS = (0, 1, 2)
LINEAR = ("pba", "luf", "fifo")


@dataclass(frozen=True)
class Variant:
    """One named run: `overrides` of `fairsched.openshop.experiment.Config` fields (``delta0``, ``google_parts``,
    ...), of the reader (``min_priority``, ``multi_task_only``) or of τ (``tau_offset``: τ = the default bound − 1
    + d)."""

    group: str
    name: str
    settings: tuple[str, ...]
    overrides: Mapping[str, Any] = field(default_factory=dict)


VARIANTS: tuple[Variant, ...] = (
    Variant("sptf_reading", "slice (10 parts)", ("offline-equal", "online-equal")),
    *(Variant("delta0", f"δ₀ = {d:g} s", ("online-equal",), {"delta0": d})
      for d in (60.0, 300.0, 1000.0, 20000.0, PAPER_DELTA0_S)),
    Variant("delta0", "δ₀ = span / 10 (default)", ("online-equal",)),
    Variant("delta0", "δ₀ = span / 10, α = 0", ("online-equal",), {"alpha": 0.0}),
    Variant("production", "every job", ("offline-equal", "online-equal", "offline-linear")),
    Variant("production", f"priority ≥ {PRODUCTION_PRIORITY}", ("offline-equal", "online-equal", "offline-linear"),
            {"min_priority": PRODUCTION_PRIORITY}),
    Variant("slice", "parts 0-4", ("offline-equal", "online-equal"), {"google_parts": (0, 1, 2, 3, 4)}),
    Variant("slice", "parts 5-9", ("offline-equal", "online-equal"), {"google_parts": (5, 6, 7, 8, 9)}),
    Variant("slice", "parts 0-9", ("offline-equal", "online-equal")),
    Variant("slice", "parts 0-9, multi-task jobs only", ("offline-equal", "online-equal"), {"multi_task_only": True}),
    *(Variant("synthetic", f"synthetic, seed {s}", ("offline-equal", "online-equal"), {"synthetic_seed": s})
      for s in SYNTHETIC_SEEDS),
    *(Variant("tau", f"d = {d:g}", ("offline-linear", "online-linear"), {"tau_offset": d})
      for d in (1.0, 10.0, 100.0, 1000.0, 3000.0, 10000.0, 30000.0, 100000.0)),
)


def run_variants(traces_dir: Path, variants: Iterable[Variant] = VARIANTS, *, seed: int = 0) -> pd.DataFrame:
    """One row per variant × setting × algorithm: the instance's size and the §VII metrics of the algorithm's
    per-job values (completion times offline, delays online, utilities with linear utilities)."""
    rows: list[dict[str, Any]] = []
    cache: dict[tuple, tuple[OpenShopInstance, str, float, Any]] = {}
    for variant in variants:
        opts = dict(variant.overrides)
        reader_key = (opts.get("google_parts"), opts.get("min_priority", 0), opts.get("multi_task_only", False),
                      opts.get("synthetic_seed"))
        if reader_key not in cache:
            cache[reader_key] = _load(traces_dir / GOOGLE, seed, *reader_key[:3]) if reader_key[3] is None \
                else _synthetic(reader_key[3])
        loaded = cache[reader_key]
        for setting in variant.settings:
            online, kind = setting.startswith("online"), setting.split("-")[1]
            for name, values, info in _run_setting(loaded, online, kind, opts, seed):
                rows.append({"group": variant.group, "variant": variant.name, "setting": setting,
                             "algorithm": name, **info, **summary(values, higher_is_better=kind == "linear")})
    return pd.DataFrame.from_records(rows)


def _load(folder: Path, seed: int, parts: tuple[int, ...] | None, min_priority: int,
          multi_task_only: bool) -> tuple[OpenShopInstance, str, float, Any]:
    instance, report = read_google(folder, seed=seed, parts=parts, min_priority=min_priority)
    if multi_task_only:
        keep = np.flatnonzero(np.diff(instance.indptr) > 1)
        instance = _subset(instance, keep)
    return instance, f"Google ({folder})", float(report.time_unit_s), report


def _synthetic(seed: int) -> tuple[OpenShopInstance, str, float, None]:
    """`google_like_instance` of the paper's size, arrivals uniform (sorted, integer seconds) over the span that
    puts its busiest machine's work at `SYNTHETIC_LOAD` times the span."""
    instance = google_like_instance(SYNTHETIC_JOBS, SYNTHETIC_MACHINES, SYNTHETIC_TASKS_PER_JOB, seed)
    span = int(instance.machine_loads().max() / SYNTHETIC_LOAD)
    arrival = np.sort(np.random.default_rng([seed, 1]).integers(0, span + 1, instance.n_jobs)).astype(np.int64)
    return replace(instance, arrival=arrival), f"synthetic (seed {seed})", 1.0, None


def _subset(instance: OpenShopInstance, jobs: np.ndarray) -> OpenShopInstance:
    """The jobs `jobs` (increasing) of `instance`, with their tasks."""
    starts, ends = instance.indptr[jobs], instance.indptr[jobs + 1]
    tasks = np.concatenate([np.arange(a, b) for a, b in zip(starts, ends, strict=True)])
    indptr = np.zeros(jobs.size + 1, dtype=np.int64)
    np.cumsum(ends - starts, out=indptr[1:])
    return OpenShopInstance.from_tasks(instance.n_machines, indptr, instance.task_machine[tasks],
                                       instance.task_time[tasks], arrival=instance.arrival[jobs],
                                       priority=instance.priority[jobs], job_id=instance.job_id[jobs])


def _run_setting(loaded: tuple, online: bool, kind: str, opts: dict[str, Any],
                 seed: int) -> Iterable[tuple[str, np.ndarray, dict[str, Any]]]:
    """(algorithm, per-job values, instance facts) for one setting of one variant."""
    instance, unit = loaded[0], loaded[2]
    config = openshop_experiment.Config(online=online, utilities=kind, delta0=opts.get("delta0"),
                                        algorithm=EQUAL if kind == "equal" else LINEAR)
    alpha = opts.get("alpha")
    if kind == "equal" and alpha is None:  # the pipeline of `fairsched replicate networking20`, unchanged
        report = run_openshop(config, seed, loaded=loaded)
        info = _facts(report.instance, unit, report.delta0, None)
        for name, outcome in report.outcomes.items():
            yield name, outcome.times, info
        return
    base = instance if online else replace(instance, arrival=np.zeros(instance.n_jobs, dtype=np.int64))
    delta0 = _delta0(base, unit, opts.get("delta0")) if online else None
    tau = None
    if kind == "linear":
        tau = horizon(base, (delta0 or 0.0) / unit) - 1.0 + float(opts.get("tau_offset", 1.0))
    info = _facts(base, unit, delta0, tau)
    for name in config.algorithm:
        params: dict[str, Any] = {"tau": tau} if tau is not None and name in ("pba", "luf") else {}
        if online:
            extra = {} if alpha is None else {"alpha": alpha}
            schedule = run_online(base, name, utilities=kind, seed=seed, delta0=delta0, time_unit=unit,
                                  **extra, **params)
        else:
            schedule = solve(base, name, utilities=kind, seed=seed, **params)
        validate_openshop_schedule(base, schedule)
        times = schedule.completion.astype(np.float64) - (base.arrival if online else 0)
        values = times if tau is None else metric_utilities(base, schedule.completion, "linear", tau,
                                                            since_arrival=online)
        yield name, values, info


def _delta0(instance: OpenShopInstance, unit: float, delta0: float | None) -> float:
    if delta0 is not None:
        return float(delta0)
    return max(float(instance.arrival.max() - instance.arrival.min()) * unit / 10.0, unit)


def _facts(instance: OpenShopInstance, unit: float, delta0: float | None, tau: float | None) -> dict[str, Any]:
    """Size, shape and load of the instance as scheduled, and the δ₀ and τ used."""
    per_job = np.diff(instance.indptr)
    span = float(instance.arrival.max() - instance.arrival.min()) * unit
    loads = instance.machine_loads() * unit
    return {"n_jobs": instance.n_jobs, "n_tasks": instance.n_tasks,
            "single_task_share": float(np.mean(per_job == 1)), "tasks_per_job": float(per_job.mean()),
            "priorities": int(np.unique(instance.priority).size), "arrival_span_s": span,
            "max_machine_load_s": float(loads.max()), "mean_machine_load_s": float(loads.mean()),
            "delta0_s": delta0, "tau": tau}


# ------------------------------------------------------------------------------------------------ Theorem 3

THEOREM3_TIMES = ((3, 0), (1, 0), (0, 3))  # p_ij: job j's time on machine i (docs/openshop.md, "PBA is a heuristic")


def theorem3_table(seeds: int = 100) -> pd.DataFrame:
    """PBA's sorted completion vector on the Theorem 3 counterexample, per seed, beside the brute-force optimum.

    Jobs 0 and 1 tie for the last position (machine 1 sets the next coordinate, 3, either way); PBA breaks the tie
    by its random ε_j, and putting job 1 last gives (4, 3, 3) instead of the optimal (4, 3, 1): Theorem 3's bound
    OPT + g(ε) does not hold for the sorted vector.
    """
    from fairsched.openshop.policies.exact import brute_force

    instance = OpenShopInstance.from_dense(np.array(THEOREM3_TIMES))
    best = minmax_key(brute_force(instance).completion).tolist()
    rows = []
    for seed in range(seeds):
        got = minmax_key(solve(instance, "pba", seed=seed).completion).tolist()
        kmaxmin = minmax_key(solve(instance, "kmaxmin", seed=seed, k=2).completion).tolist()
        rows.append({"seed": seed, "pba": " ".join(map(str, got)), "optimum": " ".join(map(str, best)),
                     "exact": got == best, "kmaxmin_k2": " ".join(map(str, kmaxmin))})
    return pd.DataFrame.from_records(rows)


def slice_report(traces_dir: Path, *, seed: int = 0,
                 parts: tuple[int, ...] | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """What the Google reader read, kept and dropped on the whole slice (`fairsched.workload.google.GoogleReport`)
    and the shape of what it kept: ``quantity, value`` rows, and ``rows, jobs, tasks`` rows (seen, each drop
    reason, kept, merged); `parts` = None reads every part."""
    instance, report = read_google(traces_dir / GOOGLE, seed=seed, parts=parts)
    arrival, per_job = instance.arrival * report.time_unit_s, np.diff(instance.indptr)
    priorities, counts = np.unique(instance.priority, return_counts=True)
    quantities = [("parts", len(report.parts)), ("task events", report.n_task_events),
                  ("job events", report.n_job_events), ("original machines", report.n_original_machines),
                  ("first arrival (s)", int(arrival.min())), ("last arrival (s)", int(arrival.max())),
                  ("most tasks in a job", int(per_job.max())),
                  ("median task (s)", float(np.median(instance.task_time * report.time_unit_s))),
                  ("busiest machine's work (s)", int(instance.machine_loads().max() * report.time_unit_s)),
                  *((f"jobs of priority {int(p)}", int(n)) for p, n in zip(priorities, counts, strict=True))]
    drops = [("seen", report.n_jobs_seen, report.n_tasks_seen),
             *((f"dropped: {reason}", jobs, report.dropped_tasks.get(reason, 0))
               for reason, jobs in report.dropped_jobs.items()),
             ("kept", report.n_jobs_kept, report.n_tasks_kept), ("merged", None, report.n_merged_tasks)]
    return (pd.DataFrame(quantities, columns=["quantity", "value"]),
            pd.DataFrame(drops, columns=["rows", "jobs", "tasks"]).astype({"jobs": "Int64"}))


def main(argv: list[str] | None = None) -> None:
    """``python -m fairsched.replicate.networking20.ablations --out DIR [--traces DIR] [--theorem3]``."""
    from fairsched._io import write_csv

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/replication/data"))
    parser.add_argument("--traces", type=Path, default=None)
    parser.add_argument("--theorem3", action="store_true", help="only print the Theorem 3 counterexample's table")
    args = parser.parse_args(argv)
    table = theorem3_table()
    if args.theorem3:
        print(table.groupby(["pba", "optimum"]).size().rename("seeds").reset_index().to_string(index=False))  # noqa: T201
        return
    traces = args.traces if args.traces is not None else default_traces_dir()
    started, cpu = time.perf_counter(), time.process_time()
    result = run(Networking20Config(traces_dir=traces))
    write_csv(pd.DataFrame.from_records(result.rows), args.out / "networking20_rows.csv")
    write_csv(pd.DataFrame.from_records(result.reach), args.out / "networking20_reach.csv")
    write_csv(run_variants(traces), args.out / "networking20_ablations.csv")
    write_csv(table, args.out / "networking20_theorem3.csv")
    quantities, drops = slice_report(traces)
    write_csv(quantities, args.out / "networking20_slice.csv")
    write_csv(drops, args.out / "networking20_slice_drops.csv")
    write_csv(pd.DataFrame([{"wall_s": time.perf_counter() - started, "cpu_s": time.process_time() - cpu}]),
              args.out / "networking20_ablations_run.csv")


if __name__ == "__main__":
    main()
