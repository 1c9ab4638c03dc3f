"""Simulation against the real thing (issue 25 §2): real Slurm replays vs the engine's Slurm orders.

For each log (a window of LPC-EGEE, a window of SDSC-SP2 standing in for KTH-SP2, which is not in
../shared/traces, and the micro cluster's sacct log) and each policy (Fair Tree, classic), the script

1. **runs** the replay on real Slurm `--reps` times, each on a fresh cluster in its own directory
   (``fairsched.slurm.up`` → ``replay`` → ``down``, always down), keeping each replay's ``sacct.txt``,
   ``sshare.txt`` and the time stamp of slurmctld's last fair-share pass in ``RAW/<log>/<policy>/<rep>/``;
2. **analyses** them (`slurm_vs_sim_analysis.analyse`): ``fairsched fairshare`` on every sshare dump against
   sshare's own FairShare and LevelFS; the engine's schedule of each replay's jobs (as they were submitted: submit
   times, CPUs, time limits, run times from the replay's own sacct) under the matching Slurm order with the
   cluster's configuration, against the real one (Kendall τ of start times, per-account mean waits and usage
   shares), with the real-vs-real τ and waits of the three replays as the ceiling and spread; and ablations
   (tick phase, backfilling rule and cadence). The result is one JSON file rendered into docs/slurm.md by
   ``benchmarks/slurm_vs_sim_tables.py``.

Run as root on a machine with Slurm's Debian packages (docs/slurm.md)::

    python benchmarks/slurm_vs_sim.py run --raw /tmp/fsc-raw --parallel 3      # about 20 min
    python benchmarks/slurm_vs_sim.py analyse --raw /tmp/fsc-raw --out docs/slurm/data/slurm_vs_sim.json

Windows of the SWF logs are written to the raw directory (never committed: they are trace data).
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
import sys
import threading
import time
import traceback
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

TRACES = Path(__file__).resolve().parents[1].parent / "shared" / "traces"
HALF_LIFE = 0  # PriorityDecayHalfLife of every cluster: no decay, so RawUsage is whole CPU-seconds (docs/slurm.md)
SUBMIT_SPAN = 90.0  # seconds: the window's submissions are scaled to span this long
POLICIES = ("fair-tree", "classic")


@dataclass(frozen=True)
class LogSpec:
    """One log of the design: where its window comes from, the cluster it replays on, the accounts' shares."""

    name: str
    trace: str
    fmt: str  # "swf" (a window is cut, groups mapped to accounts g1..g4) or "sacct" (the first `jobs` jobs)
    start: int  # index of the window's first job among the jobs that ran (submit order)
    jobs: int
    nodes: int
    cpus_per_node: int
    shares: tuple[tuple[str, int], ...]
    stand_in: str = ""


LOGS = {
    "lpc-egee": LogSpec("lpc-egee", "LPC-EGEE-2004-1.2-cln.swf.gz", "swf", 191550, 300, 4, 7,
                        (("g1", 20), ("g2", 30), ("g3", 30), ("g4", 20))),
    "sdsc-sp2": LogSpec("sdsc-sp2", "SDSC-SP2-1998-4.2-cln.swf.gz", "swf", 9300, 300, 4, 24,
                        (("g1", 20), ("g2", 30), ("g3", 30), ("g4", 20)),
                        stand_in="KTH-SP2 is not in ../shared/traces; SDSC-SP2 (an IBM SP2 too, 128 CPUs) stands in"),
    "micro": LogSpec("micro", "slurm/micro-cluster-real-slurm.sacct.txt", "sacct", 0, 300, 4, 32,
                     (("account1", 30), ("account2", 70))),
}


