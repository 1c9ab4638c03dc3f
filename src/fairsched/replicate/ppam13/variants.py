"""The ablation grid of PPAM'13 Tables 1–2 under every set-up variant, and which conclusions hold.

Reference: P. Skowron, K. Rzadca, "Fair share is not enough: measuring fairness in scheduling with cooperative
game theory", PPAM 2013 (LNCS 8385), §5.2, conclusions (i)–(v) and the Table 2 paragraph.

A `Variant` is a name plus overrides of `PPAM13Config` fields — data, so a list of variants converts to a sweep
spec (a grid over config fields) as it stands. `run_variants` runs them all on the same windows: the variants
that differ only in policy switches share their windows' scenarios and REF runs (REF dominates the cost), so the
grid costs one simulation of each distinct policy per distinct scenario set-up.

Conclusions, checked on the mean Δψ/p_tot of each (table, trace) cell — literally as the paper states them, the
two thresholds set so that the paper's numbers pass; `PAPER_VARIANT` checks them on the paper's own tables, which
fail (i) on LPC-EGEE (RAND behind DIRECTCONTR in both tables) and (ii) on Table 1 RICC (UTFAIRSHARE ahead):

(i)   RAND is the most fair: RAND <= every other policy;
(ii)  DIRECTCONTR is the most fair of the cheap policies: DIRECTCONTR <= FAIRSHARE, UTFAIRSHARE, CURRFAIRSHARE,
      ROUNDROBIN;
(iii) FAIRSHARE is not much worse than DIRECTCONTR: DIRECTCONTR <= FAIRSHARE <= max(3.5 DIRECTCONTR,
      DIRECTCONTR + 1 s) (the paper's widest gap is 16 vs 5 on Table 1 LPC-EGEE);
(iv)  ROUNDROBIN is the least fair: ROUNDROBIN >= every other policy;
(v)   the workload matters: on RICC every policy is less fair than on LPC-EGEE (per table; the paper contrasts
      RICC with PIK-IPLEX, which we do not have);
(vi)  Δψ/p_tot grows from Table 1 to Table 2, for every policy (per trace);
(vii) "in long runs DIRECTCONTR clearly outperforms FAIRSHARE": on Table 2, DIRECTCONTR <= 0.8 FAIRSHARE (the
      paper: 410/575 = 0.71, 1808/2746 = 0.66).

Each cell also counts the windows in which DIRECTCONTR is strictly fairer than FAIRSHARE, and the converse (a
paired comparison: the means are dominated by a few windows).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fairsched.errors import ConfigError
from fairsched.replicate._online_windows import (
    Cell,
    PolicySpec,
    ProgressCallback,
    load_traces,
    measure,
    summarize,
)
from fairsched.replicate.ppam13.paper import PAPER, PPAM13Config, check_config
from fairsched.replicate.ppam13.paper import cells as window_cells

__all__ = ["CONCLUSIONS", "PAPER_VARIANT", "VARIANTS", "Variant", "VariantsResult", "run_variants"]


@dataclass(frozen=True)
class Variant:
    """A named set-up: `PPAM13Config` field → value overrides (the shipped replication has none)."""

    name: str
    overrides: tuple[tuple[str, Any], ...] = ()
    hypothesis: str = ""


# The grid, one switch at a time, then the combinations the
# single switches point to.
VARIANTS: tuple[Variant, ...] = (
    Variant("shipped", (), "today's defaults"),
    Variant("zipf", (("splits", ("zipf",)),), "1: Zipf split, s = 1.4267"),
    Variant("zipf s=1", (("splits", ("zipf",)), ("zipf_s", 1.0)), "1: Zipf split, s = 1"),
    Variant("zipf s=2", (("splits", ("zipf",)), ("zipf_s", 2.0)), "1: Zipf split, s = 2"),
    Variant("dc printed", (("directcontr_update", "printed"),), "2: DIRECTCONTR lines 15–16 as printed"),
    Variant("warm", (("window_start", "warm"),), "3: warm start (backlog and running jobs)"),
    Variant("jobs", (("orgs_by", "job"),), "4: jobs, not users, spread over organizations"),
    Variant("ref literal", (("reference", "ref-literal"),), "5: REF's literal tie rule"),
    Variant("rand printed", (("rand_estimator", "printed"),), "6: RAND's φ as printed in Alg. 3"),
    Variant("rand N=75", (("rand_orderings", 75),), "6: RAND with N = 75"),
    Variant("fs per start", (("fairshare_ratios", "per_start"),), "7: fair-share ratios after each start"),
    Variant("zipf+dc printed", (("splits", ("zipf",)), ("directcontr_update", "printed")), "1 + 2"),
)
# Hypothesis 8 of docs/replication/ppam13.md: what else could separate our set-up from the paper's.
HYPOTHESIS_8: tuple[Variant, ...] = (
    Variant("shipped", (), "today's defaults"),
    Variant("zipf", (("splits", ("zipf",)),), "1: Zipf split, s = 1.4267"),
    Variant("clock 60 s", (("granularity", 60),), "8: time granularity, one tick per minute"),
    Variant("clock 600 s", (("granularity", 600),), "8: time granularity, one tick per 10 minutes"),
    Variant("dc lowest", (("directcontr_machines", "lowest"),), "8: DIRECTCONTR's machines lowest id first"),
    Variant("zipf+dc lowest", (("splits", ("zipf",)), ("directcontr_machines", "lowest")), "1 + 8"),
    Variant("serial jobs", (("parallel_jobs", "serial"),), "8: a parallel job is one sequential job"),
    Variant("no parallel", (("parallel_jobs", "skip"),), "8: parallel jobs left out"),
)
PAPER_VARIANT = "paper"  # the pseudo-variant holding the paper's own numbers
WINDOWS_FILE = "ppam13_variants_windows.csv.gz"  # every window, policy and variant (gzip CSV)
CONCLUSIONS: dict[str, str] = {
    "i": "RAND most fair",
    "ii": "DIRECTCONTR most fair of the cheap policies",
    "iii": "FAIRSHARE not much worse than DIRECTCONTR",
    "iv": "ROUNDROBIN least fair",
    "v": "less fair on RICC than on LPC-EGEE",
    "vi": "less fair on Table 2 than on Table 1",
    "vii": "Table 2: DIRECTCONTR clearly fairer than FAIRSHARE",
}
_FS_WITHIN = 3.5   # (iii)
_SLACK_S = 1.0     # (iii): within one second of average unjustified delay is "not much worse" whatever the ratio
_CLEARLY = 0.8     # (vii)
_SCENARIO_FIELDS = ("splits", "zipf_s", "window_start", "orgs_by", "reference")
ROLES = ("ROUNDROBIN", "RAND", "DIRECTCONTR", "FAIRSHARE", "UTFAIRSHARE", "CURRFAIRSHARE")
_PAPER_BY_ROLE = {cell: {next(role for role in ROLES if label.startswith(role)): value for label, value in values}
                  for cell, values in PAPER.items()}
CELL_KEYS = ("variant", "table", "trace", "split", "windows", "policy", "mean", "std", "paper_mean", "paper_std")


@dataclass(frozen=True)
class VariantsResult:
    """What `run_variants` measured.

    Attributes
    ----------
    cells : one row per (variant, table, trace, policy): `CELL_KEYS`, policies named by role ("RAND" whatever
        its N), the paper's values beside ours.
    conclusions : one row per (variant, conclusion, table, trace): variant, conclusion, table, trace, holds
        (bool), detail (the numbers compared); ``trace`` / ``table`` is "" for the conclusions across them.
        The `PAPER_VARIANT` rows check the criteria on the paper's own numbers.
    paired : one row per (variant, table, trace): windows where DIRECTCONTR < FAIRSHARE, > FAIRSHARE, equal.
    per_window : the per-window records of every variant (column ``variant`` added).
    elapsed_s : wall-clock seconds.
    cpu_s : CPU seconds (user + system) of this process and of the worker processes it waited for.
    files : the files written to ``out_dir`` (name → path), if any.
    """

    cells: pd.DataFrame
    conclusions: pd.DataFrame
    paired: pd.DataFrame
    per_window: pd.DataFrame
    elapsed_s: float = 0.0
    cpu_s: float = 0.0
    files: dict[str, Path] = field(default_factory=dict)


def run_variants(config: PPAM13Config, variants: Sequence[Variant] = VARIANTS, *,
                 progress: ProgressCallback | None = None) -> VariantsResult:
    """Run PPAM'13 Tables 1–2 under every variant, on the windows `config` draws (module docstring).

    Cost: one simulation per distinct (scenario set-up, policy, window), REF's 2**k coalitions dominating; the
    policy switches reuse their set-up's REF runs.

    Raises
    ------
    ConfigError : an unknown config field in a variant, a duplicate variant name, or anything `run`
        refuses.
    """
    started, started_cpu = time.perf_counter(), _cpu_s()
    configs = _variant_configs(config, variants)
    workloads = load_traces(config.traces, config.traces_dir)
    measured = []
    for cell in _merge(configs):  # one call per set-up: measure() labels its rows by the table columns only
        _, records = measure([cell], workloads, seed=config.seed, jobs=config.jobs, progress=progress)
        measured.append(records.assign(**_switch_columns(cell)))
    per_window = pd.concat(measured, ignore_index=True)
    frames, cells = [], []
    for name, variant_config in configs.items():
        for cell in window_cells(variant_config):
            mine = per_window[_cell_mask(per_window, cell)]
            for spec in cell.policies:
                records = mine[mine["policy"] == _key(spec)].assign(policy=spec.label, variant=name)
                frames.append(records)
                if spec.name == "ref":
                    continue
                paper = _PAPER_BY_ROLE[(cell.table, cell.trace)].get(_role(spec))  # the tables' split: unsaid
                cells.append({"variant": name, "table": cell.table, "trace": cell.trace, "split": cell.split,
                              **_summary(records), "policy": _role(spec),
                              "paper_mean": None if paper is None else paper[0],
                              "paper_std": None if paper is None else paper[1]})
    cell_frame = pd.DataFrame(cells, columns=list(CELL_KEYS))
    all_windows = pd.concat(frames, ignore_index=True)
    result = VariantsResult(cells=cell_frame, conclusions=conclusions(cell_frame), paired=_paired(all_windows),
                            per_window=all_windows, elapsed_s=time.perf_counter() - started,
                            cpu_s=_cpu_s() - started_cpu)
    if config.out_dir is not None:
        result = replace(result, files=write_variants(result, config.out_dir))
    return result


def _variant_configs(config: PPAM13Config, variants: Sequence[Variant]) -> dict[str, PPAM13Config]:
    names = [variant.name for variant in variants]
    if not variants or len(set(names)) != len(names) or PAPER_VARIANT in names:
        raise ConfigError(f"variants: expected distinct names other than {PAPER_VARIANT!r}, got {names}")
    configs = {}
    for variant in variants:
        try:
            configs[variant.name] = replace(config, **dict(variant.overrides), out_dir=None)
        except TypeError as error:
            raise ConfigError(f"variant {variant.name!r}: {error}; overrides name PPAM13Config fields") from None
        check_config(configs[variant.name])
    return configs


def _key(spec: PolicySpec) -> str:
    """A policy's label in the merged runs: name and parameters, so that switched policies stay apart."""
    return spec.name + "".join(f" {key}={value}" for key, value in spec.params)


