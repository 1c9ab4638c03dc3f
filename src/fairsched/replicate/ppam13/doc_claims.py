"""The claims of docs/replication/ppam13.md's prose about the ablation grid (which variant turns which conclusion,
in which cells, by how much), each computed from a shipped variants run of ``docs/replication/data``; gathered
into `fairsched.replicate.ppam13.doc_values.VALUES`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from fairsched.replicate.ppam13.doc import (
    CLOSE,
    TIE_S,
    and_join,
    cell_keys,
    cell_name,
    cells_phrase,
    count_phrase,
    number_text,
    read_variants,
    variant_means,
    variant_windows,
)
from fairsched.replicate.ppam13.variants import PAPER_VARIANT, ROLES, VARIANTS


def _fairer(means: dict, variant: str, a: str, b: str, cells: Sequence[tuple[str, str]],
            margin: float = 0.0) -> list[tuple[str, str]]:
    """The cells where `a`'s mean is below `b`'s for `variant`, by more than `margin` (relative to `b`)."""
    return [(t, tr) for t, tr in cells
            if means[(variant, t, tr, a)] < (1 - margin) * means[(variant, t, tr, b)] - TIE_S]


def table2_cells(cells: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
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
    means, cells = variant_means(data, run), cell_keys(data, run)
    hits = [c for c in _fairer(means, "shipped", "FAIRSHARE", "DIRECTCONTR", cells)
            if c in _fairer(means, "shipped", "FAIRSHARE", "UTFAIRSHARE", cells)]
    return cells_phrase(hits, cells)


def dc_ahead_every_zipf(data: Path, run: str, table2: bool = True) -> str:
    """Table 2 cells (every cell: `table2` False) where DIRECTCONTR is fairer than FAIRSHARE under every Zipf
    exponent of the run."""
    means, cells = variant_means(data, run), cell_keys(data, run)
    cells = table2_cells(cells) if table2 else cells
    hits = [c for c in cells if all(c in _fairer(means, v, "DIRECTCONTR", "FAIRSHARE", cells)
                                    for v in _zipf_variants(means))]
    return cells_phrase(hits, cells)


def rand_most_fair_every_zipf(data: Path, run: str) -> str:
    """Cells where RAND is the most fair policy (conclusion (i)) under every Zipf exponent of the run."""
    cells = cell_keys(data, run)
    zipf = _zipf_variants(variant_means(data, run))
    return cells_phrase([c for c in cells if all(c in _holding(data, run, v, "i") for v in zipf)], cells)


def turned_cells(data: Path, run: str, variant: str) -> str:
    """The cells where `variant` puts DIRECTCONTR ahead of FAIRSHARE while the shipped set-up has it behind."""
    means, cells = variant_means(data, run), cell_keys(data, run)
    behind = [c for c in cells if c not in _fairer(means, "shipped", "DIRECTCONTR", "FAIRSHARE", cells)]
    return cells_phrase(_fairer(means, variant, "DIRECTCONTR", "FAIRSHARE", behind), cells)


def same_checks(data: Path, run: str, a: str, b: str) -> str:
    """"all 22": the conclusion checks where variants `a` and `b` agree."""
    frame = read_variants(data / run)[1].fillna("")
    keyed = frame.set_index(["variant", "conclusion", "table", "trace"])["holds"].astype(bool)
    mine, other = keyed.loc[a], keyed.loc[b]
    return count_phrase(int((mine == other.reindex(mine.index)).sum()), len(mine))


def t2_direction(data: Path, run: str) -> str:
    """"stays" when DIRECTCONTR is fairer than FAIRSHARE on every Table 2 cell under every Zipf exponent, else
    "does not stay"."""
    cells = table2_cells(cell_keys(data, run))
    return "stays" if dc_ahead_every_zipf(data, run) == cells_phrase(cells, cells) else "does not stay"


def zipf_runs_agree(data: Path, run: str, other: str, table: str | None = None) -> str:
    """"the same" when runs `run` and `other` put DIRECTCONTR ahead of FAIRSHARE under every Zipf exponent in the
    same cells (of `table` only, if given) and, unless `table` is Table 1, find "clearly" (vii) for the same
    exponents; else "not the same"."""
    def where(name: str) -> list[tuple[str, str]]:
        means, cells = variant_means(data, name), cell_keys(data, name)
        cells = [c for c in cells if table is None or c[0] == table]
        return [c for c in cells if all(c in _fairer(means, v, "DIRECTCONTR", "FAIRSHARE", cells)
                                        for v in _zipf_variants(means))]

    same = where(run) == where(other) and (table == "table1"  # (vii), "clearly", is a Table 2 conclusion
                                           or clearly_exponents(data, run) == clearly_exponents(data, other))
    return "the same" if same else "not the same"


def zipf_exponents(data: Path, run: str) -> str:
    """The Zipf exponents a run tried: "1, 1.4267 and 2"."""
    return and_join([f"{s:g}" for s in sorted(_zipf_s(v) for v in _zipf_variants(variant_means(data, run)))])


def dc_ahead_zipf(data: Path, run: str, table2: bool = False) -> str:
    """Cells where DIRECTCONTR is fairer than FAIRSHARE with the Zipf split (s = 1.4267)."""
    cells = cell_keys(data, run)
    cells = table2_cells(cells) if table2 else cells
    return cells_phrase(_fairer(variant_means(data, run), "zipf", "DIRECTCONTR", "FAIRSHARE", cells), cells)


def clearly_exponents(data: Path, run: str) -> str:
    """The Zipf exponents under which conclusion (vii) ("clearly outperforms", DIRECTCONTR <= 0.8 FAIRSHARE) holds
    on every Table 2 cell."""
    conclusions = read_variants(data / run)[1]
    vii = conclusions[conclusions["conclusion"] == "vii"]
    exponents = [f"{_zipf_s(v):g}" for v in _zipf_variants(variant_means(data, run))
                 if vii.loc[vii["variant"] == v, "holds"].astype(bool).all()]
    return and_join(exponents) if exponents else "none"


def _holding(data: Path, run: str, variant: str, conclusion: str) -> list[tuple[str, str]]:
    conclusions = read_variants(data / run)[1].fillna("")
    rows = conclusions[(conclusions["variant"] == variant) & (conclusions["conclusion"] == conclusion)]
    return [(r.table, r.trace) for r in rows.itertuples() if bool(r.holds)]


def holds_where(data: Path, run: str, variant: str, conclusion: str) -> str:
    """The cells where `conclusion` holds for `variant`."""
    conclusions = read_variants(data / run)[1].fillna("")
    rows = conclusions[(conclusions["variant"] == variant) & (conclusions["conclusion"] == conclusion)]
    return cells_phrase(_holding(data, run, variant, conclusion), list(zip(rows["table"], rows["trace"],
                                                                            strict=True)))


def paired_count(data: Path, run: str, variant: str, table: str, trace: str, fairer: str = "dc_fairer") -> str:
    """"22 of the 23": windows where DIRECTCONTR is fairer than FAIRSHARE (`fairer` "fs_fairer": the converse),
    of those where they differ."""
    paired = read_variants(data / run)[2]
    row = paired[(paired["variant"] == variant) & (paired["table"] == table) & (paired["trace"] == trace)].iloc[0]
    return count_phrase(int(row[fairer]), int(row["dc_fairer"] + row["fs_fairer"]))


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
    means, cells = variant_means(data, run), cell_keys(data, run)
    behind = [c for c in cells if c not in _fairer(means, "shipped", "DIRECTCONTR", "FAIRSHARE", cells)]
    zipf = set(_zipf_variants(means)) | {v for v, *_ in means if "zipf" in v}
    turned = [v for v in dict.fromkeys(v for v, *_ in means) if v not in zipf | {"shipped", PAPER_VARIANT}
              and _fairer(means, v, "DIRECTCONTR", "FAIRSHARE", behind)]
    return "None" if not turned else "Only " + and_join(turned)


def close_pairs(data: Path, run: str, a: str, b: str, variants: Sequence[str] | None = None) -> str:
    """"n of the m": (variant, cell) pairs where `a` and `b` are within `CLOSE` of each other."""
    means, cells = variant_means(data, run), cell_keys(data, run)
    chosen = variants if variants is not None else _zipf_variants(means)
    pairs = [(means[(v, *c, a)], means[(v, *c, b)]) for v in chosen for c in cells]
    return count_phrase(sum(is_close(x, y) for x, y in pairs), len(pairs))


def is_close(x: float, y: float, margin: float = CLOSE) -> bool:
    return abs(x - y) <= margin * max(abs(x), abs(y)) + TIE_S


def much_worse_fails(data: Path, run: str, variant: str) -> str:
    """Cells where (iii) fails because FAIRSHARE is more than the threshold times DIRECTCONTR (not because it is
    fairer)."""
    from fairsched.replicate.ppam13.variants import _FS_WITHIN, _SLACK_S

    means, cells = variant_means(data, run), cell_keys(data, run)
    hits = [c for c in cells if means[(variant, *c, "FAIRSHARE")] > max(_FS_WITHIN * means[(variant, *c,
            "DIRECTCONTR")], means[(variant, *c, "DIRECTCONTR")] + _SLACK_S)]
    return cells_phrase(hits, cells)


def switch_worse(data: Path, run: str, policy: str, pairs: Sequence[tuple[str, str]]) -> str:
    """"n of the m": (cell, variant pair) where the switched variant (second) makes `policy` strictly less fair
    than the base (first)."""
    means, cells = variant_means(data, run), cell_keys(data, run)
    hits = [means[(switched, *c, policy)] > means[(base, *c, policy)] + TIE_S for base, switched in pairs
            for c in cells]
    return count_phrase(sum(hits), len(hits))


def switch_median_change(data: Path, run: str, policy: str, pairs: Sequence[tuple[str, str]]) -> str:
    """The median relative change of `policy`'s mean from the base variant to the switched one, in per cent (cells
    where the base mean is 0 left out)."""
    means, cells = variant_means(data, run), cell_keys(data, run)
    changes = [means[(switched, *c, policy)] / means[(base, *c, policy)] - 1 for base, switched in pairs
               for c in cells if means[(base, *c, policy)] > TIE_S]
    return f"{100 * float(np.median(changes)):.0f} %"


def order_flips(data: Path, run: str, a: str, b: str, pairs: Sequence[tuple[str, str]]) -> str:
    """The cells (with the base variant) where the switch reverses the order of `a` and `b`."""
    means, cells = variant_means(data, run), cell_keys(data, run)
    found = []
    for base, switched in pairs:
        for c in cells:
            before = np.sign(means[(base, *c, a)] - means[(base, *c, b)])
            after = np.sign(means[(switched, *c, a)] - means[(switched, *c, b)])
            if before != after:
                found.append(f"{cell_name(*c)}, {'uniform' if base == 'shipped' else base}")
    return and_join(found) if found else "none"


def growth_range(data: Path, run: str, variant: str, table: str) -> str:
    """The range of `variant`'s mean over the shipped one's on `table`, over cells and policies (shipped means
    under 1 s, where the ratio says nothing, left out): "5 to 361"."""
    means, cells = variant_means(data, run), cell_keys(data, run)
    ratios = [means[(variant, t, tr, p)] / means[("shipped", t, tr, p)] for t, tr in cells if t == table
              for p in ROLES if means[("shipped", t, tr, p)] >= 1.0]
    return f"{min(ratios):.0f} to {max(ratios):.0f}"


def over_paper(data: Path, run: str, variant: str, table: str, trace: str, policies: Sequence[str]) -> str:
    """`variant`'s means over the paper's for `policies` in one cell: "24 to 29"."""
    means = variant_means(data, run)
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
    cells = cell_keys(data, run)
    cells = table2_cells(cells) if table2 else cells
    return cells_phrase(_fairer(variant_means(data, run), variant, a, b, cells, margin), cells)


def ref_rules(data: Path, run: str, listed: int = 3) -> str:
    """How REF's literal rule compares with the lookahead rule window by window (the ``REF`` rows of the
    ``ref literal`` variant: the lookahead REF measured against the literal one). Up to `listed` differing
    windows are named; more are counted per cell, with the largest difference and where it is."""
    frame = variant_windows(data, run)
    ref = frame[(frame["variant"] == "ref literal") & (frame["policy"] == "REF")]
    differ = ref[ref["ratio"].abs() > TIE_S]
    text = f"{count_phrase(len(ref) - len(differ), len(ref))} (table, trace, window) runs"
    if 0 < len(differ) <= listed:
        where = and_join([f"{cell_name(r.table, r.trace)}, window {r.window}" for r in differ.itertuples()])
        text += (f"; in the other{'s' if len(differ) > 1 else ''} ({where}) the two REF schedules are "
                 f"{differ['ratio'].abs().max():.2g} s apart in Δψ/p_tot")
    elif len(differ):
        counts = differ.groupby(["table", "trace"], sort=False).size()
        per_cell = and_join([f"{n} on {cell_name(table, trace)}" for (table, trace), n in counts.items()])
        worst = differ.loc[differ["ratio"].abs().idxmax()]
        text += (f"; in the other {len(differ)} ({per_cell}) the two REF schedules are at most "
                 f"{abs(worst['ratio']):.2g} s apart in Δψ/p_tot ({cell_name(worst['table'], worst['trace'])}, "
                 f"window {worst['window']})")
    return text


def mean_digits(data: Path, run: str, a: str, b: str) -> str:
    """The number of significant digits to which every mean of variants `a` and `b` agrees."""
    means = variant_means(data, run)
    keys = [key[1:] for key in means if key[0] == a]
    worst = max(abs(means[(a, *k)] - means[(b, *k)]) / max(abs(means[(a, *k)]), TIE_S) for k in keys)
    return "every" if worst == 0 else str(int(np.floor(-np.log10(worst))))


def moved_cells(data: Path, run: str, base: str, switched: str, policy: str, margin: float = 0.01) -> str:
    """How many cells `policy`'s mean moves in by more than `margin` (relative) from `base` to `switched`, in
    words: "one cell"."""
    means, cells = variant_means(data, run), cell_keys(data, run)
    moved = sum(not is_close(means[(switched, *c, policy)], means[(base, *c, policy)], margin) for c in cells)
    return f"{_WORDS.get(moved, str(moved))} cell{'s' if moved != 1 else ''}"


def nonzero_windows(data: Path, run: str, variant: str, trace: str) -> str:
    """Windows of `trace` (both tables) where some policy of `variant` differs from REF: "0 of the 20"."""
    frame = variant_windows(data, run)
    mine = frame[(frame["variant"] == variant) & (frame["trace"] == trace)]
    per_window = mine.groupby(["table", "window"])["ratio"].apply(lambda r: bool((r.abs() > TIE_S).any()))
    return count_phrase(int(per_window.sum()), len(per_window))


def same_as(data: Path, run: str, a: str, b: str, trace: str) -> str:
    """"equal" when variants `a` and `b` have the same means on `trace`, else "differ from"."""
    means = variant_means(data, run)
    keys = [k[1:] for k in means if k[0] == a and k[2] == trace]
    return "equal" if all(means[(a, *k)] == means[(b, *k)] for k in keys) else "differ from"


def order_kept(data: Path, run: str, base: str, switched: str) -> str:
    """"n of the m" cells where no two policies change order (strictly) between the two variants."""
    means, cells = variant_means(data, run), cell_keys(data, run)

    def kept(cell: tuple[str, str]) -> bool:
        return all(np.sign(means[(base, *cell, p)] - means[(base, *cell, q)])
                   * np.sign(means[(switched, *cell, p)] - means[(switched, *cell, q)]) >= 0
                   for p in ROLES for q in ROLES)

    return count_phrase(sum(kept(c) for c in cells), len(cells))


def mean_beside_paper(data: Path, run: str, variant: str, table: str, trace: str, policy: str) -> str:
    """"4389 against the paper's 4511"."""
    means = variant_means(data, run)
    return (f"{number_text(means[(variant, table, trace, policy)])} against the paper's "
            f"{number_text(means[(PAPER_VARIANT, table, trace, policy)])}")


def within_factor(data: Path, run: str, variant: str, table: str, trace: str, factor: float = 2.0) -> str:
    """The policies whose mean is within `factor` of the paper's in one cell: "every policy but RAND"."""
    means = variant_means(data, run)
    inside = [p for p in ROLES if 1 / factor <= means[(variant, table, trace, p)]
              / means[(PAPER_VARIANT, table, trace, p)] <= factor]
    outside = [p for p in ROLES if p not in inside]
    if not outside:
        return "every policy"
    return f"every policy but {and_join(outside)}" if len(inside) >= len(outside) else and_join(inside) or "no policy"


