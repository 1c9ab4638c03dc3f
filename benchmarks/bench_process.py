"""The whole `fairsched backfill` process beside the interpreter's floor and the peers (issue #22 §2); one JSON.

    .venv/bin/python benchmarks/bench_process.py [--traces DIR] [--repeat N] [--peer-repeat N] [--no-peers]

* ``ours``: ``fairsched backfill --trace LOG --order fcfs --backfill easy|conservative`` on a 28,000-job SWF log
  (the first 28,000 jobs of CTC-SP2, 338 processors, written to a temporary file), in fresh processes, best of
  ``--repeat`` (CPU = user + system of the child, `getrusage`; the machine is shared, so CPU times are the ones to
  compare), after one warm-up run that fills numba's cache and writes Python's bytecode caches (the children run
  without ``PYTHONDONTWRITEBYTECODE``, as from a user's shell: `CHILD_ENV`);
* ``floor``: ``python -c 'import numpy, numba'`` the same way: no simulator written in Python with numba kernels
  can start faster; ``floor_dispatch`` adds the first call of one tiny kernel loaded from numba's cache, which
  sets up numba's CPU target (its type registries) once per process: what any numba program pays before its
  first compiled call;
* ``steps``: where the CPU of one such process goes (EASY), timed step by step inside a fresh interpreter that
  does what the command does (`STEPS`), best of ``--repeat`` per step; ``python -c pass`` is the interpreter's
  own start;
* ``peers`` on the same log, run when installed, else reported as skipped with the reason:

  - AccaSim 1.1.3 (PyPI; ``EASYBackfilling`` + ``FirstFit``, 338 nodes of one core) in its own virtual
    environment (``FAIRSCHED_ACCASIM_PYTHON``, default ``/work/peers-venv/bin/python``), through
    ``benchmarks/peer_accasim.py`` (which puts back the ``collections`` aliases Python 3.10 removed), best of
    ``--peer-repeat``;
  - pyss (Python 2 only; the interpreter from ``FAIRSCHED_PYTHON2``, pyenv's 2.7 or ``python2.7``): no runner
    yet, so reported as skipped with what was found (interpreter, sources in ``FAIRSCHED_PYSS_DIR``);

* ``pyss_inputs``: our whole process on the pyss oracle's 10,000-job CTC-SP2 input (../shared/oracles/pyss)
  beside pyss's own time on it, read from that folder's README (the simulation alone, one core, CPython 2.7 -O):
  the only pyss figures available on this machine.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SHARED = ROOT.parent / "shared"
DEFAULT_TRACES = Path(os.environ.get("FAIRSCHED_TRACES", SHARED / "traces"))
PYSS_ORACLES = SHARED / "oracles" / "pyss"
CTC = ("CTC-SP2-1996-3.1-cln.swf.gz", 338)
PYSS_CASE = "CTC-SP2-1996-3.1-cln"
PROCESS_JOBS = 28_000
FAIRSCHED = Path(sys.executable).with_name("fairsched")
ACCASIM_PYTHON = Path(os.environ.get("FAIRSCHED_ACCASIM_PYTHON", "/work/peers-venv/bin/python"))
RULES = {"easy": "easy", "conservative": "cons"}  # our --backfill -> pyss's file and README name
# What `fairsched backfill --trace LOG` does, step by step (cli/backfill.py, backfill/experiment.py run_backfill),
# each step's CPU (user + system of this process) printed as one JSON object. Typer's parsing is not a step. The
# path imports no pandas (tests/test_process_imports.py); the script fails if a step does.
STEPS = """
import json, sys, time
cpu = time.process_time
steps, last = {}, cpu()
def step(name):
    global last
    now = cpu(); steps[name] = round(now - last, 4); last = now
