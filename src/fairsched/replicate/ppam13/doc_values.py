"""The numbers in the prose of docs/replication/ppam13.md (`VALUES`: NAME -> renderer): the ablation grid's claims
(`fairsched.replicate.ppam13.doc_claims`) on each shipped run, the machine splits, Fig. 1 and the runs' times.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fairsched.replicate._doc_format import RUN_INFO, Renderer
from fairsched.replicate.ppam13.doc import (
    FIG1,
    H8,
    QUICK,
    RUN30,
    RUN100,
    TIE_S,
    and_join,
    cell_keys,
    cells_phrase,
    count_phrase,
    fig1_rows,
    ks_phrase,
    read_variants,
    variant_means,
    variant_windows,
)
from fairsched.replicate.ppam13.doc_claims import (
    clearly_exponents,
    close_pairs,
    cv,
    dc_ahead_every_zipf,
    dc_ahead_zipf,
    fairer_cells,
    fs_ahead_uniform,
    growth_range,
    holding_everywhere,
    holds_where,
    is_close,
    is_or_not,
    mean_beside_paper,
    mean_digits,
    moved_cells,
    much_less_fair,
    much_worse_fails,
    nonzero_windows,
    order_flips,
    order_kept,
    others_behind,
    over_paper,
    paired_count,
    paper_misses,
    rand_most_fair_every_zipf,
    ref_rules,
    same_as,
    same_checks,
    switch_median_change,
    switch_worse,
    t2_direction,
    table2_cells,
    turned_cells,
    windows,
    within_factor,
    zipf_exponents,
    zipf_runs_agree,
)
from fairsched.replicate.ppam13.variants import PAPER_VARIANT

__all__ = ["VALUES"]


# ------------------------------------------------------------------------------------------------ split claims

def uniform_spread(n_machines: int, n_orgs: int = 5) -> str:
    """One standard deviation of an organization's machines under the uniform split (1 each plus a multinomial
    draw of the other m − k, `fairsched.scenario.split_machines`), relative to an equal share: "±23 %"."""
    rest = n_machines - n_orgs
    std = np.sqrt(rest * (1 / n_orgs) * (1 - 1 / n_orgs))
    return f"±{100 * std / (n_machines / n_orgs):.0f} %"


def zipf_split(n_machines: int = 70, n_orgs: int = 5) -> str:
    """`fairsched.scenario.zipf_counts` with the shipped exponent: "39/14/8/5/4"."""
    from fairsched.scenario import DEFAULT_ZIPF_S, zipf_counts

    return "/".join(str(c) for c in zipf_counts(n_machines, n_orgs, DEFAULT_ZIPF_S))


# ------------------------------------------------------------------------------------------------ Fig. 1 claims

def _fig1_means(data: Path, split: str) -> pd.DataFrame:
    rows = fig1_rows(data)
    rows = rows[(rows["split"] == split) & (rows["policy"] != "REF")]
    return rows.pivot_table(index="orgs", columns="policy", values="mean")


def fig1_ks(data: Path, split: str, a: str, b: str, strict: bool = True) -> str:
    """The k where `a` is fairer than `b` (both over the same windows)."""
    means = _fig1_means(data, split)
    return ks_phrase(means.index[means[a] < means[b] - TIE_S])


def fig1_from(data: Path, split: str, a: str, b: str) -> str:
    """"every k ≥ 3": the k from which on `a` is fairer than `b` at every k (or the list, if there is no such k)."""
    means = _fig1_means(data, split)
    fairer = means[a] < means[b] - TIE_S
    ks = list(means.index)
    tail = next((k for k in ks if fairer.loc[k:].all()), None)
    if tail is None:
        return "at no k"
    return f"at every k ≥ {tail}" if fairer.loc[:tail].sum() == 1 or tail == ks[0] else \
        f"at k = {ks_phrase(means.index[fairer])}"


def fig1_ratio(data: Path, split: str, a: str, b: str, k_from: int) -> str:
    """"8 to 20": the range of b / a over k ≥ `k_from`."""
    means = _fig1_means(data, split).loc[k_from:]
    ratios = means[b] / means[a]
    return f"{ratios.min():.0f} to {ratios.max():.0f}"


def fig1_close(data: Path, split: str, a: str, b: str) -> str:
    """"6 of the 9": the k where `a` and `b` are within `CLOSE` of each other."""
    means = _fig1_means(data, split)
    return count_phrase(sum(is_close(x, y) for x, y in zip(means[a], means[b], strict=True)), len(means))


def fig1_monotone(data: Path) -> str:
    """The (split, policy) series of Fig. 1 that grow with k (non-decreasing): "none" or their names."""
    rows = fig1_rows(data)
    growing = [f"{policy} ({split})" for split in dict.fromkeys(rows["split"])
               for policy, series in _fig1_means(data, split).items() if series.is_monotonic_increasing]
    return "none" if not growing else and_join(growing)


def fig1_trend(data: Path) -> str:
    """The rank correlation (Spearman) of each (split, policy) series' mean with k: "8 of the 12 series, ρ from
    −0.2 to 0.9 (median 0.5)" — the series with ρ > 0, then the range over all."""
    rows = fig1_rows(data)
    rho = pd.Series([series.rank().corr(pd.Series(series.index, index=series.index).rank())  # Pearson on ranks
                     for split in dict.fromkeys(rows["split"]) for _, series in _fig1_means(data, split).items()])
    return (f"{count_phrase(int((rho > 0).sum()), len(rho))} series, ρ from {rho.min():.2f} to {rho.max():.2f} "
            f"(median {rho.median():.2f})").replace("-", "−")


