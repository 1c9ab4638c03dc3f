"""The split × DIRECTCONTR grid (`fairsched.replicate.ppam13.split_dc`) on the paper's 100 Table 2 windows, as a
resumable sweep of PPAM'13 cells (issue 24, item 1).

Reference: P. Skowron, K. Rzadca, PPAM 2013 (LNCS 8385), Table 2, and SPAA 2013 (arXiv 1302.0948) §6.3.2: both
average 100 windows of 5·10^5 s of LPC-EGEE and RICC.

The 100-window variants run (``docs/replication/data/ppam13_variants_100``) already holds every window of the
multinomial (`shipped`) and the three Zipf splits with DIRECTCONTR corrected, and of Zipf s = 1.4267 with
DIRECTCONTR as printed. `MISSING` lists the other combinations, the best-ranked on 10 windows first. A reading of
DIRECTCONTR changes DIRECTCONTR's schedule only, so a combination whose split already ran 100 windows runs REF and
DIRECTCONTR alone (the cell model's ``policies``) and takes the five other policies' windows from its split's run;
the random composition, never run on 100 windows, runs all six policies once (DIRECTCONTR corrected) and lends them
to its two other readings.

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

__all__ = ["BASES", "FIT_FILE", "MISSING", "RUN_FILE", "STATUS_FILE", "WINDOWS", "WINDOWS_FILE", "collect",
           "combination_windows", "fit100", "spec_text"]

WINDOWS = 100
CHUNK = 10  # windows per sweep cell
TRACES = ("RICC", "LPC-EGEE")
# Combinations still missing on 100 windows, in the order they run (10-window ranking, then the Zipf ones), and
# the policies each runs: "" = all six.
MISSING: tuple[tuple[str, str], ...] = (
    ("composition / corrected", ""),
    ("composition / lowest first", "DIRECTCONTR"),
    ("composition / printed", "DIRECTCONTR"),
    ("multinomial / lowest first", "DIRECTCONTR"),
    ("multinomial / printed", "DIRECTCONTR"),
    ("zipf s=1 / lowest first", "DIRECTCONTR"),
    ("zipf s=1 / printed", "DIRECTCONTR"),
    ("zipf s=1.4267 / lowest first", "DIRECTCONTR"),
    ("zipf s=2 / lowest first", "DIRECTCONTR"),
    ("zipf s=2 / printed", "DIRECTCONTR"),
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


def spec_text(combinations: tuple[tuple[str, str], ...] = MISSING, *, windows: int = WINDOWS,
              traces_dir: Path | None = None) -> str:
    """The TOML sweep spec of `combinations` on the Table 2 windows, one ``[[zip]]`` row per cell (module
    docstring); a combination's cells are consecutive, so the sweep finishes combinations in this order."""
    columns: dict[str, list[object]] = {key: [] for key in ("trace", "first-window", "split", "zipf-s",
                                                            "directcontr-update", "directcontr-machines",
                                                            "policies")}
    for name, policies in combinations:
        options = combination_options(name)
        for trace in TRACES:
            for first in range(0, windows, CHUNK):
                for key, value in (("trace", trace), ("first-window", first), ("split", options["split"]),
                                   ("zipf-s", float(options["zipf_s"])),
                                   ("directcontr-update", options["directcontr_update"]),
                                   ("directcontr-machines", options["directcontr_machines"]),
                                   ("policies", [policies] if policies else [])):
                    columns[key].append(value)
    lines = ["# generated by fairsched.replicate.ppam13.split_dc100 (issue 24, item 1)", "[sweep]",
             'model = "fairsched.replicate.ppam13.cell"', "seeds = [0]", "[base]", 'table = "table2"',
             f"windows = {CHUNK}"]
    if traces_dir is not None:
        lines.append(f"traces-dir = {json.dumps(str(Path(traces_dir).resolve()))}")
    lines.append("[[zip]]")
    lines += [f"{key} = {json.dumps(values)}" for key, values in columns.items()]
    return "\n".join(lines) + "\n"


def _store_windows(store: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The store's finished rows as per-window records labelled by combination, and each combination's status
    (cells done of its 20)."""
    from fairsched.sweep.results import load_rows

    rows, manifest = load_rows(store)
    names = {(split, float(zipf_s), update, machines): name for name, _ in MISSING
             for split, zipf_s, update, machines in [tuple(combination_options(name)[key] for key in _DEFAULTS)]}

    def name_of(point: dict[str, object]) -> str:
        return names[(point["split"], float(point["zipf-s"]), point["directcontr-update"],
                      point["directcontr-machines"])]

    by_key = {cell["key"]: name_of(cell["point"]) for cell in manifest.cells}
    total = pd.Series(by_key).value_counts()
    frame = rows.assign(variant=rows["cell"].map(by_key)) if len(rows) else rows.assign(variant=[])
    done = frame.drop_duplicates("cell")["variant"].value_counts() if len(frame) else pd.Series(dtype=int)
    status = pd.DataFrame({"variant": [name for name, _ in MISSING]})
    status = status.assign(cells_done=status["variant"].map(done).fillna(0).astype(int),
                           cells=status["variant"].map(total).fillna(0).astype(int))
    status = status.assign(finished=status["cells_done"].eq(status["cells"]) & status["cells"].gt(0))
    columns = ["variant", "trace", "window", "policy", "start", "window_seed", "delta_psi", "p_tot", "ratio"]
    return (frame.loc[:, columns] if len(frame) else pd.DataFrame(columns=columns)), status


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
    own = dict(MISSING)
    available = set(RUN100_NAMES.values()) | set(finished)
    for name in finished:
        mine = pool[pool["variant"] == name]
        if own[name]:
            base = BASES[name.split(" / ")[0]]
            if base not in available:
                continue
            others = pool[(pool["variant"] == base) & ~pool["policy"].isin(own[name].split(","))]
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


def collect(store: Path, out_dir: Path, data: Path, *, time_log: Path | None = None) -> pd.DataFrame:
    """Write `WINDOWS_FILE` (the store's windows of the finished combinations), `STATUS_FILE` and `FIT_FILE` (the
    fit of every combination with 100 windows) to `out_dir`, and ``ppam13_split_dc_100_run.csv`` (wall and CPU
    seconds, from the GNU ``time -v`` report `time_log`) if given; return the fit."""
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
    if time_log is not None:
        with atomic_write(out_dir / RUN_FILE) as handle:
            pd.DataFrame([gnu_time(time_log.read_text())]).to_csv(handle, index=False, float_format="%.6g")
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
    gather.add_argument("--time-log", type=Path, default=None)
    args = parser.parse_args(argv)
    if args.command == "spec":
        args.out.write_text(spec_text(traces_dir=args.traces), encoding="utf-8")
        return
    ranking = collect(args.store, args.out, args.data, time_log=args.time_log)
    sys.stdout.write(f"{ranking.to_string()}\n")


if __name__ == "__main__":
    main()
