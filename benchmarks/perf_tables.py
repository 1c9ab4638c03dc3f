"""docs/performance.md's tables, rendered from the saved benchmark results of ``docs/performance/data``.

``make bench`` (``benchmarks/run_all.py --save docs/performance/data``) writes one JSON file per benchmark script:
its document (``result``) and the measurement's context (date, commit, machine, load average, wall and CPU time).
docs/performance.md marks each generated table with ``<!-- table: NAME -->`` … ``<!-- /table -->`` (the blocks of
`fairsched.replicate._doc_format`); `TABLES` maps NAME to a renderer ``f(data_dir) -> markdown``. After a new
measurement, ``.venv/bin/python benchmarks/perf_tables.py docs/performance.md`` rewrites the blocks;
tests/test_performance_doc_tables.py checks that every block equals its rendering, so no figure is typed by hand.

Every table ends with the line saying when, where and under which load its figures were measured. CPU time
(user + system of the process) is printed beside wall time wherever the script measures it: on a shared machine the
wall time grows with the load, the CPU time much less.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fairsched._io import atomic_write
from fairsched.errors import ConfigError
from fairsched.replicate._doc_format import fmt, markdown_table, render_blocks

ROOT = Path(__file__).resolve().parents[1]
DATA_DIR = ROOT / "docs" / "performance" / "data"


def load(data_dir: Path, name: str) -> dict[str, Any]:
    """The saved record of ``bench_<name>.py`` (`run_all.py --save`)."""
    path = data_dir / f"{name}.json"
    if not path.exists():
        raise ConfigError(f"{path}: no saved measurement; run .venv/bin/python benchmarks/run_all.py --save "
                          f"{data_dir} --only {name}")
    return json.loads(path.read_text(encoding="utf-8"))


def measured(record: dict[str, Any]) -> str:
    """The line under a table: when, at which commit, on which machine, under which load, with which command."""
    before, after = record["load_average_before"][0], record["load_average_after"][0]
    dirty = " with uncommitted changes" if record["uncommitted_changes"] else ""
    return (f"\n*Measured {record['date']} at commit {record['commit']}{dirty}, {record['machine']['cpus']} CPUs, "
            f"load average {before:g} → {after:g}; the whole script took {record['wall_s']:,.1f} s wall, "
            f"{record['cpu_s']:,.1f} s CPU (`{' '.join(record['command'])}`).*\n")


def seconds(wall: float, cpu: float | None = None, digits: int = 2) -> str:
    """``CPU s (wall s)`` when the CPU time is known, else the wall time."""
    if cpu is None:
        return f"{fmt(wall, digits)} s"
    return f"{fmt(cpu, digits)} s ({fmt(wall, digits)} s)"


def millis(wall: float, cpu: float | None = None, digits: int = 1) -> str:
    """`seconds` in milliseconds: ``CPU ms (wall ms)``; two decimals below 1 ms."""
    digits = 2 if min(wall, wall if cpu is None else cpu) < 0.001 else digits
    if cpu is None:
        return f"{fmt(wall * 1000, digits)} ms"
    return f"{fmt(cpu * 1000, digits)} ms ({fmt(wall * 1000, digits)} ms)"


SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def sci(value: float, digits: int = 2) -> str:
    """``2.2·10⁵``: a large or small number with `digits` significant digits."""
    mantissa, exponent = f"{value:.{digits - 1}e}".split("e")
    return f"{mantissa}·10{str(int(exponent)).translate(SUPERSCRIPT)}"


def read_swf(data_dir: Path) -> str:
    record = load(data_dir, "read_swf")
    rows = [(r["trace"], f"{r['records']:,}", fmt(r["cpu_s"]), fmt(r["seconds"]),
             "< 5 s" if r["trace"].startswith("RICC") else "") for r in record["result"]]
    return markdown_table(("trace", "records", "CPU s", "wall s", "target"), rows) + measured(record)


def validate(data_dir: Path) -> str:
    record = load(data_dir, "validate")
    rows = [(f"{r['rows']:,}", f"{r['machines']:,}",
             seconds(r["check_online_schedule_s"], r["check_online_schedule_cpu_s"], 3),
             seconds(r["psi_from_schedule_s"], r["psi_from_schedule_cpu_s"], 3)) for r in record["result"]["results"]]
    header = ("rows", "machines", "`check_online_schedule` CPU (wall)", "`psi_from_schedule` CPU (wall)")
    return markdown_table(header, rows) + measured(record)


BACKFILL_TARGETS = {("fcfs", "easy"): "target < 1 s", ("fcfs", "conservative"): "target < 10 s"}


def backfill(data_dir: Path) -> str:
    record = load(data_dir, "backfill")
    full = record["result"]["full"]
    rules = list(dict.fromkeys(r["backfill"] for r in full["results"]))
    orders = list(dict.fromkeys(r["order"] for r in full["results"]))
    cell = {(r["order"], r["backfill"]): r for r in full["results"]}
    rows = []
    for order in orders:
        row = [order]
        for rule in rules:
            r = cell[(order, rule)]
            target = BACKFILL_TARGETS.get((order, rule))
            row.append(seconds(r["seconds"], r["cpu_s"]) + (f", {target}" if target else ""))
        rows.append(row)
    text = (f"Full {full['trace'].split('-1996')[0]} ({full['jobs']:,} jobs after cleaning, {full['processors']} "
            "processors), simulation only, CPU (wall), best of 3:\n\n")
    text += markdown_table(("order", *rules), rows)
    oracle = [r for r in record["result"]["oracle"] if "seconds" in r]
    if oracle:
        text += "\npyss oracle inputs (10,000 jobs each), FCFS under pyss's three policies:\n\n"
        text += markdown_table(("input", "policy", "ours: CPU (wall)", "pyss", "pyss / ours (CPU)"), [
            (r["case"], r["policy"], seconds(r["seconds"], r["cpu_s"], 3), f"{r['pyss_seconds']:g} s",
             f"{r['pyss_seconds'] / max(r['cpu_s'], 1e-9):,.0f}×") for r in oracle])
    what_if = record["result"].get("what_if")
    if what_if:
        text += (f"\nStrict what-ifs of the first {what_if['jobs']:,} jobs (FCFS × EASY; fork at each arrival, run "
                 f"until the job starts): {seconds(what_if['seconds'], what_if['cpu_s'])}.\n")
    return text + measured(record)


def fst(data_dir: Path) -> str:
    record = load(data_dir, "fst")
    result = record["result"]
    rows = []
    for part, label in (("subset", "first 5,000 jobs"), ("full", f"full ({result.get('full', {}).get('jobs', 0):,} "
                                                                  "jobs)")):
        for r in result.get(part, {}).get("results", []):
            target = ""
            if r["order"] == "fcfs" and r["backfill"] == "easy":
                target = "< 10 s (both)" if part == "subset" else "< 2 min"
            rows.append((f"CTC-SP2 {label}", f"{r['order']} × {r['backfill']}",
                         seconds(r["strict_s"], r.get("strict_cpu_s")), seconds(r["relaxed_s"], r.get("relaxed_cpu_s")),
                         target))
    text = markdown_table(("case", "policy", "strict: CPU (wall)", "relaxed: CPU (wall)", "target"), rows,
                          align="llrrr")
    re_rows = [(r["schedule"], f"{r['jobs']:,}", seconds(r["seconds"], r.get("cpu_s"), 3)) for r in result["re"]]
    text += "\nResource equality of the whole trace:\n\n"
    text += markdown_table(("schedule", "jobs", "CPU (wall)"), re_rows)
    return text + measured(record)


def mosp(data_dir: Path) -> str:
    record = load(data_dir, "mosp")
    result = record["result"]
    wall, cpu = result["single_n500_N20_m512_s"], result["single_n500_N20_m512_cpu_s"]
    rows = [(name, *(millis(wall[kind][name], cpu[kind][name]) for kind in ("uni", "swf"))) for name in wall["uni"]]
    text = markdown_table(("algorithm", "uni: CPU (wall)", "swf: CPU (wall)"), rows)
    sweep = result["homogeneous_sweep"]
    text += (f"\nThe TPDS'11 homogeneous sweep ({sweep['instances']:,} instances, {sweep['runs']:,} validated "
             f"schedules with the local-policies runs) took {fmt(sweep['seconds'], 1)} s wall with "
             f"{sweep['workers']} workers.\n")
    return text + measured(record)


def sweep(data_dir: Path) -> str:
    record = load(data_dir, "sweep")
    result = record["result"]
    load_avg = f"{record['load_average_before'][0]:g} → {record['load_average_after'][0]:g}"
    over = result["overhead"]
    rows = [(f"{over['cells']} cells of fixed CPU work calibrated to 0.5 s ({fmt(over['mean_cell_s'])} s each "
             "under that load)", load_avg, f"Σ cell times / {over['workers']} = {fmt(over['ideal_s'], 1)} s",
             f"{fmt(over['wall_s'], 1)} s", fmt(over["ratio"]), "≤ 1.15")]
    if "tpds11" in result:
        t = result["tpds11"]
        rows.append((f"TPDS'11 homogeneous + local policies: {t['instances']:,} instances, {t['schedules']:,} "
                     "validated schedules", load_avg, f"loop: {fmt(t['loop_s'], 1)} s", f"{fmt(t['sweep_s'], 1)} s",
                     fmt(t["ratio"]), "≤ 1.2"))
    header = ("measurement", "load", "ideal or baseline", "sweep layer", "ratio", "target")
    return markdown_table(header, rows, align="llrrrr") + measured(record)


OPENSHOP_ROWS: tuple[tuple[str, str], ...] = (
    ("pba", "PBA (Algorithm 2, equal utilities)"), ("generalized_pba", "generalized PBA (linear utilities)"),
    ("kmaxmin_k2", "k-Max-Min, k = 2"), ("sptf", "SPTF"), ("luf_equal", "LUF (equal)"),
    ("luf_linear", "LUF (linear)"), ("fifo", "FIFO"))


def openshop(data_dir: Path) -> str:
    record = load(data_dir, "openshop")
    synthetic = record["result"]["synthetic"]
    kinds = [kind for kind in ("heavy", "uniform") if kind in synthetic]
    rows = []
    for key in ("evaluate_permutation", "evaluate_task_order"):
        cells = []
        for k in kinds:
            run = synthetic[k][key]
            rate = synthetic[k]["tasks"] / (run.get("cpu_s") or run["seconds"])
            cells.append(f"{millis(run['seconds'], run.get('cpu_s'))} = {sci(rate)} tasks/s")
        rows.append((f"`{key}`", *cells))
    algorithms = synthetic[kinds[0]]["algorithms"]
    for key, label in OPENSHOP_ROWS:
        if key in algorithms:
            rows.append((label, *(seconds(synthetic[k]["algorithms"][key]["seconds"],
                                          synthetic[k]["algorithms"][key].get("cpu_s"), 3) for k in kinds)))
    online = synthetic["heavy"].get("online_paper_intervals")
    if online:
        names = [n for n in online if n != "delta0_s"]
        rows.append((f"online, paper's δ₀ = {online['delta0_s']:,.0f} s: {' / '.join(n.upper() for n in names)}",
                     " / ".join(f"{fmt(online[n].get('cpu_s', online[n]['seconds']), 3)}" for n in names)
                     + " s (" + " / ".join(f"{fmt(online[n]['seconds'], 3)}" for n in names) + " s)",
                     *([""] * (len(kinds) - 1))))
    text = markdown_table(("CPU (wall)", *kinds), rows) + "\n"
    heavy = synthetic["heavy"]["algorithms"]
    means = {key: heavy[key]["mean_completion"] for key in ("pba", "sptf", "fifo") if key in heavy}
    if len(means) == 3:
        text += (f"Mean completion times on *heavy*: {sci(means['pba'])} s under PBA, {sci(means['sptf'])} s "
                 f"under SPTF, {sci(means['fifo'])} s under FIFO: PBA is {means['sptf'] / means['pba']:.2f}× "
                 f"better than SPTF and {means['fifo'] / means['pba']:.2f}× better than FIFO (the paper: 1.7× "
                 "and 3×).\n")
    return text + measured(record)


def openshop_sizes(data_dir: Path) -> str:
    """The two synthetic instances' sizes, as the script describes them."""
    record = load(data_dir, "openshop")
    synthetic = record["result"]["synthetic"]
    rows = [(kind, f"{d['jobs']:,}", f"{d['tasks']:,}", f"{d['machines']:,}", fmt(d["tasks_per_job_mean"], 1),
             f"{d['task_time_median']:g}", f"{d['task_time_max']:,}") for kind, d in synthetic.items()]
    return markdown_table(("instance", "jobs", "tasks", "machines", "tasks per job (mean)", "median p", "max p"),
                          rows)