import numpy, numba; step("import numpy, numba")
import fairsched.cli; step("import fairsched.cli (typer, rich)")
from fairsched.backfill import experiment
from fairsched.report.backfill import backfill_renderable
step("import the backfill model and its report")
from fairsched.workload.swf import read_swf_columns
workload = read_swf_columns(sys.argv[1], compiled=True)
step("read the SWF log into numpy columns (numba's set-up at its first compiled call)")
config = experiment.Config(trace=sys.argv[1], order="fcfs", backfill="easy")
processors = experiment._machine_size(workload, None)
prepared, _, _ = experiment.prepare_workload(workload, config, processors)
jobs = experiment.jobs_from_workload(prepared, n_processors=processors); step("clean, prepare the jobs")
result = experiment.simulate(jobs, order="fcfs", backfill="easy"); step("simulate (kernel from numba's cache)")
experiment.validate_backfill_schedule(result.columns, jobs, order="fcfs", backfill="easy")
step("validate the schedule")
experiment.summary(result.columns, processors); step("metrics")
report = experiment.backfill_workload(workload, config)  # the same run again, only to have a report to render
last = cpu()
import io
from rich.console import Console
Console(file=io.StringIO(), width=120).print(backfill_renderable(report)); step("render the tables")
assert "pandas" not in sys.modules, "a step imported pandas: the command's path must not"
steps["cpu before exit"] = round(cpu(), 4)  # all the CPU used so far: the rest of the child's CPU is its exit
print(json.dumps(steps))
import gc; gc.freeze()  # as the console command ends (fairsched.cli._app.main)
"""
EXIT_STEP = "exit: Python's finalization (the command freezes the collector first)"


# The children run as from a user's shell: Python writes and reads its bytecode caches (__pycache__/*.pyc). The
# sessions of this machine set PYTHONDONTWRITEBYTECODE=1, under which a source tree never gets its .pyc files and
# every process compiles each of our modules again; the warm-up runs below write them.
CHILD_ENV = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}


def timed(argv: list[str], cwd: Path | None = None) -> tuple[float, float]:
    """(wall, CPU) seconds of one child process (CPU = user + system of the child, `getrusage`)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=cwd, env=CHILD_ENV)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def best(argv: list[str], repeat: int, cwd: Path | None = None) -> dict[str, Any]:
    runs = [timed(argv, cwd) for _ in range(repeat)]
    return {"wall_s": round(min(r[0] for r in runs), 3), "cpu_s": round(min(r[1] for r in runs), 3),
            "cpu_runs_s": [round(r[1], 3) for r in runs]}


def write_first_jobs(source: Path, n: int, target: Path) -> None:
    """The header and the first `n` job lines of an SWF log (gzip or plain)."""
    kept = 0
    opener = gzip.open if source.suffix == ".gz" else open
    with opener(source, "rt") as lines, target.open("w") as out:
        for line in lines:
            if not line.startswith(";"):
                if kept == n:
                    break
                kept += 1
            out.write(line)


def ours(log: Path, repeat: int) -> list[dict[str, Any]]:
    command = [str(FAIRSCHED), "backfill", "--trace", str(log), "--order", "fcfs"]
    rows = []
    for backfill in RULES:
        argv = [*command, "--backfill", backfill]
        timed(argv)  # fills numba's cache if needed (the first run after an edit of a kernel compiles), and .pyc
        rows.append({"backfill": backfill, "command": f"fairsched backfill --trace LOG --order fcfs --backfill "
                     f"{backfill}", **best(argv, repeat)})
    return rows


def steps(log: Path, repeat: int) -> dict[str, float]:
    """CPU seconds of each step of `STEPS` in a fresh interpreter, the best of `repeat` runs per step; the last
    step, `EXIT_STEP`, is the child's CPU (`getrusage`) after it printed the others: Python's finalization."""
    runs = []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        done = subprocess.run([sys.executable, "-c", STEPS, str(log)], capture_output=True, text=True, check=True,
                              env=CHILD_ENV)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        run = json.loads(done.stdout.strip().splitlines()[-1])
        child = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        run[EXIT_STEP] = round(child - run.pop("cpu before exit"), 4)
        runs.append(run)
    return {name: min(run[name] for run in runs) for name in runs[0]}


def accasim(log: Path, processors: int, repeat: int, folder: Path) -> dict[str, Any]:
    row: dict[str, Any] = {"peer": "AccaSim", "backfill": "easy"}
    if not ACCASIM_PYTHON.exists():
        return {**row, "skipped": f"no AccaSim environment at {ACCASIM_PYTHON} (python -m venv DIR && "
                                  "DIR/bin/pip install accasim; set FAIRSCHED_ACCASIM_PYTHON=DIR/bin/python)"}
    probe = subprocess.run([str(ACCASIM_PYTHON), "-c", "import accasim, importlib.metadata as m; "
                            "print(m.version('accasim'))"], capture_output=True, text=True, check=False)
    if probe.returncode != 0:
        return {**row, "skipped": f"{ACCASIM_PYTHON} cannot import accasim"}
    argv = [str(ACCASIM_PYTHON), str(HERE / "peer_accasim.py"), str(log), str(processors), str(folder / "accasim")]
    return {**row, "version": probe.stdout.strip(), "setup": f"EASYBackfilling + FirstFit, {processors} nodes of "
            "one core", "command": "python benchmarks/peer_accasim.py LOG 338 DIR", "repeat": repeat,
            **best(argv, repeat, cwd=folder)}