def fig1_least_fair(data: Path, split: str, policy: str = "ROUNDROBIN") -> str:
    """The k where `policy` is the least fair: "every k" or the list."""
    means = _fig1_means(data, split)
    worst = means.idxmax(axis=1) == policy
    return "at every k" if worst.all() else f"at k = {ks_phrase(means.index[worst])}"


def fig1_overtake(data: Path, split: str, policy: str = "ROUNDROBIN",
                  family: Sequence[str] = ("FAIRSHARE", "UTFAIRSHARE", "CURRFAIRSHARE")) -> str:
    """The k where some policy of `family` is less fair than `policy`: "k = 8 and 10", or "no k"."""
    means = _fig1_means(data, split)
    ks = means.index[(means[list(family)].max(axis=1) > means[policy])]
    return f"k = {ks_phrase(ks)}" if len(ks) else "no k"


def fig1_windows(data: Path) -> str:
    """The number of windows Fig. 1's means are over ("10")."""
    return str(int(fig1_rows(data)["windows"].max()))


def _fig1_run(data: Path) -> str:
    """The variants run over as many windows as Fig. 1 (same windows and seeds at k = 5): quick grid or 100."""
    return {10: QUICK, 30: RUN30, 100: RUN100}[int(fig1_windows(data))]


def fig1_same_windows_as(data: Path) -> str:
    """"the quick grid" or "the 100-window run": the run whose Table 2 windows Fig. 1 uses."""
    return "the quick grid" if _fig1_run(data) == QUICK else f"the {fig1_windows(data)}-window run"


def fig1_run_time(data: Path) -> str:
    """Fig. 1's run time (its ``run.csv``, `write_run_info`), or that it was not recorded."""
    if not (data / FIG1 / RUN_INFO).exists():
        return "not recorded with the results"
    return run_time(data, FIG1)


def fig1_k5_is_quick(data: Path) -> str:
    """"are" when Fig. 1's k = 5 rows equal the Table 2 LPC-EGEE rows of the same split in the variants run over
    as many windows (`_fig1_run`), else "are not"."""
    means = variant_means(data, _fig1_run(data))
    rows = fig1_rows(data)
    rows = rows[(rows["orgs"] == 5) & (rows["policy"] != "REF")]
    variant = {"uniform": "shipped", "zipf": "zipf"}
    same = all(np.isclose(r.mean, means[(variant[r.split], "table2", "LPC-EGEE", r.policy.split(" (")[0])],
                          rtol=1e-5, atol=1e-9) for r in rows.itertuples())
    return "are" if same else "are not"


# ------------------------------------------------------------------------------------------------ run info

def run_time(data: Path, run: str) -> str:
    """"1,234 s wall, 2,345 s CPU (user + sys)" of a shipped run: its ``ppam13_variants_run.csv`` (written by the
    run itself) or, for a run made before it did, the `RUN_INFO` read from its log (`write_run_info`)."""
    own = data / run / "ppam13_variants_run.csv"
    info = pd.read_csv(own if own.exists() else data / run / RUN_INFO).iloc[0]
    cpu = info["cpu_s"] if "cpu_s" in info else info["user_s"] + info["sys_s"]
    return f"{info['wall_s']:,.0f} s wall, {cpu:,.0f} s CPU (user + sys)"



