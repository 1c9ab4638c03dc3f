"""The audit's compiled coalition replays (`fairsched.audit._replay`) against their slow twins: the backfilling
engine (`fairsched.backfill.simulate`, itself checked against pyss) and the naive README engine with ψsp summed
slot by slot (tests/naive/coalition_naive.py); on hand-made cases, random workloads and a slice of a real log."""

from __future__ import annotations

import os

import numpy as np
import pytest

from fairsched.audit import _replay, game
from fairsched.backfill import BackfillJobs, simulate
from fairsched.errors import ConfigError
from tests.conftest import trace_path
from tests.naive.coalition_naive import coalition_naive


def _engine(org, submit, run, req, procs, members, n_cpus, t_end):
    fits = (np.asarray(members)[org] == 1) & (procs <= n_cpus)
    start = np.full(org.size, -1, dtype=np.int64)
    if not fits.any():
        return start, 0
    jobs = BackfillJobs.from_arrays(submit[fits], run[fits], procs[fits], req[fits], n_processors=n_cpus)
    start[fits] = simulate(jobs, order="fcfs", backfill="easy").schedule["start"].to_numpy()
    return start, game.exact_sum(game.psi_terms(start[fits], run[fits], procs[fits], t_end))


def test_pyss_example_a_by_hand():
    """pyss README Example A (docs/backfill.md): 6 CPUs; job 2 (4 CPUs) waits for job 0's end at 5... and its
    planned end at 10; job 3 backfills at 5 (it ends by the shadow time 10)."""
    submit, run, procs, req = (np.array(x) for x in ([0, 0, 1, 5], [5, 100, 10, 5], [2, 2, 4, 2], [10, 100, 10, 5]))
    org = np.array([0, 1, 0, 1])
    start, value = _replay.coalition_schedule(np.array([1, 1]), 6, org, submit, run, req, procs, 20)
    assert start.tolist() == [0, 0, 10, 5]
    # ψ at 20: job 0 2·(20+...+16) = 180, job 1 2·(20+...+1) = 420, job 2 4·(10+...+1) = 220, job 3 2·(15+...+11) = 130
    assert value == 180 + 420 + 220 + 130
    start, value = _replay.coalition_schedule(np.array([1, 0]), 4, org, submit, run, req, procs, 20)
    assert start.tolist() == [0, -1, 5, -1] and value == 2 * sum(range(16, 21)) + 4 * sum(range(6, 16))
    values, too_wide = _replay.coalition_values(np.array([[1, 1], [1, 0], [0, 1], [0, 0]]), np.array([6, 4, 3, 0]),
                                                org, submit, run, req, procs, 20)
    assert values[:2] == [950, 2 * sum(range(16, 21)) + 4 * sum(range(6, 16))] and values[3] == 0
    assert too_wide == [0, 0, 0, 0]


def _random_case(rng: np.random.Generator):
    n, k = int(rng.integers(1, 40)), int(rng.integers(1, 4))
    submit = np.sort(rng.integers(0, 40, n))
    run = rng.integers(1, 15, n)
    req = run + rng.integers(0, 2, n) * rng.integers(0, 12, n)   # exact estimates half of the time
    procs = rng.integers(1, 6, n)
    return rng.integers(0, k, n), submit, run, req, procs, k


@pytest.mark.parametrize("seed", range(6))
def test_random_workloads_equal_the_engine_and_the_naive_twin(seed):
    rng = np.random.default_rng(seed)
    for _ in range(25):
        org, submit, run, req, procs, k = _random_case(rng)
        t_end = int(rng.integers(5, 120))
        masks = list(range(1 << k))
        members = game.members_matrix(masks, k)
        cpus = rng.integers(0, 5, k)
        n_cpus = members.astype(np.int64) @ cpus
        values, too_wide = _replay.coalition_values(members, n_cpus, org, submit, run, req, procs, t_end)
        for mask in masks:
            start, value = _replay.coalition_schedule(members[mask], int(n_cpus[mask]), org, submit, run, req,
                                                      procs, t_end)
            slow_start, slow_value = _engine(org, submit, run, req, procs, members[mask], int(n_cpus[mask]), t_end)
            naive_start, naive_value = coalition_naive(org.tolist(), submit.tolist(), run.tolist(), req.tolist(),
                                                       procs.tolist(), members[mask].tolist(), int(n_cpus[mask]),
                                                       t_end)
            assert start.tolist() == slow_start.tolist() == naive_start
            assert values[mask] == value == slow_value == naive_value
            mine = members[mask][org] == 1
            assert too_wide[mask] == int((mine & (procs > n_cpus[mask])).sum())


