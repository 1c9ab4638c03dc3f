"""The MOCCA-variants table and figures of docs/replication/tpds11.md, rendered from ``tpds11_mocca_variants.csv``
(written by ``python -m fairsched.replicate.tpds11.mocca_variants``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from fairsched.replicate._common import STANDARD_ERRORS
from fairsched.replicate._doc_format import fmt, markdown_table
from fairsched.replicate.tpds11.mocca_variants import (
    MOCCA_VARIANTS_FILE,
    PAPER_SWF_MOCCA,
    PAPER_WORSE_PERCENT,
    MoccaVariant,
    summarize,
)

__all__ = ["TABLES", "VALUES"]


def _summary(data: Path) -> pd.DataFrame:
    return summarize(pd.read_csv(data / MOCCA_VARIANTS_FILE))


def _fits(row: Any) -> tuple[bool, bool]:
    """(mean within `STANDARD_ERRORS` standard errors of the paper's 1.16, ≥ 9 % of instances worse than local)."""
    return (abs(row["mean"] - PAPER_SWF_MOCCA) <= STANDARD_ERRORS * row["standard_error"],
            row["worse"] >= PAPER_WORSE_PERCENT)


def table_mocca_variants(data: Path) -> str:
    """One row per variant: threshold, fallback, compaction, mean (± two standard errors), worse / same as local
    (%), moved a job (%), and which of the paper's two figures it reproduces."""
    rows = []
    for _, row in _summary(data).iterrows():
        level, worse = _fits(row)
        both = "both" if level and worse else ("1.16" if level else ("≥ 9 % worse" if worse else "neither"))
        rows.append((f"{row['alpha']:g}LB", row["fallback"], row["compaction"],
                     f"{fmt(row['mean'], 3)} ± {fmt(STANDARD_ERRORS * row['standard_error'], 3)}",
                     fmt(row["worse"], 1), fmt(row["same"], 1), fmt(row["moved"], 1), both))
    return markdown_table(("threshold", "fallback", "compaction", "MOCCA mean ± 2 s.e. (paper 1.16)",
                           "worse than local (%, paper 9)", "same as local (%)", "moved a job (%)",
                           "reproduces"), rows, "llllrrrl")


def _finding(data: Path) -> str:
    """Which variants reproduce both figures, or the closest on each: ``none; the closest mean is ... ``."""
    summary = _summary(data)
    fits = summary.apply(_fits, axis=1, result_type="expand")
    both = summary[fits[0] & fits[1]]
    if len(both):
        return f"{len(both)} of the {len(summary)}: {'; '.join(both['variant'])}"
    worse = summary[fits[1]]
    closest = summary.loc[(summary["mean"] - PAPER_SWF_MOCCA).abs().idxmin()]
    most = summary.loc[summary["worse"].idxmax()]
    text = (f"none of the {len(summary)}; {int(fits[0].sum())} give the paper's 1.16 (the closest: "
            f"{closest['variant']}, {fmt(closest['mean'], 3)}, worse than local on {fmt(closest['worse'], 1)} %), "
            f"and the one most often worse than local is {most['variant']}, on {fmt(most['worse'], 1)} % of the "
            f"instances (paper: 9 %)")
    if len(worse):
        near = worse.loc[(worse["mean"] - PAPER_SWF_MOCCA).abs().idxmin()]
        text += (f"; of the {len(worse)} worse than local on ≥ 9 % of instances, the closest is {near['variant']} "
                 f"({fmt(near['mean'], 3)}, worse on {fmt(near['worse'], 1)} %)")
    return text


def _ours(column: str, digits: int = 3) -> Any:
    """A column of our own reading (3LB, fallback local, compact moved) in the summary."""
    def render(data: Path) -> str:
        summary = _summary(data).set_index("variant")
        return fmt(summary.loc[MoccaVariant().name, column], digits)
    return render


def _run_time(data: Path) -> str:
    run = pd.read_csv(data / "tpds11_mocca_variants_run.csv").iloc[0]
    return f"{fmt(run['wall_s'], 0)} s wall, {fmt(run['cpu_s'], 0)} s CPU"


def _instances(data: Path) -> str:
    return f"{int(_summary(data)['instances'].iloc[0]):,}"


TABLES = {"tpds11-mocca-variants": table_mocca_variants}
VALUES = {"tpds11-mocca-variants-finding": _finding, "tpds11-mocca-variants-ours": _ours("mean"),
          "tpds11-mocca-variants-ours-worse": _ours("worse", 1), "tpds11-mocca-variants-run": _run_time,
          "tpds11-mocca-variants-instances": _instances, "tpds11-mocca-variants-count": lambda data: str(len(
              _summary(data)))}
