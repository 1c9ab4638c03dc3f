"""Pure transformations of a workload: time windows, first jobs, load scaling and the sequential job count.

Every function returns a new workload of its argument's kind (a pandas `Workload` or numpy `WorkloadColumns`,
through their shared ``take`` / ``with_columns``) and leaves its argument untouched; the new ``source`` says what
was done, so results stay traceable. Times stay float64 seconds: the scenario rounds later.

Notation (sums over the *runnable* jobs, those with run time r_i > 0 and processors q_i > 0; the others carry no
work and are ignored — `fairsched.workload.clean.clean` removes them):

* s_i submit time, s_0 = min_i s_i, d_i = s_i - s_0;
* work W = Σ_i r_i·q_i, span S = max_i (s_i + r_i) - s_0 = max_i (d_i + r_i);
* offered load on m processors  L = W / (m · S).

Two ways of raising the load are used by the papers we replicate:

* arrival compression (Skowron & Rzadca, SPAA'13 §6.3.1: "the release time of each job was multiplied by 0.1"):
  s_i ← o + (s_i - o)·c, so d_i ← c·d_i and L(c) = W / (m · max_i (c·d_i + r_i));
* runtime expansion (Sabin & Sadayappan, JSSPP'05 §4: "the actual runtime and estimated wallclock limit is
  multiplied by [a] factor"): r_i ← x·r_i, so L(x) = x·W / (m · max_i (d_i + x·r_i)) = L(c = 1/x).

The identity L_runtime(x) = L_arrival(1/x) is JSSPP'05 §4's remark that both give identical simulation states
up to the time unit. Neither is linear in its factor because the span moves too; `scale_to_load` solves for the
factor exactly (see there).

References
----------
P. Skowron, K. Rzadca, "Non-monetary fair scheduling — cooperative game theory approach", SPAA 2013.
G. Sabin, P. Sadayappan, "Unfairness metrics for space-sharing parallel job schedulers", JSSPP 2005.
"""

from __future__ import annotations

import math
from typing import Literal, TypeVar

import numpy as np

from fairsched.errors import ConfigError
from fairsched.workload.model import Workload, WorkloadColumns
from fairsched.workload.schema import MISSING, PROCESSORS, RUNTIME_ESTIMATE

W = TypeVar("W", Workload, WorkloadColumns)  # each transformation keeps the kind: pandas table or numpy columns

# Columns holding durations that runtime expansion scales (JSSPP'05 §4 scales the runtime and the estimate).
RUNTIME_COLUMNS: tuple[str, ...] = ("run_time", "requested_time", RUNTIME_ESTIMATE)


def window(workload: W, *, start: float | None = None, length: float | None = None) -> W:
    """Jobs submitted in the half-open interval [start, start + length).

    Parameters
    ----------
    start : window start in trace seconds (inclusive); default: the first submit time.
    length : window length in seconds (> 0); None = up to the end of the trace.

    Submit times are not shifted (the scenario moves its own time origin). O(n).

    >>> import pandas as pd
    >>> w = Workload(jobs=pd.DataFrame({"submit_time": [0.0, 5.0, 10.0, 15.0]}))
    >>> window(w, start=5, length=10).jobs["submit_time"].tolist()
    [5.0, 10.0]
    """
    if start is not None:
        _require_finite("start", start)
    if length is not None:
        _require_positive("length", length)
    submit = workload.column("submit_time").astype(np.float64, copy=False)
    if start is None:
        start = float(submit.min()) if submit.size else 0.0
    keep = submit >= start
    if length is not None:
        keep &= submit < start + length
    end = "end" if length is None else f"{start + length:g}"
    return workload.take(keep, source=_source(workload, f"window [{start:g}, {end})"))


def first_jobs(workload: W, n: int) -> W:
    """The first `n` jobs in submit order (all of them if there are fewer). O(n).

    >>> import pandas as pd
    >>> first_jobs(Workload(jobs=pd.DataFrame({"submit_time": [0.0, 1.0, 2.0]})), 2).jobs["submit_time"].tolist()
    [0.0, 1.0]
    """
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 0:
        raise ConfigError(f"first_jobs: n={n!r}; expected a non-negative integer (the number of jobs to keep)")
    order = np.argsort(workload.column("submit_time").astype(np.float64, copy=False), kind="stable")[: int(n)]
    return workload.take(np.sort(order), source=_source(workload, f"first {int(n)} jobs"))


