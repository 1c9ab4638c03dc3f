"""Does ``fairsched steer`` reduce the Shapley gap on a real Slurm? (issue 25 §3; docs/slurm.md)

The same replay of a real log is run on a fresh private cluster (``fairsched slurm up``, its own database and
state) per run, in two arms:

- ``plain``: Slurm's Fair Tree alone;
- ``steer``: ``fairsched steer --every T`` running beside the replay (started once the cluster is up, stopped with
  SIGTERM once the replay has ended, so that it gives its nice values back).

Each run's own export (the replay's ``sacct.txt``) is measured by ``fairsched audit`` with the cluster's shares
and CPUs: per account the signed gap (ψ − φ)/p_tot (``gap``), its absolute value, and the mean wait
(``pool_mean_wait``).
The arms alternate within each repetition (plain first in even repetitions, steer first in odd ones) so that a
drift of the shared machine's load hits both. The JSON (default docs/slurm/data/steer.json) holds every run and a
summary: per arm and account, the mean over repetitions with a 95 % Student t interval, and steer − plain with a
Welch t interval.

Run::

    PYTHONPATH=src .venv/bin/python benchmarks/steer_experiment.py --reps 3       # about 4 min per run
    PYTHONPATH=src .venv/bin/python benchmarks/steer_experiment.py --render docs/slurm.md

``--append`` adds runs to an existing JSON (its design must match); ``--render DOC`` rewrites the marked blocks of
DOC from the JSON (tests/test_steer_experiment_doc.py checks that docs/slurm.md equals its rendering). Every
cluster is stopped (``fairsched slurm down``) in a ``finally``, on failure and on Ctrl-C too.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gzip
import json
import math
import os
import platform
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATA_DIR = ROOT / "docs" / "slurm" / "data"
TRACE = Path("/work/shared/traces/LPC-EGEE-2004-1.2-cln.swf.gz")
ARMS = ("plain", "steer")

# The design: a window of LPC-EGEE (1-CPU grid jobs) where three groups submit, replayed 600x faster on 12 CPUs.
DESIGN: dict[str, Any] = {
    "trace": TRACE.name, "first_job": 32850, "jobs": 300, "scale": 600.0, "nodes": 3, "cpus_per_node": 4,
    "half_life": "10m", "every": "3s", "max_nice": 10000, "policy": "directcontr",
    "shares": {"g1": 50, "g2": 20, "g3": 30},
}


# ---------------------------------------------------------------------------------------------------------- running

def write_window(trace: Path, first_job: int, jobs: int, out: Path) -> dict[str, Any]:
    """The SWF header and `jobs` job lines that ran (run time > 0), from the `first_job`-th such line of `trace`
    (0-based), into `out`; returns the window's first and last SWF job ids."""
    header, body, seen = [], [], 0
    opener = gzip.open if trace.suffix == ".gz" else open
    with opener(trace, "rt") as handle:
        for line in handle:
            if line.startswith(";"):
                header.append(line)
                continue
            fields = line.split()
            if len(fields) < 18 or float(fields[3]) <= 0:
                continue
            if seen >= first_job:
                body.append(line)
                if len(body) == jobs:
                    break
            seen += 1
    if len(body) < jobs:
        raise SystemExit(f"{trace}: only {len(body)} jobs that ran from the {first_job}-th on")
    out.write_text("".join(header + body), encoding="utf-8")
    return {"first_id": int(body[0].split()[0]), "last_id": int(body[-1].split()[0])}


