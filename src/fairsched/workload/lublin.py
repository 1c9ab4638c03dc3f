"""The Lublin & Feitelson model of rigid parallel jobs: job sizes and run times (batch jobs).

Implements U. Lublin, D. G. Feitelson, "The workload on parallel supercomputers: modeling the characteristics of
rigid jobs", J. Parallel Distrib. Comput. 63(11):1105-1122, 2003 (the "Lublin99" model), as used by Dutot et
al., TPDS'11 §7.1 for its ``swf`` instances ("a realistic workload generator [14] ... the maximum required number
of processors is smaller than m and all the release dates are set to 0").

The model, per job:

1. **Size** (number of processors q). With probability ``serial_prob`` the job is serial (q = 1). Otherwise
   ``par = log2 q`` is drawn from a *two-stage uniform*: with probability ``u_prob`` uniform on
   [``u_low``, ``u_med``], else uniform on [``u_med``, ``u_hi``]. With probability ``pow2_prob`` (of all jobs) the
   job is a power-of-two job and ``par`` is rounded to an integer; then q = round(2**par). This is the model's
   emphasis on powers of two: the remaining 1 - serial_prob - pow2_prob of the jobs get arbitrary sizes.
2. **Run time** (seconds). ``log(runtime)`` (natural log) follows a *hyper-Gamma*: with probability p it is
   Gamma(``a1``, scale ``b1``), else Gamma(``a2``, scale ``b2``), where p = ``pa`` * q + ``pb`` clipped to [0, 1].
   Since ``pa`` < 0, wide jobs draw more often from the second, long-running component: run times are
   positively correlated with sizes. Values of log(runtime) above ``max_log_runtime`` (= 12, about two days)
   are redrawn, and runtime = floor(exp(log runtime)) (>= 1 since a Gamma variate is > 0).
3. **Arrivals** (not implemented: the MOSP instances release every job at 0). The published model draws
   inter-arrival times from a Gamma on the log scale modulated by a daily cycle of 48 half-hour buckets (a
   second Gamma's cdf). It would be added as ``sample_arrivals(n, rng, model)`` with its own fields
   (``aarr``, ``barr``, ``anum``, ``bnum``, ``arar``) in `LublinModel`; sizes and run times do not depend on it.

Adapting to the system size (TPDS'11 §7.1 sets the largest job to the cluster size m). The published ``u_hi`` = 7
is log2 of the 128-node system the model was fitted on, and its authors advise (lublin99.c, "Remember to set
the number-of-nodes' parameters to fit your system") ``u_hi`` = log2(system size) and ``u_med`` a fixed distance
(1.5-3.5) below it. `sample_sizes` therefore uses u_hi' = log2(m) and u_med' = u_med + (u_hi' - u_hi), i.e. keeps
the published gap u_hi - u_med = 2, and clips u_low <= u_med' <= u_hi' for tiny systems; a rounded size above m
(possible when m is not a power of two) is capped at m.

Parameter sources (batch-job parameters; all values below are the defaults of `LublinModel`):

* The values are those of the authors' reference implementation ``lublin99.c`` (U. Lublin and D. Feitelson,
  distributed with the Parallel Workloads Archive, www.cs.huji.ac.il/labs/parallel/workload/models.html),
  constants ``SERIAL_PROB_BATCH`` = 0.2927, ``POW2_PROB_BATCH`` = 0.6686, ``ULOW_BATCH`` = 1.2,
  ``UMED_BATCH`` = 5, ``UHI_BATCH`` = 7, ``UPROB_BATCH`` = 0.875, ``A1_BATCH`` = 6.57, ``B1_BATCH`` = 0.823,
  ``A2_BATCH`` = 639.1, ``B2_BATCH`` = 0.0156, ``PA_BATCH`` = -0.003, ``PB_BATCH`` = 0.6986 and
  ``TOO_MUCH_TIME`` = 12. We read them in two public copies, which agree: the C file itself and GridSim's Java
  port ``gridsim.parallel.util.WorkloadLublin99`` (M. Dias de Assunção), whose comments quote the C file.
  The JPDC paper's own table could not be consulted (no access here); the C file says its parameters are those
  of the model of Lublin's M.Sc. thesis, on which the paper is based.
* p is linear in the number of processors q itself, not in log2 q: that is what ``time_from_nodes`` in
  ``lublin99.c`` computes (``p = pa*nodes + pb``), and it is the only reading under which the published slope
  makes a difference (with log2 q, p would move by 0.021 between 1 and 128 processors).
* Gamma(a, b) has shape a and *scale* b (mean a*b), as in ``lublin99.c`` (``E(g) = alpha*beta``).

Everything is vectorized numpy; randomness comes only from the `numpy.random.Generator` passed in.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fairsched.errors import ConfigError


@dataclass(frozen=True)
class LublinModel:
    """Parameters of the Lublin & Feitelson (JPDC 2003) rigid-job model, batch jobs (sources: module docstring).

    Attributes
    ----------
    serial_prob : probability that a job is serial (q = 1).
    pow2_prob : probability that a job is a parallel job with a power-of-two size.
    u_low, u_med, u_hi : log2 bounds of the two-stage uniform on log2 q, for a system of 2**u_hi processors.
    u_prob : probability of the first stage [u_low, u_med].
    a1, b1 : shape and scale of the first Gamma of log(runtime) (short jobs).
    a2, b2 : shape and scale of the second Gamma (long jobs).
    pa, pb : p = pa * q + pb (clipped to [0, 1]) is the probability of the first Gamma.
    max_log_runtime : log(runtime) above this is redrawn (``TOO_MUCH_TIME``; e**12 s is about 1.9 days).
    """

    serial_prob: float = 0.2927
    pow2_prob: float = 0.6686
    u_low: float = 1.2
    u_med: float = 5.0
    u_hi: float = 7.0
    u_prob: float = 0.875
    a1: float = 6.57
    b1: float = 0.823
    a2: float = 639.1
    b2: float = 0.0156
    pa: float = -0.003
    pb: float = 0.6986
    max_log_runtime: float = 12.0

    def check(self) -> None:
        """Raise `ConfigError` naming the first parameter out of its range."""
        probabilities = {"serial_prob": self.serial_prob, "pow2_prob": self.pow2_prob, "u_prob": self.u_prob}
        for name, value in probabilities.items():
            if not 0.0 <= value <= 1.0:
                raise ConfigError(f"LublinModel.{name}={value!r}: expected a probability in [0, 1]")
        if self.serial_prob + self.pow2_prob > 1.0:
            raise ConfigError(f"LublinModel: serial_prob + pow2_prob = {self.serial_prob + self.pow2_prob:g} > 1; "
                              "they are shares of all jobs")
        if not 0.0 <= self.u_low <= self.u_med <= self.u_hi:
            raise ConfigError(f"LublinModel: need 0 <= u_low <= u_med <= u_hi, got {self.u_low}, {self.u_med}, "
                              f"{self.u_hi}")
        for name in ("a1", "b1", "a2", "b2", "max_log_runtime"):
            value = getattr(self, name)
            if not (math.isfinite(value) and value > 0):
                raise ConfigError(f"LublinModel.{name}={value!r}: expected a finite number > 0")


def sample_rigid_jobs(n: int, max_procs: int | np.ndarray, rng: np.random.Generator,
                      model: LublinModel = LublinModel()) -> tuple[np.ndarray, np.ndarray]:
    """Run times and sizes of `n` rigid jobs for a system of `max_procs` processors (JPDC 2003 model).

    Implements the size and run-time parts of Lublin & Feitelson (module docstring), sizes scaled to the system
    and capped at q <= m as in TPDS'11 §7.1.

    Parameters
    ----------
    n : number of jobs (>= 0).
    max_procs : m, the system size; or an int64 array of n per-job system sizes (e.g. each job's owner cluster).
    rng : the only source of randomness (sizes are drawn first, then run times).
    model : parameters; default the published batch-job values.

    Returns
    -------
    (runtimes, widths): int64 arrays (n,), runtimes >= 1 seconds, widths in 1..max_procs. O(n).

    >>> runtime, width = sample_rigid_jobs(4, 32, np.random.default_rng(0))
    >>> bool((runtime >= 1).all() and (width >= 1).all() and (width <= 32).all()), runtime.dtype.name
    (True, 'int64')
    """
    width = sample_sizes(n, max_procs, rng, model)
    return sample_runtimes(width, rng, model), width


def sample_sizes(n: int, max_procs: int | np.ndarray, rng: np.random.Generator,
                 model: LublinModel = LublinModel()) -> np.ndarray:
    """Job sizes q in 1..m: serial share, two-stage uniform on log2 q, power-of-two rounding (JPDC 2003).

    >>> sample_sizes(5, 1, np.random.default_rng(0)).tolist()
    [1, 1, 1, 1, 1]
    """
    model.check()
    cap = _system_sizes(n, max_procs)
    u_hi = np.log2(cap.astype(np.float64))
    u_low = np.minimum(model.u_low, u_hi)
    # keep the published distance u_hi - u_med when the system is not 2**u_hi processors (module docstring)
    u_med = np.clip(model.u_med + (u_hi - model.u_hi), u_low, u_hi)
    kind = rng.random(n)  # one uniform decides serial / power of two / other, as in lublin99.c
    serial = kind <= model.serial_prob
    pow2 = ~serial & (kind <= model.serial_prob + model.pow2_prob)
    first_stage = rng.random(n) <= model.u_prob
    low = np.where(first_stage, u_low, u_med)
    high = np.where(first_stage, u_med, u_hi)
    log_size = low + rng.random(n) * (high - low)
    log_size = np.where(pow2, np.floor(log_size + 0.5), log_size)
    width = np.floor(np.exp2(log_size) + 0.5).astype(np.int64)
    width[serial] = 1
    return np.minimum(width, cap)


def sample_runtimes(width: np.ndarray, rng: np.random.Generator, model: LublinModel = LublinModel()) -> np.ndarray:
    """Run times (int64 seconds >= 1) of jobs of the given sizes: hyper-Gamma on log(runtime), p = pa*q + pb.

    Draws above ``max_log_runtime`` are redrawn whole (component and Gamma), as ``time_from_nodes`` does.

    >>> short = LublinModel(pa=0.0, pb=1.0)  # always the first Gamma: log runtime ~ Gamma(6.57, 0.823)
    >>> bool(np.all(sample_runtimes(np.ones(3, dtype=np.int64), np.random.default_rng(0), short) >= 1))
    True
    """
    model.check()
    width = np.asarray(width, dtype=np.int64)
    p_first = np.clip(model.pa * width + model.pb, 0.0, 1.0)
    log_runtime = _hyper_gamma(p_first, rng, model)
    while (redraw := np.flatnonzero(log_runtime > model.max_log_runtime)).size:
        log_runtime[redraw] = _hyper_gamma(p_first[redraw], rng, model)
    return np.maximum(np.floor(np.exp(log_runtime)), 1.0).astype(np.int64)


def _hyper_gamma(p_first: np.ndarray, rng: np.random.Generator, model: LublinModel) -> np.ndarray:
    first = rng.random(p_first.size) <= p_first
    shape = np.where(first, model.a1, model.a2)
    scale = np.where(first, model.b1, model.b2)
    return rng.gamma(shape, scale)


def _system_sizes(n: int, max_procs: int | np.ndarray) -> np.ndarray:
    """Per-job system size m as int64 (n,); ConfigError on a bad count or m < 1."""
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 0:
        raise ConfigError(f"n={n!r}: expected a non-negative number of jobs")
    cap = np.asarray(max_procs)
    if cap.dtype.kind not in "iu" or (cap.ndim == 1 and cap.size != n) or cap.ndim > 1:
        raise ConfigError(f"max_procs={max_procs!r}: expected a positive integer or an integer array of {n} "
                          "per-job system sizes")
    cap = np.broadcast_to(cap.astype(np.int64), (int(n),))
    if (cap < 1).any():
        raise ConfigError(f"max_procs: system sizes must be >= 1 processor, got {int(cap.min())}")
    return cap
