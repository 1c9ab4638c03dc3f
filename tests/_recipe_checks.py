"""Is the policy that docs/contributing.md's online recipe added picked up everywhere? Run only by
tests/test_contributing_recipe.py, inside the throwaway copy of the package where it followed the recipe, with the
policy's name in ``$FAIRSCHED_RECIPE_POLICY`` (skipped anywhere else: pytest collects only ``test_*.py`` files).

The contract suite (tests/test_online_policies.py, run in the same copy) checks the policy's schedules with the
validator; these check the registry, the CLI's help, ``fairsched compare --policies NAME`` and a sweep spec.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import run_main

NAME = os.environ.get("FAIRSCHED_RECIPE_POLICY", "")
pytestmark = pytest.mark.skipif(not NAME, reason="run by tests/test_contributing_recipe.py in its copy")
SMALL = ["--orgs", "3", "--window-length", "100000"]  # the embedded workload, 3 organizations, a short window


def test_the_registry_and_the_help_list_it(capsys: pytest.CaptureFixture[str]) -> None:
    from fairsched import _names
    from fairsched.online.policies import REGISTRY, get_policy

    assert NAME in REGISTRY and NAME in _names.ONLINE_POLICIES
    assert type(get_policy(NAME.upper())).name == NAME
    code, out, _ = run_main(["compare", "--help"], capsys)
    assert code == 0 and NAME in out


def test_compare_runs_it_through_the_cli(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(["compare", "--policies", f"{NAME},roundrobin", "--reference", "roundrobin", *SMALL,
                               "--json"], capsys)
    assert code == 0, err
    doc = json.loads(out)
    assert list(doc["policies"]) == [NAME, "roundrobin"] and doc["config"]["validate"]  # schedules validated
    mine = doc["policies"][NAME]
    assert mine["jobs_started"] > 0 and len(mine["psi"]) == 3 and not mine["is_reference"]


def test_a_sweep_spec_runs_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "spec.toml"
    spec.write_text('[sweep]\nmodel = "online"\nseeds = 2\n[base]\norgs = 3\nwindow-length = 100000\n'
                    f'reference = "roundrobin"\n[grid]\npolicies = ["{NAME}"]\n', encoding="utf-8")
    store = tmp_path / "store"
    code, out, err = run_main(["sweep", str(spec), "--out", str(store), "--workers", "1", "--json"], capsys)
    assert code == 0, err
    assert json.loads(out)["computed"] == 2
    code, out, err = run_main(["results", str(store), "--json"], capsys)
    assert code == 0, err
    assert {row["policy"] for row in json.loads(out)["rows"]} == {NAME, "roundrobin"}