_DC_PRINTED = (("shipped", "dc printed"), ("zipf", "zipf+dc printed"))


def _main_run(data: Path) -> str:
    """The run the verdict quotes: the 100-window one once shipped, else the 30-window one."""
    return RUN100 if (data / RUN100 / "ppam13_variants_cells.csv").exists() else RUN30


def _on_main(renderer: Callable[..., str], *args: Any) -> Renderer:
    return lambda data: renderer(data, _main_run(data), *args)


def _on(run: str, renderer: Callable[..., str], *args: Any) -> Renderer:
    return lambda data: renderer(data, run, *args)


VALUES: dict[str, Renderer] = {
    # the verdict, on the main run (100 windows once shipped) and the quick grid
    "ppam13-main-windows": _on_main(windows),
    "ppam13-main-uniform-fs-ahead": _on_main(fs_ahead_uniform),
    "ppam13-main-uniform-dc-utfs-close": _on_main(close_pairs, "DIRECTCONTR", "UTFAIRSHARE", ("shipped",)),
    "ppam13-main-zipf-dc-ahead": _on_main(dc_ahead_zipf),
    "ppam13-main-zipf-rand-most-fair": _on_main(holds_where, "zipf", "i"),
    "ppam13-main-zipf-t2-lpc-paired": _on_main(paired_count, "zipf", "table2", "LPC-EGEE"),
    "ppam13-main-zipf-t2-ricc-paired": _on_main(paired_count, "zipf", "table2", "RICC"),
    "ppam13-quick-zipf-dc-ahead-t2": _on(QUICK, dc_ahead_every_zipf),
    "ppam13-quick-clearly-exponents": _on(QUICK, clearly_exponents),
    "ppam13-quick-others-turn": _on(QUICK, others_behind),
    "ppam13-paper-misses": _on(QUICK, paper_misses),
    "ppam13-uniform-spread-70": lambda data: uniform_spread(70),
    "ppam13-uniform-spread-8192": lambda data: uniform_spread(8192),
    "ppam13-zipf-split-70": lambda data: zipf_split(70),
    # the quick grid, switch by switch
    "ppam13-quick-zipf-dc-ahead-all": _on(QUICK, dc_ahead_every_zipf, False),
    "ppam13-quick-zipf-rand-most-fair": _on(QUICK, rand_most_fair_every_zipf),
    "ppam13-quick-zipf-dc-utfs-close": _on(QUICK, close_pairs, "DIRECTCONTR", "UTFAIRSHARE"),
    "ppam13-quick-uniform-dc-utfs-close": _on(QUICK, close_pairs, "DIRECTCONTR", "UTFAIRSHARE", ("shipped",)),
    "ppam13-quick-zipf-much-worse": _on(QUICK, much_worse_fails, "zipf"),
    "ppam13-quick-dc-printed-worse": _on(QUICK, switch_worse, "DIRECTCONTR", _DC_PRINTED),
    "ppam13-quick-dc-printed-median": _on(QUICK, switch_median_change, "DIRECTCONTR", _DC_PRINTED),
    "ppam13-quick-dc-printed-flips": _on(QUICK, order_flips, "DIRECTCONTR", "FAIRSHARE", _DC_PRINTED),
    "ppam13-quick-warm-t1-growth": _on(QUICK, growth_range, "warm", "table1"),
    "ppam13-quick-warm-t1-ricc-over-paper": _on(QUICK, over_paper, "warm", "table1", "RICC",
                                                ("DIRECTCONTR", "FAIRSHARE", "UTFAIRSHARE")),
    "ppam13-quick-warm-cv": _on(QUICK, cv, "warm", "table1", "RICC", "ROUNDROBIN"),
    "ppam13-quick-shipped-cv": _on(QUICK, cv, "shipped", "table1", "RICC", "ROUNDROBIN"),
    "ppam13-paper-cv": _on(QUICK, cv, PAPER_VARIANT, "table1", "RICC", "ROUNDROBIN"),
    "ppam13-quick-warm-dc-ahead": _on(QUICK, fairer_cells, "warm", "DIRECTCONTR", "FAIRSHARE", False, 0.01),
    "ppam13-quick-jobs-fs-ahead": _on(QUICK, fairer_cells, "jobs", "FAIRSHARE", "DIRECTCONTR"),
    "ppam13-quick-ref-rules": _on(QUICK, ref_rules),
    "ppam13-quick-ref-digits": _on(QUICK, mean_digits, "shipped", "ref literal"),
    "ppam13-quick-rand-printed-worse": lambda data: cells_phrase(
        _fairer_across(data, QUICK, "RAND", "shipped", "rand printed"), cell_keys(data, QUICK)),
    "ppam13-quick-rand-printed-better": lambda data: cells_phrase(
        _fairer_across(data, QUICK, "RAND", "rand printed", "shipped"), cell_keys(data, QUICK)),
    "ppam13-quick-rand-75-better": lambda data: cells_phrase(
        _fairer_across(data, QUICK, "RAND", "rand N=75", "shipped"), cell_keys(data, QUICK)),
    "ppam13-quick-rand-75-worse": lambda data: cells_phrase(
        _fairer_across(data, QUICK, "RAND", "shipped", "rand N=75"), cell_keys(data, QUICK)),
    "ppam13-quick-fs-per-start-moves": _on(QUICK, moved_cells, "shipped", "fs per start", "FAIRSHARE"),
    # hypothesis 8
    "ppam13-h8-serial-ricc": _on(H8, nonzero_windows, "serial jobs", "RICC"),
    "ppam13-h8-skip-ricc": _on(H8, nonzero_windows, "no parallel", "RICC"),
    "ppam13-h8-parallel-lpc": lambda data: "equal" if {same_as(data, H8, v, "shipped", "LPC-EGEE")
                                                      for v in ("serial jobs", "no parallel")} == {"equal"}
    else "do not both equal",
    "ppam13-h8-clock60-order": _on(H8, order_kept, "shipped", "clock 60 s"),
    "ppam13-h8-clock600-rr": _on(H8, mean_beside_paper, "clock 600 s", "table2", "LPC-EGEE", "ROUNDROBIN"),
    "ppam13-h8-clock600-fs-ahead": _on(H8, fairer_cells, "clock 600 s", "FAIRSHARE", "DIRECTCONTR", True),
    "ppam13-h8-lowest-worse": lambda data: cells_phrase(
        _fairer_across(data, H8, "DIRECTCONTR", "shipped", "dc lowest"), cell_keys(data, H8)),
    "ppam13-h8-others-turn": _on(H8, others_behind),
    # Fig. 1
    "ppam13-fig1-zipf-dc-ahead": lambda data: fig1_from(data, "zipf", "DIRECTCONTR", "FAIRSHARE"),
    "ppam13-fig1-zipf-ratio-8": lambda data: fig1_ratio(data, "zipf", "DIRECTCONTR", "FAIRSHARE", 8),
    "ppam13-fig1-uniform-fs-ahead": lambda data: fig1_ks(data, "uniform", "FAIRSHARE", "DIRECTCONTR"),
    "ppam13-fig1-uniform-dc-ahead": lambda data: fig1_ks(data, "uniform", "DIRECTCONTR", "FAIRSHARE"),
    "ppam13-fig1-uniform-dc-utfs-close": lambda data: fig1_close(data, "uniform", "DIRECTCONTR", "UTFAIRSHARE"),
    "ppam13-fig1-monotone": fig1_monotone,
    "ppam13-fig1-uniform-rr-worst": lambda data: fig1_least_fair(data, "uniform"),
    "ppam13-fig1-zipf-rr-worst": lambda data: fig1_least_fair(data, "zipf"),
    "ppam13-fig1-zipf-rr-overtaken": lambda data: fig1_overtake(data, "zipf"),
    "ppam13-fig1-k5-is-quick": fig1_k5_is_quick,
    "ppam13-fig1-windows": fig1_windows,
    "ppam13-fig1-trend": fig1_trend,
    "ppam13-fig1-same-windows-as": fig1_same_windows_as,
    "ppam13-fig1-run-time": fig1_run_time,
}