def openshop_exact(data_dir: Path) -> str:
    record = load(data_dir, "openshop")
    exact = record["result"].get("exact", {})
    brute = exact.get("brute_force_n8", {})
    milp = {key.removeprefix("lexicographic_milp_n"): value for key, value in exact.items()
            if key.startswith("lexicographic_milp_n")}
    sizes = sorted(milp, key=int)
    rows = [("brute force (8! permutations)", *(f"{fmt(brute['seconds'], 2)} s" if n == "8" and brute else "—"
                                               for n in sizes)),
            ("lexicographic MILP (prefix makespans, HiGHS, one thread)",
             *(f"{fmt(milp[n]['seconds'], 2)} s" + (", same vector as brute force"
                                                    if milp[n].get("same_vector_as_brute_force") else "")
               for n in sizes))]
    return markdown_table(("", *(f"n = {n}" for n in sizes)), rows) + measured(record)


def heap_ab(data_dir: Path, name: str = "heap_ab") -> str:
    """The one heap and the one profile (issue 23 item 5): best CPU time before and after, per case, and the ratio.

    The caption names each *before* commit; a ratio is printed with two decimals, and the runs' spread
    (``worst / best`` of each side) beside it says how much of a ratio is the machine's noise. `name`: the saved
    file (``heap_ab_backfill``: a rerun of the backfill group alone, ``--save`` given that name).
    """
    record = load(data_dir, name)
    cases = record["result"]["cases"]
    rows = [(c["case"], c["before_commit"], f"{fmt(c['before_cpu_s'], 3)} s", f"{fmt(c['after_cpu_s'], 3)} s",
             f"{c['after_cpu_s'] / c['before_cpu_s']:.2f}",
             f"{max(c['before_runs']) / min(c['before_runs']):.2f} / {max(c['after_runs']) / min(c['after_runs']):.2f}")
            for c in cases]
    runs = record["result"]["rounds"]
    return (markdown_table(("case", "before (commit)", "before: best CPU", "after: best CPU", "after / before",
                            "spread of the runs, before / after"), rows)
            + f"\nBest of {runs} runs per tree, the trees alternating; after = commit {record['commit']}.\n"
            + measured(record))


