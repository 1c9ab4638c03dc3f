"""Analysis of `slurm_vs_sim.py`'s real replays: fairshare check, simulated vs real schedules, ablations.

`analyse(raw)` reads ``RAW/<log>/<policy>/<rep>/{sacct.txt,sshare.txt,meta.json}`` and returns the JSON document
that ``benchmarks/slurm_vs_sim_tables.py`` renders into docs/slurm.md. Definitions:

* **jobs**: a replay's own sacct export, one row per job (``JobName`` = ``r`` + the log's job id): submit, start
  and end in whole seconds from the replay's first submission, CPUs, time limit.
* **simulated schedule** of replay r: `fairsched.backfill.simulate` of r's jobs (submit times, CPUs, time limits,
  run time = End − Start from r's sacct) on the cluster's CPUs, order ``slurm-fair-tree`` / ``slurm-classic``
  with the cluster's configuration: the accounts' raw shares, ``calc_period`` 60 s (``PriorityCalcPeriod=1``),
  its half-life, weights fair-share 10000 and age 0 (``slurm.conf`` of ``fairsched slurm up``). Main variant:
  the backfilling rule `MAIN_RULE`, ticks from the first submission (the engine's phase).
* **τ**: Kendall's τ-b (scipy) between two start-time vectors over the same jobs. sim-vs-real: each replay
  against its own simulation; real-vs-real: each pair of replays (jobs matched by name).
* **mean wait** per account: mean of start − submit over its jobs; the real spread is [min, max] over replays.
* **usage share** per account: its CPU-seconds run before the last submission (while every account still
  competes), over all accounts' CPU-seconds in that period.
* **ablations**: backfilling rule (``none``: Slurm's main scheduler alone, strict priority order; ``easy``;
  ``conservative``: Slurm's backfill reserves for every job it tests), and tick phase (the engine's first tick at
  the first submission, or at the phase of the cluster's own fair-share passes, read from the time stamp of
  ``state/priority_last_decay_ran``), and release latency (each job holds its CPUs 1 or 2 s longer than it
  ran, as Slurm starts the next job only at a later scheduling pass), under each backfilling rule; the
  latencies Slurm showed are measured too (`_latencies`).
"""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import kendalltau

from fairsched.workload.share_tree import ShareTree
from fairsched.workload.sshare import read_share_tree

MAIN_RULE = "conservative"  # chosen before the runs: Slurm's backfill reserves for every job it tests
MAIN = f"{MAIN_RULE}/phase0/0"
BEST = "none/phase0/1"  # chosen after them, from the ablation: strict order, CPUs held 1 s longer
RULES = ("none", "easy", "conservative")
LATENCIES = (1, 2, 3)  # seconds added to each job's hold of its CPUs (ablation)
CALC_PERIOD = 60
WEIGHTS = {"fairshare": 10000, "age": 0, "jobsize": 0}
ORDER = {"fair-tree": "slurm-fair-tree", "classic": "slurm-classic"}


def _limit_seconds(text: str) -> int:
    days = 0
    if "-" in text:
        head, text = text.split("-", 1)
        days = int(head)
    parts = [int(p) for p in text.split(":")]
    while len(parts) < 3:
        parts.insert(0, 0)
    return days * 86400 + parts[0] * 3600 + parts[1] * 60 + parts[2]


def _seconds(column: pd.Series) -> pd.Series:
    """Whole seconds since the epoch of sacct's local times (the cluster's and this script's clock are one)."""
    return ((pd.to_datetime(column) - pd.Timestamp("1970-01-01")).dt.total_seconds()).astype("int64")


def read_jobs(path: Path) -> pd.DataFrame:
    """A replay's sacct export: name, account, submit/start/end (epoch seconds), cpus, limit (s); by submit."""
    frame = pd.read_csv(path, sep="|", dtype=str, keep_default_na=False)
    out = pd.DataFrame({
        "name": frame["JobName"], "account": frame["Account"],
        "submit": _seconds(frame["Submit"]),
        "start": _seconds(frame["Start"]),
        "end": _seconds(frame["End"]),
        "cpus": frame["NCPUS"].astype(int), "nodes": frame["NNodes"].astype(int),
        "limit": frame["Timelimit"].map(_limit_seconds),
        "jobid": frame["JobIDRaw"].astype(int), "user": frame["User"]})
    return out.sort_values(["submit", "jobid"], kind="stable").reset_index(drop=True)


