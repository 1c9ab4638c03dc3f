"""Which SPTF did Networking'20 run? Both readings against every data set we have.

§VII names its baseline "Shortest Processing Time First" but defines it as listing each machine's tasks "in
non-increasing order of their processing times". Each reading (`READINGS`: ``sptf`` shortest first, ``lptf``
longest first) is checked against what the paper's numbers say about SPTF: the four claims against it (Fig. 1 and
Fig. 3) and the four comparisons with FIFO that the paper's ratios imply (PBA 1.7× better than SPTF and 3× better
than FIFO puts SPTF 3 / 1.7 = 1.76× ahead of FIFO, ...), on the project's verdict scale. A reading is ruled out on a
data set when one of these gets ``no``; the data set settles the question only when exactly one reading survives,
otherwise it is undetermined.

The data sets: the Google slice, its multi-task jobs only, and synthetic instances of the paper's size
(`networking20_ablations.csv`, groups ``sptf_reading``, ``slice`` and ``synthetic``; written by
``python -m fairsched.replicate.networking20.ablations``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from fairsched.replicate._common import verdict
from fairsched.replicate._doc_format import fmt, markdown_table
from fairsched.replicate.networking20.doc import group_rows, paper_claims

__all__ = ["DATA_SETS", "READINGS", "TABLES", "VALUES", "SptfCheck", "checks", "reading_verdict"]

READINGS = ("sptf", "lptf")
DATA_SETS: tuple[tuple[str, str, str], ...] = (  # (label, ablation group, variant)
    ("Google slice", "sptf_reading", "slice (10 parts)"),
    ("slice, multi-task jobs only", "slice", "parts 0-9, multi-task jobs only"),
    ("synthetic, seed 0", "synthetic", "synthetic, seed 0"),
    ("synthetic, seed 1", "synthetic", "synthetic, seed 1"),
    ("synthetic, seed 2", "synthetic", "synthetic, seed 2"),
)


@dataclass(frozen=True)
class SptfCheck:
    """One thing the paper's numbers say about SPTF: a ratio ``numerator / denominator`` of `metric` (algorithms;
    "sptf" stands for the reading checked), oriented so that > 1 is the paper's direction, with the paper's value
    and the verdict kind ("lower" or "same")."""

    setting: str
    metric: str
    numerator: str
    denominator: str
    paper: float
    kind: str
    text: str


def checks() -> tuple[SptfCheck, ...]:
    """The paper's four claims against SPTF, then the four SPTF-vs-FIFO comparisons its ratios imply."""
    claims = paper_claims()
    direct = tuple(SptfCheck(setting, metric, "sptf", "pba", c.paper, c.kind, c.text)
                   for (setting, metric, baseline), c in claims.items() if baseline == "sptf")

    def implied(setting: str, metric: str) -> float:
        return claims[setting, metric, "fifo"].paper / claims[setting, metric, "sptf"].paper  # FIFO / SPTF

    mean_off, mean_on = implied("offline-equal", "mean"), implied("online-equal", "mean")
    q4_on = implied("online-equal", "q4_mean")
    return (
        *direct,
        SptfCheck("offline-equal", "mean", "fifo", "sptf", mean_off, "lower",
                  f"implied: SPTF's mean completion {fmt(mean_off)}× better than FIFO's"),
        SptfCheck("offline-equal", "std", "fifo", "sptf", 1.0, "same",
                  "implied: SPTF's deviation the same as FIFO's (both 1/0.65 of PBA's)"),
        SptfCheck("online-equal", "mean", "fifo", "sptf", mean_on, "lower",
                  f"implied: SPTF's mean delay {fmt(mean_on)}× better than FIFO's"),
        SptfCheck("online-equal", "q4_mean", "sptf", "fifo", 1 / q4_on, "lower",
                  f"implied: SPTF's 4th-quartile delay {fmt(1 / q4_on)}× worse than FIFO's"),
    )


def _ratio(frame: pd.DataFrame, check: SptfCheck, reading: str) -> float:
    values = frame[frame["setting"] == check.setting].set_index("algorithm")[check.metric]
    name = {"sptf": reading}

    def value(algorithm: str) -> float:
        return float(values[name.get(algorithm, algorithm)])

    return value(check.numerator) / value(check.denominator)


def _frame(data: Path, group: str, variant: str) -> pd.DataFrame:
    frame = group_rows(data, group)
    return frame[frame["variant"] == variant]


