"""Instances of the multi-organization scheduling problem: the TPDS'11 generators and trace windows.

Implements the instance families of P.-F. Dutot, F. Pascual, K. Rzadca, D. Trystram, "Approximation algorithms
for the multi-organization scheduling problem", IEEE TPDS 22(11), 2011, §7.1 and §7.4:

* ``uni`` (`uniform_instance`): p uniform in {1..50} and q uniform in {1..m}, independently;
* ``swf`` (`lublin_instance`): q and p from the Lublin & Feitelson model (`fairsched.workload.lublin`), "the
  maximum required number of processors is smaller than m and all the release dates are set to 0";
* both: "Each instance produced consisted of n jobs. To determine the owner O_k of each job J_x,i, we used a
  Zipf's distribution. We set the number of elements equal to the total number of organizations (N) and
  exponent s = 1.4267" — job j belongs to organization k (0-based) with probability ∝ 1/(k+1)**s, independently
  (`zipf_owners`), so organization 0 submits most jobs;
* heterogeneous grids (§7.4, `heterogeneous_procs`): cluster sizes from a Pareto distribution with minimum 128
  and cutoff 1024, shape 1..10 (larger shapes: more homogeneous grids).

Cluster sizes are given as one m (homogeneous) or a vector of N sizes. With heterogeneous clusters a job's size
is drawn for its *owner's* cluster (q <= m_owner), so that every organization can run its own jobs: the local
constraint C_max(O_k) <= C_max^loc(O_k) needs a local schedule. The paper does not say how it drew q there; this
is our reading, and for homogeneous grids it is exactly the paper's rule.

`trace_instance` takes rigid jobs from a window of a real SWF trace instead, users mapped to organizations by
`fairsched.scenario.assign_orgs` (the online model's mapping).

Every generator takes an explicit `numpy.random.Generator` (or a seed) and returns a
`fairsched.mosp.instance.MospInstance` with job ids 0..n-1 (trace instances keep the SWF job numbers).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from fairsched.errors import ConfigError
from fairsched.mosp.instance import MospInstance
from fairsched.scenario import DEFAULT_ZIPF_S, ORG_ID_COLUMNS, OrgsBy, assign_orgs, zipf_weights
from fairsched.workload.clean import CleanReport, clean
from fairsched.workload.lublin import LublinModel, sample_rigid_jobs
from fairsched.workload.model import Workload
from fairsched.workload.schema import PROCESSORS
from fairsched.workload.transform import window as time_window

UNI_MAX_RUNTIME = 50  # TPDS'11 §7.1: p uniform in {1, ..., 50}
ZIPF_EXPONENT = DEFAULT_ZIPF_S  # TPDS'11 §7.1: s = 1.4267, the share of virtual organizations in grid logs [15]
PARETO_MINIMUM = 128  # TPDS'11 §7.4: m_min
PARETO_CUTOFF = 1024  # TPDS'11 §7.4: m_max

Procs = int | Sequence[int] | np.ndarray
RandomSource = np.random.Generator | int


def generate(kind: str, *, n_orgs: int, n_jobs: int, procs: Procs, seed: int) -> MospInstance:
    """One TPDS'11 instance of family `kind` (``"uni"`` or ``"swf"``) drawn from `seed`.

    >>> inst = generate("uni", n_orgs=3, n_jobs=5, procs=8, seed=1)
    >>> inst.n_orgs, inst.n_jobs, inst.procs.tolist()
    (3, 5, [8, 8, 8])
    """
    if kind not in GENERATORS:
        raise ConfigError(f"unknown instance family {kind!r}; choose one of: {', '.join(GENERATORS)} "
                          "(real traces: trace_instance)")
    return GENERATORS[kind](n_orgs, n_jobs, procs, _as_rng(seed))


def uniform_instance(n_orgs: int, n_jobs: int, procs: Procs, rng: RandomSource) -> MospInstance:
    """TPDS'11 §7.1 ``uni``: owners Zipf(1.4267), p uniform in {1..50}, q uniform in {1..m_owner}. O(n + N).

    >>> inst = uniform_instance(2, 4, [4, 2], np.random.default_rng(0))
    >>> bool((inst.width <= inst.procs[inst.owner]).all() and (inst.runtime <= 50).all())
    True
    """
    m = _procs_vector(procs, n_orgs)
    rng = _as_rng(rng)
    owner = zipf_owners(n_jobs, n_orgs, rng)
    runtime = rng.integers(1, UNI_MAX_RUNTIME + 1, size=owner.size, dtype=np.int64)
    width = rng.integers(1, m[owner] + 1, dtype=np.int64)  # high is per job: q <= m of the owner's cluster
    return MospInstance.from_arrays(m, owner, runtime, width)


def lublin_instance(n_orgs: int, n_jobs: int, procs: Procs, rng: RandomSource,
                    model: LublinModel = LublinModel()) -> MospInstance:
    """TPDS'11 §7.1 ``swf``: owners Zipf(1.4267); q and p from the Lublin & Feitelson model for m_owner. O(n + N).

    >>> inst = lublin_instance(3, 6, 32, np.random.default_rng(0))
    >>> bool((inst.width <= 32).all() and (inst.runtime >= 1).all())
    True
    """
    m = _procs_vector(procs, n_orgs)
    rng = _as_rng(rng)
    owner = zipf_owners(n_jobs, n_orgs, rng)
    runtime, width = sample_rigid_jobs(owner.size, m[owner], rng, model)
    return MospInstance.from_arrays(m, owner, runtime, width)


def zipf_owners(n_jobs: int, n_orgs: int, rng: RandomSource, s: float = ZIPF_EXPONENT) -> np.ndarray:
    """Owner of each job: organization k in 0..N-1 with probability (k+1)**-s / Σ_i i**-s (TPDS'11 §7.1).

    >>> zipf_owners(6, 1, np.random.default_rng(0)).tolist()
    [0, 0, 0, 0, 0, 0]
    """
    _check_count("n_jobs", n_jobs, minimum=0)
    _check_count("n_orgs", n_orgs, minimum=1)
    if not (math.isfinite(s) and s >= 0):
        raise ConfigError(f"Zipf exponent s={s!r}: expected a finite number >= 0")
    return _as_rng(rng).choice(n_orgs, size=int(n_jobs), p=zipf_weights(n_orgs, s)).astype(np.int64)


def heterogeneous_procs(n_orgs: int, rng: RandomSource, shape: float, minimum: int = PARETO_MINIMUM,
                        cutoff: int = PARETO_CUTOFF) -> np.ndarray:
    """Cluster sizes of a heterogeneous grid (TPDS'11 §7.4): int64 (N,), i.i.d. bounded Pareto on [min, cutoff].

    Implements "the number of processors in each cluster was generated by a Pareto distribution with minimal
    number of processors m_min = 128, and a cutoff value m_max = 1024", shape 1..10. We read "cutoff" as the
    upper bound of a *bounded* (truncated) Pareto, density ∝ x**-(shape+1) on [minimum, cutoff], rather than as
    clipping, which would pile 12.5 % of the clusters (shape 1) on exactly 1024 processors. Inverse cdf:
    x = L (1 - u (1 - (L/H)**shape))**(-1/shape) with u in (0, 1]; m = floor(x). Sizes are not sorted: the
    organization submitting most jobs (Zipf rank 1) owns a cluster of random size. O(N).

    >>> sizes = heterogeneous_procs(10, np.random.default_rng(0), shape=2.0)
    >>> bool(((sizes >= 128) & (sizes <= 1024)).all()), sizes.dtype.name
    (True, 'int64')
    """
    _check_count("n_orgs", n_orgs, minimum=1)
    _check_count("minimum", minimum, minimum=1)
    _check_count("cutoff", cutoff, minimum=int(minimum))
    if isinstance(shape, bool) or not isinstance(shape, int | float | np.number) or not (
            math.isfinite(shape) and shape > 0):
        raise ConfigError(f"Pareto shape={shape!r}: expected a finite number > 0 (TPDS'11 §7.4 uses 1..10)")
    u = 1.0 - _as_rng(rng).random(int(n_orgs))  # in (0, 1], so x stays in (minimum, cutoff]
    tail = 1.0 - (minimum / cutoff) ** shape
    x = minimum * (1.0 - u * tail) ** (-1.0 / shape)
    return np.clip(np.floor(x), minimum, cutoff).astype(np.int64)


# name -> generator(n_orgs, n_jobs, procs, rng); the CLI's --generate choices (trace instances need a workload)
GENERATORS: dict[str, Callable[[int, int, Procs, np.random.Generator], MospInstance]] = {
    "uni": uniform_instance,
    "swf": lublin_instance,
}


# ---------------------------------------------------------------------------------------------------------------
# Trace instances
# ---------------------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class TraceSelection:
    """A trace instance and what building it left out.

    Attributes
    ----------
    instance : the MOSP instance (job ids = SWF job numbers).
    n_window : jobs of the trace inside the time window (before cleaning).
    clean : what `fairsched.workload.clean.clean` dropped from the window (no run time, no processors, wider
        than MaxProcs), counted over the whole window.
    too_wide : jobs wider than their owner's cluster, dropped (``too_wide_action="drop"``) or capped to it,
        among the clean jobs up to the last one selected.
    too_wide_action : ``"drop"`` or ``"cap"``.
    beyond_first : clean jobs after the last one selected, left out because only the first `first` were asked
        for (0 without `first`, or when fewer were available).
    """

    instance: MospInstance
    n_window: int
    clean: CleanReport
    too_wide: int = 0
    too_wide_action: str = "drop"
    beyond_first: int = 0

    def as_dict(self) -> dict[str, object]:
        """JSON-ready summary: jobs kept, in the window, and left out by reason."""
        return {"jobs": self.instance.n_jobs, "window_jobs": self.n_window, "cleaning": self.clean.as_dict(),
                "too_wide": self.too_wide, "too_wide_action": self.too_wide_action,
                "beyond_first": self.beyond_first}


def trace_instance(workload: Workload, n_orgs: int, procs: Procs, *, org_by: OrgsBy = "user", seed: int,
                   first: int | None = None, window: tuple[float, float | None] | None = None,
                   too_wide: Literal["drop", "cap"] = "drop") -> MospInstance:
    """Rigid jobs of a real trace window as a MOSP instance (all releases 0). See `select_trace_jobs`.

    >>> import pandas as pd
    >>> jobs = pd.DataFrame({"job_number": [1, 2, 3], "submit_time": [0.0, 5.0, 9.0], "run_time": [2.5, 7.0, 1.0],
    ...                      "processors": [4, 1, 64], "status": [1, 1, 1], "user_id": [3, 3, 8]})
    >>> inst = trace_instance(Workload(jobs=jobs), 2, 8, seed=0)
    >>> inst.job_id.tolist(), inst.runtime.tolist(), inst.width.tolist()
    ([1, 2], [3, 7], [4, 1])
    """
    return select_trace_jobs(workload, n_orgs, procs, org_by=org_by, seed=seed, first=first, window=window,
                             too_wide=too_wide).instance


def select_trace_jobs(workload: Workload, n_orgs: int, procs: Procs, *, org_by: OrgsBy = "user", seed: int,
                      first: int | None = None, window: tuple[float, float | None] | None = None,
                      too_wide: Literal["drop", "cap"] = "drop") -> TraceSelection:
    """Build a trace instance and count what was left out (TPDS'11 model on a real workload).

    Steps: the jobs submitted in ``window = (start, length)`` (trace seconds, `fairsched.workload.transform.window`;
    length None = to the end) → `fairsched.workload.clean.clean` (jobs without run time or processors, or wider
    than the header's MaxProcs, are dropped and counted) → each user (or group, or queue: `org_by`) joins an
    organization by `fairsched.scenario.assign_orgs` with `seed`, exactly as in the online scenarios → jobs wider
    than their owner's cluster are dropped (default) or capped to it (`too_wide`; capping changes the job's work)
    → the first `first` remaining jobs in submit order. Run times are ceil'ed to whole seconds (>= 1).

    Raises
    ------
    ConfigError : bad options, or no job left (the message says where they went).
    """
    m = _procs_vector(procs, n_orgs)
    _check_trace_options(org_by, seed, first, too_wide)
    windowed = workload if window is None else time_window(workload, start=window[0], length=window[1])
    kept, report = clean(windowed)
    jobs = kept.jobs.iloc[np.argsort(kept.jobs["submit_time"].to_numpy(np.float64), kind="stable")]
    owner = assign_orgs(jobs[ORG_ID_COLUMNS[org_by]].to_numpy(np.int64), int(n_orgs), seed=int(seed))
    width = jobs[PROCESSORS].to_numpy(np.int64)
    wide = width > m[owner]
    keep = ~wide if too_wide == "drop" else np.ones(width.size, dtype=bool)
    width = np.minimum(width, m[owner])
    chosen = np.flatnonzero(keep)[: len(jobs) if first is None else int(first)]
    examined = int(chosen[-1]) + 1 if first is not None and chosen.size == first else len(jobs)
    if chosen.size == 0:
        raise ConfigError(f"{workload.source or 'the workload'}: no job left for the instance ({len(windowed.jobs)} "
                          f"in the window, {report.n_dropped} dropped by cleaning, {int(wide.sum())} wider than "
                          "their owner's cluster); widen the window, use too_wide='cap' or larger clusters")
    job_id = jobs["job_number"].to_numpy(np.int64)[chosen]
    if np.unique(job_id).size != job_id.size:
        raise ConfigError(f"{workload.source or 'the workload'}: job numbers repeat in the selection; the instance "
                          "needs unique job ids (renumber the trace's jobs)")
    runtime = np.ceil(jobs["run_time"].to_numpy(np.float64)[chosen]).astype(np.int64)
    instance = MospInstance.from_arrays(m, owner[chosen], runtime, width[chosen], job_id=job_id)
    return TraceSelection(instance=instance, n_window=len(windowed.jobs), clean=report,
                          too_wide=int(wide[:examined].sum()), too_wide_action=too_wide,
                          beyond_first=len(jobs) - examined)


# ---------------------------------------------------------------------------------------------------------------
# Checks
# ---------------------------------------------------------------------------------------------------------------

def _as_rng(rng: RandomSource) -> np.random.Generator:
    """A Generator as is, or a fresh one from a non-negative integer seed (never the global RNG)."""
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, bool) or not isinstance(rng, int | np.integer) or rng < 0:
        raise ConfigError(f"rng={rng!r}: expected a numpy Generator or a non-negative integer seed")
    return np.random.default_rng(int(rng))


def _check_count(name: str, value: int, *, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < minimum:
        raise ConfigError(f"{name}={value!r}: expected an integer >= {minimum}")


def _procs_vector(procs: Procs, n_orgs: int) -> np.ndarray:
    """Cluster sizes as int64 (N,): one m for every organization, or N sizes; each >= 1."""
    _check_count("n_orgs", n_orgs, minimum=1)
    values = np.asarray(procs)
    if values.ndim == 0:
        values = np.full(int(n_orgs), values)
    if values.dtype.kind not in "iu" or values.ndim != 1 or values.size != n_orgs:
        raise ConfigError(f"procs={procs!r}: expected one integer m or {n_orgs} integer cluster sizes (one per "
                          "organization)")
    if (values < 1).any():
        raise ConfigError(f"procs={values.tolist()}: every organization's cluster needs >= 1 processor")
    return values.astype(np.int64)


def _check_trace_options(org_by: str, seed: int, first: int | None, too_wide: str) -> None:
    if org_by not in ORG_ID_COLUMNS:
        raise ConfigError(f"org_by={org_by!r}: expected one of {', '.join(ORG_ID_COLUMNS)}")
    _check_count("seed", seed, minimum=0)
    if first is not None:
        _check_count("first", first, minimum=1)
    if too_wide not in ("drop", "cap"):
        raise ConfigError(f"too_wide={too_wide!r}: expected 'drop' (leave such jobs out) or 'cap' (shrink them "
                          "to the owner's cluster)")