def fairshare_check(sshare: Path, policy: str) -> dict:
    """``fairsched fairshare`` on the dump vs sshare's printed FairShare and LevelFS (6 decimals): mismatches."""
    from fairsched.fairshare import compute_fairshare
    from fairsched.report.fairshare import sshare_lines
    from fairsched.workload.sshare import read_share_tree

    table = compute_fairshare(read_share_tree(sshare), algorithm=policy)
    ours = [line.split("|") for line in sshare_lines(table)]
    theirs = [line.split("|") for line in sshare.read_text(encoding="utf-8").splitlines() if line.strip()]
    head = theirs[0]
    compared, mismatches = 0, []
    for column in ("FairShare", "LevelFS"):
        if column not in head:
            continue
        mine_at, their_at = ours[0].index(column), head.index(column)
        for mine, seen in zip(ours[1:], theirs[1:], strict=True):
            a, b = mine[mine_at], seen[their_at]
            if a == "" and b == "":
                continue
            compared += 1
            if not (a == b or (a and b and float(a) == float(b))):
                mismatches.append({"account": seen[0].strip(), "user": seen[1], "column": column,
                                   "fairsched": a, "sshare": b})
    return {"compared": compared, "mismatches": mismatches}


def simulate_replay(jobs: pd.DataFrame, meta: dict, policy: str, rule: str, *, tree: ShareTree | None = None,
                    phase: float = 0.0, latency: int = 0) -> np.ndarray:
    """Simulated start times (seconds from the first submission) of `jobs`, in their row order.

    With `tree` (the cluster's association tree, read from its sshare dump), each job runs under its own (account,
    user) association, as in Slurm; without, under one user association per account (``org``/``shares``).
    `phase` > 0 puts the engine's first tick `phase` seconds before the first submission (a one-second, one-CPU
    job of root's user association then; without a tree, of a zero-share account), as the cluster's passes fell.
    `latency` > 0 holds each job's CPUs that many seconds longer than its run (Slurm releases them, and starts
    the next job, only at a later scheduling pass).
    """
    from fairsched.backfill import BackfillJobs, simulate

    accounts = list(meta["shares"])
    t0 = int(jobs["submit"].min())
    submit = (jobs["submit"] - t0).to_numpy(np.float64)
    run = (jobs["end"] - jobs["start"]).to_numpy(np.float64) + latency
    procs = jobs["cpus"].to_numpy(np.float64)
    limit = np.maximum(jobs["limit"].to_numpy(np.float64), run)
    if tree is not None:
        org = np.array([tree.index(a, u) for a, u in zip(jobs["account"], jobs["user"], strict=True)])
        extra = tree.index("root", "root")
        params: dict = {"tree": tree}
    else:
        org = np.array([accounts.index(a) for a in jobs["account"]])
        extra = len(accounts)
        params = {"shares": [int(meta["shares"][a]) for a in accounts] + ([0] if phase > 0 else [])}
    shift = 0.0
    if phase > 0:
        shift = float(phase)
        submit = np.concatenate([[0.0], submit + shift])
        run, procs, limit = (np.concatenate([[1.0], run]), np.concatenate([[1.0], procs]),
                             np.concatenate([[1.0], limit]))
        org = np.concatenate([[extra], org])
    cpus = int(meta["nodes"]) * int(meta["cpus_per_node"])
    bjobs = BackfillJobs.from_arrays(submit, run, procs, limit, n_processors=cpus)
    params.update({"assoc" if tree is not None else "org": org, "calc_period": CALC_PERIOD,
                   "half_life": int(meta["half_life"]), "weights": WEIGHTS})
    result = simulate(bjobs, order=ORDER[policy], backfill=rule, order_params=params)
    schedule = result.schedule.sort_values("job")
    start = schedule["start"].to_numpy(np.float64)
    if phase > 0:
        start = start[1:]
    return start - shift


