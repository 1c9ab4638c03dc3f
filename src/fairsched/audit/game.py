"""The coalition game of an audit: what each group of organizations would have achieved alone.

The value of a coalition C is v(C) = Σ_{u∈C} ψ_u(σ[C], t_end), where σ[C] is the schedule that the reference
scheduler produces for C's jobs on C's CPUs alone (SPAA'13 Sec. 3, Def. 3.1; ψ = ψsp, Eq. (3)): a unit of work
executed in slot [i, i+1) is worth t_end − i, and a job on q CPUs counts q units per second. Two reference
schedulers (`REFERENCES`):

* ``backfill`` (default, for HPC logs): FCFS + EASY backfilling of the rigid parallel jobs, with the logged
  time limits as runtime estimates — what most batch systems (Slurm's ``sched/backfill``, Maui) do by default,
  so v(C) is what C would have obtained by running the same kind of cluster alone
  (`fairsched.backfill.simulate`, JSSPP'05 §4 semantics).
* ``online``: the papers' model (SPAA'13 Sec. 2): a job on q CPUs is q sequential copies, started greedily in
  release order (FIFO) on identical machines — the simplified schedules of SPAA'13 Alg. 3 (RAND).

Rules shared by both: only jobs that started in the log take part (a never-started job has no known run time);
a job recorded with 0 s runs 1 s (the engines' integer clock needs run times >= 1); a job wider than C's CPUs
cannot run in σ[C] and is left out of it (counted in `CoalitionRun.too_wide`); a coalition without CPUs has
value 0. Values are exact integers.

Shapley values: exact over all 2^k coalitions (`fairsched.shapley.shapley_values_exact`, rational arithmetic,
so Σφ = v(N) holds exactly) when k <= ``exact_up_to``; beyond, antithetic permutation sampling
(`fairsched.shapley.shapley_permutation_sampling`, seeded) with a 95% normal confidence interval.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
from numba import njit

from fairsched.audit._replay import coalition_schedule, coalition_values, default_threads
from fairsched.backfill import BackfillJobs, simulate
from fairsched.backfill.metrics import bounded_slowdown
from fairsched.errors import ConfigError
from fairsched.shapley import permutation_estimate, sample_permutations, shapley_values_exact

REFERENCES = ("backfill", "online")
DEFAULT_REFERENCE = "backfill"
Z_95 = 1.959963984540054


def psi_terms(start: np.ndarray, run: np.ndarray, cpus: np.ndarray, t_end: int) -> np.ndarray:
    """ψsp of each job at t_end (SPAA'13 Eq. (3)): q·(u·(t_end − s) − u(u−1)/2), u = units done by t_end.

    Python ints (object array) when int64 could overflow, else int64.

    >>> psi_terms(np.array([0, 2]), np.array([3, 1]), np.array([1, 2]), 3).tolist()   # 3+2+1, 2·1
    [6, 2]
    """
    start, run, cpus = (np.asarray(a, dtype=np.int64) for a in (start, run, cpus))
    done = np.clip(np.minimum(start + run, t_end) - np.minimum(start, t_end), 0, None)
    elapsed = np.clip(t_end - start, 0, None)
    bound = float(np.sum(cpus.astype(np.float64) * done * elapsed))
    if bound < 2.0**62:
        return cpus * (done * elapsed - done * (done - 1) // 2)
    d, e, q = (a.astype(object) for a in (done, elapsed, cpus))
    return q * (d * e - d * (d - 1) // 2)


def exact_sum(values: np.ndarray) -> int:
    """Exact sum of integer terms (Python int)."""
    if values.dtype == object or float(np.abs(values).astype(np.float64).sum()) >= 2.0**62:
        return int(sum(int(v) for v in values.tolist()))
    return int(values.sum())


@dataclass(frozen=True)
class ReferenceJobs:
    """The jobs the reference scheduler replays (the started jobs of the log), int64 arrays in submit order."""

    org: np.ndarray
    submit: np.ndarray
    run: np.ndarray
    cpus: np.ndarray
    estimate: np.ndarray
    index: np.ndarray  # row of each in `Recorded.jobs`


@dataclass(frozen=True)
class CoalitionRun:
    """One coalition's schedule under the reference: value, per-job start (-1 = could not run) and per-job ψsp
    (0 when it did not run); the per-job arrays are kept for singletons and the grand coalition only."""

    mask: int
    value: int
    start: np.ndarray
    too_wide: int
    job_value: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))


@dataclass
class Game:
    """Lazily evaluated coalition values v(C) (memoised), for one reference scheduler.

    Attributes
    ----------
    jobs, cpus_per_org, t_end, reference : the inputs.
    runs : evaluated coalitions (bitmask -> `CoalitionRun`); only singletons and the grand coalition keep their
        per-job starts and values.
    use_compiled : replay with `fairsched.audit._replay` (``backfill`` reference); False replays every coalition
        with `fairsched.backfill.simulate`, its slow twin (same values, for tests).
    threads : threads replaying a batch of coalitions (`fairsched.audit._replay.coalition_values`); None: one per
        CPU this process may use, or ``$FAIRSCHED_THREADS`` (`fairsched.audit._replay.default_threads`). The
        values do not depend on it.
    """

    jobs: ReferenceJobs
    cpus_per_org: np.ndarray
    t_end: int
    reference: str
    runs: dict[int, CoalitionRun] = field(default_factory=dict)
    use_compiled: bool = True
    threads: int | None = None
    _compiled: tuple[np.ndarray, ...] | None = field(init=False, default=None, repr=False)

    def __post_init__(self) -> None:
        if self.reference not in REFERENCES:
            raise ConfigError(f"--reference {self.reference!r}: choose one of {', '.join(REFERENCES)}")
        j = self.jobs
        run = np.maximum(j.run, 1)
        # the compiled replay's columns (the rules of fairsched.backfill.jobs: run >= 1, estimate >= run), or
        # None when one job's ψsp term could overflow int64 (then the engine replays, with Python ints)
        span = float(max(self.t_end - int(j.submit.min()), 0)) if j.submit.size else 0.0
        bound = float(np.max(j.cpus.astype(np.float64) * np.minimum(run, span))) * span if j.submit.size else 0.0
        self._compiled = None if not self.use_compiled or self.reference != "backfill" or bound >= 2.0**62 else (
            j.org, j.submit, run, np.maximum(np.where(j.estimate <= 0, run, j.estimate), run), j.cpus)

    @property
    def n_orgs(self) -> int:
        return int(self.cpus_per_org.size)

    def value(self, mask: int) -> int:
        return self.run(mask).value

    def run(self, mask: int) -> CoalitionRun:
        mask = int(mask)
        if mask not in self.runs:
            self.runs[mask] = self._simulate(mask)
        return self.runs[mask]

    def evaluate(self, masks: Iterable[int]) -> None:
        """Replay every coalition of `masks` not evaluated yet: with the ``backfill`` reference, in one call of
        the compiled replay (`fairsched.audit._replay`); singletons and the grand coalition one by one, since
        they keep their per-job starts."""
        missing = [m for m in dict.fromkeys(int(m) for m in masks) if m not in self.runs]
        grand = (1 << self.n_orgs) - 1
        batch = [m for m in missing if not (_is_singleton(m) or m == grand)] if self._compiled is not None else []
        if batch:
            members = members_matrix(batch, self.n_orgs)
            values, too_wide = coalition_values(members, members.astype(np.int64) @ self.cpus_per_org,
                                                *self._compiled, self.t_end,
                                                threads=self.threads or default_threads())
            empty = np.zeros(0, dtype=np.int64)
            for mask, value, wide in zip(batch, values, too_wide, strict=True):
                self.runs[mask] = CoalitionRun(mask, value, empty, wide)
        for mask in missing:
            self.run(mask)

    def _simulate(self, mask: int) -> CoalitionRun:
        j = self.jobs
        members = members_matrix([mask], self.n_orgs)[0]
        n_cpus = int(members.astype(np.int64) @ self.cpus_per_org)
        mine = members[j.org].astype(bool)
        fits = mine & (j.cpus <= n_cpus)
        start = np.full(j.org.size, -1, dtype=np.int64)
        too_wide = int((mine & ~fits).sum())
        keep = _is_singleton(mask) or mask == (1 << self.n_orgs) - 1
        if mask == 0 or n_cpus == 0 or not fits.any():
            return CoalitionRun(mask, 0, start if keep else start[:0], too_wide, np.zeros(start.size, dtype=object)
                                if keep else np.zeros(0, dtype=object))
        run = np.maximum(j.run[fits], 1)
        if self._compiled is not None:
            start, value = coalition_schedule(members, n_cpus, *self._compiled, self.t_end)
            if not keep:
                return CoalitionRun(mask, value, start[:0], too_wide)
            terms = psi_terms(start[fits], run, j.cpus[fits], self.t_end)
        elif self.reference == "backfill":  # the engine: the compiled replay's slow twin
            jobs = BackfillJobs.from_arrays(j.submit[fits], run, j.cpus[fits], j.estimate[fits],
                                            n_processors=n_cpus, job=np.flatnonzero(fits))
            chosen = simulate(jobs, order="fcfs", backfill="easy").schedule["start"].to_numpy(np.int64)
            terms = psi_terms(chosen, run, j.cpus[fits], self.t_end)
            start[fits] = chosen
        else:
            chosen, terms = fifo_copies(j.submit[fits], run, j.cpus[fits], n_cpus, self.t_end)
            start[fits] = chosen
        if not keep:
            return CoalitionRun(mask, exact_sum(terms), start[:0], too_wide)
        job_value = np.zeros(start.size, dtype=object)
        job_value[fits] = terms.astype(object)
        return CoalitionRun(mask, exact_sum(terms), start, too_wide, job_value)


def _is_singleton(mask: int) -> bool:
    return mask > 0 and mask & (mask - 1) == 0


def members_matrix(masks: Sequence[int], k: int) -> np.ndarray:
    """(len(masks), k) uint8: entry [i, u] = 1 when bit u of masks[i] is set (any k: masks are Python ints).

    >>> members_matrix([0b101, 0b010], 3).tolist()
    [[1, 0, 1], [0, 1, 0]]
    """
    width = (k + 7) // 8
    raw = np.frombuffer(b"".join(int(m).to_bytes(width, "little") for m in masks), dtype=np.uint8)
    bits = np.unpackbits(raw.reshape(len(masks), width), axis=1, bitorder="little")
    return np.ascontiguousarray(bits[:, :k])


def fifo_copies(release: np.ndarray, run: np.ndarray, copies: np.ndarray, n_machines: int,
                t_end: int) -> tuple[np.ndarray, np.ndarray]:
    """FIFO on identical machines of each job's sequential copies (SPAA'13 model, Alg. 3's simplified schedules).

    Every copy, in release order (ties: job order), starts at max(release, earliest free machine): greedy list
    scheduling, the non-clairvoyant FIFO schedule. Returns each job's mean copy start (float rounded down to an
    integer second) and its ψsp at `t_end` summed over its copies (int64; ConfigError if that could overflow).

    >>> s, v = fifo_copies(np.array([0, 0, 1]), np.array([3, 2, 1]), np.array([1, 1, 1]), 2, 3)
    >>> s.tolist(), v.tolist()   # job 2 starts at 2 on the machine job 1 frees
    ([0, 0, 2], [6, 5, 1])
    """
    release, run, copies = (np.ascontiguousarray(a, dtype=np.int64) for a in (release, run, copies))
    if float(copies.sum()) * float(max(t_end, 1)) ** 2 >= 2.0**62:
        raise ConfigError("online reference: utilities could overflow 64-bit integers; audit a shorter window "
                          "(--since/--until)")
    start = np.zeros(release.size, dtype=np.int64)
    value = np.zeros(release.size, dtype=np.int64)
    _fifo_kernel(release, run, copies, np.zeros(int(n_machines), dtype=np.int64), int(t_end), start, value)
    return start, value


@njit(cache=True)
def _fifo_kernel(release, run, copies, free, t_end, out_start, out_value):  # pragma: no cover - jit
    """`free` is a binary min-heap of machine free times; each copy takes its root."""
    m = free.size
    for r in range(release.size):
        total = 0
        value = 0
        for _ in range(copies[r]):
            s = max(release[r], free[0])
            total += s
            done = min(s + run[r], t_end) - min(s, t_end)
            if done > 0:
                value += done * (t_end - s) - done * (done - 1) // 2
            # replace the root by s + run and sift down
            free[0] = s + run[r]
            i = 0
            while True:
                left = 2 * i + 1
                if left >= m:
                    break
                child = left
                if left + 1 < m and free[left + 1] < free[left]:
                    child = left + 1
                if free[child] < free[i]:
                    free[i], free[child] = free[child], free[i]
                    i = child
                else:
                    break
        out_start[r] = total // copies[r]
        out_value[r] = value


# -- Shapley values ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ShapleyResult:
    """φ of every organization and how it was obtained.

    Attributes
    ----------
    method : ``exact``, ``sampled``, or ``none`` (one organization: no game, φ is NaN).
    phi : (k,) float64.
    low, high : (k,) the 95% confidence interval (equal to phi when exact).
    exact : the rational values (exact method only; Σ = v(N) exactly).
    values : {bitmask: v(C)} of every coalition evaluated.
    n_samples : permutations drawn (sampled method), else 0.
    """

    method: str
    phi: np.ndarray
    low: np.ndarray
    high: np.ndarray
    exact: tuple[Fraction, ...]
    values: dict[int, int]
    n_samples: int


def shapley(game: Game, *, exact_up_to: int = 12, samples: int = 200, seed: int = 0,
            progress: Callable[[str, int, int], None] | None = None) -> ShapleyResult:
    """Shapley values of `game`: exact when k <= `exact_up_to` (all 2^k coalitions), else sampled (module doc).

    Sampled: `samples` (rounded up to even) orderings in antithetic pairs (`fairsched.shapley.sample_permutations`,
    seeded by `seed`); each ordering replays its k + 1 prefixes (the evaluated ones are memoised) in one batch,
    and the estimate and its 95% interval are `fairsched.shapley.permutation_estimate`'s. Progress counts the
    coalitions read, 2k per ordering (as `fairsched.shapley.shapley_permutation_sampling` reads them).
    """
    k = game.n_orgs
    if k <= exact_up_to:
        total = 1 << k
        for first in range(0, total, _CHUNK):
            game.evaluate(range(first, min(first + _CHUNK, total)))
            if progress is not None:
                progress("coalitions", min(first + _CHUNK, total), total)
        values = [game.value(mask) for mask in range(total)]
        phi_exact = tuple(shapley_values_exact(values))
        phi = np.array([float(x) for x in phi_exact])
        return ShapleyResult("exact", phi, phi.copy(), phi.copy(), phi_exact, dict(enumerate(values)), 0)
    if samples < 2:
        raise ConfigError(f"--samples {samples}: sampled Shapley values need at least 2 permutations")
    n = samples + samples % 2
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(_STAGE_SHAPLEY,)))
    orderings = sample_permutations(k, n, rng, antithetic=True)
    total = 2 * n * k
    marginal = np.empty((n, k))
    for row, order in enumerate(orderings.tolist()):
        prefixes = [0]
        for u in order:
            prefixes.append(prefixes[-1] | 1 << u)
        game.evaluate(prefixes)
        value = np.array([float(game.value(mask)) for mask in prefixes])
        marginal[row, order] = value[1:] - value[:-1]   # v(≺(u) ∪ {u}) − v(≺(u))
        if progress is not None:
            progress("coalitions (sampled permutations)", 2 * k * (row + 1), total)
    estimate = permutation_estimate(marginal, antithetic=True)
    half = Z_95 * np.nan_to_num(estimate.std_errors)
    values = {mask: game.runs[mask].value for mask in sorted(game.runs)}
    return ShapleyResult("sampled", estimate.values, estimate.values - half, estimate.values + half, (), values, n)


_CHUNK = 64  # coalitions replayed per batch of the exact game (one progress step each)
_STAGE_SHAPLEY = 1


def no_game(k: int) -> ShapleyResult:
    """What stands for the Shapley values when no game is played (one organization: nothing to share): NaN."""
    nan = np.full(k, np.nan)
    return ShapleyResult("none", nan, nan.copy(), nan.copy(), (), {}, 0)


def alone_stats(game: Game, u: int) -> dict[str, float]:
    """Organization u alone (singleton coalition): mean wait, mean bounded slowdown, jobs that cannot run."""
    run = game.run(1 << u)
    j = game.jobs
    mine = j.org == u
    ran = mine & (run.start >= 0) if run.start.size else np.zeros_like(mine)
    wait = (run.start - j.submit)[ran] if run.start.size else np.empty(0)
    with np.errstate(invalid="ignore"):
        return {"alone_psi": run.value, "alone_mean_wait": float(wait.mean()) if wait.size else np.nan,
                "alone_mean_bsld": float(bounded_slowdown(wait, np.maximum(j.run[ran], 1)).mean())
                if wait.size else np.nan,
                "alone_jobs_too_wide": run.too_wide}


def pool_stats(game: Game, u: int) -> dict[str, float]:
    """Organization u in the grand coalition's replay σ[N] (the pool in the replay's world): its ψsp, its ψsp
    counting only its jobs that fit its own CPUs, its mean wait there."""
    full = game.run((1 << game.n_orgs) - 1)
    j = game.jobs
    ran = (j.org == u) & (full.start >= 0)
    fits = j.cpus <= game.cpus_per_org[u]
    wait = (full.start - j.submit)[ran]
    return {"replay_psi": int(sum(full.job_value[ran].tolist())),
            "replay_psi_fit": int(sum(full.job_value[ran & fits].tolist())),
            "replay_mean_wait": float(wait.mean()) if wait.size else float("nan")}


def pool_mean_wait(game: Game) -> float:
    """Mean wait of every job in the grand coalition's replay σ[N] (the replay's own baseline)."""
    full = game.run((1 << game.n_orgs) - 1)
    ran = full.start >= 0
    return float((full.start - game.jobs.submit)[ran].mean()) if ran.any() else float("nan")


def marginal_range(values: dict[int, int], k: int, u: int) -> int:
    """max − min over coalitions S ∌ u of u's marginal contribution v(S ∪ {u}) − v(S) (every S evaluated).

    The split bound (docs/audit.md, "Splitting an organization"): φ_u is an average of u's marginal
    contributions with probability weights (SPAA'13 Eq. (1)). Split another organization A into A1 and A2 with
    the same jobs and CPUs: every coalition of the old game is a coalition of the new one with the same value
    (the reference scheduler sees the same jobs and CPUs), so both the old and the new φ_u lie between the
    smallest and the largest marginal contribution of u in the new game, and |φ'_u − φ_u| <= this range.

    >>> marginal_range({0: 0, 1: 3, 2: 2, 3: 7}, 2, 0)   # v(0)=3, v(01)−v(1)=5
    2
    """
    gains = [values[s | (1 << u)] - values[s] for s in range(1 << k) if not s >> u & 1]
    return max(gains) - min(gains)