def _role(spec: PolicySpec) -> str:
    return next(role for role in ROLES if spec.label.startswith(role))


def _merge(configs: dict[str, PPAM13Config]) -> list[Cell]:
    """One cell per distinct scenario set-up, running the union of the variants' policies (labelled by `_key`)."""
    merged: dict[Cell, Cell] = {}
    for variant_config in configs.values():
        for cell in window_cells(variant_config):
            scenario = replace(cell, policies=(), paper_values=())
            have = merged.get(scenario, scenario).policies
            extra = tuple(PolicySpec(_key(spec), spec.name, spec.params) for spec in cell.policies
                          if _key(spec) not in {known.label for known in have})
            merged[scenario] = replace(scenario, policies=have + extra)
    return list(merged.values())


def _cell_mask(per_window: pd.DataFrame, cell: Cell) -> pd.Series:
    mask = (per_window["table"] == cell.table) & (per_window["trace"] == cell.trace) & \
        (per_window["split"] == cell.split)
    for column, value in _switch_columns(cell).items():
        mask &= per_window[column] == value
    return mask


def _switch_columns(cell: Cell) -> dict[str, Any]:
    return {"orgs_by": cell.orgs_by, "zipf_s": cell.zipf_s, "warm_start": cell.warm_start,
            "reference": cell.reference, "granularity": cell.granularity, "parallel_jobs": cell.parallel_jobs}


