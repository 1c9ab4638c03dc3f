"""The tables of docs/replication/networking20.md and docs/openshop.md (`TABLES`), rendered from the
``networking20_*.csv`` files that ``python -m fairsched.replicate.networking20.ablations`` writes to
``docs/replication/data``; the numbers in their prose are in `fairsched.replicate.networking20.doc_values`.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd

from fairsched.replicate._common import verdict
from fairsched.replicate._doc_format import fmt, markdown_table
from fairsched.replicate.networking20.paper import PAPER, setting_name

__all__ = ["TABLES", "claim_ratio", "group_rows", "paper_claims"]


def paper_claims() -> dict[tuple[str, str, str], Any]:
    """The paper's claims by (setting, metric, baseline)."""
    return {(setting_name(c.online, c.utilities), c.metric, c.baseline): c for c in PAPER}


def claim_ratio(frame: pd.DataFrame, setting: str, metric: str, baseline: str, kind: str) -> float:
    """The paper's orientation: baseline / PBA for times and deviations, PBA / baseline for utilities."""
    rows = frame[frame["setting"] == setting].set_index("algorithm")[metric]
    pba, base = float(rows["pba"]), float(rows[baseline])
    if kind == "lower":
        return base / pba if pba else math.inf
    return pba / base if base else math.inf


def table_results(data: Path) -> str:
    """The paper's claims beside ours (`fairsched replicate networking20`, seed 0), with the verdict."""
    claims = paper_claims()
    rows = []
    for r in pd.read_csv(data / "networking20_rows.csv").itertuples():
        kind = claims[r.setting, r.metric, r.baseline].kind
        rows.append((r.setting, r.claim, fmt(r.paper), fmt(r.ours), verdict(r.paper, r.ours, kind)))
    return markdown_table(("setting", "the paper's claim", "paper", "ours", "verdict"), rows, "llrrl")


def table_sptf(data: Path) -> str:
    """Every claim against SPTF, with SPTF read as named (shortest first) and as written (longest first)."""
    frame = group_rows(data, "sptf_reading")
    rows = []
    for (setting, metric, baseline), c in paper_claims().items():
        if baseline != "sptf":
            continue
        short, long_ = (claim_ratio(frame, setting, metric, name, c.kind) for name in ("sptf", "lptf"))
        rows.append((setting, c.text, fmt(c.paper), fmt(short), verdict(c.paper, short, c.kind), fmt(long_),
                     verdict(c.paper, long_, c.kind)))
    return markdown_table(("setting", "the paper's claim", "paper", "shortest first (`sptf`)", "verdict",
                           "longest first (`lptf`)", "verdict"), rows, "llrrlrl")


def table_delta0(data: Path) -> str:
    """Online, equal utilities: PBA's delays and the paper's four ratios for each δ₀."""
    frame = group_rows(data, "delta0")
    rows = []
    for name, part in frame.groupby("variant", sort=False):
        pba = part.set_index("algorithm").loc["pba"]
        ratios = [claim_ratio(part, "online-equal", metric, base, "lower")
                  for metric, base in (("mean", "fifo"), ("q4_mean", "fifo"), ("mean", "sptf"), ("mean", "lptf"),
                                       ("q4_mean", "sptf"), ("q4_mean", "lptf"))]
        rows.append((name, fmt(pba["mean"], 0), fmt(pba["q4_mean"], 0), *(fmt(r) for r in ratios)))
    return markdown_table(("δ intervals", "PBA mean delay (s)", "PBA 4th-quartile (s)", "mean vs FIFO (paper 3.3)",
                           "4th-q. vs FIFO (1.7)", "mean vs SPTF (1.7)", "mean vs LPTF (1.7)",
                           "4th-q. vs SPTF (1.9)", "4th-q. vs LPTF (1.9)"), rows)


def table_data(data: Path) -> str:
    """The data each variant schedules (offline shape; the online arrival span) and PBA's mean against each
    baseline, offline (completion) and online (delay)."""
    frame = pd.concat([group_rows(data, "production"), group_rows(data, "slice")])
    rows = []
    for (group, name), part in frame.groupby(["group", "variant"], sort=False):
        off, on = part[part["setting"] == "offline-equal"], part[part["setting"] == "online-equal"]
        facts = on.iloc[0]
        ratios = [claim_ratio(sub, setting, "mean", base, "lower") for sub, setting in ((off, "offline-equal"),
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
    frame = group_rows(data, "tau")
    claims = {k: c for k, c in paper_claims().items() if k[0].endswith("linear")}
    rows = []
    for name, part in frame.groupby("variant", sort=False):
        taus = [fmt(part[part["setting"] == s]["tau"].iloc[0], 0) for s in ("offline-linear", "online-linear")]
        ratios = [fmt(claim_ratio(part, setting, metric, base, c.kind))
                  for (setting, metric, base), c in claims.items()]
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


def group_rows(data: Path, group: str) -> pd.DataFrame:
    """The rows of one ablation group of ``networking20_ablations.csv``."""
    frame = pd.read_csv(data / "networking20_ablations.csv")
    return frame[frame["group"] == group]


def table_slice_drops(data: Path) -> str:
    """The Google reader on the whole slice: jobs and tasks seen, dropped (by reason) and kept."""
    frame = pd.read_csv(data / "networking20_slice_drops.csv").set_index("rows")
    rows = [(name, f"{int(r.jobs):,}", f"{int(r.tasks):,}")
            for name, r in frame.iterrows() if name not in ("kept", "merged")]
    rows.append(("**kept**", f"**{int(frame.loc['kept', 'jobs']):,}**",
                 f"**{int(frame.loc['kept', 'tasks']):,}**, merged into **{int(frame.loc['merged', 'tasks']):,}**"))
    return markdown_table(("the reader", "jobs", "tasks"), rows, "lrr")



TABLES = {"networking20-results": table_results, "networking20-sptf": table_sptf,
          "networking20-delta0": table_delta0, "networking20-data": table_data, "networking20-tau": table_tau,
          "networking20-theorem3": table_theorem3, "networking20-reach": table_reach,
          "networking20-slice-drops": table_slice_drops}

