"""PPAM'13: the tables and marked numbers of docs/replication/ppam13.md, rendered from its result files.

This module holds the tables (`TABLES`) and the Fig. 1 plot (``python -m fairsched.replicate.ppam13.doc``); the
numbers in the prose are `fairsched.replicate.ppam13.doc_values.VALUES`, built on the claims of
`fairsched.replicate.ppam13.doc_claims`.

Each run the doc quotes ships in its own directory of ``docs/replication/data`` (`fairsched.replicate._doc_tables`
renders the doc's ``<!-- table: NAME -->`` blocks and ``<!-- value: NAME -->`` numbers with `TABLES` and `VALUES`):

* ``ppam13_variants_quick``: the ablation grid, ``fairsched replicate ppam13 --quick --variants --out DIR``;
* ``ppam13_h8``: hypothesis 8, ``run_variants(PPAM13Config(quick=True, out_dir=DIR), HYPOTHESIS_8)``;
* ``ppam13_variants_30``, ``ppam13_variants_100``: the variants that matter on 30 and 100 windows (100: also the
  Zipf exponents 1 and 2 and REF's literal rule),
  ``run_variants(PPAM13Config(windows=N, jobs=2, out_dir=DIR), chosen)``; ``ppam13_variants_100/run.csv`` holds
  the run's wall and CPU time (`write_run_info`);
* ``ppam13_fig1``: Fig. 1, ``run_fig1(PPAM13Config(windows=100, jobs=2, splits=("uniform", "zipf"),
  out_dir=DIR), ks=KS)``; ``ppam13_fig1/run.csv`` holds its wall and CPU time.

The variant directories hold ``ppam13_variants_{cells,conclusions,paired,run}.csv`` and ``_windows.csv.gz``
(`fairsched.replicate.ppam13.variants.write_variants`), Fig. 1's ``ppam13_fig1_table.csv``. Claims of the prose
that depend on the data (which cells, how many windows, which k) are rendered here too, so that a result file
that stops supporting a sentence makes the doc stale instead of wrong. Regenerate::

    python -m fairsched.replicate._doc_tables docs/replication/ppam13.md
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import pandas as pd

from fairsched.replicate._doc_format import DATA_DIR, Renderer
from fairsched.replicate.ppam13.variants import PAPER_VARIANT, ROLES

__all__ = ["FIG1", "FIG1_IMG", "H8", "IMG_DIR", "QUICK", "RUN30", "RUN100", "TABLES", "figures", "k_markdown",
           "read_variants", "variants_markdown"]

QUICK, H8, RUN30, RUN100, FIG1 = ("ppam13_variants_quick", "ppam13_h8", "ppam13_variants_30", "ppam13_variants_100",
                                  "ppam13_fig1")
IMG_DIR = Path("docs/img")
FIG1_IMG = "ppam13_fig1.png"
CLOSE = 0.10  # "close": within 10 % of the larger of two means
TIE_S = 1e-9  # means within this many seconds are equal


# ------------------------------------------------------------------------------------------------------- reading

def read_variants(directory: str | Path, prefix: str = "ppam13_variants") -> tuple[pd.DataFrame, ...]:
    """(cells, conclusions, paired) as written by `fairsched.replicate.ppam13.variants.write_variants` in
    `directory`."""
    return tuple(pd.read_csv(Path(directory) / f"{prefix}_{name}.csv")
                 for name in ("cells", "conclusions", "paired"))


def variant_windows(data: Path, run: str) -> pd.DataFrame:
    """Every window, policy and variant of a variants run (`fairsched.replicate.ppam13.variants.WINDOWS_FILE`,
    gzip CSV)."""
    from fairsched.replicate.ppam13.variants import WINDOWS_FILE

    return pd.read_csv(data / run / WINDOWS_FILE)


def variant_means(data: Path, run: str) -> dict[tuple[str, str, str, str], float]:
    """(variant, table, trace, policy) -> mean Δψ/p_tot of a variant run, the paper's under `PAPER_VARIANT`."""
    cells = read_variants(data / run)[0]
    means = {(r.variant, r.table, r.trace, r.policy): float(r.mean) for r in cells.itertuples()}
    first = cells[cells["variant"] == cells["variant"].iloc[0]]
    means.update({(PAPER_VARIANT, r.table, r.trace, r.policy): float(r.paper_mean) for r in first.itertuples()})
    return means