def openshop_google(data_dir: Path) -> str:
    """The Google slice: reading, then the offline and online runs (a sentence: one row each would be a table of
    one row)."""
    record = load(data_dir, "openshop")
    google = record["result"].get("google", {})
    if "skipped" in google or not google:
        return f"Not measured: {google.get('skipped', 'no Google slice')}.\n" + measured(record)
    offline, online = google["offline"], google["online_scaled_intervals"]
    labels = {"pba": "PBA", "sptf": "SPTF", "fifo": "FIFO", "generalized_pba": "generalized PBA",
              "luf_linear": "LUF (linear)"}
    runs = ", ".join(f"{labels.get(name, name)} {millis(run['seconds'], run.get('cpu_s'))}"
                     for name, run in offline.items())
    text = (f"`read_google` takes {seconds(google['read_seconds'], google.get('read_cpu_s'))} for "
            f"{google['task_events']:,} task events and {google['job_events']:,} job events, giving "
            f"{google['jobs_kept']:,} jobs and {google['tasks_kept']:,} tasks over {google['arrival_span_hours']:g} "
            f"hours. Offline (arrivals set to 0), CPU (wall): {runs}. Online, with δ₀ scaled to the slice "
            f"({online['delta0_s']:,.0f} s), PBA takes {millis(online['pba']['seconds'], online['pba'].get('cpu_s'))}"
            ".\n")
    return text + measured(record)