def _say(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


def swf_window(spec: LogSpec, out: Path) -> dict[str, object]:
    """Write the window of `spec` as an SWF file `out`; return what was changed, counted.

    The window is `spec.jobs` consecutive jobs that ran (run time >= 0, CPUs >= 1) from `spec.start`. Its groups
    become accounts g1..g3 (the three with the most work in the window) and g4 (all the others); run times above
    half the window's submission span are cut to it (so that a replay ends soon after its last submission).
    """
    with gzip.open(TRACES / spec.trace, "rt") as handle:
        rows = [line.split() for line in handle if line.strip() and not line.startswith(";")]
    ran = [row for row in rows if float(row[3]) >= 0 and float(row[4]) >= 1]
    window = ran[spec.start:spec.start + spec.jobs]
    span = float(window[-1][1]) - float(window[0][1])
    cap = span / 2
    work: Counter[str] = Counter()
    for row in window:
        work[row[12]] += min(float(row[3]), cap) * float(row[4])
    top = [group for group, _ in work.most_common(3)]
    mapping = {group: str(top.index(group) + 1) if group in top else "4" for group in work}
    cut = 0
    lines = []
    for row in window:
        row = list(row)
        if float(row[3]) > cap:
            row[3] = str(int(cap))
            cut += 1
        row[12] = mapping[row[12]]
        lines.append(" ".join(row))
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return {"submit_span_s": span, "runs_cut_to_half_span": cut, "groups": len(work),
            "accounts": {f"g{mapping[g]}": g for g in top}, "first_job": window[0][0], "last_job": window[-1][0]}


def prepare(spec: LogSpec, raw: Path) -> tuple[Path, float, dict[str, object]]:
    """(log file to replay, scale, description of the window) for `spec`."""
    from fairsched.slurm.replay import plan_replay, read_replay_log

    if spec.fmt == "swf":
        path = raw / f"{spec.name}.window.swf"
        info = swf_window(spec, path)
        span = float(info["submit_span_s"])
    else:
        path = TRACES / spec.trace
        workload, fmt = read_replay_log(path)
        plan = plan_replay(workload, fmt, scale=1.0, total_cpus=spec.nodes * spec.cpus_per_node, limit=spec.jobs)
        span = plan.jobs[-1].submit
        info = {"submit_span_s": span, "runs_cut_to_half_span": 0, "first_job": plan.jobs[0].log_job_id,
                "last_job": plan.jobs[-1].log_job_id}
    return path, round(span / SUBMIT_SPAN, 1), info


def run_one(spec: LogSpec, policy: str, rep: int, log: Path, scale: float, raw: Path, cluster_root: Path) -> dict:
    """One real replay on a fresh cluster (always stopped); its exports saved under RAW/<log>/<policy>/<rep>/."""
    from fairsched.errors import ClusterError
    from fairsched.slurm import ClusterConfig, down, up
    from fairsched.slurm.replay import replay

    out = raw / spec.name / policy / str(rep)
    out.mkdir(parents=True, exist_ok=True)
    root = cluster_root / f"{spec.name[:5]}-{policy[:2]}-{rep}"
    config = ClusterConfig(nodes=spec.nodes, cpus_per_node=spec.cpus_per_node, fair_tree=policy == "fair-tree",
                           half_life=HALF_LIFE, accounts=spec.shares)
    began = time.monotonic()
    cluster = None
    try:
        try:
            cluster = up(root, config)
        except ClusterError as exc:  # seen once: mariadb-install-db aborting on the loaded machine; up cleaned up
            _say(f"{spec.name}/{policy}/{rep}: up failed ({exc}); once more")
            shutil.rmtree(root, ignore_errors=True)
            cluster = up(root, config)
        _say(f"{spec.name}/{policy}/{rep}: up in {time.monotonic() - began:.0f} s; replaying")
        result = replay(log, scale=scale, slurm_conf=str(cluster.slurm_conf), limit=spec.jobs,
                        accounts_from="group" if spec.fmt == "swf" else "account")
        result.write(out)
        stamp = cluster.layout.state / "priority_last_decay_ran"
        meta = {"log": spec.name, "policy": policy, "rep": rep, "scale": scale, "nodes": spec.nodes,
                "cpus_per_node": spec.cpus_per_node, "half_life": HALF_LIFE, "shares": dict(spec.shares),
                "replay_seconds": result.seconds, "max_lateness": result.max_lateness,
                "raised_to_min": result.plan.raised_to_min, "cpus_clipped": result.plan.cpus_clipped,
                "jobs": len(result.plan.jobs), "last_decay_mtime": stamp.stat().st_mtime}
        (out / "meta.json").write_text(json.dumps(meta, indent=1), encoding="utf-8")
        return meta
    finally:
        if cluster is not None or (root / "etc" / "fairsched-cluster.json").exists():
            down(root)
            _say(f"{spec.name}/{policy}/{rep}: down ({time.monotonic() - began:.0f} s in all)")


def run(args: argparse.Namespace) -> int:
    from fairsched.slurm.replay import _ensure_users, plan_replay, read_replay_log

    raw = Path(args.raw)
    raw.mkdir(parents=True, exist_ok=True)
    cluster_root = Path(args.clusters)
    cluster_root.mkdir(parents=True, exist_ok=True)
    cluster_root.chmod(0o755)
    logs = [LOGS[name] for name in args.logs]
    prepared = {}
    for spec in logs:
        log, scale, info = prepare(spec, raw)
        workload, fmt = read_replay_log(log)
        plan = plan_replay(workload, fmt, scale=scale, total_cpus=spec.nodes * spec.cpus_per_node, limit=spec.jobs,
                           accounts_from="group" if fmt == "swf" else "account")
        _ensure_users(plan.users)  # once, before the parallel replays (useradd is not safe to race)
        prepared[spec.name] = (log, scale)
        (raw / f"{spec.name}.window.json").write_text(json.dumps({**info, "scale": scale, **asdict(spec)},
                                                                 indent=1), encoding="utf-8")
        _say(f"{spec.name}: {len(plan.jobs)} jobs, scale {scale}, {info}")
    tasks = [(spec, policy, rep) for rep in range(args.reps) for spec in logs for policy in args.policies
             if not (raw / spec.name / policy / str(rep) / "meta.json").exists()]
    lock = threading.Lock()
    failures = []

    def task(item: tuple[LogSpec, str, int]) -> None:
        spec, policy, rep = item
        log, scale = prepared[spec.name]
        try:
            meta = run_one(spec, policy, rep, log, scale, raw, cluster_root)
            _say(f"{spec.name}/{policy}/{rep}: done, replay {meta['replay_seconds']:.0f} s")
        except Exception as exc:  # one failed replay must not stop the others
            with lock:
                failures.append(f"{spec.name}/{policy}/{rep}: {exc}")
            _say(f"{spec.name}/{policy}/{rep} FAILED: {exc}\n{traceback.format_exc()}")

    with ThreadPoolExecutor(max_workers=args.parallel) as pool:
        for index, item in enumerate(tasks):
            pool.submit(task, item)
            if index < args.parallel:
                time.sleep(20)  # stagger the first start-ups (MariaDB's install is the costly part)
    for line in failures:
        _say(f"failed: {line}")
    return 1 if failures else 0


def analyse_cmd(args: argparse.Namespace) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from slurm_vs_sim_analysis import analyse

    data = analyse(Path(args.raw), Path(args.decay_raw) if args.decay_raw else None)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    _say(f"wrote {out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p_run = sub.add_parser("run", help="the real replays (root, Slurm's packages)")
    p_run.add_argument("--raw", required=True, help="directory for windows and each replay's exports")
    p_run.add_argument("--clusters", default="/tmp/fsc", help="directory of the clusters' directories (short)")
    p_run.add_argument("--logs", nargs="+", default=list(LOGS), choices=list(LOGS))
    p_run.add_argument("--policies", nargs="+", default=list(POLICIES), choices=list(POLICIES))
    p_run.add_argument("--reps", type=int, default=3)
    p_run.add_argument("--parallel", type=int, default=3, help="clusters at once")
    p_an = sub.add_parser("analyse", help="compare the saved replays with the simulation; write the JSON")
    p_an.add_argument("--raw", required=True)
    p_an.add_argument("--decay-raw", help="replays of clusters with decay on, for the fairshare check alone")
    p_an.add_argument("--out", default=str(Path(__file__).resolve().parents[1] / "docs" / "slurm" / "data" /
                                           "slurm_vs_sim.json"))
    args = parser.parse_args(argv)
    return run(args) if args.command == "run" else analyse_cmd(args)


if __name__ == "__main__":
    sys.exit(main())
