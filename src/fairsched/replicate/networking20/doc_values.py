"""The numbers in the prose of docs/replication/networking20.md and docs/openshop.md (`VALUES`: NAME -> renderer),
each computed from the ``networking20_*.csv`` files of ``docs/replication/data``
(`fairsched.replicate.networking20.ablations` writes them).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fairsched.replicate._common import verdict
from fairsched.replicate._doc_format import fmt
from fairsched.replicate.networking20.ablations import PAPER_DELTA0_S
from fairsched.replicate.networking20.doc import claim_ratio, group_rows, paper_claims
from fairsched.workload.google import PRODUCTION_PRIORITY

__all__ = ["VALUES"]

SLICE = ("sptf_reading", "slice (10 parts)")  # the replication's own data, in the ablation table
DEFAULT_DELTA0 = ("delta0", "δ₀ = span / 10 (default)")


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
        ratio = claim_ratio(_variant(data, variant), setting, metric, baseline, kind)
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
        frame = group_rows(data, "tau")
        ratios = [claim_ratio(part, setting, metric, baseline, kind)
                  for _, part in frame.groupby("variant", sort=False)]
        return f"{fmt(min(ratios), digits)}–{fmt(max(ratios), digits)}"
    return render


def _tau_offline_worst(bound: str) -> Any:
    """The least or the greatest (`bound`) offline worst-utility ratio, against LUF or FIFO, over the τ table."""
    def render(data: Path) -> str:
        frame = group_rows(data, "tau")
        ratios = [claim_ratio(part, "offline-linear", "min", baseline, "higher")
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
    frame = group_rows(data, variant[0])
    return frame[frame["variant"] == variant[1]]


def _sptf_claims(data: Path, reading: str) -> list[tuple[float, float, str]]:
    """(paper, ours, kind) of each claim against SPTF, with SPTF read as `reading` (``sptf`` or ``lptf``)."""
    frame = group_rows(data, "sptf_reading")
    return [(c.paper, claim_ratio(frame, setting, metric, reading, c.kind), c.kind)
            for (setting, metric, baseline), c in paper_claims().items() if baseline == "sptf"]


def _sptf_verdicts(reading: str) -> Any:
    """The verdicts of the paper's claims against SPTF read as `reading`, counted: ``matches on 3 of the 4 claims
    against SPTF, direction only on 1 (average completion time 1.7× better than SPTF), no on 0``."""
    def render(data: Path) -> str:
        frame = group_rows(data, "sptf_reading")
        found = [(c.text, verdict(c.paper, claim_ratio(frame, setting, metric, reading, c.kind), c.kind))
                 for (setting, metric, baseline), c in paper_claims().items() if baseline == "sptf"]
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
    ratio = claim_ratio(_variant(data, MULTI_TASK), "online-equal", "mean", "sptf", "lower")
    return f"{'loses' if ratio < 1 else 'wins'} online ({fmt(ratio)}×)"


def _lptf_vs_fifo(data: Path) -> str:
    """Longest-first SPTF's mean against FIFO's on the slice, offline (completion) and online (delay)."""
    part = _variant(data, SLICE)
    ratios = [claim_ratio(part, setting, "mean", "lptf", "lower") / claim_ratio(part, setting, "mean", "fifo", "lower")
              for setting in ("offline-equal", "online-equal")]  # (LPTF / PBA) / (FIFO / PBA) = LPTF / FIFO
    word = "worse" if min(ratios) > 1 else "better" if max(ratios) < 1 else "mixed"
    return f"{word} than FIFO on the slice (mean {fmt(ratios[0])}× FIFO's offline, {fmt(ratios[1])}× online)"


def _delta_monotone(data: Path) -> str:
    """Whether PBA's online mean delay falls at every step as δ₀ shrinks (the numeric δ₀ rows of the table)."""
    frame = group_rows(data, "delta0")
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


_PERF_DATA = Path(__file__).resolve().parents[4] / "docs" / "performance" / "data"


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
    frame = group_rows(data, "tau")
    ratios = {float(name.removeprefix("d = ")): claim_ratio(part, "offline-linear", "min", "luf", "higher")
              for name, part in frame.groupby("variant", sort=False)}
    first = ratios[min(ratios)]
    last = max(d for d in sorted(ratios) if all(abs(ratios[e] - first) < 5e-3 for e in ratios if e <= d))
    return f"{fmt(first)} for d ≤ {fmt(last, 0)} s"


def _verdict(setting: str, metric: str, baseline: str) -> Any:
    """The verdict of one of the paper's claims (`networking20_rows.csv`, `verdict`)."""
    def render(data: Path) -> str:
        rows = pd.read_csv(data / "networking20_rows.csv")
        row = rows[(rows["setting"] == setting) & (rows["metric"] == metric) & (rows["baseline"] == baseline)]
        kind = paper_claims()[setting, metric, baseline].kind
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
        found = [(r.claim, verdict(r.paper, r.ours, paper_claims()[r.setting, r.metric, r.baseline].kind))
                 for r in rows.itertuples()]
        return _counted(found, "claims", name)
    return render


def _fifo_direction(data: Path) -> str:
    """On how many of the paper's claims against FIFO PBA is better, as the paper says."""
    rows = pd.read_csv(data / "networking20_rows.csv")
    fifo = rows[rows["baseline"] == "fifo"]
    better = sum(verdict(r.paper, r.ours, paper_claims()[r.setting, r.metric, r.baseline].kind) != "no"
                 for r in fifo.itertuples())
    return "holds on every claim" if better == len(fifo) else f"holds on {better} of the {len(fifo)} claims"


def _tau_same_mean(data: Path) -> str:
    """"Almost the same average utility as LUF" over the τ table: on how many τ it fails, and where it holds."""
    frame = group_rows(data, "tau")
    ratios = {name: claim_ratio(part, "offline-linear", "mean", "luf", "same")
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