def openshop_online(data_dir: Path) -> str:
    """Online mean delays on *heavy* with the paper's intervals (a sentence)."""
    record = load(data_dir, "openshop")
    online = record["result"]["synthetic"]["heavy"]["online_paper_intervals"]
    delays = {name: online[name]["mean_delay"] for name in ("pba", "sptf", "fifo") if name in online}
    return (f"PBA's mean delay is {sci(delays['pba'])} s against {sci(delays['sptf'])} s for SPTF and "
            f"{sci(delays['fifo'])} s for FIFO (δ₀ = {online['delta0_s']:,.0f} s).\n")


def online(data_dir: Path) -> str:
    """The online engine on whole traces (`bench_online.py`): one row per trace, CPU (wall) per policy."""
    record = load(data_dir, "online")
    cases = [c for c in record["result"]["results"] if "policies" in c]
    policies = list(cases[0]["policies"]) if cases else []
    rows = [(c["trace"], f"{c['sequential_jobs']:,}", f"{c['machines']:,}", f"{fmt(c['prepare_s'], 1)} s",
             *(seconds(c["policies"][p]["seconds"], c["policies"][p].get("cpu_s"), 1) for p in policies),
             f"{max(v['peak_rss_mb'] for v in c['policies'].values()):,} MB") for c in cases]
    return markdown_table(("trace", "sequential jobs", "machines", "prepare (wall)",
                           *(f"{p}: CPU (wall)" for p in policies), "peak memory"), rows) + measured(record)


