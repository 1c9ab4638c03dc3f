"""PPAM'13: the tables and marked numbers of docs/replication/ppam13.md, rendered from its result files.

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
(`fairsched.replicate.ppam13_variants.write_variants`), Fig. 1's ``ppam13_fig1_table.csv``. Claims of the prose
that depend on the data (which cells, how many windows, which k) are rendered here too, so that a result file
that stops supporting a sentence makes the doc stale instead of wrong. Regenerate::

    python -m fairsched.replicate._doc_tables docs/replication/ppam13.md
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fairsched.replicate._doc_format import RUN_INFO, write_run_info
from fairsched.replicate.ppam13_variants import _ROLES as ROLES
from fairsched.replicate.ppam13_variants import PAPER_VARIANT, VARIANTS

__all__ = ["TABLES", "VALUES", "figures", "k_markdown", "read_variants", "variants_markdown", "write_run_info"]

QUICK, H8, RUN30, RUN100, FIG1 = ("ppam13_variants_quick", "ppam13_h8", "ppam13_variants_30", "ppam13_variants_100",
                                  "ppam13_fig1")
IMG_DIR = Path("docs/img")
FIG1_IMG = "ppam13_fig1.png"
CLOSE = 0.10  # "close": within 10 % of the larger of two means
TIE_S = 1e-9  # means within this many seconds are equal


# ------------------------------------------------------------------------------------------------------- reading

def read_variants(directory: str | Path, prefix: str = "ppam13_variants") -> tuple[pd.DataFrame, ...]:
    """(cells, conclusions, paired) as written by `ppam13_variants.write_variants` in `directory`."""
    return tuple(pd.read_csv(Path(directory) / f"{prefix}_{name}.csv")
                 for name in ("cells", "conclusions", "paired"))


def _windows(data: Path, run: str) -> pd.DataFrame:
    """Every window, policy and variant of a variants run (`ppam13_variants.WINDOWS_FILE`, gzip CSV)."""
    from fairsched.replicate.ppam13_variants import WINDOWS_FILE

    return pd.read_csv(data / run / WINDOWS_FILE)


def _means(data: Path, run: str) -> dict[tuple[str, str, str, str], float]:
    """(variant, table, trace, policy) -> mean Δψ/p_tot of a variant run, the paper's under `PAPER_VARIANT`."""
    cells = read_variants(data / run)[0]
    means = {(r.variant, r.table, r.trace, r.policy): float(r.mean) for r in cells.itertuples()}
    first = cells[cells["variant"] == cells["variant"].iloc[0]]
    means.update({(PAPER_VARIANT, r.table, r.trace, r.policy): float(r.paper_mean) for r in first.itertuples()})
    return means


def _cell_keys(data: Path, run: str) -> list[tuple[str, str]]:
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
        parts.append(f"| {PAPER_VARIANT} | " + " | ".join(_number(first.loc[p, "paper_mean"]) for p in ROLES)
                     + " | |")
        pairs = paired[(paired["table"] == table) & (paired["trace"] == trace)].set_index("variant")
        for variant, rows in frame.groupby("variant", sort=False):
            mean = rows.set_index("policy")["mean"]
            duel = f"{pairs.loc[variant, 'dc_fairer']} / {pairs.loc[variant, 'fs_fairer']}" \
                if variant in pairs.index else ""
            parts.append(f"| {variant} | " + " | ".join(_number(mean[p]) for p in ROLES) + f" | {duel} |")
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
            parts.append(f"| {k} | " + " | ".join(_number(mean[p]) for p in policies) + " |")
        parts.append("")
    return "\n".join(parts)


def _number(value: Any) -> str:
    if value is None or (isinstance(value, float) and value != value):
        return ""
    value = float(value)
    return f"{value:.0f}" if abs(value) >= 100 else f"{value:.3g}"


def _variants_table(data: Path, run: str) -> str:
    return variants_markdown(*read_variants(data / run))


def _fig1(data: Path) -> pd.DataFrame:
    return pd.read_csv(data / FIG1 / "ppam13_fig1_table.csv")


def _fig1_table(data: Path) -> str:
    return k_markdown(_fig1(data))