@pytest.mark.parametrize("threads", [2, 3, 64])
def test_threads_give_the_same_values_in_the_same_order(threads):
    """Rows dealt round robin to threads come back in their rows: same values and too-wide counts as one thread,
    for more coalitions than threads and for fewer (64 threads, 16 rows)."""
    rng = np.random.default_rng(7)
    org, submit, run, req, procs, _ = _random_case(rng)
    k = 4
    org = rng.integers(0, k, org.size)
    members = game.members_matrix(list(range(1 << k)), k)
    n_cpus = members.astype(np.int64) @ rng.integers(0, 5, k)
    one = _replay.coalition_values(members, n_cpus, org, submit, run, req, procs, 60)
    many = _replay.coalition_values(members, n_cpus, org, submit, run, req, procs, 60, threads=threads)
    assert many == one
    assert len(set(one[0])) > 4  # the rows really differ, so a shuffled merge would show


def test_default_threads_reads_the_environment(monkeypatch):
    monkeypatch.setenv("FAIRSCHED_THREADS", "3")
    assert _replay.default_threads() == 3
    monkeypatch.delenv("FAIRSCHED_THREADS")
    assert _replay.default_threads() == len(os.sched_getaffinity(0))
    for bad in ("0", "two"):
        monkeypatch.setenv("FAIRSCHED_THREADS", bad)
        with pytest.raises(ConfigError, match="FAIRSCHED_THREADS"):
            _replay.default_threads()


def test_values_above_two_words_are_exact():
    """ψsp sums are kept in two int64 words (high · 2^62 + low): 100 jobs of 64 CPUs for 10^6 s at t_end 10^9."""
    n = 100
    org, submit = np.zeros(n, np.int64), np.arange(n, dtype=np.int64) * 10
    run = np.full(n, 10**6)
    start, value = _replay.coalition_schedule(np.array([1]), 64 * n, org, submit, run, run, np.full(n, 64), 10**9)
    assert value > 2**62 and value == game.exact_sum(game.psi_terms(start, run, np.full(n, 64), 10**9))
    assert _replay.coalition_values(np.array([[1]]), np.array([64 * n]), org, submit, run, run, np.full(n, 64),
                                    10**9)[0] == [value]


@pytest.mark.traces
def test_a_real_log_every_coalition_equals_the_engine():
    """SDSC-SP2's first 3,000 started jobs by group, the 4 largest groups and the rest: all 32 coalitions, the
    compiled replays against the engine (values and the per-job starts of the singletons and the pool)."""
    from fairsched.audit import core, entitlement, log

    path = trace_path("SDSC-SP2-1998-4.2-cln.swf.gz")
    workload, fmt = log.read_log(path, "auto")
    recorded = log.recorded_jobs(workload, fmt, org_by="group", org_map=None, since=None, until=str(2_400_000),
                                 skip_bad_records=False, unmapped_org=None)
    entitled = entitlement.read_entitlement("usage", recorded, "group")
    recorded, renamed = entitlement.keep_top(recorded, 4)
    entitled = entitled.pooled(renamed)
    owner = log.ownership(recorded, entitled.weights, entitled.how, None)
    jobs = core._reference_jobs(recorded)
    assert 2_000 < jobs.org.size < 4_000 and recorded.n_orgs == 5
    fast = game.Game(jobs, owner.cpus, recorded.t_end, "backfill")
    slow = game.Game(jobs, owner.cpus, recorded.t_end, "backfill", use_compiled=False)
    fast.evaluate(range(32))
    assert [fast.value(m) for m in range(32)] == [slow.value(m) for m in range(32)]
    assert len({fast.value(m) for m in range(1, 32)}) > 20                      # the coalitions do differ
    for mask in (1, 2, 4, 8, 16, 31):
        assert fast.run(mask).start.tolist() == slow.run(mask).start.tolist()
        assert fast.run(mask).job_value.tolist() == slow.run(mask).job_value.tolist()
        assert fast.run(mask).too_wide == slow.run(mask).too_wide