def ticked(data_dir: Path) -> str:
    """Ticked queue orders on a whole trace (`bench_ticked.py`): one row per order x rule, FCFS the floor."""
    record = load(data_dir, "ticked")
    result = record["result"]
    head = (f"{result['trace']} ({result['n_jobs']:,} cleaned jobs, {result['processors']:,} processors, "
            f"{result['n_orgs']:,} groups as organizations, {result['days']:,.0f} days: {result['ticks']:,} ticks), "
            "simulation only, best of 3:\n\n")
    rows = [(r["order"], r["backfill"], seconds(r.get("wall_s", r["cpu_s"]), r["cpu_s"]),
             f"{r['mean_wait_s']:,.0f} s") for r in result["runs"]]
    return head + markdown_table(("order", "backfill", "CPU (wall)", "mean wait"), rows) + measured(record)


def audit(data_dir: Path) -> str:
    """`fairsched audit` of whole logs (`bench_audit.py`): one row per case, CPU (user + system) first."""
    record = load(data_dir, "audit")
    rows = []
    for r in record["result"].get("results", []):
        if "skipped" in r:
            rows.append((f"`{r['case']}`", "skipped: " + r["skipped"], "", "", "", "", "", ""))
            continue
        game = "exact" if r["shapley"] == "exact" else f"{r['samples']:,} sampled orderings"
        rows.append((f"`{r['case']}`", f"{r['jobs_used']:,}", f"{r['orgs']:,} ({game})", f"{r['coalitions']:,}",
                     f"{r['progress_reports']:,}", seconds(r["wall_s"], r["cpu_s"], 1),
                     f"{fmt(r['game_cpu_s'], 1)} s", f"{r['peak_rss_mb']:,} MB"))
    return markdown_table(("case", "jobs replayed", "organizations", "coalitions replayed", "progress reports",
                           "CPU (wall)", "CPU of the game", "peak memory"), rows) + measured(record)