def _run_values(run: str, tag: str) -> dict[str, Renderer]:
    """The claims of a variants run's paragraph (the 30- and the 100-window runs)."""
    return {
        f"ppam13-{tag}-zipf-t2-lpc-paired": _on(run, paired_count, "zipf", "table2", "LPC-EGEE"),
        f"ppam13-{tag}-zipf-t2-ricc-paired": _on(run, paired_count, "zipf", "table2", "RICC"),
        f"ppam13-{tag}-uniform-t2-lpc-fs-paired": _on(run, paired_count, "shipped", "table2", "LPC-EGEE",
                                                      "fs_fairer"),
        f"ppam13-{tag}-uniform-t2-ricc-fs-paired": _on(run, paired_count, "shipped", "table2", "RICC", "fs_fairer"),
        f"ppam13-{tag}-zipf-t2-holding": _on(run, holding_everywhere, "zipf", ("i", "ii", "iii", "iv", "vii"),
                                             "table2"),
        f"ppam13-{tag}-zipf-t2-ricc-within-2": _on(run, within_factor, "zipf", "table2", "RICC"),
        f"ppam13-{tag}-zipf-t1-lpc-rr-worst": _on(run, is_or_not, "zipf", "iv", "table1", "LPC-EGEE"),
        f"ppam13-{tag}-dc-printed-much-worse": _on(run, much_less_fair, "zipf", "zipf+dc printed", "DIRECTCONTR"),
        f"ppam13-{tag}-dc-printed-t2-worse": lambda data, run=run: cells_phrase(
            _fairer_across(data, run, "DIRECTCONTR", "zipf", "zipf+dc printed", True),
            table2_cells(cell_keys(data, run))),
        f"ppam13-{tag}-dc-printed-t2-better": lambda data, run=run: cells_phrase(
            _fairer_across(data, run, "DIRECTCONTR", "zipf+dc printed", "zipf", True),
            table2_cells(cell_keys(data, run))),
    }


