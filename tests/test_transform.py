"""Windows, first jobs, arrival compression, runtime expansion, offered load and scale_to_load (exact solve)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairsched.errors import ConfigError
from fairsched.workload.transform import (
    compress_arrivals,
    expand_runtimes,
    first_jobs,
    max_offered_load,
    offered_load,
    scale_to_load,
    sequential_count,
    window,
)
from tests.test_clean import make_workload


def submits(workload) -> list[float]:
    return workload.jobs["submit_time"].tolist()


def five_jobs():
    return make_workload(source="toy", submit_time=[10.0, 20.0, 30.0, 40.0, 50.0], run_time=[5.0] * 5,
                         allocated_processors=[1] * 5)


# --- window / first_jobs -------------------------------------------------------------------------------------

def test_window_start_inclusive_end_exclusive() -> None:
    w = five_jobs()
    assert submits(window(w, start=20, length=20)) == [20.0, 30.0]       # 40 = start + length is excluded
    assert submits(window(w, start=20.0, length=20.000001)) == [20.0, 30.0, 40.0]
    assert submits(window(w, start=19.999, length=0.001)) == []           # [19.999, 20.0) misses 20
    assert submits(window(w, start=35)) == [40.0, 50.0]                   # no length: to the end


def test_window_default_start_is_first_submit_and_times_are_not_shifted() -> None:
    out = window(five_jobs(), length=25)
    assert submits(out) == [10.0, 20.0, 30.0]
    assert out.jobs.index.tolist() == [0, 1, 2]
    assert out.source == "toy | window [10, 35)"


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"length": 0}, r"length=0: expected a finite number > 0"),
    ({"length": -5.0}, r"length=-5.0"),
    ({"length": math.nan}, r"length=nan"),
    ({"start": math.inf}, r"start=inf: expected a finite number"),
])
def test_window_rejects_bad_arguments(kwargs, match) -> None:
    with pytest.raises(ConfigError, match=match):
        window(five_jobs(), **kwargs)


def test_first_jobs() -> None:
    w = five_jobs()
    assert submits(first_jobs(w, 2)) == [10.0, 20.0]
    assert submits(first_jobs(w, 0)) == []
    assert len(first_jobs(w, 99).jobs) == 5
    for bad in (-1, 2.0, True):
        with pytest.raises(ConfigError, match=r"n=.*non-negative integer"):
            first_jobs(w, bad)


# --- compress_arrivals / expand_runtimes ---------------------------------------------------------------------

def test_compress_arrivals_formula() -> None:
    w = five_jobs()
    # s <- o + (s - o) * c with o = first submit = 10 by default
    assert submits(compress_arrivals(w, 0.1)) == pytest.approx([10.0, 11.0, 12.0, 13.0, 14.0], abs=1e-12)
    assert submits(compress_arrivals(w, 0.5, origin=0.0)) == [5.0, 10.0, 15.0, 20.0, 25.0]
    assert submits(compress_arrivals(w, 3.0, origin=50.0)) == [-70.0, -40.0, -10.0, 20.0, 50.0]
    # Fractional seconds stay (the scenario rounds); run times untouched; the input is unchanged.
    out = compress_arrivals(w, 0.25)
    assert submits(out)[1] == 12.5
    assert out.jobs["run_time"].tolist() == [5.0] * 5
    assert submits(w) == [10.0, 20.0, 30.0, 40.0, 50.0]


@pytest.mark.parametrize("bad", [0, -0.1, math.inf, math.nan, "2"])
def test_scaling_factors_must_be_positive(bad) -> None:
    with pytest.raises(ConfigError, match=r"factor=.*expected a finite number > 0"):
        compress_arrivals(five_jobs(), bad)
    with pytest.raises(ConfigError, match=r"factor="):
        expand_runtimes(five_jobs(), bad)


def test_expand_runtimes_formula_and_missing_values() -> None:
    w = make_workload(submit_time=[0.0, 1.0, 2.0], run_time=[10.0, -1.0, 0.0], requested_time=[20.0, 30.0, -1.0],
                      allocated_processors=[1, 2, 3], wait_time=[7.0, 8.0, 9.0])
    out = expand_runtimes(w, 2.5).jobs
    assert out["run_time"].tolist() == [25.0, -1.0, 0.0]
    assert out["requested_time"].tolist() == [50.0, 75.0, -1.0]
    # runtime_estimate was requested_time, else run_time (reader fallback): [20, 30, 0] -> x 2.5
    assert out["runtime_estimate"].tolist() == [50.0, 75.0, 0.0]
    assert out["wait_time"].tolist() == [7.0, 8.0, 9.0]
    assert out["submit_time"].tolist() == [0.0, 1.0, 2.0]
    assert w.jobs["run_time"].tolist() == [10.0, -1.0, 0.0]


# --- offered_load ----------------------------------------------------------------------------------------------

def test_offered_load_hand_computed() -> None:
    # Runnable jobs: (s=0, r=10, q=2), (s=20, r=30, q=1); W = 20 + 30 = 50, span = max(10, 50) - 0 = 50.
    # The job with r = -1 (submitted at 100) and the one with q = 0 carry no work and do not stretch the span.
    w = make_workload(submit_time=[0.0, 20.0, 100.0, 5.0], run_time=[10.0, 30.0, -1.0, 500.0],
                      allocated_processors=[2, 1, 1, 0])
    assert offered_load(w, 1) == pytest.approx(50 / 50)
    assert offered_load(w, 4) == pytest.approx(50 / (4 * 50))
    assert max_offered_load(w, 4) == pytest.approx(50 / (4 * 30))


def test_offered_load_errors() -> None:
    with pytest.raises(ConfigError, match=r"n_processors=0: expected a positive integer"):
        offered_load(five_jobs(), 0)
    with pytest.raises(ConfigError, match=r"no job has a positive run time"):
        offered_load(make_workload(submit_time=[0.0], run_time=[-1.0], allocated_processors=[1]), 4)


# --- scale_to_load ---------------------------------------------------------------------------------------------

def naive_factor(workload, target: float, n_processors: int, how: str) -> float:
    """Slow twin: bisect the factor on the monotone L(factor), recomputing the load from scratch each time."""
    scale = expand_runtimes if how == "runtime" else compress_arrivals
    lo, hi = 1e-6, 1e6  # L is increasing in the runtime factor, decreasing in the arrival factor
    for _ in range(200):
        mid = math.sqrt(lo * hi)
        too_low = offered_load(scale(workload, mid), n_processors) < target
        if too_low == (how == "runtime"):
            lo = mid
        else:
            hi = mid
    return math.sqrt(lo * hi)


def random_workload(rng: np.random.Generator, n: int):
    """n jobs with some non-runnable ones; the first and last are runnable, so submit times are spread."""
    run = rng.choice([-1.0, 0.0, 5.0, 60.0, 400.0], n)
    run[[0, -1]] = rng.choice([5.0, 60.0, 400.0], 2)
    return make_workload(submit_time=np.sort(rng.uniform(0, 1000, n)).tolist(), run_time=run.tolist(),
                         allocated_processors=rng.integers(1, 5, n).tolist())


@pytest.mark.parametrize("how", ["runtime", "arrival"])
def test_scale_to_load_hits_target_and_agrees_with_bisection(how: str) -> None:
    rng = np.random.default_rng(11)
    for _ in range(8):
        w = random_workload(rng, int(rng.integers(3, 40)))
        m = int(rng.integers(1, 8))
        target = float(rng.uniform(0.05, 0.95)) * max_offered_load(w, m)
        out = scale_to_load(w, target, m, how=how)
        assert offered_load(out, m) == pytest.approx(target, rel=1e-9)
        factor = naive_factor(w, target, m, how)
        if how == "runtime":
            assert out.jobs["run_time"].tolist() == pytest.approx((w.jobs["run_time"].where(
                w.jobs["run_time"] == -1, w.jobs["run_time"] * factor)).tolist(), rel=1e-6)
        else:
            assert submits(out) == pytest.approx(submits(compress_arrivals(w, factor)), rel=1e-6, abs=1e-6)


def test_runtime_and_arrival_factors_are_reciprocal() -> None:
    # JSSPP'05 Sec. 4: expanding runtimes by x and shrinking inter-arrivals by 1/x give the same load.
    w = five_jobs()  # W = 25 on 1 processor, span 45: load 5/9
    assert offered_load(w, 1) == pytest.approx(25 / 45)
    by_runtime = scale_to_load(w, 0.8, 1, how="runtime")
    by_arrival = scale_to_load(w, 0.8, 1, how="arrival")
    x = by_runtime.jobs["run_time"].iloc[0] / 5.0
    c = (submits(by_arrival)[1] - 10.0) / 10.0
    assert x * c == pytest.approx(1.0)
    # Hand solve, arrival: max_i(c*d_i + 5) = W/(m*L) = 25/0.8 = 31.25 with d_max = 40 -> c = 26.25/40.
    assert c == pytest.approx(26.25 / 40)


def test_scale_to_load_lowers_load_too() -> None:
    w = five_jobs()
    for how in ("runtime", "arrival"):
        assert offered_load(scale_to_load(w, 0.1, 1, how=how), 1) == pytest.approx(0.1)


def test_scale_to_load_refuses_unreachable_targets_and_bad_arguments() -> None:
    w = five_jobs()  # sup load = 25 / (1 * 5) = 5: all five released at once, span = one job
    with pytest.raises(ConfigError, match=r"target load 5 on 1 processors is out of reach.*less than 5"):
        scale_to_load(w, 5.0, 1, how="runtime")
    assert offered_load(scale_to_load(w, 4.9, 1, how="runtime"), 1) == pytest.approx(4.9)
    same_time = make_workload(submit_time=[0.0, 0.0], run_time=[5.0, 5.0], allocated_processors=[1, 1])
    with pytest.raises(ConfigError, match=r"submitted at the same time, so no factor changes their load"):
        scale_to_load(same_time, 0.5, 4, how="arrival")
    with pytest.raises(ConfigError, match=r"how='both'; choose one of: runtime, arrival"):
        scale_to_load(w, 0.5, 1, how="both")
    with pytest.raises(ConfigError, match=r"target=0"):
        scale_to_load(w, 0, 1, how="runtime")


@given(runs=st.lists(st.integers(1, 1000), min_size=2, max_size=12),
       gaps=st.lists(st.integers(0, 500), min_size=12, max_size=12),
       widths=st.lists(st.integers(1, 8), min_size=12, max_size=12),
       fraction=st.floats(0.01, 0.99), how=st.sampled_from(["runtime", "arrival"]))
def test_scale_to_load_property(runs, gaps, widths, fraction, how) -> None:
    n = len(runs)
    gaps[1] = max(gaps[1], 1)  # at least two distinct submit times, else no factor changes the load
    w = make_workload(submit_time=np.cumsum(gaps[:n]).astype(float).tolist(), run_time=[float(r) for r in runs],
                      allocated_processors=widths[:n])
    target = fraction * max_offered_load(w, 4)
    assert offered_load(scale_to_load(w, target, 4, how=how), 4) == pytest.approx(target, rel=1e-9)


# --- sequential_count --------------------------------------------------------------------------------------------

def test_sequential_count_sums_processors_of_known_widths() -> None:
    w = make_workload(allocated_processors=[1, 4, -1, 0, 8], requested_processors=[1, 4, 2, 0, 8])
    # reader rule: allocated if >= 1, else requested if >= 1, else -1
    assert w.jobs["processors"].tolist() == [1, 4, 2, -1, 8]
    assert sequential_count(w) == 15
    assert sequential_count(make_workload(processors=[3, 0, -1, 2])) == 5
    assert sequential_count(make_workload(allocated_processors=[])) == 0


def test_transforms_leave_the_header_and_report() -> None:
    w = make_workload(header=(("MaxProcs", "4"),), submit_time=[0.0, 10.0], run_time=[1.0, 1.0],
                      allocated_processors=[1, 1])
    for out in (window(w, length=5), first_jobs(w, 1), compress_arrivals(w, 2.0), expand_runtimes(w, 2.0)):
        assert out.header == w.header
        assert isinstance(out.jobs, pd.DataFrame)
