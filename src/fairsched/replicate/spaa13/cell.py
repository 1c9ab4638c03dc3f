"""One cell of the SPAA'13 §6.3 replication's sweep (model ``fairsched.replicate.spaa13.cell``): a run of windows
of one (part, machines, release scale, split, k) point, each simulated by REF and every policy of the part.

A cell holds windows ``first_window .. first_window + windows - 1`` of its point: the windows of a point are the
same whichever way they are cut into cells (a window's start and seed depend only on the replication's seed, the
point and the window's index — `fairsched.replicate._online_windows.make_tasks`), so the figures can be run with
5 seeds per point first and completed with 5 more later, and the table's 100 windows per trace can be cut into
chunks that resume one by one. `Config` follows the experiment contract; ``run(config, seed)`` takes the
replication's one seed; ``CellResult.rows()`` has one row per (window, policy).

Policies run on the figures (§6.3.1): ROUNDROBIN, RAND (N = 15 and 75) and DIRECTCONTR as in the paper, plus RAND
with φ estimated as printed in SPAA'13 Algorithm 3 lines 35–37 (``RAND printed``; the default estimator is the mean
over orderings, docs/online-policies.md). On the table (§6.3.2): RAND (N = 15), DIRECTCONTR and ROUNDROBIN as in
the paper, plus FAIRSHARE and UTFAIRSHARE (the comparison PPAM'13 makes) and RAND printed (N = 15).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from fairsched._contract import ExperimentConfig, ProgressCallback, check_choice, check_int, check_number
from fairsched.errors import ConfigError
from fairsched.replicate._online_windows import (
    TRACES,
    Cell,
    WindowsResult,
    load_traces,
    make_tasks,
    run_window,
    trace_file,
)
from fairsched.replicate.spaa13.paper import FIG_LENGTH, FIG_POLICIES, PAPER_NAME, PARTS, TABLE_LENGTH, TABLE_POLICIES

__all__ = ["CellResult", "Config", "cell_of", "run"]

WINDOW_COLUMNS = ("table", "trace", "window_length", "split", "orgs", "machines", "release_scale", "policy",
                  "window", "start", "window_seed", "delta_psi", "p_tot", "ratio")


@dataclass(frozen=True)
class Config(ExperimentConfig):
    """Windows ``first_window .. first_window + windows - 1`` of one point of SPAA'13 §6.3.

    ``part`` = ``fig4`` / ``fig5`` (§6.3.1: LPC-EGEE's first 5·10^6 s, fixed window, each window index a scenario
    seed) or ``table`` (§6.3.2: windows of 5·10^5 s with random starts); ``machines`` = 0 means the trace's own
    (70 for LPC-EGEE, 8192 for RICC); ``release_scale`` multiplies release times (Fig. 5: 0.1).
    """

    MODEL: ClassVar[str] = "replicate spaa13"
    PATH_FIELDS: ClassVar[tuple[str, ...]] = ()

    part: str = "table"
    trace: str = "LPC-EGEE"
    machines: int = 0
    release_scale: float = 1.0
    split: str = "uniform"
    orgs: int = 5
    first_window: int = 0
    windows: int = 10
    traces_dir: Path | None = None

    def __post_init__(self) -> None:
        check_choice(self.part, "part", PARTS)
        check_choice(self.trace, "trace", TRACES)
        check_choice(self.split, "split", ("uniform", "zipf"))
        check_int(self.machines, "machines", minimum=0)
        check_int(self.orgs, "orgs")
        check_int(self.first_window, "first_window", minimum=0)
        check_int(self.windows, "windows")
        check_number(self.release_scale, "release_scale", positive=True)
        if self.part != "table" and self.trace != "LPC-EGEE":
            raise ConfigError(f"--part {self.part} --trace {self.trace}: SPAA'13's figures use LPC-EGEE only")

    def input_paths(self) -> tuple[Path, ...]:
        """The trace file the cell reads (its hash keys the sweep's cache)."""
        return (trace_file(self.traces_dir, self.trace),)

    def columns(self) -> dict[str, Any]:
        """The config's columns but the traces directory (the trace file's hash already keys the cell)."""
        return {key: value for key, value in super().columns().items() if key != "traces_dir"}


CellResult = WindowsResult  # one record per (window, policy), in window order


def cell_of(config: Config, windows: int) -> Cell:
    """The `fairsched.replicate._online_windows.Cell` of `config`'s point with its first `windows` windows."""
    figure = config.part != "table"
    return Cell(paper=PAPER_NAME, table=config.part, trace=config.trace,
                window_length=FIG_LENGTH if figure else TABLE_LENGTH, split=config.split, orgs=config.orgs,
                machines=config.machines or TRACES[config.trace].machines,
                policies=FIG_POLICIES if figure else TABLE_POLICIES, windows=windows,
                release_scale=config.release_scale, fixed_start=figure)


def run(config: Config, seed: int = 0, *, progress: ProgressCallback | None = None) -> CellResult:
    """Simulate the cell's windows (REF and every policy of its part) and measure Δψ/p_tot against REF."""
    last = config.first_window + config.windows
    cell = cell_of(config, last)
    tasks = make_tasks([cell], {config.trace: _workload(config.traces_dir, config.trace)}, seed)[config.first_window:]
    records = []
    for done, task in enumerate(tasks):
        if progress is not None:
            progress("windows", done, len(tasks))
        for record in run_window(task):
            records.append({"table": cell.table, "trace": cell.trace, "window_length": cell.window_length,
                            "split": cell.split, "orgs": cell.orgs, "machines": cell.machines,
                            "release_scale": cell.release_scale, "policy": record["policy"],
                            "window": record["window"], "start": record["start"], "window_seed": record["seed"],
                            "delta_psi": record["delta_psi"], "p_tot": record["p_tot"], "ratio": record["ratio"]})
    return CellResult(config=config, seed=seed, records=records)


@functools.lru_cache(maxsize=2)
def _workload(traces_dir: Path | None, trace: str) -> Any:
    """The cleaned trace, read once per process (a worker runs many cells of the same trace)."""
    return load_traces([trace], traces_dir)[trace]