def holding_everywhere(data: Path, run: str, variant: str, conclusions: Sequence[str], table: str) -> str:
    """Which of `conclusions` hold in every cell of `table` for `variant`: "(i), (ii) and (vii)"."""
    frame = read_variants(data / run)[1]
    mine = frame[(frame["variant"] == variant) & (frame["table"] == table)]
    holding = [c for c in conclusions if mine.loc[mine["conclusion"] == c, "holds"].astype(bool).all()]
    return and_join([f"({c})" for c in holding]) if holding else "none of " + and_join([f"({c})" for c in conclusions])


def is_or_not(data: Path, run: str, variant: str, conclusion: str, table: str, trace: str) -> str:
    frame = read_variants(data / run)[1]
    row = frame[(frame["variant"] == variant) & (frame["conclusion"] == conclusion) & (frame["table"] == table)
                & (frame["trace"] == trace)]
    return "is" if bool(row["holds"].iloc[0]) else "is not"


def much_less_fair(data: Path, run: str, base: str, switched: str, policy: str, factor: float = 2.0) -> str:
    """The cells where `switched` makes `policy` at least `factor` times less fair than `base`."""
    means, cells = variant_means(data, run), cell_keys(data, run)
    hits = [c for c in cells if means[(switched, *c, policy)] > factor * means[(base, *c, policy)] + TIE_S]
    return cells_phrase(hits, cells)


