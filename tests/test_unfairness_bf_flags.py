"""``fairsched unfairness fst`` takes the ``slurm`` rule's --bf-interval, --bf-window and --bf-max-job-test as
``fairsched backfill`` does (issue 26): a short window changes the fair-start-time unfairness where it should, and
the flags with another rule are one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_main

# The worked example of tests/test_backfill_slurm_rule.py, with job 4 running its whole 200 s: 4 CPUs, backfill
# passes every 10 s. Job 1 (2 CPUs, 100 s) runs; job 2 (4 CPUs, 50 s) waits for it; job 3 (2 CPUs, 20 s) is
# backfilled by the pass at 10 and runs [10, 30); job 4 (2 CPUs, 200 s, submitted at 3) waits for a hole.
# * bf_window = 86400: the pass at 40 reserves [100, 150) for job 2, which job 4 would overlap, so job 4 starts at
#   150: starts 0, 100, 10, 150. Job 2's fair start time (no later job: it starts when job 1 ends) is 100 = its
#   start; every job starts at its FST, strict unfairness 0.
# * bf_window = 60: the pass at 40 plans until 100 only, job 2's earliest start (100) is the window's end, so it
#   gets no reservation and job 4 starts at 40, holding 2 CPUs until 240: job 2 starts at 240, 140 s after its
#   FST of 100. Strict unfairness: Σ max(start - FST, 0) / jobs = 140 / 4 = 35; max 140, one unfair job.
TINY = """; MaxProcs: 4
1 0 -1 100 2 -1 -1 2 100 -1 1 1 1 -1 1 -1 -1 -1
2 1 -1 50 4 -1 -1 4 50 -1 1 1 1 -1 1 -1 -1 -1
3 2 -1 20 2 -1 -1 2 20 -1 1 1 1 -1 1 -1 -1 -1
4 3 -1 200 2 -1 -1 2 200 -1 1 1 1 -1 1 -1 -1 -1
"""


def _fst(tmp_path: Path, capsys: pytest.CaptureFixture[str], *flags: str) -> dict:
    swf = tmp_path / "tiny.swf"
    swf.write_text(TINY)
    code, out, err = run_main(["unfairness", "fst", str(swf), "--kind", "strict", *flags, "--json"], capsys)
    assert code == 0, err
    return json.loads(out)


@pytest.mark.parametrize(("window", "unfairness", "max_unfairness", "n_unfair"), [
    ("86400", 0.0, 0.0, 0),
    ("60", 35.0, 140.0, 1),
])
def test_a_short_bf_window_lets_a_later_job_delay_an_earlier_one(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], window: str, unfairness: float, max_unfairness: float,
        n_unfair: int) -> None:
    doc = _fst(tmp_path, capsys, "--backfill", "slurm", "--bf-interval", "10", "--bf-window", window,
               "--bf-max-job-test", "20")
    strict = doc["unfairness"]["fst_strict"]
    assert (strict["unfairness"], strict["max_unfairness"], strict["n_unfair"]) == (unfairness, max_unfairness,
                                                                                   n_unfair)
    assert (doc["config"]["bf_interval"], doc["config"]["bf_window"], doc["config"]["bf_max_job_test"]) == (
        10, int(window), 20)
    assert doc["meta"]["backfill_params"] == {"bf_interval": 10, "bf_window": int(window), "bf_max_job_test": 20}


def test_easy_gives_the_same_as_a_long_window(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """EASY reserves for the head too (job 4 would delay job 2's reservation), so nobody is delayed; without the
    flags the config lists no bf_* (report.json shows them only for slurm)."""
    doc = _fst(tmp_path, capsys)
    assert doc["unfairness"]["fst_strict"]["unfairness"] == 0.0
    assert "bf_window" not in doc["config"]


@pytest.mark.parametrize("flag", [["--bf-window", "3600"], ["--bf-interval", "60"], ["--bf-max-job-test", "5"]])
@pytest.mark.parametrize("rule", [[], ["--backfill", "easy"], ["--backfill", "conservative"]])
def test_bf_flags_without_the_slurm_rule_are_a_one_line_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], flag: list[str], rule: list[str]) -> None:
    swf = tmp_path / "tiny.swf"
    swf.write_text(TINY)
    code, out, err = run_main(["unfairness", "fst", str(swf), *rule, *flag], capsys)
    name = rule[1] if rule else "easy"
    assert (code, out) == (2, "")
    assert err == (f"error: {flag[0]} sets the slurm backfilling rule; it has no effect with --backfill {name} "
                   "(use --backfill slurm)\n")