def pyss() -> dict[str, Any]:
    pyenv = sorted(Path.home().glob(".pyenv/versions/2.7*/bin/python"))  # pyenv's shims fail when not selected
    python2 = os.environ.get("FAIRSCHED_PYTHON2") or (str(pyenv[-1]) if pyenv else None) or shutil.which("python2.7")
    version = None
    if python2 is not None:
        done = subprocess.run([python2, "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"],
                              capture_output=True, text=True, check=False)
        version = done.stdout.strip() if done.returncode == 0 else None
    source = os.environ.get("FAIRSCHED_PYSS_DIR")
    found = f"Python {version} found ({python2})" if version else "no working Python 2 interpreter"
    where = (f"FAIRSCHED_PYSS_DIR={source} is set, but this script has no runner for pyss yet" if source else
             "pyss's sources (dinesh121991/pyss at 44a2423, ../shared/oracles/pyss/README.md) are not on this "
             "machine: the oracle folder holds schedules only and the PyPI package named pyss is another project")
    return {"peer": "pyss", "skipped": f"{found}, but {where}"}


def pyss_readme_seconds() -> dict[str, float]:
    """pyss's own run time per policy on the oracle's CTC-SP2 input (its README's summary table)."""
    text = (PYSS_ORACLES / "README.md").read_text(encoding="utf-8")
    found = {}
    for policy in RULES.values():
        match = re.search(rf"^\| {re.escape(PYSS_CASE)} \| {policy} \|.*\| ([0-9.]+) s \|\s*$", text, re.MULTILINE)
        if match:
            found[policy] = float(match.group(1))
    return found


def pyss_inputs(repeat: int) -> dict[str, Any]:
    log = PYSS_ORACLES / f"{PYSS_CASE}.swf"
    if not log.exists():
        return {"skipped": f"{log} not found"}
    seconds = pyss_readme_seconds()
    rows = []
    for row in ours(log, repeat):
        pyss_s = seconds.get(RULES[row["backfill"]])
        rows.append({**row, "pyss_s": pyss_s,
                     "pyss_over_ours_cpu": round(pyss_s / row["cpu_s"], 1) if pyss_s else None})
    return {"log": f"{log.name} (first 10,000 clean jobs, 338 processors)",
            "pyss_source": "../shared/oracles/pyss/README.md (simulation wall time on one core, CPython 2.7.18 -O)",
            "cases": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=Path, default=DEFAULT_TRACES)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--peer-repeat", type=int, default=1, help="AccaSim takes about a minute a run")
    parser.add_argument("--no-peers", action="store_true")
    args = parser.parse_args()
    out: dict[str, Any] = {"benchmark": "process", "cpu_count": os.cpu_count(), "repeat": args.repeat,
                           "bytecode": "the children write and read __pycache__/*.pyc, as from a user's shell "
                                       "(PYTHONDONTWRITEBYTECODE removed from their environment)"}
    source = args.traces / CTC[0]
    if not source.exists():
        print(json.dumps({**out, "skipped": f"{source} not found"}, indent=1))
        return
    folder = Path(tempfile.mkdtemp(prefix="bench_process."))
    try:
        log = folder / f"CTC-SP2-first-{PROCESS_JOBS}.swf"
        write_first_jobs(source, PROCESS_JOBS, log)
        out["log"] = f"first {PROCESS_JOBS:,} jobs of {CTC[0]} ({CTC[1]} processors)"
        out["floor"] = {"command": "python -c 'import numpy, numba'",
                        **best([sys.executable, "-c", "import numpy, numba"], args.repeat)}
        kernel = folder / "tiny_kernel.py"
        kernel.write_text("from numba import njit\n\n\n@njit(cache=True)\ndef total(a):\n    return a.sum()\n")
        dispatch = [sys.executable, "-c", "import numpy, tiny_kernel; tiny_kernel.total(numpy.arange(3))"]
        timed(dispatch, cwd=folder)  # fills the tiny kernel's cache
        out["floor_dispatch"] = {"command": "python -c 'import numpy, numba' + one cached @njit call",
                                 **best(dispatch, args.repeat, cwd=folder)}
        out["floor_python"] = {"command": "python -c pass", **best([sys.executable, "-c", "pass"], args.repeat)}
        out["ours"] = ours(log, args.repeat)
        out["steps"] = steps(log, args.repeat)
        if args.no_peers:
            out["peers"] = [{"peer": name, "skipped": "--no-peers"} for name in ("AccaSim", "pyss")]
        else:
            out["peers"] = [accasim(log, CTC[1], args.peer_repeat, folder), pyss()]
        out["pyss_inputs"] = pyss_inputs(args.repeat)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
