"""Openshop metrics: utilities (equal, linear, from arrival), the min-max key and Definition 1's order, and the
three metrics of Networking'20 §VII computed by hand."""

from __future__ import annotations

import numpy as np
import pytest

from fairsched.errors import ConfigError
from fairsched.openshop.instance import OpenShopInstance
from fairsched.openshop.metrics import (
    default_horizon,
    lexicographically_fairer,
    minmax_key,
    summary,
    utilities,
)

INST = OpenShopInstance.from_dense([[3, 1], [1, 2], [4, 0]], arrival=[0, 2, 5], priority=[1.0, 2.0, 5.0])


def test_default_horizon_bounds_every_completion() -> None:
    assert default_horizon(INST) == 11 + 5


def test_utilities_by_hand() -> None:
    c = np.array([4, 9, 13])
    assert utilities(INST, c, "equal").tolist() == [-4, -9, -13]
    assert utilities(INST, c, "linear").tolist() == [12.0, 14.0, 15.0]  # P (16 − C)
    assert utilities(INST, c, "linear", tau=20).tolist() == [16.0, 22.0, 35.0]
    assert utilities(INST, c, "linear", tau=np.array([4, 9, 14])).tolist() == [0.0, 0.0, 5.0]
    # online (§VII-B2): t measured from arrival, delays 4, 7, 8
    assert utilities(INST, c, "linear", since_arrival=True).tolist() == [12.0, 18.0, 40.0]
    assert utilities(INST, c, "equal", since_arrival=True).tolist() == [-4, -7, -8]


def test_utilities_refuse_bad_input() -> None:
    with pytest.raises(ConfigError, match="utilities='log'"):
        utilities(INST, np.zeros(3), "log")
    with pytest.raises(ConfigError, match="expected 3 values"):
        utilities(INST, np.zeros(2), "equal")


def test_minmax_key_sorts_non_increasing() -> None:
    assert minmax_key(np.array([3, 9, 1, 9])).tolist() == [9, 9, 3, 1]


@pytest.mark.parametrize(("a", "b", "expected"), [
    ([5, 3, 4], [5, 5, 1], True),    # second largest 4 < 5
    ([5, 5, 1], [5, 3, 4], False),
    ([1, 2, 3], [3, 2, 1], False),   # the same sorted vector: neither is fairer
    ([6, 1, 1], [5, 5, 5], False),   # the largest decides first
    ([2, 9], [9, 1], False),
    ([9, 1], [2, 9], True),
])
def test_lexicographic_min_max_of_completion_times(a, b, expected: bool) -> None:
    assert lexicographically_fairer(np.array(a), np.array(b)) is expected


def test_lexicographic_max_min_of_utilities() -> None:
    """Definition 1: sort non-decreasing, the larger first difference wins."""
    assert lexicographically_fairer(np.array([2, 3]), np.array([1, 9]), higher_is_better=True)
    assert not lexicographically_fairer(np.array([1, 9]), np.array([2, 3]), higher_is_better=True)
    assert lexicographically_fairer(np.array([4, 2, 8]), np.array([2, 3, 9]), higher_is_better=True)
    with pytest.raises(ConfigError, match="one length"):
        lexicographically_fairer(np.array([1, 2]), np.array([1, 2, 3]))


def test_summary_by_hand() -> None:
    values = np.array([2, 4, 4, 4, 5, 5, 7, 9])
    s = summary(values)
    assert s == {"mean": 5.0, "q4_mean": 8.0, "std": 2.0, "min": 2.0, "max": 9.0}  # worst 25 %: 7, 9
    assert summary(values, higher_is_better=True)["q4_mean"] == 3.0  # worst 25 %: 2, 4
    assert summary(np.array([1, 2, 3, 4, 10]))["q4_mean"] == 7.0  # ⌈5/4⌉ = 2 values
    assert summary(np.array([3]))["q4_mean"] == 3.0
    with pytest.raises(ConfigError, match="non-empty"):
        summary(np.array([]))