def test_members_matrix_beyond_64_organizations():
    mask = (1 << 69) | (1 << 3) | 1
    row = game.members_matrix([mask], 70)[0]
    assert row.shape == (70,) and np.flatnonzero(row).tolist() == [0, 3, 69]


# -- the game ----------------------------------------------------------------------------------------------------
def test_the_sampled_audit_uses_the_documented_estimator(tmp_path):
    """The audit's sampled φ and 95% interval are `fairsched.shapley.shapley_permutation_sampling`'s (antithetic,
    seeded under the Shapley stage) on the same coalition values: read here from the exact audit's 2^3."""
    from fairsched.audit import AuditConfig, run_audit
    from fairsched.shapley import shapley_permutation_sampling

    micro, script = trace_path("slurm/micro-cluster-real-slurm.sacct.txt"), trace_path(
        "slurm/micro-cluster.sacctmgr.script")
    fast = {"fst_sample": 10}
    exact = run_audit(AuditConfig(log=micro, shares=str(script), **fast)).shapley
    sampled = run_audit(AuditConfig(log=micro, shares=str(script), exact_up_to=0, samples=6, seed=3, **fast)).shapley
    v = np.array([float(exact.values[m]) for m in range(8)])
    rng = np.random.default_rng(np.random.SeedSequence(3, spawn_key=(game._STAGE_SHAPLEY,)))
    estimate = shapley_permutation_sampling(v, 3, 6, rng, antithetic=True)
    assert sampled.method == "sampled" and sampled.n_samples == 6
    assert sampled.phi.tolist() == estimate.values.tolist()
    half = game.Z_95 * estimate.std_errors
    assert sampled.low.tolist() == (estimate.values - half).tolist()
    assert sampled.high.tolist() == (estimate.values + half).tolist()
    assert np.all(sampled.high >= sampled.low) and np.any(sampled.high > sampled.low)
    assert all(sampled.values[m] == exact.values[m] for m in sampled.values)


def _many_orgs_log(tmp_path, k: int):
    """A sacct log of k accounts, 3 jobs each on 1..4 CPUs, submitted over an hour."""
    rng = np.random.default_rng(7)
    rows = ["JobID|Account|Submit|Start|Elapsed|NCPUS|Timelimit"]
    for i in range(3 * k):
        submit = 3600 * i // (3 * k)
        start = submit + int(rng.integers(0, 300))
        run = int(rng.integers(60, 1200))
        rows.append(f"{i + 1}|acct{i % k:03d}|2021-01-01T{submit // 3600:02d}:{submit // 60 % 60:02d}:"
                    f"{submit % 60:02d}|2021-01-01T{start // 3600:02d}:{start // 60 % 60:02d}:{start % 60:02d}|"
                    f"00:{run // 60:02d}:{run % 60:02d}|{int(rng.integers(1, 5))}|01:00:00")
    path = tmp_path / "many.sacct"
    path.write_text("\n".join(rows) + "\n")
    return path


def test_more_than_62_organizations_play_the_sampled_game_with_progress(tmp_path):
    """70 accounts (coalitions beyond 64-bit masks): sampled φ with an interval each, Σφ near v(N), progress per
    ordering; the same seed gives the same values."""
    from fairsched.audit import AuditConfig, run_audit

    path = _many_orgs_log(tmp_path, 70)
    seen = []
    config = AuditConfig(log=path, samples=4, seed=1, fst_sample=10, cpus=140)
    result = run_audit(config, progress=lambda what, done, total: seen.append((what, done, total)))
    shap = result.shapley
    assert shap.method == "sampled" and len(result.orgs) == 70 and shap.phi.shape == (70,)
    assert np.all(shap.low <= shap.phi) and np.all(shap.phi <= shap.high) and np.any(shap.high > shap.low)
    grand = (1 << 70) - 1
    assert grand in shap.values and max(shap.values) == grand                # Python-int coalitions beyond 2^63
    assert abs(shap.phi.sum() - shap.values[grand]) < 0.2 * shap.values[grand]
    sampled = [(d, t) for w, d, t in seen if w == "coalitions (sampled permutations)"]
    assert [d for d, _ in sampled] == [140, 280, 420, 560] and {t for _, t in sampled} == {560}
    assert result.summary["coalitions_simulated"] == len(set(shap.values) | {1 << u for u in range(70)})
    again = run_audit(config).shapley
    assert again.phi.tolist() == shap.phi.tolist()