VALUES.update(_run_values(RUN30, "30"))
VALUES.update(_run_values(RUN100, "100"))
VALUES["ppam13-100-run-time"] = _on(RUN100, run_time)
VALUES.update({f"ppam13-{name}-run-time": _on(run, run_time)
               for name, run in (("quick", QUICK), ("30", RUN30), ("h8", H8))})


def same_as_spaa13(data: Path, run: str) -> str:
    """"are" when the run's Table 2 means (``shipped`` = uniform, ``zipf``) equal SPAA'13 §6.3.2's for every policy
    both run (the same windows for the same seed), else "are not"."""
    spaa = pd.read_csv(data / "spaa13_windows.csv")
    spaa = spaa[spaa["table"] == "table"]
    means = variant_means(data, run)
    same = []
    for (trace, split, policy), ratios in spaa.groupby(["trace", "split", "policy"])["ratio"]:
        key = ({"uniform": "shipped", "zipf": "zipf"}[split], "table2", trace, policy.split(" (")[0])
        if key in means and "printed" not in policy:
            same.append(bool(np.isclose(ratios.mean(), means[key], rtol=1e-4)))
    return "are" if same and all(same) else "are not"


VALUES["ppam13-100-same-as-spaa13"] = _on(RUN100, same_as_spaa13)


def as_paper(data: Path, run: str, variant: str) -> str:
    """"18 of the 22": the conclusion checks where `variant` agrees with the paper's own numbers (the "as the
    paper" column)."""
    frame = read_variants(data / run)[1].fillna("")
    keyed = frame.set_index(["variant", "conclusion", "table", "trace"])["holds"].astype(bool)
    paper, mine = keyed.loc[PAPER_VARIANT], keyed.loc[variant]
    return count_phrase(int((mine == paper.reindex(mine.index)).sum()), len(mine))


def share_of_paper(data: Path, run: str, variant: str, table: str, policy: str) -> str:
    """`policy`'s mean over the paper's on each trace of `table`: "0.14 (LPC-EGEE) and 0.05 (RICC)"."""
    means = variant_means(data, run)
    traces = [trace for t, trace in cell_keys(data, run) if t == table]
    return and_join([f"{means[(variant, table, tr, policy)] / means[(PAPER_VARIANT, table, tr, policy)]:.2f} ({tr})"
                 for tr in traces])


