"""`fairsched audit` on every Parallel Workloads Archive trace of ../shared/traces (skipped when absent).

Each trace is audited over the 20 days from its first submission, with organizations formed from ``group`` (or
``user`` where the log records no group) folded into 4 organizations by an org map (keys in order of first
appearance, round robin), and a Zipf split of the shares. The exact Shapley values must satisfy efficiency
to the last integer.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from fairsched.audit import AuditConfig, run_audit
from fairsched.scenario import zipf_weights
from fairsched.workload.swf import read_swf
from tests.conftest import trace_path

TRACES = ("LPC-EGEE-2004-1.2-cln.swf.gz", "RICC-2010-2.swf.gz", "CTC-SP2-1996-3.1-cln.swf.gz",
          "SDSC-BLUE-2000-4.2-cln.swf.gz", "SDSC-SP2-1998-4.2-cln.swf.gz", "OSC-Clust-2000-3.1-cln.swf.gz",
          "METACENTRUM-2009-2.swf.gz")
WINDOW = 20 * 86400
N_ORGS = 4


@pytest.mark.traces
@pytest.mark.parametrize("name", TRACES)
def test_every_pwa_trace_audits_with_exact_efficiency(tmp_path: Path, name: str) -> None:
    path = trace_path(name)
    jobs = read_swf(path).jobs
    first = int(jobs["submit_time"].min())
    jobs = jobs[jobs["submit_time"] < first + WINDOW]
    org_by, column = ("group", "group_id") if (jobs["group_id"] >= 0).any() else ("user", "user_id")
    keys = [str(k) for k in dict.fromkeys(jobs[column].tolist())]  # SWF "no user" is -1, as in the trace
    org_map = tmp_path / "orgs.csv"
    org_map.write_text("key,org\n" + "".join(f"{k},o{i % N_ORGS}\n" for i, k in enumerate(keys)))
    n_orgs = min(N_ORGS, len(keys))
    shares = tmp_path / "shares.csv"
    weights = zipf_weights(n_orgs, 1.4267)
    shares.write_text("org,share\n" + "".join(f"o{i},{float(w)!r}\n" for i, w in enumerate(weights)))
    result = run_audit(AuditConfig(log=path, org_by=org_by, org_map=org_map, shares=str(shares), since=str(first),
                                   until=str(first + WINDOW),
                                   fst_sample=200))
    assert result.shapley.method == "exact"
    assert sum(result.shapley.exact, Fraction(0)) == result.summary["v_grand"]
    assert np.isclose(result.summary["sum_phi"], result.summary["v_grand"], rtol=1e-12, atol=0)  # float64 view
    assert result.summary["jobs_used"] > 0
    assert np.isclose(result.orgs["entitled_share"].to_numpy(), weights / weights.sum()).all()
