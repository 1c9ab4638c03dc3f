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
* ``tau`` — linear utilities with τ = makespan + d (offline) or the online bound + d, for d from 1 s to τ itself.

``theorem3`` (the counterexample of docs/openshop.md) is a separate table of PBA's outcome per seed.

Regenerate (about a minute; the doc's tables are then rebuilt from the CSVs)::

    python -m fairsched.replicate._networking20_ablations --out docs/replication/data
    python -m fairsched.replicate._doc_tables docs/replication/networking20.md
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fairsched.openshop import experiment as openshop_experiment
from fairsched.openshop import run_online, solve
from fairsched.openshop.experiment import horizon, run_openshop
from fairsched.openshop.instance import OpenShopInstance
from fairsched.openshop.metrics import minmax_key, summary
from fairsched.openshop.metrics import utilities as metric_utilities
from fairsched.openshop.validate import validate_openshop_schedule
from fairsched.replicate._doc_tables import fmt, markdown_table, verdict
from fairsched.workload.google import PRODUCTION_PRIORITY, read_google

__all__ = ["TABLES", "THEOREM3_TIMES", "VALUES", "VARIANTS", "Variant", "run_variants", "slice_report",
           "theorem3_table"]

GOOGLE = "google-clusterdata-2011-2"
PAPER_DELTA0_S = 3.3e5
EQUAL = ("pba", "sptf", "lptf", "fifo")
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
        reader_key = (opts.get("google_parts"), opts.get("min_priority", 0), opts.get("multi_task_only", False))
        if reader_key not in cache:
            cache[reader_key] = _load(traces_dir / GOOGLE, seed, *reader_key)
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


# ------------------------------------------------------------------------------------- the doc's tables

def _claims() -> dict[tuple[str, str, str], Any]:
    from fairsched.replicate.networking20 import PAPER, setting_name

    return {(setting_name(c.online, c.utilities), c.metric, c.baseline): c for c in PAPER}


def _ratio(frame: pd.DataFrame, setting: str, metric: str, baseline: str, kind: str) -> float:
    """The paper's orientation: baseline / PBA for times and deviations, PBA / baseline for utilities."""
    rows = frame[frame["setting"] == setting].set_index("algorithm")[metric]
    pba, base = float(rows["pba"]), float(rows[baseline])
    if kind == "lower":
        return base / pba if pba else math.inf
    return pba / base if base else math.inf


def table_results(data: Path) -> str:
    """The paper's claims beside ours (`fairsched replicate networking20`, seed 0), with the verdict."""
    claims = _claims()
    rows = []
    for r in pd.read_csv(data / "networking20_rows.csv").itertuples():
        kind = claims[r.setting, r.metric, r.baseline].kind
        rows.append((r.setting, r.claim, fmt(r.paper), fmt(r.ours), verdict(r.paper, r.ours, kind)))
    return markdown_table(("setting", "the paper's claim", "paper", "ours", "verdict"), rows, "llrrl")


def table_sptf(data: Path) -> str:
    """Every claim against SPTF, with SPTF read as named (shortest first) and as written (longest first)."""
    frame = _group(data, "sptf_reading")
    rows = []
    for (setting, metric, baseline), c in _claims().items():
        if baseline != "sptf":
            continue
        short, long_ = (_ratio(frame, setting, metric, name, c.kind) for name in ("sptf", "lptf"))
        rows.append((setting, c.text, fmt(c.paper), fmt(short), verdict(c.paper, short, c.kind), fmt(long_),
                     verdict(c.paper, long_, c.kind)))
    return markdown_table(("setting", "the paper's claim", "paper", "shortest first (`sptf`)", "verdict",
                           "longest first (`lptf`)", "verdict"), rows, "llrrlrl")


def table_delta0(data: Path) -> str:
    """Online, equal utilities: PBA's delays and the paper's four ratios for each δ₀."""
    frame = _group(data, "delta0")
    rows = []
    for name, part in frame.groupby("variant", sort=False):
        pba = part.set_index("algorithm").loc["pba"]
        ratios = [_ratio(part, "online-equal", metric, base, "lower")
                  for metric, base in (("mean", "fifo"), ("q4_mean", "fifo"), ("mean", "sptf"), ("mean", "lptf"),
                                       ("q4_mean", "sptf"), ("q4_mean", "lptf"))]
        rows.append((name, fmt(pba["mean"], 0), fmt(pba["q4_mean"], 0), *(fmt(r) for r in ratios)))
    return markdown_table(("δ intervals", "PBA mean delay (s)", "PBA 4th-quartile (s)", "mean vs FIFO (paper 3.3)",
                           "4th-q. vs FIFO (1.7)", "mean vs SPTF (1.7)", "mean vs LPTF (1.7)",
                           "4th-q. vs SPTF (1.9)", "4th-q. vs LPTF (1.9)"), rows)


def table_data(data: Path) -> str:
    """The data each variant schedules (offline shape; the online arrival span) and PBA's mean against each
    baseline, offline (completion) and online (delay)."""
    frame = pd.concat([_group(data, "production"), _group(data, "slice")])
    rows = []
    for (group, name), part in frame.groupby(["group", "variant"], sort=False):
        off, on = part[part["setting"] == "offline-equal"], part[part["setting"] == "online-equal"]
        facts = on.iloc[0]
        ratios = [_ratio(sub, setting, "mean", base, "lower") for sub, setting in ((off, "offline-equal"),
                                                                                 (on, "online-equal"))
                  for base in ("sptf", "lptf", "fifo")]
        rows.append((f"{group}: {name}", f"{int(facts.n_jobs):,}", f"{int(facts.n_tasks):,}",
                     fmt(100 * facts.single_task_share, 1), fmt(facts.tasks_per_job), int(facts.priorities),
                     fmt(facts.arrival_span_s / 3600, 1), fmt(facts.max_machine_load_s / facts.arrival_span_s),
                     *(fmt(r) for r in ratios)))
    return markdown_table(("data", "jobs", "tasks", "single-task jobs (%)", "tasks per job", "priority values",
                           "arrival span (h)", "busiest machine's work / span", "offline vs SPTF", "vs LPTF",
                           "vs FIFO", "online vs SPTF", "vs LPTF", "vs FIFO"), rows)


def table_tau(data: Path) -> str:
    """Linear utilities: the paper's ratios as τ moves away from the bound (makespan offline, span + busiest
    machine's work + δ₀ online) by d seconds."""
    frame = _group(data, "tau")
    claims = {k: c for k, c in _claims().items() if k[0].endswith("linear")}
    rows = []
    for name, part in frame.groupby("variant", sort=False):
        taus = [fmt(part[part["setting"] == s]["tau"].iloc[0], 0) for s in ("offline-linear", "online-linear")]
        ratios = [fmt(_ratio(part, setting, metric, base, c.kind)) for (setting, metric, base), c in claims.items()]
        rows.append((name, *taus, *ratios))
    header = ("τ = bound + d (s)", "offline τ", "online τ",
              *(f"{'off' if k[0].startswith('off') else 'on'}: {k[1]} vs {k[2].upper()} ({fmt(c.paper, 1)})"
                for k, c in claims.items()))
    return markdown_table(header, rows)


def table_theorem3(data: Path) -> str:
    """PBA's sorted completion vector on the Theorem 3 counterexample, over seeds 0..99."""
    frame = pd.read_csv(data / "networking20_theorem3.csv", dtype={"pba": str, "optimum": str})
    counts = frame.groupby(["pba", "optimum"], sort=False).size()
    rows = [(f"({p.replace(' ', ', ')})", f"({o.replace(' ', ', ')})", int(n)) for (p, o), n in counts.items()]
    return markdown_table(("PBA's sorted completion times", "optimum (brute force)", "seeds"), rows, "llr")


def table_reach(data: Path) -> str:
    """How often each heuristic finds the exact max-min fair vector (`networking20.exact_reach`)."""
    rows = [(r.algorithm + ("" if pd.isna(r.k) else f" (k = {int(r.k)})"), r.utilities, int(r.instances),
             fmt(100 * r.exact_vector, 1), fmt(r.leading_mean), int(r.leading_min))
            for r in pd.read_csv(data / "networking20_reach.csv").itertuples()]
    return markdown_table(("algorithm", "utilities", "instances", "exact vector (%)",
                           "worst coordinates right (mean)", "(least)"), rows, "llrrrr")


def _group(data: Path, group: str) -> pd.DataFrame:
    frame = pd.read_csv(data / "networking20_ablations.csv")
    return frame[frame["group"] == group]


# ------------------------------------------------------------------------------ the doc's numbers in prose

SLICE = ("sptf_reading", "slice (10 parts)")  # the replication's own data, in the ablation table
DEFAULT_DELTA0 = ("delta0", "δ₀ = span / 10 (default)")


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


def table_slice_drops(data: Path) -> str:
    """The Google reader on the whole slice: jobs and tasks seen, dropped (by reason) and kept."""
    frame = pd.read_csv(data / "networking20_slice_drops.csv").set_index("rows")
    rows = [(name, f"{int(r.jobs):,}", f"{int(r.tasks):,}")
            for name, r in frame.iterrows() if name not in ("kept", "merged")]
    rows.append(("**kept**", f"**{int(frame.loc['kept', 'jobs']):,}**",
                 f"**{int(frame.loc['kept', 'tasks']):,}**, merged into **{int(frame.loc['merged', 'tasks']):,}**"))
    return markdown_table(("the reader", "jobs", "tasks"), rows, "lrr")


def _slice_quantity(quantity: str) -> Any:
    def render(data: Path) -> str:
        frame = pd.read_csv(data / "networking20_slice.csv").set_index("quantity")["value"]
        return fmt(float(frame[quantity]), 0)
    return render


def _slice_dropped(reason: str) -> Any:
    def render(data: Path) -> str:
        frame = pd.read_csv(data / "networking20_slice_drops.csv").set_index("rows")
        return f"{int(frame.loc[f'dropped: {reason}', 'jobs']):,}"
    return render


def _slice_priorities(data: Path) -> str:
    """``1, 2, 3, 9, 10 (935, 1,677, ... jobs)``: the priority values of the kept jobs and their counts."""
    frame = pd.read_csv(data / "networking20_slice.csv")
    rows = frame[frame["quantity"].str.startswith("jobs of priority ")]
    values = ", ".join(q.removeprefix("jobs of priority ") for q in rows["quantity"])
    return f"{values} ({', '.join(f'{int(v):,}' for v in rows['value'])} jobs)"


def _fact(variant: tuple[str, str], setting: str, column: str, *, scale: float = 1.0, digits: int = 0) -> Any:
    """A fact of a variant's data (`_facts`: ``n_jobs``, ``arrival_span_s``, ...), times `scale`."""
    def render(data: Path) -> str:
        part = _variant(data, variant)
        return fmt(float(part[part["setting"] == setting].iloc[0][column]) * scale, digits)
    return render


def _share(variant: tuple[str, str], numerator: str, denominator: str, *, digits: int = 1) -> Any:
    """``numerator / denominator`` of a variant's online facts (e.g. the busiest machine's work / the span)."""
    def render(data: Path) -> str:
        part = _variant(data, variant)
        row = part[part["setting"] == "online-equal"].iloc[0]
        return fmt(float(row[numerator]) / float(row[denominator]), digits)
    return render


def _single_task_jobs(data: Path) -> str:
    row = _variant(data, SLICE).iloc[0]
    return f"{round(row.n_jobs * row.single_task_share):,}"


def _vs(variant: tuple[str, str], setting: str, metric: str, baseline: str, *, digits: int = 2,
        inverse: bool = False) -> Any:
    """PBA's ratio against `baseline` on `metric` (> 1: PBA better; `inverse`: how many times it loses)."""
    kind = "higher" if setting.endswith("linear") and metric == "min" else "lower"

    def render(data: Path) -> str:
        ratio = _ratio(_variant(data, variant), setting, metric, baseline, kind)
        return fmt(1 / ratio if inverse else ratio, digits)
    return render


def _pba(variant: tuple[str, str], setting: str, metric: str) -> Any:
    return _pba_or(variant, setting, metric, "pba")


def _pba_or(variant: tuple[str, str], setting: str, metric: str, algorithm: str) -> Any:
    """`algorithm`'s `metric` (seconds) in one setting of a variant."""
    def render(data: Path) -> str:
        part = _variant(data, variant)
        return fmt(float(part[(part["setting"] == setting) & (part["algorithm"] == algorithm)].iloc[0][metric]), 0)
    return render


def _claim(setting: str, metric: str, baseline: str, *, digits: int = 2) -> Any:
    """Our ratio for one of the paper's claims (`networking20_rows.csv`)."""
    def render(data: Path) -> str:
        rows = pd.read_csv(data / "networking20_rows.csv")
        row = rows[(rows["setting"] == setting) & (rows["metric"] == metric) & (rows["baseline"] == baseline)]
        return fmt(float(row.iloc[0]["ours"]), digits)
    return render


def _tau_range(setting: str, metric: str, baseline: str, *, digits: int = 1) -> Any:
    """``low–high`` of our ratio over the τ offsets of the τ table."""
    kind = "higher" if metric == "min" else ("same" if metric == "mean" else "lower")

    def render(data: Path) -> str:
        frame = _group(data, "tau")
        ratios = [_ratio(part, setting, metric, baseline, kind) for _, part in frame.groupby("variant", sort=False)]
        return f"{fmt(min(ratios), digits)}–{fmt(max(ratios), digits)}"
    return render


def _tau_offline_worst(bound: str) -> Any:
    """The least or the greatest (`bound`) offline worst-utility ratio, against LUF or FIFO, over the τ table."""
    def render(data: Path) -> str:
        frame = _group(data, "tau")
        ratios = [_ratio(part, "offline-linear", "min", baseline, "higher")
                  for _, part in frame.groupby("variant", sort=False) for baseline in ("luf", "fifo")]
        return fmt(min(ratios) if bound == "min" else max(ratios), 1)
    return render


def _paper_delta0_over_span(data: Path) -> str:
    row = _variant(data, SLICE)
    span = float(row[row["setting"] == "online-equal"].iloc[0]["arrival_span_s"])
    return fmt(PAPER_DELTA0_S / span, 1)


def _theorem3_kmaxmin(data: Path) -> str:
    """What k-Max-Min (k = 2) finds on the Theorem 3 counterexample over the seeds: ``always finds (4, 3, 1)``."""
    frame = pd.read_csv(data / "networking20_theorem3.csv", dtype=str)
    found = frame["kmaxmin_k2"].unique()
    vectors = ", ".join(f"({v.replace(' ', ', ')})" for v in found)
    optimum = f"({frame['optimum'].iloc[0].replace(' ', ', ')})"
    if len(found) == 1:
        return f"always finds {vectors}" + (", the optimum" if vectors == optimum else f", not the optimum {optimum}")
    return f"finds {vectors} depending on the seed (optimum {optimum})"


def _reach_exact(algorithm: str) -> Any:
    """The share (%) of the reach table's instances on which `algorithm` finds the exact vector."""
    def render(data: Path) -> str:
        reach = pd.read_csv(data / "networking20_reach.csv")
        return fmt(100 * float(reach[reach["algorithm"] == algorithm].iloc[0]["exact_vector"]), 1)
    return render


def _theorem3_pba_exact(data: Path) -> str:
    """On how many seeds PBA finds the optimum of the Theorem 3 counterexample: ``48 seeds out of 100``."""
    frame = pd.read_csv(data / "networking20_theorem3.csv", dtype={"exact": bool})
    return f"{int(frame['exact'].sum())} seeds out of {len(frame)}"


def _variant(data: Path, variant: tuple[str, str]) -> pd.DataFrame:
    frame = _group(data, variant[0])
    return frame[frame["variant"] == variant[1]]


def _sptf_claims(data: Path, reading: str) -> list[tuple[float, float, str]]:
    """(paper, ours, kind) of each claim against SPTF, with SPTF read as `reading` (``sptf`` or ``lptf``)."""
    frame = _group(data, "sptf_reading")
    return [(c.paper, _ratio(frame, setting, metric, reading, c.kind), c.kind)
            for (setting, metric, baseline), c in _claims().items() if baseline == "sptf"]


def _sptf_verdicts(reading: str) -> Any:
    """The verdicts of the paper's claims against SPTF read as `reading`, counted: ``matches on 3 of the 4 claims
    against SPTF, direction only on 1 (average completion time 1.7× better than SPTF), no on 0``."""
    def render(data: Path) -> str:
        frame = _group(data, "sptf_reading")
        found = [(c.text, verdict(c.paper, _ratio(frame, setting, metric, reading, c.kind), c.kind))
                 for (setting, metric, baseline), c in _claims().items() if baseline == "sptf"]
        return _counted(found, "claims against SPTF", name="direction only")
    return render


def _counted(found: list[tuple[str, str]], what: str, name: str) -> str:
    """(claim, verdict) pairs counted per verdict: ``matches on 3 of the 4 `what`, direction only on 1 (the
    claim), no on 0``; the claims with verdict `name` are named unless there are none or it is every claim."""
    parts = []
    for word in ("matches", "direction only", "no"):
        texts = [claim for claim, v in found if v == word]
        named = f" ({'; '.join(texts)})" if word == name and 0 < len(texts) < len(found) else ""
        parts.append(f"{word} on {len(texts)}{f' of the {len(found)} {what}' if not parts else ''}{named}")
    return ", ".join(parts)


def _sptf_loss(data: Path) -> str:
    """How PBA fares against shortest-first SPTF on the paper's claims: ``loses every comparison, by a factor
    1.4–2.7``."""
    ours = [value for _, value, _ in _sptf_claims(data, "sptf")]
    losses = [1 / value for value in ours if value < 1]
    lead = "loses every comparison" if len(losses) == len(ours) else f"loses {len(losses)} of {len(ours)} comparisons"
    return f"{lead}, by a factor {fmt(min(losses), 1)}–{fmt(max(losses), 1)}" if losses else "wins every comparison"


def _multi_task_online(data: Path) -> str:
    """PBA against shortest-first SPTF online on the multi-task jobs: ``loses online (0.82×)``."""
    ratio = _ratio(_variant(data, MULTI_TASK), "online-equal", "mean", "sptf", "lower")
    return f"{'loses' if ratio < 1 else 'wins'} online ({fmt(ratio)}×)"


def _lptf_vs_fifo(data: Path) -> str:
    """Longest-first SPTF's mean against FIFO's on the slice, offline (completion) and online (delay)."""
    part = _variant(data, SLICE)
    ratios = [_ratio(part, setting, "mean", "lptf", "lower") / _ratio(part, setting, "mean", "fifo", "lower")
              for setting in ("offline-equal", "online-equal")]  # (LPTF / PBA) / (FIFO / PBA) = LPTF / FIFO
    word = "worse" if min(ratios) > 1 else "better" if max(ratios) < 1 else "mixed"
    return f"{word} than FIFO on the slice (mean {fmt(ratios[0])}× FIFO's offline, {fmt(ratios[1])}× online)"


def _delta_monotone(data: Path) -> str:
    """Whether PBA's online mean delay falls at every step as δ₀ shrinks (the numeric δ₀ rows of the table)."""
    frame = _group(data, "delta0")
    pba = frame[(frame["algorithm"] == "pba") & frame["delta0_s"].notna()
                & frame["variant"].str.match(r"δ₀ = [\d.e+]+ s$")]
    delays = pba.sort_values("delta0_s")["mean"].to_numpy()
    return "at every step of the table" if (np.diff(delays) > 0).all() else "but not at every step of the table"


def _fifo_delay(data: Path) -> str:
    part = _variant(data, DEFAULT_DELTA0)
    return fmt(float(part[part["algorithm"] == "fifo"].iloc[0]["mean"]), 0)


def _half_interval(data: Path) -> str:
    part = _variant(data, DEFAULT_DELTA0)
    return fmt(float(part.iloc[0]["delta0_s"]) / 2, 0)


def _half_interval_share(data: Path) -> str:
    """δ₀ / 2 as a percentage of FIFO's mean delay (online, default δ₀)."""
    part = _variant(data, DEFAULT_DELTA0)
    fifo = float(part[part["algorithm"] == "fifo"].iloc[0]["mean"])
    return fmt(100 * float(part.iloc[0]["delta0_s"]) / 2 / fifo, 0)


def _same_delays(variant: tuple[str, str]) -> Any:
    """Whether every baseline gets the same online mean delay on `variant`, within 1 % (no contention): the
    sentence."""
    def render(data: Path) -> str:
        part = _variant(data, variant)
        online = part[part["setting"] == "online-equal"].set_index("algorithm")["mean"]
        baselines = online.drop("pba")
        same = baselines.max() <= 1.01 * baselines.min()
        head = (f"every baseline gets the same mean delay within 1 % ({fmt(baselines.min(), 0)}–"
                f"{fmt(baselines.max(), 0)} s)" if same else
                f"the baselines' mean delays differ ({fmt(baselines.min(), 0)}–{fmt(baselines.max(), 0)} s)")
        return f"{head}; PBA's is {fmt(online['pba'], 0)} s"
    return render


_PERF_DATA = Path(__file__).resolve().parents[3] / "docs" / "performance" / "data"


def _synthetic(what: str) -> Any:
    """A figure of the heavy synthetic instance of `benchmarks/bench_openshop.py` (docs/performance/data/
    openshop.json): its ``jobs``, ``tasks``, ``tasks_per_job_mean``, or PBA's mean completion against ``sptf`` or
    ``fifo`` (baseline / PBA)."""
    def render(data: Path) -> str:
        import json

        heavy = json.loads((_PERF_DATA / "openshop.json").read_text())["result"]["synthetic"]["heavy"]
        if what in ("sptf", "fifo"):
            algorithms = heavy["algorithms"]
            return fmt(algorithms[what]["mean_completion"] / algorithms["pba"]["mean_completion"])
        return fmt(float(heavy[what]), 1 if what == "tasks_per_job_mean" else 0)
    return render


def _tau_priority_ratio(data: Path) -> str:
    """The offline worst-utility ratio against LUF at d = 1 s and the largest d of the τ table that keeps it:
    ``3.33 for d ≤ 1,000 s``."""
    frame = _group(data, "tau")
    ratios = {float(name.removeprefix("d = ")): _ratio(part, "offline-linear", "min", "luf", "higher")
              for name, part in frame.groupby("variant", sort=False)}
    first = ratios[min(ratios)]
    last = max(d for d in sorted(ratios) if all(abs(ratios[e] - first) < 5e-3 for e in ratios if e <= d))
    return f"{fmt(first)} for d ≤ {fmt(last, 0)} s"


def _verdict(setting: str, metric: str, baseline: str) -> Any:
    """The verdict of one of the paper's claims (`networking20_rows.csv`, `verdict`)."""
    def render(data: Path) -> str:
        rows = pd.read_csv(data / "networking20_rows.csv")
        row = rows[(rows["setting"] == setting) & (rows["metric"] == metric) & (rows["baseline"] == baseline)]
        kind = _claims()[setting, metric, baseline].kind
        return verdict(float(row.iloc[0]["paper"]), float(row.iloc[0]["ours"]), kind)
    return render


def _verdict_count(*, setting: str | None = None, baseline: str | None = None, name: str = "matches") -> Any:
    """The verdicts of the paper's claims in `networking20_rows.csv` (restricted to `setting` and / or `baseline`),
    counted: ``matches on 1 of the 4 claims (utility deviation 1.3× lower than FIFO's), direction only on 3, no on
    0``; the claims with verdict `name` are named."""
    def render(data: Path) -> str:
        rows = pd.read_csv(data / "networking20_rows.csv")
        if setting is not None:
            rows = rows[rows["setting"] == setting]
        if baseline is not None:
            rows = rows[rows["baseline"] == baseline]
        found = [(r.claim, verdict(r.paper, r.ours, _claims()[r.setting, r.metric, r.baseline].kind))
                 for r in rows.itertuples()]
        return _counted(found, "claims", name)
    return render


def _fifo_direction(data: Path) -> str:
    """On how many of the paper's claims against FIFO PBA is better, as the paper says."""
    rows = pd.read_csv(data / "networking20_rows.csv")
    fifo = rows[rows["baseline"] == "fifo"]
    better = sum(verdict(r.paper, r.ours, _claims()[r.setting, r.metric, r.baseline].kind) != "no"
                 for r in fifo.itertuples())
    return "holds on every claim" if better == len(fifo) else f"holds on {better} of the {len(fifo)} claims"


def _tau_same_mean(data: Path) -> str:
    """"Almost the same average utility as LUF" over the τ table: on how many τ it fails, and where it holds."""
    frame = _group(data, "tau")
    ratios = {name: _ratio(part, "offline-linear", "mean", "luf", "same")
              for name, part in frame.groupby("variant", sort=False)}
    holds = [name for name, ratio in ratios.items() if verdict(1.0, ratio, "same") == "matches"]
    text = f"does not hold for {len(ratios) - len(holds)} of the {len(ratios)} τ tried"
    return text + (f" (within 10 % of LUF's only at {', '.join(holds)})" if holds else "")


DELTA60 = ("delta0", "δ₀ = 60 s")
PAPER_DELTA0 = ("delta0", f"δ₀ = {PAPER_DELTA0_S:g} s")
FIRST_HALF, SECOND_HALF = ("slice", "parts 0-4"), ("slice", "parts 5-9")
MULTI_TASK = ("slice", "parts 0-9, multi-task jobs only")
PRODUCTION = ("production", f"priority ≥ {PRODUCTION_PRIORITY}")
VALUES = {
    "networking20-parts": _slice_quantity("parts"),
    "networking20-jobs": _fact(SLICE, "online-equal", "n_jobs"),
    "networking20-tasks": _fact(SLICE, "online-equal", "n_tasks"),
    "networking20-span-h": _fact(SLICE, "online-equal", "arrival_span_s", scale=1 / 3600, digits=1),
    "networking20-dropped-running": _slice_dropped("a task still running at the end of the slice"),
    "networking20-dropped-killed": _slice_dropped("a task killed (last event KILL)"),
    "networking20-dropped-too-many": _slice_dropped("more than max_tasks tasks"),
    "networking20-task-events": _slice_quantity("task events"),
    "networking20-job-events": _slice_quantity("job events"),
    "networking20-first-arrival": _slice_quantity("first arrival (s)"),
    "networking20-last-arrival": _slice_quantity("last arrival (s)"),
    "networking20-most-tasks": _slice_quantity("most tasks in a job"),
    "networking20-median-task": _slice_quantity("median task (s)"),
    "networking20-busiest-machine": _slice_quantity("busiest machine's work (s)"),
    "networking20-slice-priorities": _slice_priorities,
    "networking20-offline-sptf-mean": _pba_or(SLICE, "offline-equal", "mean", "sptf"),
    "networking20-offline-pba-mean": _pba_or(SLICE, "offline-equal", "mean", "pba"),
    "networking20-original-machines": _slice_quantity("original machines"),
    "networking20-single-task-jobs": _single_task_jobs,
    "networking20-single-task-share": _fact(SLICE, "online-equal", "single_task_share", scale=100),
    "networking20-tasks-per-job": _fact(SLICE, "online-equal", "tasks_per_job", digits=1),
    "networking20-priorities": _fact(SLICE, "online-equal", "priorities"),
    "networking20-delta0": _fact(DEFAULT_DELTA0, "online-equal", "delta0_s"),
    "networking20-delta60-mean-fifo": _vs(DELTA60, "online-equal", "mean", "fifo"),
    "networking20-delta60-q4-fifo": _vs(DELTA60, "online-equal", "q4_mean", "fifo"),
    "networking20-delta60-mean-lptf": _vs(DELTA60, "online-equal", "mean", "lptf", digits=1),
    "networking20-paper-delta0-span": _paper_delta0_over_span,
    "networking20-paper-delta0-loss": _vs(PAPER_DELTA0, "online-equal", "mean", "fifo", digits=0, inverse=True),
    "networking20-default-mean-lptf": _vs(DEFAULT_DELTA0, "online-equal", "mean", "lptf"),
    "networking20-default-q4-lptf": _vs(DEFAULT_DELTA0, "online-equal", "q4_mean", "lptf"),
    "networking20-load": _share(SLICE, "max_machine_load_s", "arrival_span_s"),
    "networking20-mean-load": _share(SLICE, "mean_machine_load_s", "arrival_span_s"),
    "networking20-first-half-load": _share(FIRST_HALF, "max_machine_load_s", "arrival_span_s"),
    "networking20-first-half-fifo": _vs(FIRST_HALF, "online-equal", "mean", "fifo"),
    "networking20-second-half-load": _share(SECOND_HALF, "max_machine_load_s", "arrival_span_s"),
    "networking20-second-half-fifo": _vs(SECOND_HALF, "online-equal", "mean", "fifo"),
    "networking20-default-pba-delay": _pba(DEFAULT_DELTA0, "online-equal", "mean"),
    "networking20-delta60-pba-delay": _pba(DELTA60, "online-equal", "mean"),
    "networking20-production-jobs": _fact(PRODUCTION, "online-equal", "n_jobs"),
    "networking20-multi-task-jobs": _fact(MULTI_TASK, "online-equal", "n_jobs"),
    "networking20-multi-task-sptf": _vs(MULTI_TASK, "offline-equal", "mean", "sptf"),
    "networking20-multi-task-lptf": _vs(MULTI_TASK, "offline-equal", "mean", "lptf", digits=1),
    "networking20-multi-task-fifo": _vs(MULTI_TASK, "offline-equal", "mean", "fifo", digits=1),
    "networking20-tau-std-luf": _tau_range("offline-linear", "std", "luf"),
    "networking20-tau-std-fifo": _tau_range("offline-linear", "std", "fifo"),
    "networking20-tau-mean-luf": _tau_range("offline-linear", "mean", "luf", digits=2),
    "networking20-tau-online-min-luf": _tau_range("online-linear", "min", "luf"),
    "networking20-tau-online-min-fifo": _tau_range("online-linear", "min", "fifo"),
    "networking20-tau-3000-luf": _vs(("tau", "d = 3000"), "offline-linear", "min", "luf", digits=1),
    "networking20-tau-10000-luf": _vs(("tau", "d = 10000"), "offline-linear", "min", "luf", digits=1),
    "networking20-tau-10000-fifo": _vs(("tau", "d = 10000"), "offline-linear", "min", "fifo", digits=1),
    "networking20-tau-100000-luf": _vs(("tau", "d = 100000"), "offline-linear", "min", "luf", digits=1),
    "networking20-tau-100000-fifo": _vs(("tau", "d = 100000"), "offline-linear", "min", "fifo", digits=1),
    "networking20-tau-worst-min": _tau_offline_worst("min"),
    "networking20-tau-worst-max": _tau_offline_worst("max"),
    "networking20-reach-pba": _reach_exact("pba"),
    "networking20-reach-generalized-pba": _reach_exact("generalized pba"),
    "networking20-theorem3-pba-exact": _theorem3_pba_exact,
    "networking20-theorem3-kmaxmin": _theorem3_kmaxmin,
    "networking20-offline-std-fifo": _claim("offline-equal", "std", "fifo"),
    "networking20-offline-mean-fifo": _claim("offline-equal", "mean", "fifo", digits=1),
    "networking20-online-q4-fifo": _claim("online-equal", "q4_mean", "fifo"),
    "networking20-online-mean-fifo": _claim("online-equal", "mean", "fifo"),
    "networking20-online-min-luf": _claim("online-linear", "min", "luf", digits=1),
    "networking20-online-min-fifo": _claim("online-linear", "min", "fifo"),
    "networking20-lptf-offline-mean": _vs(SLICE, "offline-equal", "mean", "lptf", digits=1),
    "networking20-lptf-verdicts": _sptf_verdicts("lptf"),
    "networking20-sptf-verdicts": _sptf_verdicts("sptf"),
    "networking20-sptf-loss": _sptf_loss,
    "networking20-multi-task-online": _multi_task_online,
    "networking20-lptf-vs-fifo": _lptf_vs_fifo,
    "networking20-delta-monotone": _delta_monotone,
    "networking20-half-interval": _half_interval,
    "networking20-half-interval-share": _half_interval_share,
    "networking20-fifo-delay": _fifo_delay,
    "networking20-alpha0-pba-delay": _pba(("delta0", "δ₀ = span / 10, α = 0"), "online-equal", "mean"),
    "networking20-production-priorities": _fact(PRODUCTION, "online-equal", "priorities"),
    "networking20-production-load": _share(PRODUCTION, "max_machine_load_s", "arrival_span_s", digits=2),
    "networking20-production-delays": _same_delays(PRODUCTION),
    "networking20-synthetic-jobs": _synthetic("jobs"),
    "networking20-synthetic-tasks": _synthetic("tasks"),
    "networking20-synthetic-tasks-per-job": _synthetic("tasks_per_job_mean"),
    "networking20-synthetic-sptf": _synthetic("sptf"),
    "networking20-synthetic-fifo": _synthetic("fifo"),
    "networking20-tau-priority-ratio": _tau_priority_ratio,
    "networking20-verdict-offline-std-fifo": _verdict("offline-equal", "std", "fifo"),
    "networking20-verdict-offline-mean-fifo": _verdict("offline-equal", "mean", "fifo"),
    "networking20-verdict-online-q4-fifo": _verdict("online-equal", "q4_mean", "fifo"),
    "networking20-verdict-online-mean-fifo": _verdict("online-equal", "mean", "fifo"),
    "networking20-fifo-direction": _fifo_direction,
    "networking20-fifo-verdicts": _verdict_count(baseline="fifo"),
    "networking20-online-linear-verdicts": _verdict_count(setting="online-linear"),
    "networking20-offline-linear-verdicts": _verdict_count(setting="offline-linear", name="no"),
    "networking20-tau-same-mean": _tau_same_mean,
}

TABLES = {"networking20-results": table_results, "networking20-sptf": table_sptf,
          "networking20-delta0": table_delta0, "networking20-data": table_data, "networking20-tau": table_tau,
          "networking20-theorem3": table_theorem3, "networking20-reach": table_reach,
          "networking20-slice-drops": table_slice_drops}


def main(argv: list[str] | None = None) -> None:
    """``python -m fairsched.replicate._networking20_ablations --out DIR [--traces DIR] [--theorem3]``."""
    from fairsched._io import write_csv
    from fairsched.replicate import networking20

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/replication/data"))
    parser.add_argument("--traces", type=Path, default=None)
    parser.add_argument("--theorem3", action="store_true", help="only print the Theorem 3 counterexample's table")
    args = parser.parse_args(argv)
    table = theorem3_table()
    if args.theorem3:
        print(table.groupby(["pba", "optimum"]).size().rename("seeds").reset_index().to_string(index=False))  # noqa: T201
        return
    traces = args.traces if args.traces is not None else networking20.default_traces_dir()
    result = networking20.run(networking20.Networking20Config(traces_dir=traces))
    write_csv(pd.DataFrame.from_records(result.rows), args.out / "networking20_rows.csv")
    write_csv(pd.DataFrame.from_records(result.reach), args.out / "networking20_reach.csv")
    write_csv(run_variants(traces), args.out / "networking20_ablations.csv")
    write_csv(table, args.out / "networking20_theorem3.csv")
    quantities, drops = slice_report(traces)
    write_csv(quantities, args.out / "networking20_slice.csv")
    write_csv(drops, args.out / "networking20_slice_drops.csv")


if __name__ == "__main__":
    main()
