"""Paired comparisons against a baseline (``fairsched results DIR --baseline policy=fairshare``).

Two policies run on the same seed (or the same window) see the same jobs, so their difference on that seed is
far less noisy than the difference of their means over seeds. `paired_results` pairs every row with the
baseline's row of the same *condition* — the same seed and the same value of every option the spec varies
(except the baseline's column), and of every column that tells the rows of one cell apart (``policy``) — and
summarizes, per group and metric, the per-pair differences ``value − baseline`` and ratios ``value / baseline``:

* ``diff``: their mean, with a paired 95 % Student-t interval ``mean ± t₀.₉₇₅,ₙ₋₁ · s / √n`` (``diff_t_low``,
  ``diff_t_high``) and a 95 % percentile bootstrap interval of the mean (``diff_boot_low``, ``diff_boot_high``:
  `scipy.stats.bootstrap`, ``n_resamples`` resamples drawn from ``numpy.random.default_rng(seed)``, the same
  stream for every group and metric, so a rerun gives the same bounds);
* ``ratio``: the same for the per-pair ratios (pairs whose baseline is 0 are left out of the ratios only);
* ``wilcoxon_p``: the two-sided p-value of the Wilcoxon signed-rank test of the differences
  (`scipy.stats.wilcoxon`, exact for small n; NaN when every difference is 0 or n = 0).

An option that does not apply to the baseline's cell (null in its rows: ``bf_window`` under ``easy``) matches every
value of it: that run is the baseline of each. Pairs never cross conditions otherwise: a group that does not name
a varied option (``--group-by policy`` on a sweep over ``orgs``) gathers pairs from every value of it, each pair
within one value, and `PairedResults.averaged_over` names those options.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fairsched.errors import ConfigError
from fairsched.sweep.cell import BOOKKEEPING
from fairsched.sweep.results import REPLICATES, _group_by, _metrics, load_rows

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

N_RESAMPLES = 9999  # scipy.stats.bootstrap's default
STATISTICS: tuple[str, ...] = ("n", "baseline_mean", "mean", "diff", "diff_t_low", "diff_t_high", "diff_boot_low",
                               "diff_boot_high", "ratio", "ratio_t_low", "ratio_t_high", "ratio_boot_low",
                               "ratio_boot_high", "wilcoxon_p")


@dataclass(frozen=True)
class PairedResults:
    """Paired comparisons of a store against a baseline (module docstring; ``results --baseline --json``).

    Attributes
    ----------
    rows : one row per group, compared value and metric: the group columns, the baseline's column (the value
        compared), ``metric`` and `STATISTICS`.
    pairs : one row per pair and metric: the group columns, the baseline's column, the `paired_on` columns,
        ``metric``, ``baseline``, ``value``, ``diff`` and ``ratio``.
    column, baseline : the baseline is the rows whose `column` reads `baseline`.
    group_by : the groups (the baseline's column left out: it is what each row compares).
    paired_on : the columns a pair agrees on: ``seed`` and the conditions.
    averaged_over : conditions the groups do not name: each group's pairs come from all their values.
    metrics : the metrics compared.
    n_cells_done, n_cells_total : finished cells of the store's spec, and all its cells.
    """

    rows: pd.DataFrame
    pairs: pd.DataFrame
    column: str
    baseline: str
    group_by: tuple[str, ...]
    paired_on: tuple[str, ...]
    averaged_over: tuple[str, ...]
    metrics: tuple[str, ...]
    n_cells_done: int
    n_cells_total: int


def paired_results(out: str | Path, baseline: str, *, group_by: tuple[str, ...] | None = None,
                   metrics: tuple[str, ...] | None = None, n_resamples: int = N_RESAMPLES,
                   seed: int = 0) -> PairedResults:
    """Per group and metric, the paired differences and ratios of every row against the baseline's.

    Parameters
    ----------
    out : the store's directory.
    baseline : ``COLUMN=VALUE``, e.g. ``policy=fairshare`` or ``order=fcfs`` (values compared as text).
    group_by : as `fairsched.sweep.read_results` (default: the varied options, then ``policy``); the baseline's
        column is left out of the groups.
    metrics : as `fairsched.sweep.read_results`.
    n_resamples, seed : the bootstrap's resamples and the seed of its generator.

    Raises
    ------
    ConfigError : a malformed `baseline`, an unknown column, a value no row has, or a baseline that is not unique
        within a condition.
    """
    import pandas as pd

    column, value = _parse_baseline(baseline)
    frame, manifest = load_rows(out)
    n_done = int(frame["cell"].nunique()) if len(frame) else 0
    full_groups = _group_by(frame, manifest, group_by)
    metrics = _metrics(frame, manifest, (*full_groups, column), metrics)
    groups = tuple(c for c in full_groups if c != column)
    if column not in frame.columns:
        raise ConfigError(f"--baseline {baseline}: no column {column!r}; the store has "
                          f"{', '.join(c for c in frame.columns if c not in BOOKKEEPING)}")
    conditions = [c for c in _conditions(frame, manifest) if c != column]
    replicates = [c for c in REPLICATES if c in frame.columns]  # the drawn window, like the seed
    paired_on = tuple(dict.fromkeys(["seed", *replicates, *groups, *conditions]))
    text = frame[column].astype(str)
    base = frame[text == value]
    if base.empty:
        raise ConfigError(f"--baseline {baseline}: no row has {column} = {value}; it has "
                          f"{', '.join(dict.fromkeys(text))}")
    if base.duplicated(list(paired_on)).any():
        raise ConfigError(f"--baseline {baseline}: several baseline rows share one condition "
                          f"({', '.join(paired_on)}); the rows differ in a column that is not an option")
    base = _not_applicable_matches_every_value(base, frame[text != value], paired_on)
    merged = frame[text != value].merge(base[[*paired_on, *metrics]], on=list(paired_on), suffixes=("", "_base"))
    pair_frames, records = [], []
    keys = [*groups, column]
    for key_values, part in merged.groupby(keys, sort=False, dropna=False):
        key = dict(zip(keys, key_values, strict=True))
        for metric in metrics:
            pairs = part[list(paired_on)].assign(baseline=pd.to_numeric(part[f"{metric}_base"], errors="coerce"),
                                                 value=pd.to_numeric(part[metric], errors="coerce"))
            pairs = pairs[pairs["value"].notna() & pairs["baseline"].notna()]
            pairs = pairs.assign(diff=pairs["value"] - pairs["baseline"],
                                 ratio=(pairs["value"] / pairs["baseline"]).where(pairs["baseline"] != 0))
            pair_frames.append(pairs.assign(**key, metric=metric))
            records.append({**key, "metric": metric, **paired_statistics(
                pairs["baseline"].to_numpy(float), pairs["value"].to_numpy(float), n_resamples=n_resamples,
                seed=seed)})
    pair_columns = [*keys, *(c for c in paired_on if c not in keys), "metric", "baseline", "value", "diff", "ratio"]
    pairs_frame = (pd.concat(pair_frames, ignore_index=True)[pair_columns] if pair_frames
                   else pd.DataFrame(columns=pair_columns))
    averaged = tuple(c for c in conditions if c not in groups)
    return PairedResults(rows=pd.DataFrame.from_records(records, columns=[*keys, "metric", *STATISTICS]),
                         pairs=pairs_frame, column=column, baseline=value, group_by=groups,
                         paired_on=paired_on, averaged_over=averaged, metrics=metrics, n_cells_done=n_done,
                         n_cells_total=len(manifest.cells))


def paired_statistics(baseline: np.ndarray, value: np.ndarray, *, n_resamples: int = N_RESAMPLES,
                      seed: int = 0) -> dict[str, float]:
    """`STATISTICS` of the pairs ``(baseline[i], value[i])`` (module docstring).

    >>> import numpy as np
    >>> s = paired_statistics(np.array([1.0, 2.0, 4.0]), np.array([2.0, 3.0, 7.0]))
    >>> s["n"], s["diff"], round(s["diff_t_high"], 4), s["ratio"], s["wilcoxon_p"]
    (3, 1.6666666666666667, 4.5351, 1.75, 0.25)
    """
    import numpy as np

    diff = value - baseline
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(baseline != 0, value / np.where(baseline != 0, baseline, 1.0), np.nan)
    ratio = ratio[np.isfinite(ratio)]
    d_t, d_boot, r_t, r_boot = (_t_interval(diff), _bootstrap(diff, n_resamples, seed), _t_interval(ratio),
                                _bootstrap(ratio, n_resamples, seed))
    return {"n": int(diff.size), "baseline_mean": _mean(baseline), "mean": _mean(value), "diff": _mean(diff),
            "diff_t_low": d_t[0], "diff_t_high": d_t[1], "diff_boot_low": d_boot[0], "diff_boot_high": d_boot[1],
            "ratio": _mean(ratio), "ratio_t_low": r_t[0], "ratio_t_high": r_t[1], "ratio_boot_low": r_boot[0],
            "ratio_boot_high": r_boot[1], "wilcoxon_p": _wilcoxon(diff)}


def _not_applicable_matches_every_value(base: pd.DataFrame, others: pd.DataFrame,
                                        paired_on: tuple[str, ...]) -> pd.DataFrame:
    """The baseline rows, where a null condition (an option that does not apply to the baseline's cell, e.g.
    ``bf_window`` under ``--baseline backfill=easy``, docs/sweeps.md) also stands for every value the other rows
    have: a copy per value, unless a baseline row of that value exists. The baseline's run is the same whatever
    the value, so ``slurm`` with each window is paired with the one ``easy`` run of its seed."""
    import pandas as pd

    for column in paired_on:
        missing = base[column].isna()
        values = others[column].dropna().unique()
        if missing.any() and len(values):
            copies = [base[missing].assign(**{column: v}).astype({column: base[column].dtype}) for v in values]
            base = pd.concat([base, *copies], ignore_index=True).drop_duplicates(list(paired_on), keep="first")
    return base


def _parse_baseline(baseline: str) -> tuple[str, str]:
    column, sep, value = str(baseline).partition("=")
    if not sep or not column.strip() or not value.strip():
        raise ConfigError(f"--baseline {baseline!r}: expected COLUMN=VALUE, e.g. policy=fairshare")
    return column.strip().replace("-", "_"), value.strip()


def _conditions(frame: pd.DataFrame, manifest: Any) -> list[str]:
    """What makes two rows different conditions: the options the spec varies, and the text columns that tell the
    rows of one cell apart (``policy`` for the online model; numbers and flags there are results, not labels)."""
    import pandas as pd

    varied = [key.replace("-", "_") for cell in manifest.cells for key in cell["point"]]
    labels = [c for c in frame.columns if c not in BOOKKEEPING and pd.api.types.is_string_dtype(frame[c])
              and not pd.api.types.is_bool_dtype(frame[c])]
    inside = [c for c in labels if len(frame) and bool((frame.groupby("cell")[c].nunique(dropna=False) > 1).any())]
    return [c for c in dict.fromkeys([*varied, *inside]) if c in frame.columns]


def _mean(values: np.ndarray) -> float:
    return float(values.mean()) if values.size else math.nan


def _t_interval(values: np.ndarray) -> tuple[float, float]:
    from scipy import stats

    n = values.size
    if n < 2:
        return math.nan, math.nan
    half = float(stats.t.ppf(0.975, n - 1)) * float(values.std(ddof=1)) / math.sqrt(n)
    return float(values.mean()) - half, float(values.mean()) + half


def _bootstrap(values: np.ndarray, n_resamples: int, seed: int) -> tuple[float, float]:
    import numpy as np
    from scipy import stats

    if values.size < 2:
        return math.nan, math.nan
    if np.all(values == values[0]):  # every resample has the same mean
        return float(values[0]), float(values[0])
    result = stats.bootstrap((values,), np.mean, n_resamples=n_resamples, method="percentile",
                             confidence_level=0.95, rng=np.random.default_rng(seed))
    return float(result.confidence_interval.low), float(result.confidence_interval.high)


def _wilcoxon(diff: np.ndarray) -> float:
    import numpy as np
    from scipy import stats

    if diff.size == 0 or not np.any(diff != 0):
        return math.nan
    with warnings.catch_warnings():  # few pairs: scipy warns that the normal approximation may be inexact
        warnings.simplefilter("ignore")
        return float(stats.wilcoxon(diff).pvalue)
