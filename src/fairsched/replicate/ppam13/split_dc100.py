"""The split × DIRECTCONTR grid (`fairsched.replicate.ppam13.split_dc`) on the paper's 100 Table 2 windows, as a
resumable sweep of PPAM'13 cells.

Reference: P. Skowron, K. Rzadca, PPAM 2013 (LNCS 8385), Table 2, and SPAA 2013 (arXiv 1302.0948) §6.3.2: both
average 100 windows of 5·10^5 s of LPC-EGEE and RICC.

The 100-window variants run (``docs/replication/data/ppam13_variants_100``) already holds every window of the
multinomial (`shipped`) and the three Zipf splits with DIRECTCONTR corrected, and of Zipf s = 1.4267 with
DIRECTCONTR as printed; `MISSING` lists the ten other combinations. A reading of DIRECTCONTR changes DIRECTCONTR's
schedule only, so the missing readings of a split run as extra DIRECTCONTR entries of one cell (the cell model's
``policies``, e.g. ``"DIRECTCONTR update=printed"``), which share the window's REF run, and take the five other
policies' windows from the split's run with DIRECTCONTR corrected. The random composition, never run on 100
windows, first runs all six policies (DIRECTCONTR corrected). `RUNS` orders the work: the composition, then the
multinomial split (the best-ranked on 10 windows), then the Zipf exponents.

`spec_text` writes the sweep spec (model ``fairsched.replicate.ppam13.cell``, 10 windows per cell, one ``[[zip]]``
block in priority order), run with ``fairsched sweep SPEC --out STORE --workers 2``: a killed run loses at most the
cells in flight, and running it again computes only the absent ones. `collect` turns the store into the windows of
every finished combination (a combination counts once all 20 of its cells, both traces, are in the store) and the
fit of `fairsched.replicate.ppam13.split_dc.fit` on them::

    python -m fairsched.replicate.ppam13.split_dc100 spec --out /tmp/split_dc100.toml
    nice -n 15 fairsched sweep /tmp/split_dc100.toml --out /tmp/split_dc100 --workers 2
    python -m fairsched.replicate.ppam13.split_dc100 collect --store /tmp/split_dc100 \\
        --out docs/replication/data/ppam13_split_dc_100
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from pathlib import Path

import pandas as pd

from fairsched.replicate.ppam13.split_dc import DIRECTCONTR_VARIANTS, SPLITS, fit
from fairsched.scenario import DEFAULT_ZIPF_S

__all__ = ["BASES", "FIT_FILE", "MISSING", "READINGS", "RUNS", "RUN_FILE", "STATUS_FILE", "WINDOWS", "WINDOWS_FILE",
           "collect", "combination_windows", "fit100", "run_combinations", "spec_text"]

WINDOWS = 100
CHUNK = 10  # windows per sweep cell
TRACES = ("RICC", "LPC-EGEE")
# The readings of DIRECTCONTR as extra entries of a cell's policies (`fairsched.replicate.ppam13.cell.Config`).
READINGS = {"DIRECTCONTR machines=lowest": "lowest first", "DIRECTCONTR update=printed": "printed"}
_BOTH = tuple(READINGS)
# What runs on 100 windows, in order: (the combination giving the cells' switches, the policies each cell runs;
# () = all six). An extra reading's rows count for "<split> / <reading>".
RUNS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("composition / corrected", ()),
    ("composition / corrected", _BOTH),
    ("multinomial / corrected", _BOTH),
    ("zipf s=1 / corrected", _BOTH),
    ("zipf s=1.4267 / corrected", ("DIRECTCONTR machines=lowest",)),
    ("zipf s=2 / corrected", _BOTH),
)
# Where a DIRECTCONTR-only combination takes its five other policies: the combination with DIRECTCONTR corrected.
BASES = {split: f"{split} / corrected" for split, _ in SPLITS}
# The 100-window variants run's names of the combinations it holds.
RUN100_NAMES = {"shipped": "multinomial / corrected", "zipf": "zipf s=1.4267 / corrected",
                "zipf s=1": "zipf s=1 / corrected", "zipf s=2": "zipf s=2 / corrected",
                "zipf+dc printed": "zipf s=1.4267 / printed"}
WINDOWS_FILE = "ppam13_split_dc_100_windows.csv.gz"
FIT_FILE = "ppam13_split_dc_100_fit.csv"
STATUS_FILE = "ppam13_split_dc_100_status.csv"
RUN_FILE = "ppam13_split_dc_100_run.csv"  # GNU time of the sweep: wall_s, user_s, sys_s
_DEFAULTS = {"split": "uniform", "zipf_s": DEFAULT_ZIPF_S, "directcontr_update": "corrected",
             "directcontr_machines": "random"}


def combination_options(name: str) -> dict[str, object]:
    """``"zipf s=2 / printed"`` -> the cell model's options (split, zipf_s, directcontr_update, ...)."""
    split, dc = name.split(" / ")
    options = dict(_DEFAULTS)
    for key, value in dict(SPLITS)[split] + dict(DIRECTCONTR_VARIANTS)[dc]:
        options[key] = value[0] if key == "splits" else value
    options["split"] = options.pop("splits", options["split"])
    return options