def compress_arrivals(workload: W, factor: float, *, origin: float | None = None) -> W:
    """Scale submit times about `origin`: s ← origin + (s − origin)·factor (SPAA'13 §6.3.1 uses factor 0.1).

    A factor < 1 packs arrivals closer and raises the load; run times are unchanged. `origin` defaults to the first
    submit time, so the trace still starts where it did. Wait times are left as recorded (they describe the
    original schedule, which no longer applies). Times stay float seconds. O(n).

    >>> import pandas as pd
    >>> w = Workload(jobs=pd.DataFrame({"submit_time": [100.0, 110.0, 200.0]}))
    >>> compress_arrivals(w, 0.1).jobs["submit_time"].tolist()
    [100.0, 101.0, 110.0]
    """
    _require_positive("factor", factor)
    if origin is not None:
        _require_finite("origin", origin)
    submit = workload.column("submit_time").astype(np.float64)
    if origin is None:
        origin = float(submit.min()) if submit.size else 0.0
    return workload.with_columns({"submit_time": origin + (submit - origin) * factor},
                                 source=_source(workload, f"arrivals x{factor:g} about {origin:g}"))


def expand_runtimes(workload: W, factor: float) -> W:
    """Multiply run time, requested time and runtime estimate by `factor`; -1 (missing) stays -1 (JSSPP'05 §4).

    >>> import pandas as pd
    >>> jobs = pd.DataFrame({"run_time": [10.0, -1.0], "requested_time": [20.0, -1.0]})
    >>> expand_runtimes(Workload(jobs=jobs), 1.5).jobs.to_dict("list")
    {'run_time': [15.0, -1.0], 'requested_time': [30.0, -1.0]}
    """
    _require_positive("factor", factor)
    changed = {}
    for column in RUNTIME_COLUMNS:
        if workload.has_column(column):
            values = workload.column(column).astype(np.float64)
            changed[column] = np.where(values == MISSING, float(MISSING), values * factor)
    return workload.with_columns(changed, source=_source(workload, f"runtimes x{factor:g}"))


def offered_load(workload: Workload | WorkloadColumns, n_processors: int) -> float:
    """Offered load L = Σ r_i·q_i / (m · S), S = max_i (s_i + r_i) − min_i s_i, over runnable jobs (module doc).

    L = 1 means the work would keep all m processors busy for the whole span. O(n).

    Raises
    ------
    ConfigError : m < 1, no runnable job, or a span of 0 seconds (the load is undefined).

    >>> import pandas as pd
    >>> jobs = pd.DataFrame({"submit_time": [0.0, 10.0], "run_time": [10.0, 10.0], "processors": [2, 2]})
    >>> offered_load(Workload(jobs=jobs), 2)
    1.0
    """
    _require_count("n_processors", n_processors)
    delay, run, work = _runnable(workload)
    span = float(np.max(delay + run))
    if span <= 0:
        raise ConfigError(f"offered load of {workload.source or 'the workload'} is undefined: its runnable jobs "
                          "span 0 seconds")
    return work / (n_processors * span)


def max_offered_load(workload: Workload | WorkloadColumns, n_processors: int) -> float:
    """Supremum of the load either scaling can reach: W / (m · max_i r_i) (all jobs released at once)."""
    _require_count("n_processors", n_processors)
    _, run, work = _runnable(workload)
    return work / (n_processors * float(run.max()))