def whatif(data_dir: Path) -> str:
    """`fairsched whatif` with six policies (`bench_whatif.py`): the game played, read from the cache, and off."""
    record = load(data_dir, "whatif")
    rows = []
    for r in record["result"].get("results", []):
        if "skipped" in r:
            rows.append((f"`{r['case']}`", "skipped: " + r["skipped"], "", "", "", ""))
            continue
        runs = r["runs"]
        rows.append((f"`{r['case']}`", f"{r['jobs_replayed']:,}", f"{r['orgs']:,} ({r['shapley']})",
                     seconds(runs["cold"]["wall_s"], runs["cold"]["cpu_s"], 1),
                     seconds(runs["warm"]["wall_s"], runs["warm"]["cpu_s"], 1),
                     seconds(runs["game off"]["wall_s"], runs["game off"]["cpu_s"], 1)))
    return markdown_table(("case", "jobs replayed", "organizations (Shapley)", "game played: CPU (wall)",
                           "game from the cache: CPU (wall)", "no cache, one thread: CPU (wall)"),
                          rows) + measured(record)


def ref(data_dir: Path) -> str:
    """REF and RAND on LPC-EGEE (`bench_ref.py`): one row per case; CPU when the script reports it."""
    record = load(data_dir, "ref")
    rows = []
    for r in record["result"].get("results", []):
        params = ", ".join(f"{key} = {value}" for key, value in (r.get("params") or {}).items())
        window = f", first {r['horizon']:,} s" if r.get("horizon") else ""
        rows.append((f"{r['policy']} k = {r['orgs']}{window}" + (f" ({params})" if params else ""),
                     seconds(r["seconds"], r.get("cpu_s")), f"{r['peak_rss_mb']:,} MB"))
    return markdown_table(("case", "CPU (wall)" if any("cpu_s" in r for r in record["result"].get("results", []))
                           else "wall", "peak memory so far"), rows) + measured(record)


def cli(data_dir: Path, name: str = "cli") -> str:
    """Whole `fairsched` processes (`bench_cli.py`, or `bench_replicate.py` with ``name="replicate"``): best CPU
    and wall time per case, against pyss where known."""
    record = load(data_dir, name)
    cases = [c for c in record["result"]["cases"] if "cpu_s" in c]
    header, rows = ("case", "CPU", "wall"), [(f"`{c['case']}`", fmt(c["cpu_s"], 2) + " s", fmt(c["wall_s"], 2) + " s")
                                             for c in cases]
    if any(c.get("pyss_s") for c in cases):
        header += ("pyss", "pyss / ours (CPU)")
        rows = [(*row, f"{c['pyss_s']:g} s" if c.get("pyss_s") else "",
                 f"{c['vs_pyss_cpu']:g}×" if c.get("vs_pyss_cpu") else "") for row, c in zip(rows, cases, strict=True)]
    return markdown_table(header, rows) + measured(record)