def run_combinations(run: tuple[str, tuple[str, ...]]) -> dict[str, str]:
    """A run of `RUNS` -> {row label: combination}: ``{"DIRECTCONTR update=printed": "multinomial / printed"}``,
    or ``{"": "composition / corrected"}`` for a run of all six policies (every label)."""
    name, policies = run
    if not policies:
        return {"": name}
    split = name.split(" / ")[0]
    return {entry: f"{split} / {READINGS[entry]}" for entry in policies}


MISSING: tuple[str, ...] = tuple(combination for run in RUNS for combination in run_combinations(run).values())


def spec_text(runs: tuple[tuple[str, tuple[str, ...]], ...] = RUNS, *, windows: int = WINDOWS,
              traces_dir: Path | None = None) -> str:
    """The TOML sweep spec of `runs` on the Table 2 windows, one ``[[zip]]`` row per cell (module docstring); a
    run's cells are consecutive, so the sweep finishes runs in this order."""
    columns: dict[str, list[object]] = {key: [] for key in ("trace", "first-window", "split", "zipf-s",
                                                            "directcontr-update", "directcontr-machines",
                                                            "policies")}
    for name, policies in runs:
        options = combination_options(name)
        for trace in TRACES:
            for first in range(0, windows, CHUNK):
                for key, value in (("trace", trace), ("first-window", first), ("split", options["split"]),
                                   ("zipf-s", float(options["zipf_s"])),
                                   ("directcontr-update", options["directcontr_update"]),
                                   ("directcontr-machines", options["directcontr_machines"]),
                                   ("policies", list(policies))):
                    columns[key].append(value)
    lines = ["# generated by fairsched.replicate.ppam13.split_dc100", "[sweep]",
             'model = "fairsched.replicate.ppam13.cell"', "seeds = [0]", "[base]", 'table = "table2"',
             f"windows = {CHUNK}"]
    if traces_dir is not None:
        lines.append(f"traces-dir = {json.dumps(str(Path(traces_dir).resolve()))}")
    lines.append("[[zip]]")
    lines += [f"{key} = {json.dumps(values)}" for key, values in columns.items()]
    return "\n".join(lines) + "\n"


