"""One cell of the PPAM'13 replication's sweep (model ``fairsched.replicate.ppam13.cell``): windows
``first_window .. first_window + windows - 1`` of one (table, trace, split), each simulated by REF and the six
policies of Tables 1–2, with every ablation switch of `fairsched.replicate.ppam13.PPAM13Config`.

A window's start and seed depend only on the replication's seed, the (trace, window length) and the window's index
(`fairsched.replicate._online_windows.make_tasks`), so cutting windows into cells changes nothing: the sweep
``ppam13.toml`` (10 windows per cell) gives the numbers of the direct window loop. `Config` follows the experiment
contract; ``run(config, seed)`` takes the replication's one seed; ``CellResult.rows()`` has one row per
(window, policy).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, ClassVar, Literal

from fairsched._contract import ExperimentConfig, ProgressCallback, check_choice, check_int
from fairsched.errors import ConfigError
from fairsched.replicate._online_windows import (
    TRACES,
    PolicySpec,
    WindowsResult,
    load_traces,
    make_tasks,
    run_window,
    trace_file,
)
from fairsched.replicate.ppam13.paper import SWITCHES, TABLES, PPAM13Config, check_config
from fairsched.replicate.ppam13.paper import cells as window_cells
from fairsched.scenario import DEFAULT_ZIPF_S

__all__ = ["ROLES", "CellResult", "Config", "run"]

ROLES = ("ROUNDROBIN", "RAND", "DIRECTCONTR", "FAIRSHARE", "UTFAIRSHARE", "CURRFAIRSHARE")  # the tables' rows



@dataclass(frozen=True)
class Config(ExperimentConfig):
    """Windows ``first_window .. first_window + windows - 1`` of one PPAM'13 (table, trace, split), with the
    ablation switches of `fairsched.replicate.ppam13.PPAM13Config` (same names, same defaults).

    ``policies`` runs only these of the six policies (by role: ``"DIRECTCONTR"``, ``"RAND"``, ...; REF always
    runs, as their reference); empty = all six. A switch that changes one policy (DIRECTCONTR's reading) then
    costs REF and that policy only, the others' windows being those of the run without the switch. An entry may
    add parameters to its policy, ``"DIRECTCONTR update=printed"`` or ``"DIRECTCONTR machines=lowest"``: its rows
    are labelled by the entry, so several readings of one policy share the window's REF run.
    """

    MODEL: ClassVar[str] = "replicate ppam13"
    PATH_FIELDS: ClassVar[tuple[str, ...]] = ()

    table: str = "table1"
    trace: str = "LPC-EGEE"
    split: str = "uniform"
    first_window: int = 0
    windows: int = 10
    traces_dir: Path | None = None
    directcontr_update: Literal["corrected", "printed"] = "corrected"
    fairshare_ratios: Literal["frozen", "per_start"] = "frozen"
    rand_estimator: Literal["orderings", "printed"] = "orderings"
    rand_orderings: int = 15
    window_start: Literal["empty", "warm"] = "empty"
    orgs_by: Literal["user", "job"] = "user"
    reference: Literal["ref", "ref-literal"] = "ref"
    zipf_s: float = DEFAULT_ZIPF_S
    granularity: int = 1
    parallel_jobs: Literal["copies", "serial", "skip"] = "copies"
    directcontr_machines: Literal["random", "lowest"] = "random"
    policies: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        check_choice(self.table, "table", TABLES)
        check_choice(self.trace, "trace", TRACES)
        check_int(self.first_window, "first_window", minimum=0)
        check_int(self.windows, "windows")
        check_config(self.replication())
        unknown = [entry for entry in self.policies if _parse(entry)[0] not in ROLES]
        if unknown or len(set(self.policies)) != len(self.policies):
            raise ConfigError(f"policies={list(self.policies)!r}: expected distinct names among {', '.join(ROLES)} "
                              "(empty = all six), each optionally followed by parameters, e.g. "
                              "'DIRECTCONTR update=printed'")

    def replication(self) -> PPAM13Config:
        """The `PPAM13Config` of this cell's (table, trace, split) and switches."""
        return PPAM13Config(traces_dir=self.traces_dir, tables=(self.table,), traces=(self.trace,),
                                   splits=(self.split,), windows=self.first_window + self.windows,
                                   **{name: getattr(self, name) for name in SWITCHES})

    def input_paths(self) -> tuple[Path, ...]:
        """The trace file the cell reads (its hash keys the sweep's cache)."""
        return (trace_file(self.traces_dir, self.trace),)

    def columns(self) -> dict[str, Any]:
        """The config's columns but the traces directory (the trace file's hash already keys the cell)."""
        return {key: value for key, value in super().columns().items() if key != "traces_dir"}


CellResult = WindowsResult  # one record per (window, policy), in window order


def run(config: Config, seed: int = 0, *, progress: ProgressCallback | None = None) -> CellResult:
    """Simulate the cell's windows (REF and the six policies) and measure Δψ/p_tot against REF."""
    (cell,) = window_cells(config.replication())
    if config.policies:
        by_role = {_role(spec.label): spec for spec in cell.policies}
        chosen = []
        for entry in config.policies:
            role, params = _parse(entry)
            spec = by_role[role]
            chosen.append(PolicySpec(entry, spec.name, spec.params + params) if params else spec)
        cell = replace(cell, policies=(*chosen, by_role["REF"]))
    tasks = make_tasks([cell], {config.trace: _workload(config.traces_dir, config.trace)}, seed)[config.first_window:]
    records = []
    for done, task in enumerate(tasks):
        if progress is not None:
            progress("windows", done, len(tasks))
        records += [{"window_length": cell.window_length, "machines": cell.machines, "orgs": cell.orgs,
                     "policy": record["policy"], "window": record["window"], "start": record["start"],
                     "window_seed": record["seed"], "delta_psi": record["delta_psi"], "p_tot": record["p_tot"],
                     "ratio": record["ratio"]} for record in run_window(task)]
    return CellResult(config=config, seed=seed, records=records)


def _role(label: str) -> str:
    """``"RAND (N=15)"`` -> ``"RAND"``: a policy's role in the tables, whatever its parameters."""
    return label.split(" ")[0]


def _parse(entry: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """``"DIRECTCONTR update=printed"`` -> ``("DIRECTCONTR", (("update", "printed"),))``; a malformed parameter
    gives the role ``""`` (refused by `Config`)."""
    role, *params = entry.split(" ")
    pairs = tuple(tuple(param.split("=", 1)) for param in params if param)
    if any(len(pair) != 2 or not all(pair) for pair in pairs):
        return "", ()
    return role, pairs  # type: ignore[return-value]


@functools.lru_cache(maxsize=2)
def _workload(traces_dir: Path | None, trace: str) -> Any:
    """The cleaned trace, read once per process (a worker runs many cells of the same trace)."""
    return load_traces([trace], traces_dir)[trace]