def conservative(data_dir: Path) -> str:
    """`bench_conservative.py`: conservative against EASY on the whole CTC-SP2 (fair start times and resource
    equality), the incremental re-planning against the full re-plan and the OSC grid estimate. CPU times only (user +
    system); the whole process is `process`."""
    record = load(data_dir, "conservative")
    result = record["result"]
    text = ""
    runs = result.get("unfairness", {}).get("results", [])
    if runs:
        easy = next(r for r in runs if r["backfill"] == "easy")["total_cpu_s"]
        rows = [(f"fcfs × {r['backfill']}", f"{r['jobs']:,}", fmt(r["simulate_cpu_s"], 2), fmt(r["fst_cpu_s"], 1),
                 fmt(r["re_cpu_s"], 3), fmt(r["total_cpu_s"], 1), f"{r['total_cpu_s'] / easy:.1f}×") for r in runs]
        text += "Whole CTC-SP2, every job, CPU seconds (user + system):\n\n" + markdown_table(
            ("policy", "jobs", "simulation", "strict + relaxed FST", "RE", "FST + RE", "/ EASY"), rows,
            align="lrrrrrr")
    twin = result["twin"]
    text += (f"\nFair start times of the first {twin['jobs']:,} jobs under conservative: strict ones "
             f"{fmt(twin['incremental_cpu_s'], 2)} s CPU with the incremental re-planning, "
             f"{fmt(twin['full_replan_cpu_s'], 2)} s with the full re-plan "
             f"({twin['full_replan_cpu_s'] / twin['incremental_cpu_s']:.1f}× faster, same fair start times); strict "
             f"and relaxed {fmt(twin['together_cpu_s'], 2)} s together, {fmt(twin['apart_cpu_s'], 2)} s kind by "
             f"kind ({twin['apart_cpu_s'] / twin['together_cpu_s']:.1f}× faster, same values).\n")
    osc = result["osc"]
    if "skipped" not in osc:
        text += (f"\nOSC at 90 %, first {osc['jobs']:,} jobs: strict and relaxed fair start times together "
                 f"{fmt(osc['both_cpu_s'], 1)} s CPU for W = {sci(osc['work'])}, i.e. {fmt(osc['ns_per_work'], 0)} ns "
                 f"per unit of W. The conservative runs of the JSSPP'05 OSC grid (ΣW = {sci(osc['grid_work'])}) "
                 f"predict {fmt(osc['grid_cpu_s'] / 3600, 2)} CPU hours: {fmt(osc['grid_minutes_on_2_cores'], 0)} "
                 "minutes on 2 cores.\n")
    return text + measured(record)