def _verdicts(data: Path, label: str) -> dict[str, list[tuple[SptfCheck, float, str]]]:
    """reading -> (check, our ratio, verdict) on the data set `label`."""
    _, group, variant = next(d for d in DATA_SETS if d[0] == label)
    frame = _frame(data, group, variant)
    out: dict[str, list[tuple[SptfCheck, float, str]]] = {}
    for reading in READINGS:
        out[reading] = []
        for check in checks():
            ours = _ratio(frame, check, reading)
            out[reading].append((check, ours, verdict(check.paper, ours, check.kind)))
    return out


def reading_verdict(data: Path, label: str) -> str:
    """What data set `label` says of the reading: ``longest first (ruled out: shortest first by 4 of the 8
    checks)``, ``undetermined: both readings are ruled out (shortest first by 6 of the 8 checks, longest first by
    2)`` or ``undetermined: neither reading is ruled out``; the table names the checks."""
    found = _verdicts(data, label)
    ruled_out = {reading: [check.text for check, _, word in rows if word == "no"] for reading, rows in found.items()}
    names = {"sptf": "shortest first", "lptf": "longest first"}
    alive = [reading for reading in READINGS if not ruled_out[reading]]
    counts = [f"{names[r]} by {len(ruled_out[r])}" for r in READINGS if ruled_out[r]]
    why = ", ".join([*counts[:1], f"of the {len(checks())} checks", *counts[1:]]).replace(", of the", " of the")
    if len(alive) == 1:
        return f"{names[alive[0]]} (ruled out: {why})"
    if not alive:
        return f"undetermined: both readings are ruled out ({why})"
    return "undetermined: neither reading is ruled out"


def _summary(data: Path) -> str:
    """Over every data set: ``undetermined on all 5 data sets`` or ``longest first on 1 of the 5 data sets,
    undetermined on 4``."""
    verdicts = [reading_verdict(data, label).split(" (")[0].split(":")[0] for label, _, _ in DATA_SETS]
    counted = {word: verdicts.count(word) for word in dict.fromkeys(verdicts)}
    if len(counted) == 1:
        return f"{verdicts[0]} on all {len(verdicts)} data sets"
    return ", ".join(f"{word} on {n} of the {len(verdicts)} data sets" for word, n in counted.items())


def _run_time(data: Path) -> str:
    """The ablations run's ``642 s wall, 56 s CPU`` (``networking20_ablations_run.csv``)."""
    run = pd.read_csv(data / "networking20_ablations_run.csv").iloc[0]
    cpu = run["cpu_s"] if "cpu_s" in run else run["user_s"] + run["sys_s"]
    return f"{fmt(run['wall_s'], 0)} s wall, {fmt(cpu, 0)} s CPU"


def table_sptf_readings(data: Path) -> str:
    """Every check (`checks`) on every data set (`DATA_SETS`), both readings, with the verdicts."""
    rows = []
    for label, _, _ in DATA_SETS:
        found = _verdicts(data, label)
        for index, check in enumerate(checks()):
            (_, short, short_word), (_, long_, long_word) = found["sptf"][index], found["lptf"][index]
            rows.append((label, check.setting, check.text, fmt(check.paper), fmt(short), short_word, fmt(long_),
                         long_word))
    return markdown_table(("data", "setting", "what the paper's numbers say", "paper", "shortest first (`sptf`)",
                           "verdict", "longest first (`lptf`)", "verdict"), rows, "lllrrlrl")


def _reading(label: str) -> Any:
    return lambda data: reading_verdict(data, label)


def _facts(label: str) -> Any:
    """``19,000 jobs, 576,212 tasks, 30.3 tasks per job, arrivals over 160 h`` of data set `label`."""
    def render(data: Path) -> str:
        _, group, variant = next(d for d in DATA_SETS if d[0] == label)
        row = _frame(data, group, variant)
        online = row[row["setting"] == "online-equal"].iloc[0]
        return (f"{int(online['n_jobs']):,} jobs, {int(online['n_tasks']):,} tasks, "
                f"{fmt(online['tasks_per_job'], 1)} tasks per job, arrivals over "
                f"{fmt(online['arrival_span_s'] / 3600, 0)} h")
    return render


TABLES = {"networking20-sptf-readings": table_sptf_readings}
VALUES = {f"networking20-sptf-reading-{key}": _reading(label) for key, (label, _, _) in
          zip(("slice", "multi-task", "synthetic-0", "synthetic-1", "synthetic-2"), DATA_SETS, strict=True)}
VALUES["networking20-synthetic-facts"] = _facts("synthetic, seed 0")
VALUES["networking20-sptf-reading-summary"] = _summary
VALUES["networking20-ablations-run-time"] = _run_time