def fairsched(*args: str, env: dict[str, str] | None = None, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    """Run ``python -m fairsched ARGS`` (this checkout's source first on the path), failing loudly."""
    proc = subprocess.run([sys.executable, "-m", "fairsched", *args], env=env or _env(), text=True,
                          capture_output=True, **kwargs)
    if proc.returncode != 0:
        raise RuntimeError(f"fairsched {' '.join(args)} failed ({proc.returncode}): {proc.stderr.strip()[-2000:]}")
    return proc


def _env(**extra: str) -> dict[str, str]:
    src = str(ROOT / "src")
    path = os.environ.get("PYTHONPATH", "")
    return {**os.environ, "PYTHONPATH": src + (os.pathsep + path if path else ""), **extra}


def one_run(arm: str, rep: int, design: dict[str, Any], work: Path, window: Path, accounts: Path,
            shares: Path) -> dict[str, Any]:
    """One cluster, one replay (with steer beside it in the ``steer`` arm), one audit; the cluster is always
    stopped."""
    cluster, out = work / f"c-{arm}-{rep}", work / f"r-{arm}-{rep}"
    started = time.time()
    steer_proc: subprocess.Popen[str] | None = None
    steer_log = out / "steer.jsonl"
    out.mkdir(parents=True, exist_ok=True)
    try:
        up = fairsched("slurm", "up", str(cluster), "--nodes", str(design["nodes"]), "--cpus-per-node",
                       str(design["cpus_per_node"]), "--half-life", design["half_life"], "--accounts", str(accounts))
        conf = up.stdout.strip().removeprefix("export SLURM_CONF=")
        env = _env(SLURM_CONF=conf)
        if arm == "steer":
            steer_proc = subprocess.Popen(
                [sys.executable, "-m", "fairsched", "steer", "--policy", design["policy"], "--every", design["every"],
                 "--max-nice", str(design["max_nice"]), "--log", str(steer_log)],
                env=env, text=True, stdout=(out / "steer.out").open("w"), stderr=(out / "steer.err").open("w"))
        t0 = time.time()
        fairsched("slurm", "replay", str(window), "--scale", str(design["scale"]), "--out", str(out / "replay"),
                  "--accounts-from", "group", env=env)
        replay_s = time.time() - t0
    finally:
        if steer_proc is not None:
            steer_proc.send_signal(signal.SIGTERM)
            try:
                steer_proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                steer_proc.kill()
                steer_proc.wait()
        if cluster.exists():
            subprocess.run([sys.executable, "-m", "fairsched", "slurm", "down", str(cluster)], env=_env(),
                           capture_output=True, text=True, timeout=120)
    audit = json.loads(fairsched("audit", str(out / "replay" / "sacct.txt"), "--shares", str(shares), "--cpus",
                                 str(design["nodes"] * design["cpus_per_node"]), "--json").stdout)
    return {"arm": arm, "rep": rep, "wall_s": round(time.time() - started, 1), "replay_s": round(replay_s, 1),
            "steer": _steer_counts(steer_log, steer_proc, out / "replay" / "sacct.txt"),
            "jobs_used": audit["jobs_used"], "queue": queue_profile(out / "replay" / "sacct.txt"),
            "delta_psi_over_ptot": audit["summary"]["delta_psi_over_ptot"],
            "orgs": {row["org"]: {"gap": row["gap"], "abs_gap": abs(row["gap"]), "mean_wait": row["pool_mean_wait"],
                                  "usage_share": row.get("usage_share"), "jobs": row.get("jobs")}
                     for row in audit["orgs"]}}


def _steer_counts(path: Path, proc: subprocess.Popen[str] | None, sacct: Path) -> dict[str, Any] | None:
    """What steer did: nice values set and given back, jobs steered, and its first set after the first submission."""
    if proc is None:
        return None
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()] if path.exists() else []
    sets = [e for e in lines if e["kind"] == "set"]
    first_set_s = None
    if sets:
        with sacct.open(encoding="utf-8") as handle:
            rows = handle.read().splitlines()
        column = rows[0].split("|").index("Submit")
        first_submit = min(dt.datetime.fromisoformat(row.split("|")[column]) for row in rows[1:])
        first = dt.datetime.fromisoformat(sets[0]["time"].removesuffix("Z"))
        first_set_s = (first - first_submit).total_seconds()
    return {"set": len(sets), "restore": sum(e["kind"] == "restore" for e in lines),
            "jobs_steered": len({e["job"] for e in sets}), "first_set_after_submit_s": first_set_s,
            "returncode": proc.returncode}


def queue_profile(sacct: Path) -> dict[str, Any]:
    """From a run's export: how long some job was pending, how long jobs of two accounts or more were pending at
    once (only then can a nice change the order), and each account's pending job-seconds."""
    with sacct.open(encoding="utf-8") as handle:
        rows = [row.split("|") for row in handle.read().splitlines()]
    col = {name: i for i, name in enumerate(rows[0])}
    events: list[tuple[float, int, str]] = []
    pending_s: dict[str, float] = {}
    for row in rows[1:]:
        account = row[col["Account"]]
        submit, start = (dt.datetime.fromisoformat(row[col[c]]).timestamp() for c in ("Submit", "Start"))
        pending_s[account] = pending_s.get(account, 0.0) + start - submit
        if start > submit:
            events += [(submit, 1, account), (start, -1, account)]
    events.sort(key=lambda e: (e[0], e[1]))
    waiting: dict[str, int] = {}
    any_s = two_s = 0.0
    for (t, delta, account), following in zip(events, [*events[1:], None], strict=True):
        waiting[account] = waiting.get(account, 0) + delta
        span = 0.0 if following is None else following[0] - t
        accounts = sum(n > 0 for n in waiting.values())
        any_s += span if accounts >= 1 else 0.0
        two_s += span if accounts >= 2 else 0.0
    return {"any_pending_s": any_s, "two_accounts_pending_s": two_s,
            "pending_job_s": dict(sorted(pending_s.items()))}