def _tau(a: np.ndarray, b: np.ndarray) -> float:
    return float(kendalltau(a, b).statistic)


def _mean_wait(jobs: pd.DataFrame, start: np.ndarray) -> dict[str, float]:
    wait = start - (jobs["submit"] - jobs["submit"].min()).to_numpy(np.float64)
    return {a: float(wait[(jobs["account"] == a).to_numpy()].mean()) for a in sorted(jobs["account"].unique())}


def _usage_share(jobs: pd.DataFrame, start: np.ndarray) -> dict[str, float]:
    t0 = jobs["submit"].min()
    horizon = float((jobs["submit"] - t0).max())
    run = (jobs["end"] - jobs["start"]).to_numpy(np.float64)
    used = np.clip(np.minimum(start + run, horizon) - start, 0, None) * jobs["cpus"].to_numpy(np.float64)
    total = used.sum()
    return {a: float(used[(jobs["account"] == a).to_numpy()].sum() / total) for a in sorted(jobs["account"].unique())}


def _latencies(jobs: pd.DataFrame) -> dict[str, float]:
    """Slurm's own delays, measured: ``start_latency``, the median wait of the first 10 jobs (submitted to an
    idle cluster), and ``release_latency``, the median, over the jobs that waited, of the time from the last end
    before their start to their start (how long freed CPUs stay idle before the next job gets them)."""
    wait = (jobs["start"] - jobs["submit"]).to_numpy()
    ends = np.sort(jobs["end"].to_numpy())
    gaps = []
    for start, waited in zip(jobs["start"].to_numpy(), wait, strict=True):
        at = np.searchsorted(ends, start, side="right")
        if waited > 5 and at:
            gaps.append(start - ends[at - 1])
    return {"start_latency": float(np.median(wait[:10])),
            "release_latency": float(np.median(gaps)) if gaps else float("nan")}


def _real_phase(jobs: pd.DataFrame, meta: dict) -> float:
    """Seconds from the cluster's last fair-share pass before the first submission to that submission."""
    return float((int(jobs["submit"].min()) - meta["last_decay_mtime"]) % CALC_PERIOD)


