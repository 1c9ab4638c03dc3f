"""The seed registry (`fairsched.seeds`): stage keys are distinct and streams are the documented SeedSequences."""

from __future__ import annotations

import numpy as np

from fairsched import seeds


def test_stage_keys_are_distinct_and_all_registered() -> None:
    assert len(set(seeds.STAGES.values())) == len(seeds.STAGES) == 9
    assert seeds.STAGES["STAGE_ORGS"] == 1 and seeds.STAGES["STAGE_WINDOW_SEEDS"] == 22


def test_a_stream_is_the_seed_sequence_of_its_key() -> None:
    direct = np.random.default_rng(np.random.SeedSequence(7, spawn_key=(seeds.STAGE_ORGS, 4)))
    assert seeds.stream(7, seeds.STAGE_ORGS, 4).integers(2**40, size=5).tolist() == direct.integers(
        2**40, size=5).tolist()
    assert seeds.stream(7, seeds.STAGE_ORGS, 4).random() != seeds.stream(7, seeds.STAGE_MACHINES, 4).random()
    assert seeds.stream(7, seeds.STAGE_ORGS).random() != seeds.stream(8, seeds.STAGE_ORGS).random()
