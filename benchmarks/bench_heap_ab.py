"""The one heap and the one profile (issue 23 item 5), before and after: the same cases run on two trees, alternately.

    .venv/bin/python benchmarks/bench_heap_ab.py --before COMMIT [--profile-before COMMIT] [--rounds 3]
                                                 [--groups backfill,audit,mosp-profile,mosp-list,online,openshop]
                                                 [--traces DIR] [--save docs/performance/data/heap_ab.json]

``--before`` is checked out into a temporary git worktree (removed at the end); *after* is this tree. Each case
group runs in a child process with ``PYTHONPATH=<tree>/src`` (each tree keeps its own numba cache), which loads
its data, runs every case once (JIT warm-up, not counted) and then once more, timed by the CPU time (user +
system) of the child itself. The trees alternate, ``--rounds`` times each, and a case's figure is its best CPU
time over the rounds: on a loaded machine the ratio after / before is what counts, not the seconds.

Two *befores*, because the shared heap landed in two steps: the online engine, MOSP list scheduling and the
openshop list schedulers moved to `fairsched._kernels.heap` after ``--before`` (the commit before the first heap
commit on main); backfill's termination heap, the audit replay's heap and the two free-processor profiles
(`fairsched._kernels.profile`) after ``--profile-before`` (the main commit the ``heap2`` branch started from;
default: ``--before``). Cases:

* ``backfill``: FCFS × EASY and FCFS × conservative on the whole cleaned CTC-SP2 log (77,205 jobs, 338
  processors): the termination heap, and conservative's profile;
* ``audit``: the compiled FCFS + EASY replays of the 31 coalitions of 5 organizations (jobs dealt in turn) on
  the first 20,000 CTC-SP2 jobs, each coalition with its share of the 338 processors (its own heap);
* ``mosp-profile``: MOCCA, ILBA and local list scheduling (`fairsched.mosp.solve`) on a ``uni`` and an ``swf``
  instance (20 organizations, 500 jobs, 512 processors; idle profiles), 200 runs each;
* ``mosp-list``: Graham list scheduling of 200,000 random jobs on 512 processors (`mosp.engine.list_schedule`);
* ``online``: the online engine on LPC-EGEE (5 organizations, 140 machines), ROUNDROBIN, FAIRSHARE, DIRECTCONTR;
* ``openshop``: SPTF and LUF (equal and linear utilities) on `random_instance` (19,000 jobs, 200 machines).

The document (``--save``: the record of ``benchmarks/run_all.py``) is rendered into docs/performance.md by
``benchmarks/perf_tables.py`` (``perf-heap-ab``).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from run_all import provenance  # benchmarks/ is sys.path[0] when a script runs

HERE = Path(__file__).resolve()
ROOT = HERE.parents[1]
DEFAULT_TRACES = Path(os.environ.get("FAIRSCHED_TRACES", ROOT.parent / "shared" / "traces"))
CTC = ("CTC-SP2-1996-3.1-cln.swf.gz", 338)
LPC = ("LPC-EGEE-2004-1.2-cln.swf.gz", 140)
GROUPS = ("backfill", "audit", "mosp-profile", "mosp-list", "online", "openshop")
PROFILE_GROUPS = frozenset({"backfill", "audit", "mosp-profile"})  # measured against --profile-before


# -- the child: one group of cases in one tree -------------------------------------------------------------------
# Only library calls that exist, with these signatures, in both trees.

def _ctc(traces: Path, n: int | None):
    from fairsched.backfill import jobs_from_workload
    from fairsched.workload.clean import clean
    from fairsched.workload.swf import read_swf
    from fairsched.workload.transform import first_jobs

    workload, _ = clean(read_swf(traces / CTC[0]), max_processors=CTC[1])
    if n is not None:
        workload = first_jobs(workload, n)
    return jobs_from_workload(workload, n_processors=CTC[1])


def _cases(group: str, traces: Path) -> dict[str, Any]:
    """Case name -> a function of no argument, after loading the group's data."""
    import numpy as np

    if group == "backfill":
        from fairsched.backfill import simulate

        jobs = _ctc(traces, None)
        return {f"backfill FCFS × {rule}, CTC-SP2 (77k jobs)": lambda r=rule: simulate(jobs, order="fcfs", backfill=r)
                for rule in ("easy", "conservative")}
    if group == "audit":
        from fairsched.audit._replay import coalition_values

        jobs = _ctc(traces, 20_000)
        org = np.arange(jobs.n_jobs, dtype=np.int64) % 5
        members = np.array([[(mask >> u) & 1 for u in range(5)] for mask in range(1, 32)], dtype=np.uint8)
        n_cpus = np.maximum(1, members.sum(axis=1) * CTC[1] // 5).astype(np.int64)
        t_end = int(jobs.submit.max() + jobs.run.max())
        return {"audit replays, 31 coalitions, CTC-SP2 first 20k jobs": lambda: coalition_values(
            members, n_cpus, org, jobs.submit, jobs.run, jobs.requested, jobs.procs, t_end)}
    if group == "mosp-profile":
        from fairsched.mosp import solve
        from fairsched.mosp.generate import generate

        cases = {}
        for kind in ("uni", "swf"):
            instance = generate(kind, n_orgs=20, n_jobs=500, procs=512, seed=1)
            for name in ("local", "mocca", "ilba"):
                cases[f"mosp {name}, {kind} n=500 (200 runs)"] = \
                    lambda i=instance, a=name: [solve(i, a) for _ in range(200)]
        return cases
    if group == "mosp-list":
        from fairsched.mosp.engine import list_schedule

        rng = np.random.default_rng(0)
        runtime = rng.integers(1, 1000, 200_000).astype(np.int64)
        width = rng.integers(1, 65, 200_000).astype(np.int64)
        order = rng.permutation(200_000).astype(np.int64)
        return {"mosp list scheduling, 200k jobs": lambda: list_schedule(runtime, width, 512, order)}
    if group == "online":
        from fairsched.online.engine import simulate
        from fairsched.online.policies import get_policy
        from fairsched.scenario import build_scenario
        from fairsched.workload.clean import clean
        from fairsched.workload.swf import read_swf

        workload, _ = clean(read_swf(traces / LPC[0]), max_processors=LPC[1])
        scenario = build_scenario(workload, n_orgs=5, n_machines=LPC[1], split="uniform", seed=0)
        return {f"online {name}, LPC-EGEE": lambda n=name: simulate(scenario, get_policy(n), seed=0)
                for name in ("roundrobin", "fairshare", "directcontr")}
    if group == "openshop":
        from fairsched.openshop import solve
        from fairsched.openshop.generate import random_instance

        instance = random_instance(19_000, 200, 0, density=0.16, max_time=10, max_priority=10)
        return {f"openshop {label}, 19k jobs": lambda a=name, u=kind: solve(instance, a, utilities=u)
                for label, name, kind in (("sptf", "sptf", "equal"), ("luf equal", "luf", "equal"),
                                          ("luf linear", "luf", "linear"))}
    raise ValueError(f"unknown group {group!r}; choose from {', '.join(GROUPS)}")


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def child(group: str, traces: Path) -> None:
    """Print {case: CPU seconds of its timed run} (after one untimed run: the JIT warm-up)."""
    out = {}
    for name, run in _cases(group, traces).items():
        run()
        started = _cpu()
        run()
        out[name] = _cpu() - started
    print(json.dumps(out))


# -- the parent: two trees, alternately ---------------------------------------------------------------------------

def _git(*args: str, cwd: Path = ROOT) -> str:
    return subprocess.run(["git", *args], capture_output=True, text=True, check=True, cwd=cwd).stdout.strip()


def _run_child(tree: Path, group: str, traces: Path) -> dict[str, float]:
    env = {key: value for key, value in os.environ.items() if key != "NUMBA_CACHE_DIR"}
    env["PYTHONPATH"] = str(tree / "src")
    done = subprocess.run([sys.executable, str(HERE), "--child", group, "--traces", str(traces)], env=env,
                          capture_output=True, text=True, check=False, cwd=tree)
    if done.returncode != 0:
        raise RuntimeError(f"{group} in {tree}: {done.stderr.strip().splitlines()[-1:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def measure(groups: list[str], befores: dict[str, str], rounds: int, traces: Path) -> list[dict[str, Any]]:
    """Rows (group, case, before commit, best CPU s before and after, the runs' CPU s)."""
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="heap-ab-") as tmp:
        trees = {}
        for commit in sorted(set(befores[g] for g in groups)):
            trees[commit] = Path(tmp) / commit
            _git("worktree", "add", "--detach", str(trees[commit]), commit)
        try:
            for _ in range(rounds):
                for group in groups:
                    commit = befores[group]
                    for side, tree in (("before", trees[commit]), ("after", ROOT)):
                        for case, cpu in _run_child(tree, group, traces).items():
                            row = rows.setdefault((group, case), {"group": group, "case": case, "before_commit":
                                                                  commit, "before_runs": [], "after_runs": []})
                            row[f"{side}_runs"].append(round(cpu, 4))
                        print(f"{group} {side}: done", file=sys.stderr)
        finally:
            for tree in trees.values():
                _git("worktree", "remove", "--force", str(tree))
    out = []
    for row in rows.values():
        before, after = min(row["before_runs"]), min(row["after_runs"])
        out.append({**row, "before_cpu_s": before, "after_cpu_s": after, "ratio": round(after / before, 3)})
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", help="commit before the shared heap (online, MOSP list scheduling, openshop)")
    parser.add_argument("--profile-before", help="commit before backfill's heap and the profiles (default --before)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--groups", default=",".join(GROUPS))
    parser.add_argument("--traces", type=Path, default=DEFAULT_TRACES)
    parser.add_argument("--save", type=Path, default=None, help="write the record (run_all.py's shape) here")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child, args.traces)
        return
    if not args.before:
        parser.error("--before COMMIT is required")
    groups = [g.strip() for g in args.groups.split(",") if g.strip()]
    unknown = sorted(set(groups) - set(GROUPS))
    if unknown:
        parser.error(f"no group {', '.join(unknown)}; choose from {', '.join(GROUPS)}")
    full = {name: _git("rev-parse", "--short", name) for name in filter(None, (args.before, args.profile_before))}
    befores = {g: full[args.profile_before or args.before] if g in PROFILE_GROUPS else full[args.before]
               for g in groups}
    load_before, started = os.getloadavg(), time.perf_counter()
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    rows = measure(groups, befores, args.rounds, args.traces)
    done = resource.getrusage(resource.RUSAGE_CHILDREN)
    command = ["python", "benchmarks/bench_heap_ab.py", "--before", args.before]
    if args.profile_before:
        command += ["--profile-before", args.profile_before]
    if groups != list(GROUPS):
        command += ["--groups", ",".join(groups)]
    record = provenance("heap_ab", command + (["--rounds", str(args.rounds)] if args.rounds != 3 else []),
                        load_before, time.perf_counter() - started,
                        done.ru_utime - usage.ru_utime + done.ru_stime - usage.ru_stime)
    record["result"] = {"rounds": args.rounds, "cases": rows}
    text = json.dumps(record, indent=1) + "\n"
    if args.save is None:
        print(text, end="")
        return
    tmp = args.save.with_suffix(".json.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(args.save)


if __name__ == "__main__":
    main()