def warm_up() -> None:
    """Compile (or load from numba's cache) the game's kernels once, so that steer's first pass is not late: a
    cold compile on the shared machine took 100-140 s, longer than the replay's queue lasts."""
    from fairsched.slurm.steer_decide import PendingJob, SteerConfig, SteerState, UsedJob, assess

    assess(SteerState(now=10, n_cpus=2, shares={"a": 1, "b": 1}, jobs=(UsedJob("a", 0, 0, 2, 1, 2),
                                                                        UsedJob("b", 1, 2, 3, 2, 3)),
                      pending=(PendingJob("1", "a", 0),)), SteerConfig())


# ---------------------------------------------------------------------------------------------------------- summary

def t_interval(values: Sequence[float], confidence: float = 0.95) -> dict[str, float]:
    """Mean of `values` with its Student t interval (half-width NaN for fewer than 2 values)."""
    from scipy import stats

    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return {"mean": mean, "low": math.nan, "high": math.nan, "n": n}
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = float(stats.t.ppf(0.5 + confidence / 2, n - 1)) * sd / math.sqrt(n)
    return {"mean": mean, "low": mean - half, "high": mean + half, "n": n}


def welch_interval(a: Sequence[float], b: Sequence[float], confidence: float = 0.95) -> dict[str, float]:
    """mean(a) − mean(b) with Welch's t interval, and the two-sided p-value."""
    from scipy import stats

    diff = sum(a) / len(a) - sum(b) / len(b)
    if len(a) < 2 or len(b) < 2:
        return {"mean": diff, "low": math.nan, "high": math.nan, "p": math.nan}
    if len(set(a)) == 1 and len(set(b)) == 1:  # no spread at all: the difference is exact
        return {"mean": diff, "low": diff, "high": diff, "p": math.nan}
    test = stats.ttest_ind(a, b, equal_var=False)
    ci = test.confidence_interval(confidence)
    return {"mean": diff, "low": float(ci.low), "high": float(ci.high), "p": float(test.pvalue)}