def _summary(records: pd.DataFrame) -> dict[str, Any]:
    return summarize(records["ratio"].to_numpy(dtype=np.float64))


def conclusions(cells: pd.DataFrame) -> pd.DataFrame:
    """Conclusions (i)–(vii) for every variant in `cells`, plus the paper's own numbers (`PAPER_VARIANT`)."""
    paper = cells[cells["variant"] == cells["variant"].iloc[0]].assign(
        variant=PAPER_VARIANT, mean=cells["paper_mean"], std=cells["paper_std"]).dropna(subset=["mean"])
    rows = []
    for variant, frame in pd.concat([paper, cells], ignore_index=True).groupby("variant", sort=False):
        means = {(r.table, r.trace, r.policy): float(r.mean) for r in frame.itertuples()}
        rows.extend({"variant": variant, **row} for row in _check(means))
    return pd.DataFrame(rows, columns=["variant", "conclusion", "table", "trace", "holds", "detail"])


def _check(means: dict[tuple[str, str, str], float]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    cells = list(dict.fromkeys((table, trace) for table, trace, _ in means))

    def add(conclusion: str, table: str, trace: str, holds: bool, detail: str) -> None:
        rows.append({"conclusion": conclusion, "table": table, "trace": trace, "holds": bool(holds),
                     "detail": detail})

    for table, trace in cells:
        m = {policy: means[(table, trace, policy)] for policy in ROLES if (table, trace, policy) in means}
        if len(m) < len(ROLES):
            continue
        others = [p for p in ROLES if p != "RAND"]
        add("i", table, trace, all(m["RAND"] <= m[p] for p in others),
            f"RAND {m['RAND']:.4g} vs best other {min(m[p] for p in others):.4g}")
        cheap = ("FAIRSHARE", "UTFAIRSHARE", "CURRFAIRSHARE", "ROUNDROBIN")
        add("ii", table, trace, all(m["DIRECTCONTR"] <= m[p] for p in cheap),
            f"DIRECTCONTR {m['DIRECTCONTR']:.4g} vs best cheap other {min(m[p] for p in cheap):.4g}")
        add("iii", table, trace, m["DIRECTCONTR"] <= m["FAIRSHARE"] <= max(_FS_WITHIN * m["DIRECTCONTR"],
                                                                          m["DIRECTCONTR"] + _SLACK_S),
            f"FAIRSHARE / DIRECTCONTR = {_ratio(m['FAIRSHARE'], m['DIRECTCONTR'])}")
        add("iv", table, trace, all(m["ROUNDROBIN"] >= m[p] for p in ROLES),
            f"ROUNDROBIN {m['ROUNDROBIN']:.4g} vs worst other "
            f"{max(m[p] for p in ROLES if p != 'ROUNDROBIN'):.4g}")
        if table == "table2":
            add("vii", table, trace, m["DIRECTCONTR"] <= _CLEARLY * m["FAIRSHARE"],
                f"DIRECTCONTR / FAIRSHARE = {_ratio(m['DIRECTCONTR'], m['FAIRSHARE'])}")
    tables = dict.fromkeys(table for table, _ in cells)
    for table in tables:
        pairs = [(means[(table, "LPC-EGEE", p)], means[(table, "RICC", p)]) for p in ROLES
                 if (table, "LPC-EGEE", p) in means and (table, "RICC", p) in means]
        if pairs:
            add("v", table, "", all(ricc > lpc for lpc, ricc in pairs),
                f"{sum(ricc > lpc for lpc, ricc in pairs)}/{len(pairs)} policies")
    for trace in dict.fromkeys(trace for _, trace in cells):
        pairs = [(means[("table1", trace, p)], means[("table2", trace, p)]) for p in ROLES
                 if ("table1", trace, p) in means and ("table2", trace, p) in means]
        if pairs:
            add("vi", "", trace, all(long > short for short, long in pairs),
                f"{sum(long > short for short, long in pairs)}/{len(pairs)} policies")
    return rows


def _ratio(numerator: float, denominator: float) -> str:
    return f"{numerator / denominator:.2f}" if denominator > 0 else ("n/a" if numerator == 0 else "inf")


def _paired(per_window: pd.DataFrame) -> pd.DataFrame:
    """Windows where DIRECTCONTR is strictly fairer than FAIRSHARE, strictly less fair, or equal."""
    rows = []
    keys = ["variant", "table", "trace", "split"]
    for key, frame in per_window.groupby(keys, sort=False):
        by = {policy: group.set_index("window")["ratio"] for policy, group in frame.groupby("policy")}
        if "DIRECTCONTR" not in by or "FAIRSHARE" not in by:
            continue
        dc, fs = by["DIRECTCONTR"].align(by["FAIRSHARE"], join="inner")
        rows.append({**dict(zip(keys, key, strict=True)), "dc_fairer": int((dc < fs).sum()),
                     "fs_fairer": int((dc > fs).sum()), "equal": int((dc == fs).sum())})
    return pd.DataFrame(rows, columns=[*keys, "dc_fairer", "fs_fairer", "equal"])


def _cpu_s() -> float:
    """CPU seconds (user + system) used so far by this process and by the children it has waited for."""
    import resource

    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def write_variants(result: VariantsResult, out_dir: str | Path) -> dict[str, Path]:
    """``ppam13_variants_cells.csv``, ``_conclusions.csv``, ``_paired.csv``, ``_windows.csv.gz`` and ``_run.csv`` (the
    run's wall and CPU seconds, which docs/replication/ppam13.md quotes), atomically."""
    import gzip

    from fairsched._io import atomic_write  # writing is optional

    files: dict[str, Path] = {}
    run = pd.DataFrame([{"wall_s": result.elapsed_s, "cpu_s": result.cpu_s}])
    for name, frame in (("cells", result.cells), ("conclusions", result.conclusions), ("paired", result.paired),
                        ("run", run)):
        path = Path(out_dir) / f"ppam13_variants_{name}.csv"
        with atomic_write(path) as handle:
            frame.to_csv(handle, index=False, float_format="%.6g")
        files[name] = path
    # one row per window, policy and variant: megabytes on 100 windows, so gzip (mtime 0: same rows, same bytes)
    text = result.per_window.to_csv(index=False, float_format="%.6g")
    files["windows"] = Path(out_dir) / WINDOWS_FILE
    with atomic_write(files["windows"], "wb") as handle:
        handle.write(gzip.compress(text.encode("utf-8"), mtime=0))
    return files


def to_json(result: VariantsResult) -> dict[str, Any]:
    """``{"cells": [...], "conclusions": [...], "paired": [...]}`` (NaN → null)."""
    def records(frame: pd.DataFrame) -> list[dict[str, Any]]:
        return [{key: (None if isinstance(value, float) and value != value else value) for key, value in row.items()}
                for row in frame.astype(object).to_dict("records")]

    return {"cells": records(result.cells), "conclusions": records(result.conclusions),
            "paired": records(result.paired)}


def render(result: VariantsResult) -> str:
    """Plain-text tables: mean Δψ/p_tot per variant and cell, then which conclusions hold (✓ / ✗)."""
    means = result.cells.pivot_table(index=["variant", "table", "trace"], columns="policy", values="mean",
                                     sort=False)[list(ROLES)]
    marks = result.conclusions.assign(cell=result.conclusions["table"] + " " + result.conclusions["trace"],
                                      mark=result.conclusions["holds"].map({True: "✓", False: "✗"}))
    holds = marks.pivot_table(index="variant", columns=["conclusion", "cell"], values="mark", aggfunc="first",
                              sort=False)
    files = f"\noutputs: {', '.join(str(path) for path in result.files.values())}" if result.files else ""
    return (f"PPAM'13 Tables 1–2 under each variant: mean Δψ/p_tot (s)\n{means.to_string(float_format='%.4g')}\n\n"
            f"conclusions (docs/replication/ppam13.md)\n{holds.to_string()}\n"
            f"{result.elapsed_s:.0f} s{files}")