def cell_keys(data: Path, run: str) -> list[tuple[str, str]]:
    cells = read_variants(data / run)[0]
    return list(dict.fromkeys(zip(cells["table"], cells["trace"], strict=True)))


# ------------------------------------------------------------------------------------------------------- tables

def variants_markdown(cells: pd.DataFrame, conclusions: pd.DataFrame, paired: pd.DataFrame) -> str:
    """Markdown tables: mean Δψ/p_tot per variant beside the paper's (one table per cell), then the conclusions."""
    parts = []
    for (table, trace), frame in cells.groupby(["table", "trace"], sort=False):
        windows = int(frame["windows"].max())
        parts.append(f"**{table}, {trace}** — mean Δψ/p_tot (s) over {windows} windows; last column: windows "
                     "where DIRECTCONTR is fairer / less fair than FAIRSHARE\n")
        parts.append("| variant | " + " | ".join(ROLES) + " | DC vs FS |")
        parts.append("|---|" + "---:|" * (len(ROLES) + 1))
        first = frame[frame["variant"] == frame["variant"].iloc[0]].set_index("policy")
        parts.append(f"| {PAPER_VARIANT} | " + " | ".join(number_text(first.loc[p, "paper_mean"]) for p in ROLES)
                     + " | |")
        pairs = paired[(paired["table"] == table) & (paired["trace"] == trace)].set_index("variant")
        for variant, rows in frame.groupby("variant", sort=False):
            mean = rows.set_index("policy")["mean"]
            duel = f"{pairs.loc[variant, 'dc_fairer']} / {pairs.loc[variant, 'fs_fairer']}" \
                if variant in pairs.index else ""
            parts.append(f"| {variant} | " + " | ".join(number_text(mean[p]) for p in ROLES) + f" | {duel} |")
        parts.append("")
    marks = conclusions.fillna("").assign(
        cell=lambda f: (f["conclusion"] + " " + f["table"].str.replace("table", "T") + " " + f["trace"])
        .str.replace(r"\s+", " ", regex=True).str.strip())
    columns = list(dict.fromkeys(marks["cell"]))
    paper = marks[marks["variant"] == PAPER_VARIANT].set_index("cell")["holds"]
    parts.append("| variant | " + " | ".join(columns) + " | as the paper |")
    parts.append("|---|" + "---|" * (len(columns) + 1))
    for variant, rows in marks.groupby("variant", sort=False):
        holds = rows.set_index("cell")["holds"]
        same = sum(bool(holds.get(c)) == bool(paper.get(c)) for c in columns)
        parts.append(f"| {variant} | " + " | ".join("✓" if holds.get(c) else "✗" for c in columns)
                     + f" | {same}/{len(columns)} |")
    return "\n".join(parts) + "\n"


def k_markdown(rows: pd.DataFrame) -> str:
    """Mean Δψ/p_tot per number of organizations k (rows) and policy (columns), one table per split."""
    parts = []
    for split, frame in rows[rows["policy"] != "REF"].groupby("split", sort=False):
        policies = list(dict.fromkeys(frame["policy"]))
        parts.append(f"**{split} split** — mean Δψ/p_tot (s) over {int(frame['windows'].max())} windows\n")
        parts.append("| k | " + " | ".join(policies) + " |")
        parts.append("|---:|" + "---:|" * len(policies))
        for k, by_k in frame.groupby("orgs", sort=True):
            mean = by_k.set_index("policy")["mean"]
            parts.append(f"| {k} | " + " | ".join(number_text(mean[p]) for p in policies) + " |")
        parts.append("")
    return "\n".join(parts)


def number_text(value: Any) -> str:
    if value is None or (isinstance(value, float) and value != value):
        return ""
    value = float(value)
    return f"{value:.0f}" if abs(value) >= 100 else f"{value:.3g}"


def _variants_table(data: Path, run: str) -> str:
    return variants_markdown(*read_variants(data / run))