def figures(data: Path, out_dir: Path = IMG_DIR) -> dict[str, Path]:
    """Draw `FIG1_IMG` (Δψ/p_tot against k, one panel per split, symmetric-log axis so that a policy matching REF
    exactly is drawn at 0) from Fig. 1's ``ppam13_fig1_table.csv``; same data, same bytes (PNG carries no
    date)."""
    from fairsched._io import atomic_write
    from fairsched.replicate._online_plots import k_figure

    rows = _fig1(data)
    windows = ", ".join(map(str, sorted(rows["windows"].unique())))
    lengths = ", ".join(f"{length:.0e}".replace("e+0", "·10^") for length in sorted(rows["window_length"].unique()))
    figure = k_figure(rows.astype(object).where(rows.notna(), None).to_dict("records"),
                      f"PPAM'13 Fig. 1: Δψ/p_tot against k (LPC-EGEE, {windows} windows of {lengths} s)")
    path = Path(out_dir) / FIG1_IMG
    with atomic_write(path, "wb") as handle:
        figure.savefig(handle, format="png", dpi=90, bbox_inches="tight")
    return {FIG1_IMG: path}


def main(argv: list[str] | None = None) -> None:
    """``python -m fairsched.replicate._ppam13_doc``: draw the doc's figures from the shipped result files."""
    import argparse
    import sys

    from fairsched.replicate._doc_format import DATA_DIR

    argparse.ArgumentParser(description=main.__doc__).parse_args(argv)
    for path in figures(DATA_DIR).values():
        sys.stdout.write(f"{path}\n")


# ------------------------------------------------------------------------------------------------ text helpers

def _and(items: Sequence[object]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    words = [str(item) for item in items]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def _cell_name(table: str, trace: str) -> str:
    return f"Table {table.removeprefix('table')} {trace}".strip()


def _cells_phrase(hits: Sequence[tuple[str, str]], among: Sequence[tuple[str, str]]) -> str:
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
                     else _and([f"{name} {trace}" for trace in hit_traces]))
    return "on " + _and(parts)


def _count(hits: int, total: int) -> str:
    return f"{hits} of the {total}" if hits != total else f"all {total}"


def _ks(ks: Iterable[int]) -> str:
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
    return _and(items)


# ------------------------------------------------------------------------------------------------ variant claims

def _fairer(means: dict, variant: str, a: str, b: str, cells: Sequence[tuple[str, str]],
            margin: float = 0.0) -> list[tuple[str, str]]:
    """The cells where `a`'s mean is below `b`'s for `variant`, by more than `margin` (relative to `b`)."""
    return [(t, tr) for t, tr in cells
            if means[(variant, t, tr, a)] < (1 - margin) * means[(variant, t, tr, b)] - TIE_S]


