"""report.html of an audit of the real Slurm log, opened in a real headless Chromium."""

from __future__ import annotations

from pathlib import Path

from fairsched.audit import AuditConfig, run_audit
from fairsched.report.audit import audit_command, write_audit_outputs
from tests.conftest import trace_path
from tests.test_report_html import chromium_load, needs_chromium


@needs_chromium
def test_micro_cluster_report_renders_in_chromium(tmp_path: Path) -> None:
    config = AuditConfig(log=trace_path("slurm/micro-cluster-real-slurm.sacct.txt"))
    outputs = write_audit_outputs(run_audit(config), tmp_path / "out", command=audit_command(config))
    page = outputs["report.html"]
    text = page.read_text(encoding="utf-8")
    assert "account1" in text and "account2" in text and "Sharing incentive" in text
    console, shot = chromium_load(page, tmp_path)
    assert console == []
    assert shot.shape[0] > 500 and shot.shape[1] > 500
    dark = (shot.sum(axis=2) < 200).mean()                          # the verdict, headings, table borders
    assert dark > 0.001 and shot.std() > 10                         # not blank, not one colour
    assert text.count('src="data:image/png;base64,') == 6           # the figures are inline