def fig1_rows(data: Path) -> pd.DataFrame:
    return pd.read_csv(data / FIG1 / "ppam13_fig1_table.csv")


def _fig1_table(data: Path) -> str:
    return k_markdown(fig1_rows(data))


def figures(data: Path, out_dir: Path = IMG_DIR) -> dict[str, Path]:
    """Draw `FIG1_IMG` (Δψ/p_tot against k, one panel per split, symmetric-log axis so that a policy matching REF
    exactly is drawn at 0) from Fig. 1's ``ppam13_fig1_table.csv``; same data, same bytes (PNG carries no
    date)."""
    from fairsched._io import atomic_write
    from fairsched.replicate._online_plots import k_figure

    rows = fig1_rows(data)
    windows = ", ".join(map(str, sorted(rows["windows"].unique())))
    lengths = ", ".join(f"{length:.0e}".replace("e+0", "·10^") for length in sorted(rows["window_length"].unique()))
    figure = k_figure(rows.astype(object).where(rows.notna(), None).to_dict("records"),
                      f"PPAM'13 Fig. 1: Δψ/p_tot against k (LPC-EGEE, {windows} windows of {lengths} s)")
    path = Path(out_dir) / FIG1_IMG
    with atomic_write(path, "wb") as handle:
        figure.savefig(handle, format="png", dpi=90, bbox_inches="tight")
    return {FIG1_IMG: path}


def main(argv: list[str] | None = None) -> None:
    """``python -m fairsched.replicate.ppam13.doc``: draw the doc's figures from the shipped result files."""
    import argparse
    import sys


    argparse.ArgumentParser(description=main.__doc__).parse_args(argv)
    for path in figures(DATA_DIR).values():
        sys.stdout.write(f"{path}\n")


# ------------------------------------------------------------------------------------------------ text helpers

def and_join(items: Sequence[object]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    words = [str(item) for item in items]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def cell_name(table: str, trace: str) -> str:
    return f"Table {table.removeprefix('table')} {trace}".strip()


def cells_phrase(hits: Sequence[tuple[str, str]], among: Sequence[tuple[str, str]]) -> str:
    """Where a claim holds among some (table, trace) cells: "in every cell", "in no cell", "on Table 2 RICC"…"""
    if not hits:
        return "in no cell"
    if list(hits) == list(among):
        return "in every cell" if len(among) > 2 else ("in both cells" if len(among) == 2 else "in the cell")
    traces = {trace for _, trace in among}
    tables = {table for table, _ in among}
    by_table = {table: [trace for t, trace in hits if t == table] for table in dict.fromkeys(t for t, _ in hits)}
    parts = []
    for table, hit_traces in by_table.items():
        name = f"Table {table.removeprefix('table')}"
        parts.append(f"{name} on both traces" if len(traces) == 2 and len(hit_traces) == 2 and len(tables) > 1
                     else and_join([f"{name} {trace}" for trace in hit_traces]))
    return "on " + and_join(parts)


def count_phrase(hits: int, total: int) -> str:
    return f"{hits} of the {total}" if hits != total else f"all {total}"


def ks_phrase(ks: Iterable[int]) -> str:
    """``2–5 and 8``: runs of consecutive k joined by an en dash."""
    ks = sorted(int(k) for k in ks)
    if not ks:
        return "no k"
    runs: list[list[int]] = [[ks[0]]]
    for k in ks[1:]:
        runs[-1].append(k) if k == runs[-1][-1] + 1 else runs.append([k])
    items: list[str] = []
    for r in runs:
        items += [f"{r[0]}–{r[-1]}"] if len(r) > 2 else [str(k) for k in r]
    return and_join(items)


# ------------------------------------------------------------------------------------------------ registries

TABLES: dict[str, Renderer] = {
    "ppam13-variants-quick": partial(_variants_table, run=QUICK),
    "ppam13-h8": partial(_variants_table, run=H8),
    "ppam13-variants-30": partial(_variants_table, run=RUN30),
    "ppam13-variants-100": partial(_variants_table, run=RUN100),
    "ppam13-fig1": _fig1_table,
}


if __name__ == "__main__":
    main()
