"""Render the tables of docs/slurm.md's "Simulation against the real thing" from docs/slurm/data/slurm_vs_sim.json.

The JSON is written by ``benchmarks/slurm_vs_sim.py analyse``; each ``<!-- table: NAME -->`` block of the doc is
the rendering of one function of `TABLES` (``tests/test_slurm_vs_sim_doc.py`` checks that the doc is up to date).

    python benchmarks/slurm_vs_sim_tables.py docs/slurm.md
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from fairsched._io import atomic_write
from fairsched.errors import ConfigError
from fairsched.replicate._doc_format import fmt, keep_other_blocks, markdown_table, render_blocks

DATA_DIR = Path(__file__).resolve().parents[1] / "docs" / "slurm" / "data"
FILE = "slurm_vs_sim.json"
POLICIES = ("fair-tree", "classic")
VARIANT_NAMES = {"none": "strict order", "easy": "EASY", "conservative": "conservative"}


def load(data_dir: Path) -> dict[str, Any]:
    path = data_dir / FILE
    if not path.exists():
        raise ConfigError(f"{path} is missing: run benchmarks/slurm_vs_sim.py run, then analyse")
    return json.loads(path.read_text(encoding="utf-8"))


def _arms(doc: dict[str, Any]):
    for log, entry in doc["logs"].items():
        for policy in POLICIES:
            if policy in entry["policies"]:
                yield log, entry, policy, entry["policies"][policy]


def _range(values: list[float], digits: int = 3) -> str:
    if not values:
        return "—"
    if len(values) == 1:
        return fmt(values[0], digits)
    return f"{fmt(sum(values) / len(values), digits)} [{fmt(min(values), digits)}, {fmt(max(values), digits)}]"


def design(data_dir: Path) -> str:
    doc = load(data_dir)
    rows = []
    for log, entry, policy, arm in _arms(doc):
        window, config = entry["window"], arm["config"]
        reps = arm["replays"]
        rows.append([log, policy, f"{window['first_job']}–{window['last_job']}", config["jobs"],
                     fmt(window["runs_cut_to_half_span"], 0), f"1/{config['scale']:g}",
                     f"{config['nodes']} × {config['cpus_per_node']}",
                     ", ".join(f"{a} {s}" for a, s in config["shares"].items()), len(reps),
                     fmt(sum(r["raised_to_min"] for r in reps) / len(reps), 0),
                     ", ".join(fmt(r["replay_seconds"], 0) for r in reps),
                     ", ".join(fmt(r["makespan"], 0) for r in reps)])
    return markdown_table(["log", "policy", "log job ids", "jobs", "runs cut", "scale", "nodes × CPUs", "shares",
                           "replays", "raised to 2 s", "replay time (s)", "makespan (s)"], rows, "lllrrlllrrll")


def _checks(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """Every fairshare check: the design's replays (no decay) and the decay-on replays, one dict each."""
    found = [{"log": log, "policy": policy, "rep": r["rep"], "half_life": arm["config"]["half_life"], **r["fairshare"]}
             for log, _, policy, arm in _arms(doc) for r in arm["replays"]]
    return found + list(doc.get("fairshare_with_decay", []))


def _half_life(seconds: int) -> str:
    return "0 (no decay)" if seconds == 0 else f"{seconds // 60} min"


def fairshare(data_dir: Path) -> str:
    groups: dict[tuple[str, str, int], list[dict[str, Any]]] = {}
    for check in _checks(load(data_dir)):
        groups.setdefault((check["log"], check["policy"], check["half_life"]), []).append(check)
    rows = []
    for (log, policy, half_life), checks in groups.items():
        bad = [m for c in checks for m in c["mismatches"]]
        largest = max((abs(float(m["fairsched"]) - float(m["sshare"])) for m in bad), default=0.0)
        rows.append([log, policy, _half_life(half_life), len(checks), sum(c["compared"] for c in checks), len(bad),
                     fmt(largest, 6)])
    return markdown_table(["log", "policy", "half-life", "sshare dumps", "values compared", "mismatches",
                           "largest difference"], rows, "lllrrrr")


def mismatches(data_dir: Path) -> str:
    rows = [[c["log"], c["policy"], _half_life(c["half_life"]), c["rep"], m["account"], m["user"] or "—",
             m["column"], m["fairsched"], m["sshare"]]
            for c in _checks(load(data_dir)) for m in c["mismatches"]]
    if not rows:
        return "No mismatch: every FairShare and LevelFS that sshare printed is reproduced to its 6 decimals.\n"
    return markdown_table(["log", "policy", "half-life", "replay", "account", "user", "column", "fairsched",
                           "sshare"], rows, "lllrllllr")


def _label(key: str) -> str:
    rule, phase, latency, assoc = _variant(key)
    return (rule + ("" if latency == "0" else f", {latency}") + ("" if phase == "first submission" else ", phased")
            + ("" if assoc == "users" else ", one user per account"))


