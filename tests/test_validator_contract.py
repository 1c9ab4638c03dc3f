"""One validator contract for the four models: ``check_*`` returns sentences, ``validate_*`` raises.

Each model gets one valid and one broken schedule (the broken one breaks exactly one rule, by hand).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytest

from fairsched.backfill.jobs import BackfillJobs
from fairsched.backfill.validate import check_backfill_schedule, validate_backfill_schedule
from fairsched.errors import InvalidScheduleError
from fairsched.mosp.instance import MospInstance, MospSchedule
from fairsched.mosp.validate import check_mosp_schedule, validate_mosp_schedule
from fairsched.online.validate import SCHEDULE_COLUMNS, check_online_schedule, validate_online_schedule
from fairsched.openshop.instance import OpenShopInstance, OpenShopSchedule
from fairsched.openshop.validate import check_openshop_schedule, validate_openshop_schedule
from fairsched.scenario import scenario_from_arrays


def online_case() -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    s = scenario_from_arrays(release=[0, 0, 1], processing_time=[3, 2, 1], org=[0, 1, 0], machines_per_org=[1, 1])
    good = [[1, 0, 0, 0, 3, 0], [2, 1, 0, 0, 2, 1], [3, 0, 1, 2, 3, 1]]
    bad = [[1, 0, 0, 0, 3, 0], [2, 1, 0, 0, 2, 1], [3, 0, 1, 3, 4, 1]]  # machine 1 idles at 2 while job 3 waits
    frame = lambda rows: pd.DataFrame(rows, columns=list(SCHEDULE_COLUMNS))  # noqa: E731
    return (frame(good), s), (frame(bad), s)


def backfill_case() -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    jobs = BackfillJobs.from_arrays([0, 0, 1, 5], [5, 100, 10, 5], [2, 2, 4, 2], [10, 100, 10, 5], n_processors=6)
    rows = pd.DataFrame({"job": [1, 2, 3, 4], "submit": [0, 0, 1, 5], "start": [0, 0, 10, 5],
                         "end": [5, 100, 20, 10], "procs": [2, 2, 4, 2]})
    wide = rows.assign(procs=[2, 2, 4, 3])  # job 4 listed on 3 processors, it needs 2
    return (rows, jobs), (wide, jobs)


def mosp_case() -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    inst = MospInstance.from_arrays(procs=[1, 1], owner=[0, 1], runtime=[2, 2], width=[1, 1])
    good = MospSchedule(np.array([0, 1]), np.array([0, 0]))
    bad = MospSchedule(np.array([0, 0]), np.array([0, 1]))  # both on cluster 0, overlapping
    return (inst, good), (inst, bad)


def openshop_case() -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    inst = OpenShopInstance.from_dense([[2, 0], [1, 3]])
    return ((inst, OpenShopSchedule(np.array([0, 2, 0]), np.array([2, 3]))),
            (inst, OpenShopSchedule(np.array([0, 1, 0]), np.array([2, 3]))))


MODELS: dict[str, tuple[Callable[[], Any], Callable[..., list[str]], Callable[..., None]]] = {
    "online": (online_case, check_online_schedule, validate_online_schedule),
    "backfill": (backfill_case, check_backfill_schedule, validate_backfill_schedule),
    "mosp": (mosp_case, check_mosp_schedule, validate_mosp_schedule),
    "openshop": (openshop_case, check_openshop_schedule, validate_openshop_schedule),
}


@pytest.mark.parametrize("model", MODELS)
def test_check_returns_sentences_and_validate_raises(model: str) -> None:
    case, check, validate = MODELS[model]
    first, broken = case()  # each the arguments in the order the model's functions take them
    assert check(*first) == []
    assert validate(*first) is None
    messages = check(*broken)
    assert len(messages) >= 1 and all(isinstance(m, str) and "\n" not in m for m in messages)
    with pytest.raises(InvalidScheduleError) as caught:
        validate(*broken)
    assert messages[0] in str(caught.value)