def _store_windows(store: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The store's finished rows as per-window records labelled by combination (``variant``; an extra reading's
    rows as ``DIRECTCONTR`` of its combination), and each combination's status (cells done of its run's 20)."""
    from fairsched.sweep.results import load_rows

    rows, manifest = load_rows(store)

    def run_of(point: dict[str, object]) -> tuple[str, tuple[str, ...]] | None:
        key = (point["split"], float(point["zipf-s"]), point["directcontr-update"], point["directcontr-machines"],
               tuple(point["policies"]))
        return next((run for run in RUNS if key == (*_switches(run[0]), run[1])), None)

    runs = {cell["key"]: run for cell in manifest.cells if (run := run_of(cell["point"])) is not None}
    rows = rows[rows["cell"].isin(runs)]  # a store of an older spec may hold other cells
    records = []
    for key, frame in rows.groupby("cell", sort=False) if len(rows) else ():
        labels = run_combinations(runs[key])
        for row in frame.itertuples():
            if "" in labels:
                records.append({"variant": labels[""], "policy": row.policy, **_record(row)})
            elif row.policy in labels:
                records.append({"variant": labels[row.policy], "policy": "DIRECTCONTR", **_record(row)})
            else:  # REF, once per combination of the run
                records.extend({"variant": name, "policy": row.policy, **_record(row)} for name in labels.values())
    done = rows.drop_duplicates("cell")["cell"].map(runs).value_counts() if len(rows) else pd.Series(dtype=int)
    total = pd.Series(list(runs.values())).value_counts()
    status = pd.DataFrame([{"run": number, "variant": combination, "cells_done": int(done.get(run, 0)),
                            "cells": int(total.get(run, 0))}
                           for number, run in enumerate(RUNS) for combination in run_combinations(run).values()])
    status = status.assign(finished=status["cells_done"].eq(status["cells"]) & status["cells"].gt(0))
    columns = ["variant", "trace", "window", "policy", "start", "window_seed", "delta_psi", "p_tot", "ratio"]
    return pd.DataFrame(records, columns=columns), status


def _switches(name: str) -> tuple[object, ...]:
    options = combination_options(name)
    return (options["split"], float(options["zipf_s"]), options["directcontr_update"],
            options["directcontr_machines"])


def _record(row: object) -> dict[str, object]:
    return {key: getattr(row, key) for key in ("trace", "window", "start", "window_seed", "delta_psi", "p_tot",
                                               "ratio")}


def _run100_windows(data: Path) -> pd.DataFrame:
    """The Table 2 windows of the 100-window variants run, labelled by combination (`RUN100_NAMES`)."""
    windows = pd.read_csv(data / "ppam13_variants_100" / "ppam13_variants_windows.csv.gz")
    windows = windows[(windows["table"] == "table2") & windows["variant"].isin(RUN100_NAMES)]
    return windows.assign(variant=windows["variant"].map(RUN100_NAMES))


def combination_windows(new: pd.DataFrame, finished: list[str], data: Path) -> pd.DataFrame:
    """Every window and policy of each combination with 100 windows: the 100-window variants run's five, and each
    finished one of `finished`, a DIRECTCONTR-only run completed by its split's corrected run (module docstring).

    Columns: variant, trace, window, policy (by role: "RAND", not "RAND (N=15)"), ratio.
    """
    old = _run100_windows(data)
    pool = pd.concat([old[["variant", "trace", "window", "policy", "ratio"]],
                      new[["variant", "trace", "window", "policy", "ratio"]]], ignore_index=True)
    pool = pool[pool["policy"] != "REF"].assign(policy=lambda f: f["policy"].str.split(" ").str[0])
    parts = [pool[pool["variant"].isin(RUN100_NAMES.values())]]
    available = set(RUN100_NAMES.values()) | set(finished)
    for name in finished:
        mine = pool[pool["variant"] == name]
        if set(mine["policy"]) == {"DIRECTCONTR"}:  # an extra reading: the other five from its split's run
            base = BASES[name.split(" / ")[0]]
            if base not in available:
                continue
            others = pool[(pool["variant"] == base) & (pool["policy"] != "DIRECTCONTR")]
            mine = pd.concat([others.assign(variant=name), mine], ignore_index=True)
        parts.append(mine)
    return pd.concat(parts, ignore_index=True).sort_values(["variant", "trace", "policy", "window"],
                                                           kind="stable").reset_index(drop=True)


def fit100(windows: pd.DataFrame) -> pd.DataFrame:
    """`fairsched.replicate.ppam13.split_dc.fit` on the means of `combination_windows` (each over its windows)."""
    means = windows.groupby(["variant", "trace", "policy"], sort=False)["ratio"].agg(["mean", "size"])
    cells = means.reset_index().assign(table="table2")
    ranked = fit(cells)
    counts = means["size"].groupby(level="variant").min()
    return ranked.assign(windows=ranked["variant"].map(counts).astype(int))


def collect(store: Path, out_dir: Path, data: Path, *, time_logs: tuple[Path, ...] = ()) -> pd.DataFrame:
    """Write `WINDOWS_FILE` (the store's windows of the finished combinations), `STATUS_FILE` and `FIT_FILE` (the
    fit of every combination with 100 windows) to `out_dir`, and ``ppam13_split_dc_100_run.csv`` (wall and CPU
    seconds summed over the GNU ``time -v`` reports `time_logs`, one per sweep process: a resumed sweep has
    several) if given; return the fit."""
    from fairsched._io import atomic_write

    new, status = _store_windows(store)
    finished = status.loc[status["finished"], "variant"].tolist()
    new = new[new["variant"].isin(finished)]
    out_dir.mkdir(parents=True, exist_ok=True)
    text = new.to_csv(index=False, float_format="%.6g")
    with atomic_write(out_dir / WINDOWS_FILE, "wb") as handle:
        handle.write(gzip.compress(text.encode("utf-8"), mtime=0))
    with atomic_write(out_dir / STATUS_FILE) as handle:
        status.to_csv(handle, index=False)
    ranking = fit100(combination_windows(new, finished, data))
    with atomic_write(out_dir / FIT_FILE) as handle:
        ranking.to_csv(handle, index=False, float_format="%.6g")
    if time_logs:
        times = pd.DataFrame([gnu_time(path.read_text()) for path in time_logs]).sum()
        with atomic_write(out_dir / RUN_FILE) as handle:
            pd.DataFrame([{**times.to_dict(), "processes": len(time_logs)}]).to_csv(handle, index=False,
                                                                                  float_format="%.6g")
    return ranking


def gnu_time(report: str) -> dict[str, float]:
    """Wall, user and system seconds of a GNU ``time -v`` report."""
    values = {}
    for line in report.splitlines():
        key, _, value = line.strip().rpartition(": ")
        if key == "Elapsed (wall clock) time (h:mm:ss or m:ss)":
            seconds = 0.0
            for part in value.split(":"):
                seconds = seconds * 60 + float(part)
            values["wall_s"] = seconds
        elif key == "User time (seconds)":
            values["user_s"] = float(value)
        elif key == "System time (seconds)":
            values["sys_s"] = float(value)
    return values


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    spec = commands.add_parser("spec", help="write the sweep spec")
    spec.add_argument("--out", type=Path, required=True)
    spec.add_argument("--traces", type=Path, default=None)
    gather = commands.add_parser("collect", help="the store's finished combinations -> data files")
    gather.add_argument("--store", type=Path, required=True)
    gather.add_argument("--out", type=Path, required=True)
    gather.add_argument("--data", type=Path, default=Path("docs/replication/data"))
    gather.add_argument("--time-log", type=Path, action="append", default=[])
    args = parser.parse_args(argv)
    if args.command == "spec":
        args.out.write_text(spec_text(traces_dir=args.traces), encoding="utf-8")
        return
    ranking = collect(args.store, args.out, args.data, time_logs=tuple(args.time_log))
    sys.stdout.write(f"{ranking.to_string()}\n")


if __name__ == "__main__":
    main()