def analyse_arm(reps: list[Path], policy: str) -> dict:
    """Everything reported for one (log, policy): the replays in `reps` (directories)."""
    runs = []
    for rep in reps:
        meta = json.loads((rep / "meta.json").read_text(encoding="utf-8"))
        jobs = read_jobs(rep / "sacct.txt")
        real = (jobs["start"] - jobs["submit"].min()).to_numpy(np.float64)
        runs.append((rep, meta, jobs, real))
    meta0 = runs[0][1]
    out: dict = {"replays": [], "config": {k: meta0[k] for k in ("scale", "nodes", "cpus_per_node", "half_life",
                                                                   "shares", "jobs")}}
    variants: dict[str, list] = {}
    for rep, meta, jobs, real in runs:
        phase = _real_phase(jobs, meta)
        entry = {"rep": meta["rep"], "jobs": len(jobs), **_latencies(jobs),
                 "multi_node_jobs": int((jobs["nodes"] > 1).sum()),
                 "multi_cpu_jobs": int((jobs["cpus"] > 1).sum()), "replay_seconds": round(meta["replay_seconds"], 1),
                 "max_lateness": round(meta["max_lateness"], 2), "raised_to_min": meta["raised_to_min"],
                 "real_phase": phase, "makespan": float(real.max() + 0),
                 "fairshare": fairshare_check(rep / "sshare.txt", policy),
                 "real_mean_wait": _mean_wait(jobs, real), "real_usage_share": _usage_share(jobs, real)}
        tree = read_share_tree(rep / "sshare.txt")
        sims = {f"{rule}/phase0/{lat}/tree": simulate_replay(jobs, meta, policy, rule, tree=tree, latency=lat)
                for rule in RULES for lat in (0, *LATENCIES)}
        sims.update({f"{rule}/real-phase/0/tree": simulate_replay(jobs, meta, policy, rule, tree=tree, phase=phase)
                     for rule in RULES})
        sims.update({f"{key}/flat": simulate_replay(jobs, meta, policy, key.split("/")[0],
                                                    latency=int(key.split("/")[2]))
                     for key in (MAIN, BEST)})
        for key, start in sims.items():
            variants.setdefault(key, []).append({"tau": _tau(start, real), "mean_wait": _mean_wait(jobs, start),
                                                 "usage_share": _usage_share(jobs, start)})
        out["replays"].append(entry)
    pairs = []
    for (_, _, ja, ra), (_, _, jb, rb) in itertools.combinations(runs, 2):
        a = pd.Series(ra, index=ja["name"])
        b = pd.Series(rb, index=jb["name"])
        common = a.index.intersection(b.index)
        pairs.append(_tau(a[common].to_numpy(), b[common].to_numpy()))
    accounts = sorted(set().union(*(e["real_mean_wait"] for e in out["replays"])))
    real_waits = {a: [e["real_mean_wait"][a] for e in out["replays"]] for a in accounts}
    out["real_vs_real_tau"] = pairs
    out["accounts"] = accounts
    out["real_mean_wait"] = {a: {"mean": float(np.mean(v)), "min": min(v), "max": max(v)}
                             for a, v in real_waits.items()}
    out["real_usage_share"] = {a: float(np.mean([e["real_usage_share"][a] for e in out["replays"]]))
                               for a in accounts}
    out["variants"] = {}
    for key, values in variants.items():
        sim_wait = {a: float(np.mean([v["mean_wait"][a] for v in values])) for a in accounts}
        tau = [v["tau"] for v in values]
        within = {a: bool(out["real_mean_wait"][a]["min"] <= sim_wait[a] <= out["real_mean_wait"][a]["max"])
                  for a in accounts}
        ceiling = float(np.mean(pairs)) if pairs else math.nan
        out["variants"][key] = {
            "tau": tau, "tau_mean": float(np.mean(tau)), "sim_mean_wait": sim_wait,
            "sim_mean_wait_reps": {a: [v["mean_wait"][a] for v in values] for a in accounts},
            "sim_usage_share": {a: float(np.mean([v["usage_share"][a] for v in values])) for a in accounts},
            "wait_within_spread": within,
            "tau_goal": bool(pairs) and float(np.mean(tau)) >= ceiling - 0.05}
    return out


def fairshare_only(raw: Path) -> list[dict]:
    """`fairshare_check` of every replay under `raw` (replays kept only for it: clusters with decay on)."""
    found = []
    for meta_path in sorted(raw.glob("*/*/*/meta.json")):
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        check = fairshare_check(meta_path.parent / "sshare.txt", meta["policy"])
        found.append({"log": meta["log"], "policy": meta["policy"], "rep": meta["rep"],
                      "half_life": meta["half_life"], **check})
    return found


def analyse(raw: Path, decay_raw: Path | None = None) -> dict:
    """The JSON document: per log, its window and, per policy, `analyse_arm`; with `decay_raw`, the fairshare
    check of the replays saved there too (``fairshare_with_decay``)."""
    doc: dict = {"main_rule": MAIN_RULE, "shown": [f"{MAIN}/tree", f"{BEST}/tree"], "calc_period": CALC_PERIOD,
                 "weights": WEIGHTS, "logs": {},
                 "fairshare_with_decay": fairshare_only(decay_raw) if decay_raw else []}
    for window in sorted(raw.glob("*.window.json")):
        name = window.name.split(".")[0]
        info = json.loads(window.read_text(encoding="utf-8"))
        entry = {"window": info, "policies": {}}
        for policy in ("fair-tree", "classic"):
            reps = sorted(p for p in (raw / name / policy).glob("*") if (p / "meta.json").exists())
            if reps:
                entry["policies"][policy] = analyse_arm(reps, policy)
        if entry["policies"]:
            doc["logs"][name] = entry
    return doc