def summarize(runs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Per arm and account: t intervals of gap, |gap| and mean wait; steer − plain (Welch) for each."""
    arms = {arm: [r for r in runs if r["arm"] == arm] for arm in ARMS}
    orgs = sorted({org for r in runs for org in r["orgs"]})
    out: dict[str, Any] = {"reps": {arm: len(arms[arm]) for arm in ARMS}, "orgs": {}, "total": {}}
    for org in orgs:
        out["orgs"][org] = {}
        for measure in ("gap", "abs_gap", "mean_wait"):
            values = {arm: [r["orgs"][org][measure] for r in arms[arm] if org in r["orgs"]] for arm in ARMS}
            entry = {arm: t_interval(values[arm]) for arm in ARMS if values[arm]}
            if all(values[arm] for arm in ARMS):
                entry["diff"] = welch_interval(values["steer"], values["plain"])
            out["orgs"][org][measure] = entry
    values = {arm: [r["delta_psi_over_ptot"] for r in arms[arm]] for arm in ARMS}
    out["total"] = {arm: t_interval(values[arm]) for arm in ARMS if values[arm]}
    if all(values[arm] for arm in ARMS):
        out["total"]["diff"] = welch_interval(values["steer"], values["plain"])
    return out


# ---------------------------------------------------------------------------------------------------------- rendering

def load(data_dir: Path) -> dict[str, Any]:
    return json.loads((data_dir / "steer.json").read_text(encoding="utf-8"))


def _ci(entry: dict[str, float], digits: int) -> str:
    from fairsched.replicate._doc_format import fmt

    if _missing(entry["low"]):
        return fmt(entry["mean"], digits)
    return f"{fmt(entry['mean'], digits)} [{fmt(entry['low'], digits)}, {fmt(entry['high'], digits)}]"


def _missing(value: float | None) -> bool:
    return value is None or math.isnan(value)


def render_design(data_dir: Path) -> str:
    from fairsched.replicate._doc_format import markdown_table

    data = load(data_dir)
    d, w = data["design"], data["window"]
    shares = ", ".join(f"{org} {share}" for org, share in d["shares"].items())
    rows = [("log", f"{d['trace']}: the {d['jobs']} jobs that ran from the {d['first_job']}-th on "
                    f"(SWF ids {w['first_id']}–{w['last_id']}), accounts = SWF groups"),
            ("replay", f"`--scale {d['scale']:g}` (runs below 2 s run 2 s)"),
            ("cluster", f"Fair Tree, {d['nodes']} nodes × {d['cpus_per_node']} CPUs, `--half-life {d['half_life']}`, "
                        f"shares {shares}"),
            ("steer arm", f"`fairsched steer --policy {d['policy']} --every {d['every']} --max-nice {d['max_nice']}` "
                          "beside the replay (window: the half-life)"),
            ("audit", f"`fairsched audit sacct.txt --shares SHARES --cpus {d['nodes'] * d['cpus_per_node']}`"),
            ("runs", f"{data['summary']['reps']['plain']} plain, {data['summary']['reps']['steer']} steered, "
                     f"each on a fresh cluster; measured {data['date']} on commit {data['commit']}, "
                     f"load average {data['load_average_before']:.1f} before, {data['wall_s'] / 60:.0f} min in all")]
    return markdown_table(("", "setting"), rows, "ll")


def _measure_table(data_dir: Path, measure: str, digits: int, unit: str) -> str:
    from fairsched.replicate._doc_format import markdown_table

    data = load(data_dir)
    rows = []
    for org, entry in data["summary"]["orgs"].items():
        m = entry[measure]
        diff = m.get("diff")
        rows.append((org, str(data["design"]["shares"].get(org, "")), _ci(m["plain"], digits),
                     _ci(m["steer"], digits), *_diff_cells(diff, digits)))
    if measure == "abs_gap":
        total = data["summary"]["total"]
        diff = total.get("diff")
        rows.append(("**Σ (Δψ/p_tot)**", "", _ci(total["plain"], digits), _ci(total["steer"], digits),
                     *_diff_cells(diff, digits)))
    return markdown_table(("account", "shares", f"plain Fair Tree ({unit})", f"with steer ({unit})",
                           "steer − plain", "p (Welch)"), rows)


def _diff_cells(diff: dict[str, float] | None, digits: int) -> tuple[str, str]:
    from fairsched.replicate._doc_format import fmt

    if diff is None:
        return "—", "—"
    return _ci(diff, digits), "—" if _missing(diff["p"]) else fmt(diff["p"], 2)


def render_gap(data_dir: Path) -> str:
    return _measure_table(data_dir, "abs_gap", 3, "s/unit")


def render_signed_gap(data_dir: Path) -> str:
    return _measure_table(data_dir, "gap", 3, "s/unit")


def render_wait(data_dir: Path) -> str:
    return _measure_table(data_dir, "mean_wait", 1, "s")


def render_runs(data_dir: Path) -> str:
    from fairsched.replicate._doc_format import fmt, markdown_table

    data = load(data_dir)
    orgs = sorted(data["summary"]["orgs"])
    rows = []
    for r in data["runs"]:
        steered = "" if r["steer"] is None else f"{r['steer']['set']} ({r['steer']['jobs_steered']} jobs)"
        queue = r.get("queue") or {}
        rows.append((r["arm"], r["rep"], fmt(r["replay_s"], 0), steered,
                     *(fmt(queue.get(key, math.nan), 0) for key in ("any_pending_s", "two_accounts_pending_s")),
                     fmt(r["delta_psi_over_ptot"], 3),
                     *(fmt(r["orgs"][o]["gap"], 3) for o in orgs), *(fmt(r["orgs"][o]["mean_wait"], 1) for o in orgs)))
    header = ("arm", "rep", "replay (s)", "nice set", "queue (s)", "≥ 2 accounts wait (s)", "Δψ/p_tot",
              *(f"gap {o}" for o in orgs), *(f"wait {o} (s)" for o in orgs))
    return markdown_table(header, rows, "l" + "r" * (len(header) - 1))


def render_verdict(data_dir: Path) -> str:
    """One sentence from the data: did steering reduce the total gap Δψ/p_tot (the Welch interval excludes 0)?"""
    from fairsched.replicate._doc_format import fmt

    total = load(data_dir)["summary"]["total"]
    diff = total.get("diff")
    plain, steer = fmt(total["plain"]["mean"], 3), fmt(total["steer"]["mean"], 3)
    if diff is None or _missing(diff["high"]):
        return f"Too few runs for an interval: Δψ/p_tot {plain} s/unit plain, {steer} steered.\n"
    change = f"{fmt(diff['mean'], 3)} s/unit, 95 % interval [{fmt(diff['low'], 3)}, {fmt(diff['high'], 3)}]"
    if diff["high"] < 0:
        return (f"**Steering reduced the Shapley gap**: Δψ/p_tot fell from {plain} to {steer} s/unit "
                f"(steer − plain = {change}).\n")
    if diff["low"] > 0:
        return (f"**Steering increased the Shapley gap**: Δψ/p_tot rose from {plain} to {steer} s/unit "
                f"(steer − plain = {change}).\n")
    return (f"**Steering did not measurably reduce the Shapley gap**: Δψ/p_tot {plain} s/unit plain, {steer} "
            f"steered (steer − plain = {change}, which contains 0).\n")


def render_why(data_dir: Path) -> str:
    """The facts behind the verdict, from the data: how much of the queueing a nice could act on, the first nice
    set, and the account left with the largest gap (its usage against its shares)."""
    from fairsched.replicate._doc_format import fmt

    data = load(data_dir)
    runs, shares = data["runs"], data["design"]["shares"]
    lines = []
    for arm in ARMS:
        queued = [r["queue"] for r in runs if r["arm"] == arm and r.get("queue")]
        if queued:
            both = sum(q["two_accounts_pending_s"] for q in queued) / sum(q["any_pending_s"] for q in queued)
            queue = fmt(_mean(q["any_pending_s"] for q in queued), 0)
            lines.append(f"- {arm}: jobs of two accounts or more were pending together during {fmt(100 * both, 0)} % "
                         f"of the time some job was pending (mean queue {queue} s per run).")
    steered = [r["steer"] for r in runs if r["steer"]]
    firsts = [s["first_set_after_submit_s"] for s in steered if s["first_set_after_submit_s"] is not None]
    if steered:
        lines.append(f"- steer set {fmt(_mean(s['set'] for s in steered), 0)} nice values per run on average, on "
                     f"{fmt(_mean(s['jobs_steered'] for s in steered), 0)} of the {data['design']['jobs']} jobs; its "
                     f"first came {fmt(min(firsts), 0)}–{fmt(max(firsts), 0)} s after the first submission."
                     if firsts else "- steer set no nice value.")
    gaps = data["summary"]["orgs"]
    worst = max(gaps, key=lambda org: abs(gaps[org]["gap"]["steer"]["mean"]))
    usage = _mean(r["orgs"][worst]["usage_share"] for r in runs)
    entitled = shares[worst] / sum(shares.values())
    for org, entry in gaps.items():
        diff, wait = entry["abs_gap"].get("diff"), entry["mean_wait"]
        if diff is not None and not _missing(diff["high"]) and diff["high"] >= 0:
            used = _mean(r["orgs"][org]["usage_share"] for r in runs)
            lines.append(f"- {org}'s gap did not shrink (steer − plain {_ci(diff, 3)} s/unit); its mean wait was "
                         f"{fmt(wait['plain']['mean'], 1)} s plain and {fmt(wait['steer']['mean'], 1)} s steered; "
                         f"it did {fmt(100 * used, 0)} % of the work for "
                         f"{fmt(100 * shares[org] / sum(shares.values()), 0)} % of the shares.")
    gap = gaps[worst]["gap"]
    lines.append(f"- the largest gap left with steer is {worst}'s ({fmt(gap['steer']['mean'], 3)} s/unit, "
                 f"plain {fmt(gap['plain']['mean'], 3)}): it did {fmt(100 * usage, 0)} % of the work "
                 f"for {fmt(100 * entitled, 0)} % of the shares.")
    return "\n".join(lines) + "\n"


def _mean(values: Any) -> float:
    values = list(values)
    return sum(values) / len(values)


TABLES: dict[str, Callable[[Path], str]] = {
    "steer-design": render_design, "steer-gap": render_gap, "steer-signed-gap": render_signed_gap,
    "steer-wait": render_wait, "steer-runs": render_runs, "steer-verdict": render_verdict, "steer-why": render_why,
}


def render(doc: Path, data_dir: Path = DATA_DIR) -> None:
    """Rewrite the ``<!-- table: steer-* -->`` blocks of `doc` from `data_dir`/steer.json."""
    from fairsched.replicate._doc_format import keep_other_blocks, render_blocks

    text = doc.read_text(encoding="utf-8")  # other scripts' blocks (slurm-vs-sim-*) stay as they are
    doc.write_text(render_blocks(text, data_dir, keep_other_blocks(text, TABLES)), encoding="utf-8")


# ---------------------------------------------------------------------------------------------------------- main

def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3, help="Repetitions per arm.")
    parser.add_argument("--out", type=Path, default=DATA_DIR / "steer.json")
    parser.add_argument("--work", type=Path, default=Path("/tmp/fs-steerexp"),
                        help="Clusters and replays (short path: Unix sockets; parents searchable by all).")
    parser.add_argument("--append", action="store_true", help="Add runs to the JSON of --out.")
    parser.add_argument("--render", type=Path, metavar="DOC", help="Only rewrite DOC's blocks from the JSON.")
    parser.add_argument("--refresh", action="store_true", help="Only recompute each run's queue profile (from "
                        "--work) and the summary of the JSON.")
    for key in ("first_job", "jobs", "nodes", "cpus_per_node"):
        parser.add_argument("--" + key.replace("_", "-"), type=int, default=DESIGN[key])
    parser.add_argument("--scale", type=float, default=DESIGN["scale"])
    parser.add_argument("--every", default=DESIGN["every"])
    args = parser.parse_args(argv)
    if args.render:
        render(args.render, args.out.parent)
        return 0
    if args.refresh:
        doc = json.loads(args.out.read_text(encoding="utf-8"))
        for run in doc["runs"]:
            run["queue"] = queue_profile(args.work / f"r-{run['arm']}-{run['rep']}" / "replay" / "sacct.txt")
        doc["summary"] = summarize(doc["runs"])
        args.out.write_text(json.dumps(_finite(doc), indent=1) + "\n", encoding="utf-8")
        return 0
    design = {**DESIGN, **{k: getattr(args, k) for k in ("first_job", "jobs", "nodes", "cpus_per_node", "scale",
                                                         "every")}}
    previous = json.loads(args.out.read_text(encoding="utf-8")) if args.append else None
    if previous is not None and previous["design"] != design:
        raise SystemExit(f"--append: {args.out} was made with another design: {previous['design']}")
    args.work.mkdir(parents=True, exist_ok=True)
    os.chmod(args.work, 0o755)
    window = args.work / "window.swf"
    ids = write_window(TRACE, design["first_job"], design["jobs"], window)
    accounts, shares = args.work / "accounts.txt", args.work / "shares.csv"
    accounts.write_text("".join(f"{org} {share}\n" for org, share in design["shares"].items()), encoding="utf-8")
    shares.write_text("org,share\n" + "".join(f"{o},{s}\n" for o, s in design["shares"].items()), encoding="utf-8")
    runs = list(previous["runs"]) if previous else []
    first_rep = 1 + max((r["rep"] for r in runs), default=0)
    doc = {"design": design, "window": ids, "date": dt.date.today().isoformat(), "commit": _commit(),
           "machine": platform.node(), "load_average_before": os.getloadavg()[0],
           "wall_s": previous["wall_s"] if previous else 0.0}
    began = time.time()
    warm_up()
    for rep in range(first_rep, first_rep + args.reps):
        for arm in ARMS if rep % 2 == 0 else ARMS[::-1]:
            print(f"[{time.strftime('%H:%M:%S')}] rep {rep} {arm} ...", file=sys.stderr, flush=True)
            runs.append(one_run(arm, rep, design, args.work, window, accounts, shares))
            print(f"    {json.dumps(runs[-1])}", file=sys.stderr, flush=True)
            args.out.parent.mkdir(parents=True, exist_ok=True)
            doc |= {"wall_s": round((previous["wall_s"] if previous else 0.0) + time.time() - began, 1),
                    "runs": runs, "summary": summarize(runs)}
            args.out.write_text(json.dumps(_finite(doc), indent=1) + "\n", encoding="utf-8")
    return 0


def _finite(value: Any) -> Any:
    """NaN → None, so that the JSON is standard."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def _commit() -> str:
    proc = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    return proc.stdout.strip()


if __name__ == "__main__":
    sys.exit(main())