def _table2(cells: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    return [cell for cell in cells if cell[0] == "table2"]


def _zipf_variants(means: dict) -> list[str]:
    present = {variant for variant, *_ in means}
    return [v.name for v in VARIANTS if v.name in present and dict(v.overrides).get("splits") == ("zipf",)
            and set(dict(v.overrides)) <= {"splits", "zipf_s"}]


def _zipf_s(variant: str) -> float:
    from fairsched.scenario import DEFAULT_ZIPF_S

    return float(dict(next(v for v in VARIANTS if v.name == variant).overrides).get("zipf_s", DEFAULT_ZIPF_S))


def fs_ahead_uniform(data: Path, run: str) -> str:
    """Cells where FAIRSHARE is fairer than both DIRECTCONTR and UTFAIRSHARE with the shipped (uniform) split."""
    means, cells = _means(data, run), _cell_keys(data, run)
    hits = [c for c in _fairer(means, "shipped", "FAIRSHARE", "DIRECTCONTR", cells)
            if c in _fairer(means, "shipped", "FAIRSHARE", "UTFAIRSHARE", cells)]
    return _cells_phrase(hits, cells)


def dc_ahead_every_zipf(data: Path, run: str, table2: bool = True) -> str:
    """Table 2 cells (every cell: `table2` False) where DIRECTCONTR is fairer than FAIRSHARE under every Zipf
    exponent of the run."""
    means, cells = _means(data, run), _cell_keys(data, run)
    cells = _table2(cells) if table2 else cells
    hits = [c for c in cells if all(c in _fairer(means, v, "DIRECTCONTR", "FAIRSHARE", cells)
                                    for v in _zipf_variants(means))]
    return _cells_phrase(hits, cells)


def rand_most_fair_every_zipf(data: Path, run: str) -> str:
    """Cells where RAND is the most fair policy (conclusion (i)) under every Zipf exponent of the run."""
    cells = _cell_keys(data, run)
    zipf = _zipf_variants(_means(data, run))
    return _cells_phrase([c for c in cells if all(c in _holding(data, run, v, "i") for v in zipf)], cells)


def turned_cells(data: Path, run: str, variant: str) -> str:
    """The cells where `variant` puts DIRECTCONTR ahead of FAIRSHARE while the shipped set-up has it behind."""
    means, cells = _means(data, run), _cell_keys(data, run)
    behind = [c for c in cells if c not in _fairer(means, "shipped", "DIRECTCONTR", "FAIRSHARE", cells)]
    return _cells_phrase(_fairer(means, variant, "DIRECTCONTR", "FAIRSHARE", behind), cells)


def same_checks(data: Path, run: str, a: str, b: str) -> str:
    """"all 22": the conclusion checks where variants `a` and `b` agree."""
    frame = read_variants(data / run)[1].fillna("")
    keyed = frame.set_index(["variant", "conclusion", "table", "trace"])["holds"].astype(bool)
    mine, other = keyed.loc[a], keyed.loc[b]
    return _count(int((mine == other.reindex(mine.index)).sum()), len(mine))


def t2_direction(data: Path, run: str) -> str:
    """"stays" when DIRECTCONTR is fairer than FAIRSHARE on every Table 2 cell under every Zipf exponent, else
    "does not stay"."""
    cells = _table2(_cell_keys(data, run))
    return "stays" if dc_ahead_every_zipf(data, run) == _cells_phrase(cells, cells) else "does not stay"


def zipf_runs_agree(data: Path, run: str, other: str, table: str | None = None) -> str:
    """"the same" when runs `run` and `other` put DIRECTCONTR ahead of FAIRSHARE under every Zipf exponent in the
    same cells (of `table` only, if given) and, unless `table` is Table 1, find "clearly" (vii) for the same
    exponents; else "not the same"."""
    def where(name: str) -> list[tuple[str, str]]:
        means, cells = _means(data, name), _cell_keys(data, name)
        cells = [c for c in cells if table is None or c[0] == table]
        return [c for c in cells if all(c in _fairer(means, v, "DIRECTCONTR", "FAIRSHARE", cells)
                                        for v in _zipf_variants(means))]

    same = where(run) == where(other) and (table == "table1"  # (vii), "clearly", is a Table 2 conclusion
                                           or clearly_exponents(data, run) == clearly_exponents(data, other))
    return "the same" if same else "not the same"


def zipf_exponents(data: Path, run: str) -> str:
    """The Zipf exponents a run tried: "1, 1.4267 and 2"."""
    return _and([f"{s:g}" for s in sorted(_zipf_s(v) for v in _zipf_variants(_means(data, run)))])


def dc_ahead_zipf(data: Path, run: str, table2: bool = False) -> str:
    """Cells where DIRECTCONTR is fairer than FAIRSHARE with the Zipf split (s = 1.4267)."""
    cells = _cell_keys(data, run)
    cells = _table2(cells) if table2 else cells
    return _cells_phrase(_fairer(_means(data, run), "zipf", "DIRECTCONTR", "FAIRSHARE", cells), cells)


def clearly_exponents(data: Path, run: str) -> str:
    """The Zipf exponents under which conclusion (vii) ("clearly outperforms", DIRECTCONTR <= 0.8 FAIRSHARE) holds
    on every Table 2 cell."""
    conclusions = read_variants(data / run)[1]
    vii = conclusions[conclusions["conclusion"] == "vii"]
    exponents = [f"{_zipf_s(v):g}" for v in _zipf_variants(_means(data, run))
                 if vii.loc[vii["variant"] == v, "holds"].astype(bool).all()]
    return _and(exponents) if exponents else "none"


def _holding(data: Path, run: str, variant: str, conclusion: str) -> list[tuple[str, str]]:
    conclusions = read_variants(data / run)[1].fillna("")
    rows = conclusions[(conclusions["variant"] == variant) & (conclusions["conclusion"] == conclusion)]
    return [(r.table, r.trace) for r in rows.itertuples() if bool(r.holds)]


def holds_where(data: Path, run: str, variant: str, conclusion: str) -> str:
    """The cells where `conclusion` holds for `variant`."""
    conclusions = read_variants(data / run)[1].fillna("")
    rows = conclusions[(conclusions["variant"] == variant) & (conclusions["conclusion"] == conclusion)]
    return _cells_phrase(_holding(data, run, variant, conclusion), list(zip(rows["table"], rows["trace"],
                                                                            strict=True)))


def paired_count(data: Path, run: str, variant: str, table: str, trace: str, fairer: str = "dc_fairer") -> str:
    """"22 of the 23": windows where DIRECTCONTR is fairer than FAIRSHARE (`fairer` "fs_fairer": the converse),
    of those where they differ."""
    paired = read_variants(data / run)[2]
    row = paired[(paired["variant"] == variant) & (paired["table"] == table) & (paired["trace"] == trace)].iloc[0]
    return _count(int(row[fairer]), int(row["dc_fairer"] + row["fs_fairer"]))


def windows(data: Path, run: str) -> str:
    return str(int(read_variants(data / run)[0]["windows"].max()))


def paper_misses(data: Path, run: str) -> str:
    """How many (conclusion, cell) checks the paper's own numbers fail, in words."""
    conclusions = read_variants(data / run)[1]
    missed = int((~conclusions.loc[conclusions["variant"] == PAPER_VARIANT, "holds"].astype(bool)).sum())
    return _WORDS.get(missed, str(missed)).capitalize()


_WORDS = {0: "no", 1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight",
          9: "nine", 10: "ten"}


def others_behind(data: Path, run: str) -> str:
    """The single-switch variants (hypotheses 2–7) that put DIRECTCONTR ahead of FAIRSHARE in a cell where the
    shipped set-up has it behind: "none" when there are none."""
    means, cells = _means(data, run), _cell_keys(data, run)
    behind = [c for c in cells if c not in _fairer(means, "shipped", "DIRECTCONTR", "FAIRSHARE", cells)]
    zipf = set(_zipf_variants(means)) | {v for v, *_ in means if "zipf" in v}
    turned = [v for v in dict.fromkeys(v for v, *_ in means) if v not in zipf | {"shipped", PAPER_VARIANT}
              and _fairer(means, v, "DIRECTCONTR", "FAIRSHARE", behind)]
    return "None" if not turned else "Only " + _and(turned)


def close_pairs(data: Path, run: str, a: str, b: str, variants: Sequence[str] | None = None) -> str:
    """"n of the m": (variant, cell) pairs where `a` and `b` are within `CLOSE` of each other."""
    means, cells = _means(data, run), _cell_keys(data, run)
    chosen = variants if variants is not None else _zipf_variants(means)
    pairs = [(means[(v, *c, a)], means[(v, *c, b)]) for v in chosen for c in cells]
    return _count(sum(_close(x, y) for x, y in pairs), len(pairs))


def _close(x: float, y: float, margin: float = CLOSE) -> bool:
    return abs(x - y) <= margin * max(abs(x), abs(y)) + TIE_S


def much_worse_fails(data: Path, run: str, variant: str) -> str:
    """Cells where (iii) fails because FAIRSHARE is more than the threshold times DIRECTCONTR (not because it is
    fairer)."""
    from fairsched.replicate.ppam13_variants import _FS_WITHIN, _SLACK_S

    means, cells = _means(data, run), _cell_keys(data, run)
    hits = [c for c in cells if means[(variant, *c, "FAIRSHARE")] > max(_FS_WITHIN * means[(variant, *c,
            "DIRECTCONTR")], means[(variant, *c, "DIRECTCONTR")] + _SLACK_S)]
    return _cells_phrase(hits, cells)


def switch_worse(data: Path, run: str, policy: str, pairs: Sequence[tuple[str, str]]) -> str:
    """"n of the m": (cell, variant pair) where the switched variant (second) makes `policy` strictly less fair
    than the base (first)."""
    means, cells = _means(data, run), _cell_keys(data, run)
    hits = [means[(switched, *c, policy)] > means[(base, *c, policy)] + TIE_S for base, switched in pairs
            for c in cells]
    return _count(sum(hits), len(hits))


def switch_median_change(data: Path, run: str, policy: str, pairs: Sequence[tuple[str, str]]) -> str:
    """The median relative change of `policy`'s mean from the base variant to the switched one, in per cent (cells
    where the base mean is 0 left out)."""
    means, cells = _means(data, run), _cell_keys(data, run)
    changes = [means[(switched, *c, policy)] / means[(base, *c, policy)] - 1 for base, switched in pairs
               for c in cells if means[(base, *c, policy)] > TIE_S]
    return f"{100 * float(np.median(changes)):.0f} %"


def order_flips(data: Path, run: str, a: str, b: str, pairs: Sequence[tuple[str, str]]) -> str:
    """The cells (with the base variant) where the switch reverses the order of `a` and `b`."""
    means, cells = _means(data, run), _cell_keys(data, run)
    found = []
    for base, switched in pairs:
        for c in cells:
            before = np.sign(means[(base, *c, a)] - means[(base, *c, b)])
            after = np.sign(means[(switched, *c, a)] - means[(switched, *c, b)])
            if before != after:
                found.append(f"{_cell_name(*c)}, {'uniform' if base == 'shipped' else base}")
    return _and(found) if found else "none"


def growth_range(data: Path, run: str, variant: str, table: str) -> str:
    """The range of `variant`'s mean over the shipped one's on `table`, over cells and policies (shipped means
    under 1 s, where the ratio says nothing, left out): "5 to 361"."""
    means, cells = _means(data, run), _cell_keys(data, run)
    ratios = [means[(variant, t, tr, p)] / means[("shipped", t, tr, p)] for t, tr in cells if t == table
              for p in ROLES if means[("shipped", t, tr, p)] >= 1.0]
    return f"{min(ratios):.0f} to {max(ratios):.0f}"


def over_paper(data: Path, run: str, variant: str, table: str, trace: str, policies: Sequence[str]) -> str:
    """`variant`'s means over the paper's for `policies` in one cell: "24 to 29"."""
    means = _means(data, run)
    ratios = [means[(variant, table, trace, p)] / means[(PAPER_VARIANT, table, trace, p)] for p in policies]
    return f"{min(ratios):.0f} to {max(ratios):.0f}" if round(min(ratios)) != round(max(ratios)) \
        else f"{min(ratios):.0f}"


def cv(data: Path, run: str, variant: str, table: str, trace: str, policy: str) -> str:
    """Coefficient of variation (std/mean over windows) of one cell, the paper's with `PAPER_VARIANT`."""
    cells = read_variants(data / run)[0]
    where = cells[(cells["table"] == table) & (cells["trace"] == trace) & (cells["policy"] == policy)]
    row = where[where["variant"] == (where["variant"].iloc[0] if variant == PAPER_VARIANT else variant)].iloc[0]
    std, mean = (row["paper_std"], row["paper_mean"]) if variant == PAPER_VARIANT else (row["std"], row["mean"])
    return f"{std / mean:.2g}"


def fairer_cells(data: Path, run: str, variant: str, a: str, b: str, table2: bool = False,
                 margin: float = 0.0) -> str:
    """The cells where `a` is fairer than `b` for `variant` (by more than `margin`, relative)."""
    cells = _cell_keys(data, run)
    cells = _table2(cells) if table2 else cells
    return _cells_phrase(_fairer(_means(data, run), variant, a, b, cells, margin), cells)


def ref_rules(data: Path, run: str, listed: int = 3) -> str:
    """How REF's literal rule compares with the lookahead rule window by window (the ``REF`` rows of the
    ``ref literal`` variant: the lookahead REF measured against the literal one). Up to `listed` differing
    windows are named; more are counted per cell, with the largest difference and where it is."""
    frame = _windows(data, run)
    ref = frame[(frame["variant"] == "ref literal") & (frame["policy"] == "REF")]
    differ = ref[ref["ratio"].abs() > TIE_S]
    text = f"{_count(len(ref) - len(differ), len(ref))} (table, trace, window) runs"
    if 0 < len(differ) <= listed:
        where = _and([f"{_cell_name(r.table, r.trace)}, window {r.window}" for r in differ.itertuples()])
        text += (f"; in the other{'s' if len(differ) > 1 else ''} ({where}) the two REF schedules are "
                 f"{differ['ratio'].abs().max():.2g} s apart in Δψ/p_tot")
    elif len(differ):
        counts = differ.groupby(["table", "trace"], sort=False).size()
        per_cell = _and([f"{n} on {_cell_name(table, trace)}" for (table, trace), n in counts.items()])
        worst = differ.loc[differ["ratio"].abs().idxmax()]
        text += (f"; in the other {len(differ)} ({per_cell}) the two REF schedules are at most "
                 f"{abs(worst['ratio']):.2g} s apart in Δψ/p_tot ({_cell_name(worst['table'], worst['trace'])}, "
                 f"window {worst['window']})")
    return text


def mean_digits(data: Path, run: str, a: str, b: str) -> str:
    """The number of significant digits to which every mean of variants `a` and `b` agrees."""
    means = _means(data, run)
    keys = [key[1:] for key in means if key[0] == a]
    worst = max(abs(means[(a, *k)] - means[(b, *k)]) / max(abs(means[(a, *k)]), TIE_S) for k in keys)
    return "every" if worst == 0 else str(int(np.floor(-np.log10(worst))))


def moved_cells(data: Path, run: str, base: str, switched: str, policy: str, margin: float = 0.01) -> str:
    """How many cells `policy`'s mean moves in by more than `margin` (relative) from `base` to `switched`, in
    words: "one cell"."""
    means, cells = _means(data, run), _cell_keys(data, run)
    moved = sum(not _close(means[(switched, *c, policy)], means[(base, *c, policy)], margin) for c in cells)
    return f"{_WORDS.get(moved, str(moved))} cell{'s' if moved != 1 else ''}"


def nonzero_windows(data: Path, run: str, variant: str, trace: str) -> str:
    """Windows of `trace` (both tables) where some policy of `variant` differs from REF: "0 of the 20"."""
    frame = _windows(data, run)
    mine = frame[(frame["variant"] == variant) & (frame["trace"] == trace)]
    per_window = mine.groupby(["table", "window"])["ratio"].apply(lambda r: bool((r.abs() > TIE_S).any()))
    return _count(int(per_window.sum()), len(per_window))


def same_as(data: Path, run: str, a: str, b: str, trace: str) -> str:
    """"equal" when variants `a` and `b` have the same means on `trace`, else "differ from"."""
    means = _means(data, run)
    keys = [k[1:] for k in means if k[0] == a and k[2] == trace]
    return "equal" if all(means[(a, *k)] == means[(b, *k)] for k in keys) else "differ from"


def order_kept(data: Path, run: str, base: str, switched: str) -> str:
    """"n of the m" cells where no two policies change order (strictly) between the two variants."""
    means, cells = _means(data, run), _cell_keys(data, run)

    def kept(cell: tuple[str, str]) -> bool:
        return all(np.sign(means[(base, *cell, p)] - means[(base, *cell, q)])
                   * np.sign(means[(switched, *cell, p)] - means[(switched, *cell, q)]) >= 0
                   for p in ROLES for q in ROLES)

    return _count(sum(kept(c) for c in cells), len(cells))


def mean_beside_paper(data: Path, run: str, variant: str, table: str, trace: str, policy: str) -> str:
    """"4389 against the paper's 4511"."""
    means = _means(data, run)
    return (f"{_number(means[(variant, table, trace, policy)])} against the paper's "
            f"{_number(means[(PAPER_VARIANT, table, trace, policy)])}")


def within_factor(data: Path, run: str, variant: str, table: str, trace: str, factor: float = 2.0) -> str:
    """The policies whose mean is within `factor` of the paper's in one cell: "every policy but RAND"."""
    means = _means(data, run)
    inside = [p for p in ROLES if 1 / factor <= means[(variant, table, trace, p)]
              / means[(PAPER_VARIANT, table, trace, p)] <= factor]
    outside = [p for p in ROLES if p not in inside]
    if not outside:
        return "every policy"
    return f"every policy but {_and(outside)}" if len(inside) >= len(outside) else _and(inside) or "no policy"


def holding_everywhere(data: Path, run: str, variant: str, conclusions: Sequence[str], table: str) -> str:
    """Which of `conclusions` hold in every cell of `table` for `variant`: "(i), (ii) and (vii)"."""
    frame = read_variants(data / run)[1]
    mine = frame[(frame["variant"] == variant) & (frame["table"] == table)]
    holding = [c for c in conclusions if mine.loc[mine["conclusion"] == c, "holds"].astype(bool).all()]
    return _and([f"({c})" for c in holding]) if holding else "none of " + _and([f"({c})" for c in conclusions])


def is_or_not(data: Path, run: str, variant: str, conclusion: str, table: str, trace: str) -> str:
    frame = read_variants(data / run)[1]
    row = frame[(frame["variant"] == variant) & (frame["conclusion"] == conclusion) & (frame["table"] == table)
                & (frame["trace"] == trace)]
    return "is" if bool(row["holds"].iloc[0]) else "is not"


def much_less_fair(data: Path, run: str, base: str, switched: str, policy: str, factor: float = 2.0) -> str:
    """The cells where `switched` makes `policy` at least `factor` times less fair than `base`."""
    means, cells = _means(data, run), _cell_keys(data, run)
    hits = [c for c in cells if means[(switched, *c, policy)] > factor * means[(base, *c, policy)] + TIE_S]
    return _cells_phrase(hits, cells)


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
    rows = _fig1(data)
    rows = rows[(rows["split"] == split) & (rows["policy"] != "REF")]
    return rows.pivot_table(index="orgs", columns="policy", values="mean")


def fig1_ks(data: Path, split: str, a: str, b: str, strict: bool = True) -> str:
    """The k where `a` is fairer than `b` (both over the same windows)."""
    means = _fig1_means(data, split)
    return _ks(means.index[means[a] < means[b] - TIE_S])


def fig1_from(data: Path, split: str, a: str, b: str) -> str:
    """"every k ≥ 3": the k from which on `a` is fairer than `b` at every k (or the list, if there is no such k)."""
    means = _fig1_means(data, split)
    fairer = means[a] < means[b] - TIE_S
    ks = list(means.index)
    tail = next((k for k in ks if fairer.loc[k:].all()), None)
    if tail is None:
        return "at no k"
    return f"at every k ≥ {tail}" if fairer.loc[:tail].sum() == 1 or tail == ks[0] else \
        f"at k = {_ks(means.index[fairer])}"


def fig1_ratio(data: Path, split: str, a: str, b: str, k_from: int) -> str:
    """"8 to 20": the range of b / a over k ≥ `k_from`."""
    means = _fig1_means(data, split).loc[k_from:]
    ratios = means[b] / means[a]
    return f"{ratios.min():.0f} to {ratios.max():.0f}"


def fig1_close(data: Path, split: str, a: str, b: str) -> str:
    """"6 of the 9": the k where `a` and `b` are within `CLOSE` of each other."""
    means = _fig1_means(data, split)
    return _count(sum(_close(x, y) for x, y in zip(means[a], means[b], strict=True)), len(means))


def fig1_monotone(data: Path) -> str:
    """The (split, policy) series of Fig. 1 that grow with k (non-decreasing): "none" or their names."""
    rows = _fig1(data)
    growing = [f"{policy} ({split})" for split in dict.fromkeys(rows["split"])
               for policy, series in _fig1_means(data, split).items() if series.is_monotonic_increasing]
    return "none" if not growing else _and(growing)


def fig1_trend(data: Path) -> str:
    """The rank correlation (Spearman) of each (split, policy) series' mean with k: "8 of the 12 series, ρ from
    −0.2 to 0.9 (median 0.5)" — the series with ρ > 0, then the range over all."""
    rows = _fig1(data)
    rho = pd.Series([series.rank().corr(pd.Series(series.index, index=series.index).rank())  # Pearson on ranks
                     for split in dict.fromkeys(rows["split"]) for _, series in _fig1_means(data, split).items()])
    return (f"{_count(int((rho > 0).sum()), len(rho))} series, ρ from {rho.min():.2f} to {rho.max():.2f} "
            f"(median {rho.median():.2f})").replace("-", "−")


def fig1_least_fair(data: Path, split: str, policy: str = "ROUNDROBIN") -> str:
    """The k where `policy` is the least fair: "every k" or the list."""
    means = _fig1_means(data, split)
    worst = means.idxmax(axis=1) == policy
    return "at every k" if worst.all() else f"at k = {_ks(means.index[worst])}"


def fig1_overtake(data: Path, split: str, policy: str = "ROUNDROBIN",
                  family: Sequence[str] = ("FAIRSHARE", "UTFAIRSHARE", "CURRFAIRSHARE")) -> str:
    """The k where some policy of `family` is less fair than `policy`: "k = 8 and 10", or "no k"."""
    means = _fig1_means(data, split)
    ks = means.index[(means[list(family)].max(axis=1) > means[policy])]
    return f"k = {_ks(ks)}" if len(ks) else "no k"


def fig1_windows(data: Path) -> str:
    """The number of windows Fig. 1's means are over ("10")."""
    return str(int(_fig1(data)["windows"].max()))


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
    means = _means(data, _fig1_run(data))
    rows = _fig1(data)
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


# ------------------------------------------------------------------------------------------------ registries

Renderer = Callable[[Path], str]
TABLES: dict[str, Renderer] = {
    "ppam13-variants-quick": partial(_variants_table, run=QUICK),
    "ppam13-h8": partial(_variants_table, run=H8),
    "ppam13-variants-30": partial(_variants_table, run=RUN30),
    "ppam13-variants-100": partial(_variants_table, run=RUN100),
    "ppam13-fig1": _fig1_table,
}

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
    "ppam13-quick-rand-printed-worse": lambda data: _cells_phrase(
        _fairer_across(data, QUICK, "RAND", "shipped", "rand printed"), _cell_keys(data, QUICK)),
    "ppam13-quick-rand-printed-better": lambda data: _cells_phrase(
        _fairer_across(data, QUICK, "RAND", "rand printed", "shipped"), _cell_keys(data, QUICK)),
    "ppam13-quick-rand-75-better": lambda data: _cells_phrase(
        _fairer_across(data, QUICK, "RAND", "rand N=75", "shipped"), _cell_keys(data, QUICK)),
    "ppam13-quick-rand-75-worse": lambda data: _cells_phrase(
        _fairer_across(data, QUICK, "RAND", "shipped", "rand N=75"), _cell_keys(data, QUICK)),
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
    "ppam13-h8-lowest-worse": lambda data: _cells_phrase(
        _fairer_across(data, H8, "DIRECTCONTR", "shipped", "dc lowest"), _cell_keys(data, H8)),
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
        f"ppam13-{tag}-dc-printed-t2-worse": lambda data, run=run: _cells_phrase(
            _fairer_across(data, run, "DIRECTCONTR", "zipf", "zipf+dc printed", True), _table2(_cell_keys(data, run))),
        f"ppam13-{tag}-dc-printed-t2-better": lambda data, run=run: _cells_phrase(
            _fairer_across(data, run, "DIRECTCONTR", "zipf+dc printed", "zipf", True), _table2(_cell_keys(data, run))),
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
    means = _means(data, run)
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
    return _count(int((mine == paper.reindex(mine.index)).sum()), len(mine))


def share_of_paper(data: Path, run: str, variant: str, table: str, policy: str) -> str:
    """`policy`'s mean over the paper's on each trace of `table`: "0.14 (LPC-EGEE) and 0.05 (RICC)"."""
    means = _means(data, run)
    traces = [trace for t, trace in _cell_keys(data, run) if t == table]
    return _and([f"{means[(variant, table, tr, policy)] / means[(PAPER_VARIANT, table, tr, policy)]:.2f} ({tr})"
                 for tr in traces])


def contended(data: Path, run: str, variant: str, table: str, trace: str = "") -> str:
    """"n of the m": windows of `table` (one trace, or both) where some policy of `variant` differs from REF."""
    frame = _windows(data, run)
    mine = frame[(frame["variant"] == variant) & (frame["table"] == table) & (frame["policy"] != "REF")]
    mine = mine[mine["trace"] == trace] if trace else mine
    per_window = mine.groupby(["trace", "window"])["ratio"].apply(lambda r: bool((r.abs() > TIE_S).any()))
    return _count(int(per_window.sum()), len(per_window))


def fig1_largest_gaps(data: Path, split: str, a: str, b: str, n: int = 3) -> str:
    """The k of the `n` largest gaps b − a (means over the windows)."""
    means = _fig1_means(data, split)
    return _ks((means[b] - means[a]).nlargest(n).index)


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
    means, cells = _means(data, run), _cell_keys(data, run)
    return [c for c in (_table2(cells) if table2 else cells) if means[(a, *c, policy)] < means[(b, *c, policy)] - TIE_S]


if __name__ == "__main__":
    main()