def process(data_dir: Path) -> str:
    """`bench_process.py`: the whole `fairsched backfill` process beside the floor and the peers (CPU, then wall),
    and on the pyss oracle's input beside pyss's own time."""
    record = load(data_dir, "process")
    result = record["result"]
    if "skipped" in result:
        return f"Not measured: {result['skipped']}.\n" + measured(record)
    floor = result["floor"]
    peers = [p for p in result["peers"] if "cpu_s" in p]
    rows = []
    for c in result["ours"]:
        versus = [f"{p['cpu_s'] / c['cpu_s']:.1f}× faster than {p['peer']}" for p in peers
                  if p["backfill"] == c["backfill"]]
        rows.append((f"`{c['command']}`", fmt(c["cpu_s"], 2) + " s", fmt(c["wall_s"], 2) + " s",
                     fmt(c["cpu_s"] - floor["cpu_s"], 2) + " s", "; ".join(versus)))
    rows.append((f"floor: `{floor['command']}`", fmt(floor["cpu_s"], 2) + " s", fmt(floor["wall_s"], 2) + " s", "",
                 ""))
    dispatch = result.get("floor_dispatch")
    if dispatch:
        rows.append((f"floor with numba's set-up: `{dispatch['command']}`", fmt(dispatch["cpu_s"], 2) + " s",
                     fmt(dispatch["wall_s"], 2) + " s", fmt(dispatch["cpu_s"] - floor["cpu_s"], 2) + " s", ""))
    for p in peers:
        rows.append((f"{p['peer']} {p['version']} ({p['setup']}), best of {p['repeat']}", fmt(p["cpu_s"], 2) + " s",
                     fmt(p["wall_s"], 2) + " s", "", ""))
    text = (f"Whole process on a 28,000-job SWF log, the {result['log']}, best of {result['repeat']}, CPU = user + "
            "system:\n\n" + markdown_table(("process", "CPU", "wall", "CPU above the floor", "peer / ours (CPU)"),
                                            rows))
    skipped = [f"{p['peer']}: {p['skipped']}" for p in result["peers"] if "skipped" in p]
    if skipped:
        text += "\nPeers not run: " + "; ".join(skipped) + ".\n"
    steps = result.get("steps")
    if steps:
        easy = next(c for c in result["ours"] if c["backfill"] == "easy")
        python = result.get("floor_python", {}).get("cpu_s")
        rows = [(name, fmt(cpu, 3) + " s") for name, cpu in steps.items()]
        if python is not None:
            rows.insert(0, ("Python's own start (`python -c pass`)", fmt(python, 3) + " s"))
            rest = easy["cpu_s"] - python - sum(steps.values())
            rest_of = "output" if any(name.startswith("exit") for name in steps) else "output, exit"
            shown = (fmt(rest, 3) + " s" if rest >= 0 else f"not measurable: the steps' best times add up to "
                     f"{fmt(-rest, 3)} s more than the process's best")
            rows.append((f"the rest: typer's parsing (it loads pydantic), {rest_of}", shown))
        text += (f"\nWhere the CPU of one EASY process goes ({fmt(easy['cpu_s'], 2)} s above), step by step in a fresh "
                 "interpreter doing what the command does (`STEPS` in bench_process.py), best of "
                 f"{result['repeat']} per step:\n\n" + markdown_table(("step", "CPU"), rows))
    inputs = result.get("pyss_inputs", {})
    if "cases" in inputs:
        text += (f"\nOn the pyss oracle's input, {inputs['log']}, against pyss's own time from "
                 f"{inputs['pyss_source']}:\n\n")
        text += markdown_table(("process", "CPU", "wall", "pyss", "pyss / ours (CPU)"), [
            (f"`{c['command']}`", fmt(c["cpu_s"], 2) + " s", fmt(c["wall_s"], 2) + " s",
             f"{c['pyss_s']:g} s" if c.get("pyss_s") else "",
             f"{c['pyss_over_ours_cpu']:g}×" if c.get("pyss_over_ours_cpu") else "") for c in inputs["cases"]])
    return text + measured(record)


TABLES: dict[str, Callable[[Path], str]] = {
    "perf-conservative": conservative,
    "perf-process": process,
    "perf-ref": ref,
    "perf-online": online,
    "perf-audit": audit,
    "perf-whatif": whatif,
    "perf-cli": cli,
    "perf-replicate": lambda data_dir: cli(data_dir, "replicate"),
    "perf-openshop-google": openshop_google,
    "perf-openshop-online": openshop_online,
    "perf-read-swf": read_swf,
    "perf-validate": validate,
    "perf-backfill": backfill,
    "perf-fst": fst,
    "perf-ticked": ticked,
    "perf-mosp": mosp,
    "perf-sweep": sweep,
    "perf-openshop": openshop,
    "perf-openshop-sizes": openshop_sizes,
    "perf-openshop-exact": openshop_exact,
    "perf-heap-ab": heap_ab,
    "perf-heap-ab-backfill": lambda data_dir: heap_ab(data_dir, "heap_ab_backfill"),
}


def main(argv: list[str] | None = None) -> None:
    """Rewrite the table blocks of each doc given on the command line from ``docs/performance/data``."""
    for doc in map(Path, argv if argv is not None else sys.argv[1:]):
        text = doc.read_text(encoding="utf-8")
        with atomic_write(doc, encoding="utf-8") as handle:
            handle.write(render_blocks(text, DATA_DIR, TABLES))


if __name__ == "__main__":
    main()