def scale_to_load(workload: W, target: float, n_processors: int, *, how: Literal["runtime", "arrival"]) -> W:
    """Rescale runtimes (JSSPP'05 §4) or arrivals (SPAA'13 §6.3.1) so that `offered_load` equals `target`.

    Solved exactly rather than by iteration: L = target ⇔ max_i (c·d_i + r_i) = S*, with S* = W / (m · target)
    and c the arrival factor (runtime factor x = 1/c, module docstring). The left side is convex, piecewise linear
    and non-decreasing in c, so the largest c meeting every constraint c·d_i + r_i ≤ S* solves it:
    c* = min over d_i > 0 of (S* − r_i) / d_i. O(n).

    Raises
    ------
    ConfigError : `target` ≤ 0, unknown `how`, or a target at or above `max_offered_load` (which no factor
        reaches, because the span can never be shorter than the longest job).

    Examples
    --------
    >>> import pandas as pd
    >>> jobs = pd.DataFrame({"submit_time": [0.0, 90.0], "run_time": [10.0, 10.0], "processors": [1, 1]})
    >>> round(offered_load(scale_to_load(Workload(jobs=jobs), 0.5, 1, how="arrival"), 1), 12)
    0.5
    """
    _require_positive("target", target)
    if how not in _SCALERS:
        raise ConfigError(f"scale_to_load: how={how!r}; choose one of: {', '.join(_SCALERS)}")
    factor = _arrival_factor(workload, target, n_processors)
    return _SCALERS[how](workload, factor)


_SCALERS = {
    "runtime": lambda workload, c: expand_runtimes(workload, 1.0 / c),
    "arrival": lambda workload, c: compress_arrivals(workload, c),
}


def _arrival_factor(workload: Workload | WorkloadColumns, target: float, n_processors: int) -> float:
    """c* with max_i (c*·d_i + r_i) = W / (m · target) (see `scale_to_load`)."""
    _require_count("n_processors", n_processors)
    delay, run, work = _runnable(workload)
    wanted_span = work / (n_processors * target)
    spread = delay > 0
    ceiling = work / (n_processors * float(run.max()))
    if not spread.any():
        raise ConfigError(f"scale_to_load: all runnable jobs of {workload.source or 'the workload'} are submitted "
                          f"at the same time, so no factor changes their load ({ceiling:.6g} on {n_processors} "
                          "processors); use a longer window")
    if wanted_span <= float(run.max()):
        raise ConfigError(f"scale_to_load: target load {target:g} on {n_processors} processors is out of reach; "
                          f"any factor gives less than {ceiling:.6g} (all jobs released at once, the span being "
                          "the longest job). Choose a lower target or fewer processors.")
    return float(np.min((wanted_span - run[spread]) / delay[spread]))


def sequential_count(workload: Workload | WorkloadColumns) -> int:
    """Σ q_i over jobs with q_i ≥ 1: the sequential jobs once each parallel job becomes q_i copies (SPAA'13 §6.2).

    >>> import pandas as pd
    >>> sequential_count(Workload(jobs=pd.DataFrame({"processors": [1, 4, -1]})))
    5
    """
    processors = workload.column(PROCESSORS).astype(np.int64, copy=False)
    return int(processors[processors > 0].sum())


def _runnable(workload: Workload | WorkloadColumns) -> tuple[np.ndarray, np.ndarray, float]:
    """(d_i, r_i, W) over runnable jobs (r_i > 0, q_i > 0); ConfigError if there are none."""
    run = workload.column("run_time").astype(np.float64, copy=False)
    processors = workload.column(PROCESSORS).astype(np.float64)
    ok = (run > 0) & (processors > 0)
    if not ok.any():
        raise ConfigError(f"offered load of {workload.source or 'the workload'} is undefined: no job has a "
                          "positive run time and processor count")
    submit = workload.column("submit_time").astype(np.float64, copy=False)[ok]
    return submit - submit.min(), run[ok], float(np.dot(run[ok], processors[ok]))


def _source(workload: Workload | WorkloadColumns, what: str) -> str:
    """The source of a derived workload: its parent's, then what was done."""
    return f"{workload.source} | {what}" if workload.source else what


def _require_finite(name: str, value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float | np.number) or not math.isfinite(value):
        raise ConfigError(f"{name}={value!r}: expected a finite number of seconds")


def _require_positive(name: str, value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float | np.number) or not (
            math.isfinite(value) and value > 0):
        raise ConfigError(f"{name}={value!r}: expected a finite number > 0")


def _require_count(name: str, value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise ConfigError(f"{name}={value!r}: expected a positive integer")