def agreement(data_dir: Path) -> str:
    doc = load(data_dir)
    rows = []
    for log, _, policy, arm in _arms(doc):
        ceiling = arm["real_vs_real_tau"]
        for key in doc["shown"]:
            variant = arm["variants"][key]
            gap = (sum(ceiling) / len(ceiling) - variant["tau_mean"]) if ceiling else float("nan")
            within = sum(variant["wait_within_spread"].values())
            rows.append([log, policy, _label(key), _range(variant["tau"]), _range(ceiling), fmt(gap, 3),
                         "yes" if variant["tau_goal"] else "no", f"{within} of {len(arm['accounts'])}"])
    return markdown_table(["log", "policy", "simulated with", "τ sim vs real", "τ real vs real (ceiling)",
                           "ceiling − sim", "τ goal (≤ 0.05)", "accounts: sim wait in real spread"], rows,
                          "lllllrll")


def waits(data_dir: Path) -> str:
    doc = load(data_dir)
    main, best = doc["shown"]
    rows = []
    for log, _, policy, arm in _arms(doc):
        for account in arm["accounts"]:
            real = arm["real_mean_wait"][account]
            cells = []
            for key in (main, best):
                variant = arm["variants"][key]
                cells.append(fmt(variant["sim_mean_wait"][account], 1) +
                             ("" if variant["wait_within_spread"][account] else " ✗"))
            rows.append([log, policy, account,
                         f"{fmt(real['mean'], 1)} [{fmt(real['min'], 1)}, {fmt(real['max'], 1)}]", *cells,
                         fmt(100 * arm["real_usage_share"][account], 1),
                         *(fmt(100 * arm["variants"][key]["sim_usage_share"][account], 1) for key in (main, best))])
    return markdown_table(["log", "policy", "account", "real mean wait (s) [min, max]", f"simulated: {_label(main)}",
                           f"simulated: {_label(best)}", "real usage share (%)", f"{_label(main)} (%)",
                           f"{_label(best)} (%)"], rows, "lllrrrrrr")


def _variant(key: str) -> tuple[str, str, str, str]:
    """(backfilling, tick phase, release latency, associations) of a variant key ``rule/phase/latency/assoc``."""
    rule, phase, latency, assoc = key.split("/")
    return (VARIANT_NAMES[rule], "first submission" if phase == "phase0" else "the cluster's",
            "0" if latency == "0" else f"+{latency} s", "users" if assoc == "tree" else "one per account")


def ablation(data_dir: Path) -> str:
    """One row per variant; per (log, policy): mean τ sim vs real / mean |simulated − real mean wait| (s)."""
    doc = load(data_dir)
    arms = list(_arms(doc))
    keys = sorted({k for *_, arm in arms for k in arm["variants"]},
                  key=lambda k: (k.endswith("flat"), k.split("/")[1] != "phase0",
                                 list(VARIANT_NAMES).index(k.split("/")[0]), k))
    rows = []
    for key in keys:
        cells = []
        for *_, arm in arms:
            variant = arm["variants"].get(key)
            if variant is None:
                cells.append("—")
                continue
            err = [abs(variant["sim_mean_wait"][a] - arm["real_mean_wait"][a]["mean"]) for a in arm["accounts"]]
            cells.append(f"{fmt(variant['tau_mean'], 3)} / {fmt(sum(err) / len(err), 1)}")
        rows.append([*_variant(key), *cells])
    return markdown_table(["backfilling", "tick phase", "release latency", "associations",
                           *(f"{log} {policy}" for log, _, policy, _ in arms)], rows, "llll" + "r" * len(arms))


def latency(data_dir: Path) -> str:
    rows = []
    for log, _, policy, arm in _arms(load(data_dir)):
        reps = arm["replays"]
        rows.append([log, policy, ", ".join(fmt(r["start_latency"], 1) for r in reps),
                     ", ".join(fmt(r["release_latency"], 1) for r in reps),
                     ", ".join(fmt(r["real_phase"], 1) for r in reps),
                     ", ".join(str(r["multi_node_jobs"]) for r in reps)])
    return markdown_table(["log", "policy", "start latency (s)", "release latency (s)", "tick phase (s)",
                           "jobs on several nodes"], rows, "llllll")


TABLES = {"slurm-vs-sim-design": design, "slurm-vs-sim-fairshare": fairshare, "slurm-vs-sim-mismatches": mismatches,
          "slurm-vs-sim-agreement": agreement, "slurm-vs-sim-waits": waits, "slurm-vs-sim-latency": latency,
          "slurm-vs-sim-ablation": ablation}


def main(argv: list[str] | None = None) -> None:
    """Rewrite the table blocks of each doc given on the command line from ``docs/slurm/data``."""
    for doc in map(Path, argv if argv is not None else sys.argv[1:]):
        text = doc.read_text(encoding="utf-8")
        with atomic_write(doc, encoding="utf-8") as handle:
            handle.write(render_blocks(text, DATA_DIR, keep_other_blocks(text, TABLES)))


if __name__ == "__main__":
    main()
