"""The numbers in the prose of docs/replication/tpds11.md (`VALUES`: NAME -> renderer), each computed from the
``tpds11_*.csv`` files of ``docs/replication/data`` (`fairsched.replicate.tpds11.ablations` writes them).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd

from fairsched.replicate._common import level_verdict, verdict
from fairsched.replicate._doc_format import fmt
from fairsched.replicate.tpds11.ablations import SWF_FEWER_JOBS
from fairsched.replicate.tpds11.doc import trend_class
from fairsched.replicate.tpds11.paper import ALL, ORGS, PAPER

__all__ = ["VALUES"]


def _row(dist: str, algorithm: str, *, experiment: str = "homogeneous", orgs: str = "all", jobs: str = "all",
         order: str = "hf", column: str = "mean", digits: int = 2, percent: bool = False) -> Any:
    """One aggregate of ``tpds11_rows.csv`` (`fairsched replicate tpds11`)."""
    def render(data: Path) -> str:
        rows = pd.read_csv(data / "tpds11_rows.csv", dtype={"orgs": str, "jobs": str})
        row = rows[(rows["experiment"] == experiment) & (rows["dist"] == dist) & (rows["orgs"] == orgs)
                   & (rows["jobs"] == jobs) & (rows["algorithm"] == algorithm) & (rows["local_order"] == order)]
        value = float(row.iloc[0][column])
        return fmt(100 * value if percent else value, digits)
    return render


def _level(data: Path, dist: str, algorithm: str, orgs: str = "all", jobs: str = "all") -> tuple[float, float]:
    """(mean, standard error over the instances) of one aggregate of ``tpds11_rows.csv``."""
    rows = pd.read_csv(data / "tpds11_rows.csv", dtype={"orgs": str, "jobs": str})
    row = rows[(rows["experiment"] == "homogeneous") & (rows["dist"] == dist) & (rows["orgs"] == orgs)
               & (rows["jobs"] == jobs) & (rows["algorithm"] == algorithm) & (rows["local_order"] == "hf")].iloc[0]
    return float(row["mean"]), float(row["std"]) / math.sqrt(float(row["instances"]))


def _average_verdict(dist: str, algorithm: str, improves_on: str) -> Any:
    """§7.2.2's average score of `algorithm` on `dist` on the project's level scale (`level_verdict`: within two
    standard errors of the paper's), the claim's direction being that it improves on `improves_on`; with how many
    standard errors apart: ``direction only (10.4 standard errors from the paper's)``."""
    def render(data: Path) -> str:
        mean, error = _level(data, dist, algorithm)
        word = level_verdict(PAPER[("homogeneous", dist, ALL, ALL, algorithm, "hf")], mean, error,
                             direction_holds=mean < _level(data, dist, improves_on)[0])
        apart = abs(mean - PAPER[("homogeneous", dist, ALL, ALL, algorithm, "hf")]) / error
        return f"{word} ({fmt(apart, 1)} standard errors from the paper's)"
    return render


def _local_by_n_verdicts(data: Path) -> str:
    """§7.2.1's local means per N (uni, n = 50–500) on the level scale, the direction being "degrades with N"
    (above the previous N's mean; N = 2: above 1): ``matches for N = 2; direction only for N = 5, 10, 20``."""
    found: dict[str, list[str]] = {}
    previous = 1.0
    for orgs in ORGS:
        mean, error = _level(data, "uni", "local", str(orgs), "50-500")
        word = level_verdict(PAPER[("homogeneous", "uni", orgs, "50-500", "local", "hf")], mean, error,
                             direction_holds=mean > previous)
        found.setdefault(word, []).append(str(orgs))
        previous = mean
    return "; ".join(f"{word} for N = {', '.join(orgs)}" for word, orgs in found.items())


def _improvement_verdict(dist: str) -> Any:
    """§7.2.2 "ILBA considerably improves MOCCA" on `dist` as a ratio MOCCA / MOCCA+ILBA (`verdict`, the band on
    the gain): ``matches on uni (1.98× against the paper's 1.94×)``."""
    def render(data: Path) -> str:
        paper = PAPER[("homogeneous", dist, ALL, ALL, "mocca-exp", "hf")] / \
            PAPER[("homogeneous", dist, ALL, ALL, "mocca+ilba", "hf")]
        ours = _level(data, dist, "mocca-exp")[0] / _level(data, dist, "mocca+ilba")[0]
        return f"{verdict(paper, ours, 'lower')} on {dist} ({fmt(ours)}× against the paper's {fmt(paper)}×)"
    return render


def _policy_rows(data: Path, dist: str) -> pd.DataFrame:
    """The §7.3 rows of `dist` (every local order and threshold, all N and n) of ``tpds11_rows.csv``."""
    rows = pd.read_csv(data / "tpds11_rows.csv", dtype={"orgs": str, "jobs": str})
    return rows[(rows["experiment"] == "local-policies") & (rows["dist"] == dist) & (rows["orgs"] == "all")]


def _local_policies_range(dist: str, *, digits: int = 2) -> Any:
    """``low–high`` of the §7.3 means over every local order and threshold."""
    def render(data: Path) -> str:
        means = _policy_rows(data, dist)
        return f"{fmt(means['mean'].min(), digits)}–{fmt(means['mean'].max(), digits)}"
    return render


# §7.3 (Fig. 10) as the paper states it: every local order and threshold scores 1.24–1.31 on uni, 1.01–1.02 on swf.
PAPER_POLICIES = {"uni": (1.24, 1.31), "swf": (1.01, 1.02)}
ORDERS = ("hf", "lpt", "spt", "rnd")


def _policies_spread(dist: str) -> Any:
    """§7.3 "local policies barely matter" on `dist`: ``matches`` when our spread over every order and threshold
    is at most 1.25 × the paper's (a smaller spread matters even less), else ``direction only``; with both
    spreads."""
    def render(data: Path) -> str:
        means = _policy_rows(data, dist)
        ours = float(means["mean"].max() - means["mean"].min())
        low, high = PAPER_POLICIES[dist]
        word = "matches" if ours <= 1.25 * (high - low) else "direction only"
        return f"{word} on {dist} (spread {fmt(ours, 3)} against the paper's {fmt(high - low, 2)})"
    return render


def _lpt_best(dist: str) -> Any:
    """§7.3 "LPT is best" on `dist`, per threshold (3LB, 4LB), means compared at 3 decimals (the table's):
    ``matches on swf (LPT best at 3LB and 4LB)`` or ``no on uni (3LB: HF 1.202 against LPT 1.214; ...)``."""
    def render(data: Path) -> str:
        part = _policy_rows(data, dist)
        notes, best_everywhere = [], True
        for threshold in (3, 4):
            means = part[part["threshold"] == threshold].set_index("local_order")["mean"].round(3)
            others = means.drop("lpt")
            rival = str(others.idxmin())
            if means["lpt"] < others.min():
                continue
            best_everywhere = False
            how = "ties with" if means["lpt"] == others.min() else "behind"
            notes.append(f"{threshold}LB: LPT {fmt(means['lpt'], 3)} {how} {rival.upper()} {fmt(others.min(), 3)}")
        if best_everywhere:
            return f"matches on {dist} (LPT best at 3LB and 4LB)"
        return f"no on {dist} ({'; '.join(notes)})"
    return render


# §7.2.1: the paper's Pearson correlations of N and local's score; ours "matches" within 0.05 of them.
PAPER_CORRELATION = {"uni": 0.69, "both": 0.38}
CORRELATION_MATCH = 0.05


def _correlation_verdict(data_set: str) -> Any:
    """``matches`` (within `CORRELATION_MATCH` of the paper's r), ``direction only`` (same sign) or ``no``."""
    def render(data: Path) -> str:
        ours = float(pd.read_csv(data / "tpds11_correlations.csv").set_index("data").loc[data_set, "pearson_r"])
        paper = PAPER_CORRELATION[data_set]
        if abs(ours - paper) <= CORRELATION_MATCH:
            return "matches"
        return "direction only" if ours * paper > 0 else "no"
    return render


def _optimal(dist: str, algorithm: str) -> Any:
    def render(data: Path) -> str:
        frame = pd.read_csv(data / "tpds11_optimal.csv")
        row = frame[(frame["dist"] == dist) & (frame["algorithm"] == algorithm)]
        return fmt(100 * float(row.iloc[0]["optimal"]), 1)
    return render


def _correlation(data_set: str) -> Any:
    def render(data: Path) -> str:
        frame = pd.read_csv(data / "tpds11_correlations.csv").set_index("data")
        return fmt(float(frame.loc[data_set, "pearson_r"]), 2)
    return render


def _worst_local(data: Path) -> str:
    frame = pd.read_csv(data / "tpds11_worst.csv").set_index("what")
    return fmt(float(frame.loc["worst local score", "value"]), 1)


def _local_variant(variant: str, orgs: int | None = None, *, column: str = "local", percent: bool = False) -> Any:
    """A variant of the local-gap table (``tpds11_variants_local.csv``): its mean `column` at N = `orgs` (None:
    every N), as a percentage with `percent`."""
    def render(data: Path) -> str:
        frame = pd.read_csv(data / "tpds11_variants_local.csv")
        part = frame[(frame["variant"] == variant) & ((frame["orgs"] == orgs) if orgs is not None else True)]
        value = float(part[column].mean())
        return fmt(100 * value, 0) if percent else fmt(value, 2)
    return render


def _m_p(dist: str, algorithm: str, *, how: str = "min", pair: tuple[int, int] | None = None) -> Any:
    """§7.2.5's p-values (``tpds11_m_influence.csv``): the least / greatest over both pairs of m, or one pair's
    (`dist` or `algorithm` "any": every one)."""
    def render(data: Path) -> str:
        frame = pd.read_csv(data / "tpds11_m_influence.csv")
        part = frame[((frame["algorithm"] == algorithm) if algorithm != "any" else True)
                     & ((frame["dist"] == dist) if dist != "any" else True)]
        if pair is not None:
            part = part[(part["m_a"] == pair[0]) & (part["m_b"] == pair[1])]
        values = part["p_value"]
        return fmt(float(values.min() if how == "min" else values.max()), 3 if how == "max" else 2)
    return render



def _trend_claim(dist: str, algorithm: str, expect: str, orgs: tuple[int, ...] = ORGS) -> Any:
    """Whether `algorithm` on `dist` goes the way §7.2.4 says (`expect`, a `trend_class`) for each N of `orgs`:
    ``holds for every N``, ``holds for N = 5, 10, 20; not for N = 2 (mixed)`` or ``does not hold (N = 10: ...)``."""
    def render(data: Path) -> str:
        frame = pd.read_csv(data / "tpds11_trends.csv")
        part = frame[(frame["dist"] == dist) & (frame["algorithm"] == algorithm)]
        found = {n: trend_class(part[part["orgs"] == n].set_index("jobs")["mean"]) for n in orgs}
        good = [n for n in orgs if found[n] == expect]
        bad = "; ".join(f"N = {n}: {found[n]}" for n in orgs if found[n] != expect)
        if len(good) == len(orgs):
            return "holds for every N" if len(orgs) > 1 else "holds"
        if not good:
            return f"does not hold ({bad})"
        return f"holds for N = {', '.join(map(str, good))}; not for {bad}"
    return render


# §7.2.4's claims, as the trend section of docs/replication/tpds11.md checks them: (dist, algorithm, expected
# direction from n = 50 to 500, the N it is claimed for).
TREND_CLAIMS: tuple[tuple[str, str, str, tuple[int, ...]], ...] = (
    ("swf", "local", "rises", ORGS), ("uni", "local", "rises", (10, 20)),
    ("swf", "mocca-exp", "rises", ORGS), ("swf", "mocca+ilba", "rises", ORGS),
    ("uni", "mocca-exp", "falls or flat", ORGS), ("uni", "mocca+ilba", "falls or flat", ORGS))


def _trend_count(data: Path) -> str:
    """Over every (claim, N) of `TREND_CLAIMS`: ``matches for 13 of the 22 (claim, N) cases, no for 9``."""
    frame = pd.read_csv(data / "tpds11_trends.csv")
    found = []
    for dist, algorithm, expect, orgs in TREND_CLAIMS:
        part = frame[(frame["dist"] == dist) & (frame["algorithm"] == algorithm)]
        found += [trend_class(part[part["orgs"] == n].set_index("jobs")["mean"]) == expect for n in orgs]
    return f"matches for {sum(found)} of the {len(found)} (claim, N) cases, no for {len(found) - sum(found)}"


M_NO_INFLUENCE_P = 0.05


def _m_count(data: Path) -> str:
    """§7.2.5 over each data set, algorithm and pair of m: ``matches in 10 of the 12 tests (p ≥ 0.05); no for
    local on swf, m = 128 vs 512 (p = 1.4e-05); ...``."""
    frame = pd.read_csv(data / "tpds11_m_influence.csv")
    frame = frame[frame["dist"] != "both"]
    names = {"local": "local", "mocca-exp": "MOCCA", "mocca+ilba": "MOCCA+ILBA"}
    bad = frame[frame["p_value"] < M_NO_INFLUENCE_P]
    text = (f"matches in {len(frame) - len(bad)} of the {len(frame)} tests (p ≥ {M_NO_INFLUENCE_P:g}, one per "
            "data set, algorithm and pair of m)")
    if bad.empty:
        return text
    return text + "; no for " + "; ".join(f"{names[r.algorithm]} on {r.dist}, m = {r.m_a} vs {r.m_b} "
                                          f"(p = {r.p_value:.2g})" for r in bad.itertuples())


def _m_swf_worst(data: Path) -> str:
    """The largest p-value of local and MOCCA on swf between m = 128 and 512 (both below 0.001 when m matters)."""
    frame = pd.read_csv(data / "tpds11_m_influence.csv")
    part = frame[(frame["dist"] == "swf") & frame["algorithm"].isin(["local", "mocca-exp"])
                 & (frame["m_a"] == 128) & (frame["m_b"] == 512)]
    return f"{part['p_value'].max():.2g}"


def _worst_share(what: str) -> Any:
    def render(data: Path) -> str:
        frame = pd.read_csv(data / "tpds11_worst.csv").set_index("what")
        return fmt(float(frame.loc[what, "value"]), 0)
    return render


def _mocca_worse(data: Path) -> str:
    """How often MOCCA scores worse than local (§7.2.6): ``never worse than local`` or the share."""
    frame = pd.read_csv(data / "tpds11_worst.csv").set_index("what")
    share = float(frame.loc["instances where MOCCA scores worse than local (%)", "value"])
    return "never worse than local" if share == 0 else f"worse than local on {fmt(share, 1)} % of the instances"


def _swf_variants(column: str, how: str, *, digits: int = 2, percent: bool = False) -> Any:
    """Over the swf generator variants of group ``swf`` (``tpds11_variants_swf.csv``, without the job-count ones):
    the ``range`` (``low–high``) or the ``min`` of the variants' mean `column`; ``below3`` = the share (%) of their
    instances where local scores below 3."""
    def render(data: Path) -> str:
        frame = pd.read_csv(data / "tpds11_variants_swf.csv")
        frame = frame[frame["group"] == "swf"]  # the readings of "adjusted", not the job-count variants
        if how == "below3":
            return fmt(100 * float((frame["local"] < 3).mean()), 0)
        means = frame.groupby("variant", sort=False)[column].mean() * (100 if percent else 1)
        if how == "min":
            return fmt(float(means.min()), digits)
        return f"{fmt(float(means.min()), digits)}–{fmt(float(means.max()), digits)}"
    return render


# §7.2.2: the paper's swf means of MOCCA and MOCCA+ILBA.
PAPER_SWF = {"mocca": 1.16, "ilba": 1.03}


def _swf_jobs_verdict(variant: str) -> Any:
    """A job-count variant of the swf generator against the paper's swf means (`PAPER_SWF`): ``matches`` when MOCCA
    and MOCCA+ILBA are both within two standard errors of the paper's, ``direction only`` when both are closer to
    it than our default generator's, else ``no``; with the means."""
    def render(data: Path) -> str:
        frame = pd.read_csv(data / "tpds11_variants_swf.csv")
        part, ours = frame[frame["variant"] == variant], frame[frame["variant"] == frame["variant"].iloc[0]]
        means = {c: float(part[c].mean()) for c in PAPER_SWF}
        errors = {c: float(part[c].std(ddof=1) / math.sqrt(len(part))) for c in PAPER_SWF}
        if all(abs(means[c] - PAPER_SWF[c]) <= 2 * errors[c] for c in PAPER_SWF):
            word = "matches"
        elif all(abs(means[c] - PAPER_SWF[c]) < abs(ours[c].mean() - PAPER_SWF[c]) for c in PAPER_SWF):
            word = "direction only"
        else:
            word = "no"
        return (f"{word} (MOCCA {fmt(means['mocca'], 3)} ± {fmt(2 * errors['mocca'], 3)}, MOCCA+ILBA "
                f"{fmt(means['ilba'], 3)} ± {fmt(2 * errors['ilba'], 3)}; paper {fmt(PAPER_SWF['mocca'])} and "
                f"{fmt(PAPER_SWF['ilba'])})")
    return render


def _curve(dist: str, algorithm: str, axis: str, value: int) -> Any:
    """One point of the Fig. 8–9 curves (``tpds11_curves.csv``)."""
    def render(data: Path) -> str:
        frame = pd.read_csv(data / "tpds11_curves.csv")
        row = frame[(frame["dist"] == dist) & (frame["algorithm"] == algorithm) & (frame["axis"] == axis)
                    & (frame["value"] == value)]
        return fmt(float(row.iloc[0]["mean"]))
    return render


def _threshold_gap(data: Path) -> str:
    """The largest difference between the 3LB and 4LB cuts over every local order and data set (§7.3)."""
    rows = pd.read_csv(data / "tpds11_rows.csv", dtype={"orgs": str, "jobs": str})
    part = rows[(rows["experiment"] == "local-policies") & (rows["orgs"] == "all")]
    wide = part.pivot_table(index=["dist", "local_order"], columns="threshold", values="mean")
    return fmt(float((wide[3.0] - wide[4.0]).abs().max()), 3)


# §7.4 as the paper states it: uni "between 1.15 and 1.12, standard deviation less than 0.04"; swf "average
# score less than 1 + 10^-4 and variance less than 10^-3".
PAPER_HETERO_UNI = (1.12, 1.15, 0.04)
PAPER_HETERO_SWF = (1e-4, 1e-3)


def _hetero_cells(data: Path) -> pd.DataFrame:
    """MOCCA+ILBA per (variant, n, Pareto shape) of ``tpds11_hetero_variants.csv``: mean, std (ddof 0), var."""
    frame = pd.read_csv(data / "tpds11_hetero_variants.csv")
    cells = frame.groupby(["variant", "dist", "jobs", "procs"], sort=False)["ilba"]
    return pd.DataFrame({"mean": cells.mean(), "std": cells.std(ddof=0), "var": cells.var(ddof=0)}).reset_index()


def _hetero_matching_rows(data: Path, dist: str) -> tuple[list[str], int]:
    """The (variant, n) rows of `dist` that meet the paper's §7.4 figures for every shape a, and how many rows."""
    cells = _hetero_cells(data)
    cells = cells[cells["dist"] == dist]
    if dist == "uni":
        low, high, sigma = PAPER_HETERO_UNI
        ok = (cells["mean"].round(2) >= low) & (cells["mean"].round(2) <= high) & (cells["std"] < sigma)
    else:
        ok = (cells["mean"] < 1 + PAPER_HETERO_SWF[0]) & (cells["var"] < PAPER_HETERO_SWF[1])
    rows = cells.assign(ok=ok).groupby(["variant", "jobs"], sort=False)["ok"].all()
    return [f"{variant}, n = {jobs}" for (variant, jobs), good in rows.items() if good], len(rows)


def _hetero_paper_match(dist: str) -> Any:
    """Which (variant, n) rows meet the paper's §7.4 figures for every shape a: ``variant, n = 500; ...``."""
    def render(data: Path) -> str:
        found, _ = _hetero_matching_rows(data, dist)
        return "; ".join(found) if found else "no row"
    return render


def _hetero_range(dist: str, column: str, *, variant: str | None = None, jobs: int | None = None,
                  exclude: tuple[str, int] | None = None, how: str = "range", digits: int = 3) -> Any:
    """``low–high`` (or the ``max``) of the per-shape `column` (mean or std) of the §7.4 variant rows of `dist`,
    restricted to `variant` and `jobs`, without the row `exclude` = (variant, n)."""
    def render(data: Path) -> str:
        cells = _hetero_cells(data)
        keep = cells["dist"] == dist
        if variant is not None:
            keep &= cells["variant"] == variant
        if jobs is not None:
            keep &= cells["jobs"] == jobs
        if exclude is not None:
            keep &= ~((cells["variant"] == exclude[0]) & (cells["jobs"] == exclude[1]))
        values = cells[keep][column]
        if how == "max":
            return fmt(float(values.max()), digits)
        return f"{fmt(float(values.min()), digits)}–{fmt(float(values.max()), digits)}"
    return render


def _hetero_full(column: str, *, digits: int = 2) -> Any:
    """``low–high`` over the Pareto shapes of MOCCA+ILBA's mean or std on uni, every n (the base run, §7.4)."""
    def render(data: Path) -> str:
        frame = pd.read_csv(data / "tpds11_heterogeneous.csv")
        part = frame[(frame["dist"] == "uni") & (frame["algorithm"] == "mocca+ilba") & (frame["jobs"] == "all n")]
        return f"{fmt(float(part[column].min()), digits)}–{fmt(float(part[column].max()), digits)}"
    return render


def _hetero_worse_rows(data: Path) -> tuple[list[str], int]:
    """§7.4 "heterogeneity does not worsen ILBA", checked on every row of the variants table (10 instances per cell)
    and of the base run (every n): the rows where the mean at a = 1 (most heterogeneous) exceeds the mean at a = 10
    by more than the largest standard deviation of the row's cells, and how many rows there are."""
    rows = [(f"{variant}, n = {jobs}", part.set_index("procs")["mean"].loc[-1],
             part.set_index("procs")["mean"].loc[-10], part["std"].max())
            for (variant, jobs), part in _hetero_cells(data).groupby(["variant", "jobs"], sort=False)]
    base = pd.read_csv(data / "tpds11_heterogeneous.csv")
    base = base[(base["algorithm"] == "mocca+ilba") & (base["jobs"] == "all n")]
    rows += [(f"{dist}, base run, every n", part.set_index("shape")["mean"].loc[1],
              part.set_index("shape")["mean"].loc[10], part["std"].max()) for dist, part in base.groupby("dist")]
    worse = [f"{name} ({fmt(a1, 3)} at a = 1 against {fmt(a10, 3)} at a = 10, σ ≤ {fmt(spread, 3)})"
             for name, a1, a10, spread in rows if a1 - a10 > spread]
    return worse, len(rows)


def _hetero_no_worse(data: Path) -> str:
    """`_hetero_worse_rows` as a sentence: ``holds in all 14 rows`` or ``holds in 13 of 14 rows; not on ...``."""
    worse, total = _hetero_worse_rows(data)
    if not worse:
        return f"holds in all {total} rows"
    return f"holds in {total - len(worse)} of {total} rows; not on {'; '.join(worse)}"


def _hetero_verdicts(data: Path) -> str:
    """§7.4 summed up as counts of rows: the direction ("does not worsen", `_hetero_worse_rows`) and the paper's
    figures (`_hetero_matching_rows`, both data sets)."""
    worse, total = _hetero_worse_rows(data)
    found = [_hetero_matching_rows(data, dist) for dist in ("uni", "swf")]
    matched, rows = sum(len(f) for f, _ in found), sum(n for _, n in found)
    return (f"does not worsen: matches in {total - len(worse)} of {total} rows, no in {len(worse)}; the paper's "
            f"figures: matches in {matched} of the {rows} variant rows, no in {rows - matched}")


ZIPF_13 = "Zipf exponent s = 1.3"
VALUES = {
    "tpds11-m-ilba-min-p": _m_p("any", "mocca+ilba"),
    "tpds11-m-both-mocca-p": _m_p("both", "mocca-exp", how="max", pair=(128, 512)),
    "tpds11-local-lb-pmax": _local_variant("ours: HF, i.i.d. Zipf owners", column="lb_is_pmax", percent=True),
    "tpds11-local-half-n10": _local_variant("q uniform in 1..m/2", 10),
    "tpds11-local-half-n20": _local_variant("q uniform in 1..m/2", 20),
    "tpds11-local-zipf-n10": _local_variant(ZIPF_13, 10),
    "tpds11-local-zipf-n20": _local_variant(ZIPF_13, 20),
    "tpds11-local-zipf-n2": _local_variant(ZIPF_13, 2),
    "tpds11-local-zipf-n5": _local_variant(ZIPF_13, 5),
    "tpds11-local-uni-n10": _row("uni", "local", orgs="10", jobs="50-500"),
    "tpds11-local-uni-n20": _row("uni", "local", orgs="20", jobs="50-500"),
    "tpds11-mocca-uni": _row("uni", "mocca-exp"),
    "tpds11-ilba-uni": _row("uni", "mocca+ilba"),
    "tpds11-mocca-swf": _row("swf", "mocca-exp"),
    "tpds11-ilba-swf": _row("swf", "mocca+ilba"),
    "tpds11-local-swf": _row("swf", "local"),
    "tpds11-local-uni": _row("uni", "local"),
    "tpds11-optimal-ilba": _optimal("both", "mocca+ilba"),
    "tpds11-optimal-mocca": _optimal("both", "mocca-exp"),
    "tpds11-correlation-uni": _correlation("uni"),
    "tpds11-correlation-uni-n50": _correlation("uni, n ≥ 50"),
    "tpds11-correlation-both": _correlation("both"),
    "tpds11-worst-local": _worst_local,
    "tpds11-policies-uni": _local_policies_range("uni"),
    "tpds11-policies-swf": _local_policies_range("swf", digits=3),
    "tpds11-lpt-uni": _row("uni", "mocca3+ilba", experiment="local-policies", order="lpt", digits=3),
    "tpds11-lpt-swf": _row("swf", "mocca3+ilba", experiment="local-policies", order="lpt", digits=3),
    "tpds11-trend-a-swf": _trend_claim("swf", "local", "rises"),
    "tpds11-trend-a-uni": _trend_claim("uni", "local", "rises", orgs=(10, 20)),
    "tpds11-trend-b-mocca": _trend_claim("swf", "mocca-exp", "rises"),
    "tpds11-trend-b-ilba": _trend_claim("swf", "mocca+ilba", "rises"),
    "tpds11-trend-c-mocca": _trend_claim("uni", "mocca-exp", "falls or flat"),
    "tpds11-trend-c-ilba": _trend_claim("uni", "mocca+ilba", "falls or flat"),
    "tpds11-m-uni-min-p": _m_p("uni", "any"),
    "tpds11-m-swf-max-p": _m_swf_worst,
    "tpds11-mocca-worse": _mocca_worse,
    "tpds11-mocca-same": _worst_share("instances where MOCCA scores the same as local (%)"),
    "tpds11-swf-mocca-range": _swf_variants("mocca", "range"),
    "tpds11-swf-ilba-range": _swf_variants("ilba", "range"),
    "tpds11-swf-mocca-min": _swf_variants("mocca", "min"),
    "tpds11-swf-moved-range": _swf_variants("mocca_moved", "range", digits=0, percent=True),
    "tpds11-swf-local-range": _swf_variants("local", "range", digits=1),
    "tpds11-swf-local-below3": _swf_variants("local", "below3"),
    "tpds11-swf-fewer-jobs": _swf_jobs_verdict(SWF_FEWER_JOBS),
    "tpds11-swf-per-org": _swf_jobs_verdict("n jobs per organization (N·n in all)"),
    "tpds11-curve-swf-mocca-n10": _curve("swf", "mocca-exp", "n", 10),
    "tpds11-curve-swf-mocca-n50": _curve("swf", "mocca-exp", "n", 50),
    "tpds11-curve-swf-mocca-n500": _curve("swf", "mocca-exp", "n", 500),
    "tpds11-verdict-mocca-uni": _average_verdict("uni", "mocca-exp", "local"),
    "tpds11-verdict-ilba-uni": _average_verdict("uni", "mocca+ilba", "mocca-exp"),
    "tpds11-verdict-local-n": _local_by_n_verdicts,
    "tpds11-ilba-improves-uni": _improvement_verdict("uni"),
    "tpds11-ilba-improves-swf": _improvement_verdict("swf"),
    "tpds11-local-uni-n2": _row("uni", "local", orgs="2", jobs="50-500"),
    "tpds11-local-uni-n5": _row("uni", "local", orgs="5", jobs="50-500"),
    "tpds11-threshold-gap": _threshold_gap,
    "tpds11-hetero-no-worse": _hetero_no_worse,
    "tpds11-hetero-verdicts": _hetero_verdicts,
    "tpds11-policies-spread-uni": _policies_spread("uni"),
    "tpds11-policies-spread-swf": _policies_spread("swf"),
    "tpds11-lpt-best-uni": _lpt_best("uni"),
    "tpds11-lpt-best-swf": _lpt_best("swf"),
    "tpds11-correlation-verdict-uni": _correlation_verdict("uni"),
    "tpds11-correlation-verdict-both": _correlation_verdict("both"),
    "tpds11-trend-count": _trend_count,
    "tpds11-m-count": _m_count,
    "tpds11-hetero-uni-match": _hetero_paper_match("uni"),
    "tpds11-hetero-swf-match": _hetero_paper_match("swf"),
    "tpds11-hetero-uni-fit500-mean": _hetero_range("uni", "mean", variant="uni, q ≤ the smallest cluster", jobs=500),
    "tpds11-hetero-uni-fit500-std": _hetero_range("uni", "std", variant="uni, q ≤ the smallest cluster", jobs=500),
    "tpds11-hetero-uni-other-mean": _hetero_range("uni", "mean", exclude=("uni, q ≤ the smallest cluster", 500),
                                                  digits=1),
    "tpds11-hetero-uni-other-std": _hetero_range("uni", "std", exclude=("uni, q ≤ the smallest cluster", 500),
                                                 how="max", digits=1),
    "tpds11-hetero-full-mean": _hetero_full("mean"),
    "tpds11-hetero-full-std": _hetero_full("std"),
    "tpds11-hetero-swf-fit500": _hetero_range("swf", "mean", variant="swf, q ≤ the smallest cluster", jobs=500,
                                              digits=2),
    "tpds11-hetero-swf-ours500": _hetero_range("swf", "mean", variant="swf, ours: q ≤ the owner's cluster",
                                               jobs=500, digits=2),
}