def contended(data: Path, run: str, variant: str, table: str, trace: str = "") -> str:
    """"n of the m": windows of `table` (one trace, or both) where some policy of `variant` differs from REF."""
    frame = variant_windows(data, run)
    mine = frame[(frame["variant"] == variant) & (frame["table"] == table) & (frame["policy"] != "REF")]
    mine = mine[mine["trace"] == trace] if trace else mine
    per_window = mine.groupby(["trace", "window"])["ratio"].apply(lambda r: bool((r.abs() > TIE_S).any()))
    return count_phrase(int(per_window.sum()), len(per_window))


def fig1_largest_gaps(data: Path, split: str, a: str, b: str, n: int = 3) -> str:
    """The k of the `n` largest gaps b − a (means over the windows)."""
    means = _fig1_means(data, split)
    return ks_phrase((means[b] - means[a]).nlargest(n).index)


VALUES.update({
    # hypotheses 1 (the Zipf exponent) and 5 (REF's rule) on the main run
    "ppam13-main-zipf-exponents": _on_main(zipf_exponents),
    "ppam13-main-zipf-dc-ahead-t2": _on_main(dc_ahead_every_zipf),
    "ppam13-main-zipf-dc-ahead-all": _on_main(dc_ahead_every_zipf, False),
    "ppam13-main-clearly-exponents": _on_main(clearly_exponents),
    "ppam13-main-zipf-rand-most-fair-all": _on_main(rand_most_fair_every_zipf),
    "ppam13-main-zipf-dc-utfs-close": _on_main(close_pairs, "DIRECTCONTR", "UTFAIRSHARE"),
    "ppam13-main-zipf1-t2-lpc-paired": _on_main(paired_count, "zipf s=1", "table2", "LPC-EGEE"),
    "ppam13-main-zipf1-t2-ricc-paired": _on_main(paired_count, "zipf s=1", "table2", "RICC"),
    "ppam13-main-zipf2-t2-lpc-paired": _on_main(paired_count, "zipf s=2", "table2", "LPC-EGEE"),
    "ppam13-main-zipf2-t2-ricc-paired": _on_main(paired_count, "zipf s=2", "table2", "RICC"),
    "ppam13-main-t2-direction": _on_main(t2_direction),
    "ppam13-main-t2-as-quick": lambda data: zipf_runs_agree(data, _main_run(data), QUICK, "table2"),
    "ppam13-main-t1-as-quick": lambda data: zipf_runs_agree(data, _main_run(data), QUICK, "table1"),
    "ppam13-main-ref-rules": _on_main(ref_rules),
    "ppam13-main-ref-digits": _on_main(mean_digits, "shipped", "ref literal"),
    "ppam13-main-ref-checks": _on_main(same_checks, "ref literal", "shipped"),
    "ppam13-main-ref-turns": _on_main(turned_cells, "ref literal"),
    "ppam13-main-uniform-rand-ahead": _on_main(fairer_cells, "shipped", "RAND", "FAIRSHARE"),
    "ppam13-main-zipf-rand-ahead": _on_main(fairer_cells, "zipf", "RAND", "FAIRSHARE"),
    "ppam13-quick-uniform-fs-ahead-of-rand": _on(QUICK, fairer_cells, "shipped", "FAIRSHARE", "RAND"),
    "ppam13-main-t1-contended": _on_main(contended, "shipped", "table1"),
    "ppam13-30-t1-lpc-contended": _on(RUN30, contended, "shipped", "table1", "LPC-EGEE"),
    "ppam13-fig1-zipf-largest-gaps": lambda data: fig1_largest_gaps(data, "zipf", "DIRECTCONTR", "FAIRSHARE"),
    "ppam13-main-zipf-as-paper": _on_main(as_paper, "zipf"),
    "ppam13-main-t1-rr-share": _on_main(share_of_paper, "shipped", "table1", "ROUNDROBIN"),
    "ppam13-main-t2-lpc-within-2": _on_main(within_factor, "shipped", "table2", "LPC-EGEE"),
    "ppam13-main-t2-ricc-within-2": _on_main(within_factor, "shipped", "table2", "RICC"),
})


def _fairer_across(data: Path, run: str, policy: str, a: str, b: str,
                   table2: bool = False) -> list[tuple[str, str]]:
    """The cells where `policy` is strictly fairer under variant `a` than under variant `b`."""
    means, cells = variant_means(data, run), cell_keys(data, run)
    return [c for c in (table2_cells(cells) if table2 else cells)
            if means[(a, *c, policy)] < means[(b, *c, policy)] - TIE_S]


