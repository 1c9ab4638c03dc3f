"""Which machine split and which DIRECTCONTR did PPAM'13 Table 2 and SPAA'13 §6.3.2 use?

Reference: P. Skowron, K. Rzadca, "Fair share is not enough: measuring fairness in scheduling with cooperative
game theory", PPAM 2013 (LNCS 8385), Table 2; "Non-monetary fair scheduling — cooperative game theory approach",
SPAA 2013 (long version, arXiv 1302.0948), §6.3.2 table. Both average Δψ/p_tot over 100 windows of 5·10^5 s of
LPC-EGEE and RICC, and for the same seed our windows of the two are the same (docs/replication/ppam13.md).

`GRID` crosses every machine split (`SPLITS`: 1 + a multinomial draw, a uniformly random composition, Zipf with
s = 1, 1.4267 and 2) with every DIRECTCONTR (`DIRECTCONTR_VARIANTS`: Algorithm 1 lines 15–16 corrected, as printed,
and corrected with free machines handed out lowest id first). `run_grid` runs it on the Table 2 windows through
`fairsched.replicate.ppam13.variants.run_variants` (the DIRECTCONTR variants of one split share its REF runs), and
`fit` ranks the combinations by their joint distance to the paper's means: the sum over PPAM'13 Table 2's six
policies and SPAA'13's three (RAND N = 15, DIRECTCONTR, ROUNDROBIN), on both traces, of |ln(ours / paper)|
(18 terms; 0 = every mean equal to the paper's).

Run as ``python -m fairsched.replicate.ppam13.split_dc --out docs/replication/data/ppam13_split_dc`` (100
windows, one process; ``--windows`` and ``--jobs`` to change that).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import pandas as pd

from fairsched.replicate.ppam13.paper import PAPER, PPAM13Config
from fairsched.replicate.ppam13.variants import Variant, run_variants
from fairsched.replicate.spaa13.paper import PAPER_TABLE

__all__ = ["DIRECTCONTR_VARIANTS", "FIT_FILE", "GRID", "SPLITS", "fit", "run_grid"]

SPLITS: tuple[tuple[str, tuple[tuple[str, object], ...]], ...] = (
    ("multinomial", (("splits", ("uniform",)),)),
    ("composition", (("splits", ("composition",)),)),
    ("zipf s=1", (("splits", ("zipf",)), ("zipf_s", 1.0))),
    ("zipf s=1.4267", (("splits", ("zipf",)),)),
    ("zipf s=2", (("splits", ("zipf",)), ("zipf_s", 2.0))),
)
DIRECTCONTR_VARIANTS: tuple[tuple[str, tuple[tuple[str, object], ...]], ...] = (
    ("corrected", ()),
    ("printed", (("directcontr_update", "printed"),)),
    ("lowest first", (("directcontr_machines", "lowest"),)),
)
GRID: tuple[Variant, ...] = tuple(
    Variant(f"{split} / {dc}", split_overrides + dc_overrides, f"split {split}, DIRECTCONTR {dc}")
    for split, split_overrides in SPLITS for dc, dc_overrides in DIRECTCONTR_VARIANTS)
FIT_FILE = "ppam13_split_dc_fit.csv"
_SPAA_ROLES = {"RAND (N=15)": "RAND", "DIRECTCONTR": "DIRECTCONTR", "ROUNDROBIN": "ROUNDROBIN"}


def _paper_means() -> dict[tuple[str, str, str], float]:
    """(source, trace, policy role) -> the paper's mean, for PPAM'13 Table 2 and SPAA'13 §6.3.2."""
    means = {}
    for (table, trace), values in PAPER.items():
        if table == "table2":
            for label, (mean, _) in values:
                means[("PPAM'13", trace, label.split(" ")[0])] = float(mean)
    for trace, values in PAPER_TABLE.items():
        for label, (mean, _) in values.items():
            means[("SPAA'13", trace, _SPAA_ROLES[label])] = float(mean)
    return means


def fit(cells: pd.DataFrame) -> pd.DataFrame:
    """One row per variant of `cells` (``ppam13_variants_cells.csv`` rows of Table 2), best fit first.

    Columns: rank, variant, split, directcontr, fit (Σ |ln(ours / paper)| over the 18 (source, trace, policy)
    means), fit_ppam / fit_spaa (its two parts), fit_lpc / fit_ricc (by trace), worst (the term furthest from the
    paper, "RICC DIRECTCONTR 3.3×"), dc_ahead (traces where DIRECTCONTR's mean is below FAIRSHARE's, as in both
    papers' Table 2), terms (18, or fewer when a cell is missing).
    """
    paper = _paper_means()
    rows = []
    table2 = cells[cells["table"] == "table2"]
    for variant, frame in table2.groupby("variant", sort=False):
        ours = {(r.trace, r.policy): float(r.mean) for r in frame.itertuples()}
        terms = {key: math.log(ours[key[1:]] / value) for key, value in paper.items()
                 if key[1:] in ours and ours[key[1:]] > 0}
        worst = max(terms, key=lambda key: abs(terms[key]))
        split, dc = variant.split(" / ")
        ahead = [trace for trace in ("LPC-EGEE", "RICC")
                 if (trace, "DIRECTCONTR") in ours and ours[(trace, "DIRECTCONTR")] < ours[(trace, "FAIRSHARE")]]
        rows.append({"variant": variant, "split": split, "directcontr": dc,
                     "fit": sum(abs(t) for t in terms.values()),
                     "fit_ppam": sum(abs(t) for key, t in terms.items() if key[0] == "PPAM'13"),
                     "fit_spaa": sum(abs(t) for key, t in terms.items() if key[0] == "SPAA'13"),
                     "fit_lpc": sum(abs(t) for key, t in terms.items() if key[1] == "LPC-EGEE"),
                     "fit_ricc": sum(abs(t) for key, t in terms.items() if key[1] == "RICC"),
                     "worst": f"{worst[0]} {worst[1]} {worst[2]} {math.exp(terms[worst]):.2g}×",
                     "dc_ahead": ", ".join(ahead) if ahead else "none", "terms": len(terms)})
    frame = pd.DataFrame(rows).sort_values("fit", kind="stable").reset_index(drop=True)
    return frame.assign(rank=range(1, len(frame) + 1))[["rank", *rows[0]]] if rows else frame


def run_grid(out_dir: Path, *, windows: int = 100, jobs: int = 1, traces_dir: Path | None = None) -> pd.DataFrame:
    """Run `GRID` on the Table 2 windows, write the variants' files, `FIT_FILE` and ``ppam13_split_dc_run.csv``
    (wall and CPU seconds) to `out_dir`; return the fit table."""
    from fairsched._io import atomic_write

    started = time.perf_counter()
    config = PPAM13Config(tables=("table2",), windows=windows, jobs=jobs, traces_dir=traces_dir, out_dir=out_dir)
    result = run_variants(config, GRID)
    ranking = fit(result.cells)
    with atomic_write(Path(out_dir) / FIT_FILE) as handle:
        ranking.to_csv(handle, index=False, float_format="%.6g")
    with atomic_write(Path(out_dir) / "ppam13_split_dc_run.csv") as handle:
        pd.DataFrame([{"windows": windows, "wall_s": time.perf_counter() - started,
                       "cpu_s": result.cpu_s}]).to_csv(handle, index=False, float_format="%.6g")
    return ranking


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--windows", type=int, default=100)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--traces", type=Path, default=None)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    ranking = run_grid(args.out, windows=args.windows, jobs=args.jobs, traces_dir=args.traces)
    sys.stdout.write(f"{ranking.to_string()}\n")


if __name__ == "__main__":
    main()
