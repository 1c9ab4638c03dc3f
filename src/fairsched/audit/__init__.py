"""``fairsched audit``: the fairness report of a real cluster's accounting log (docs/audit.md).

Front door: `run_audit(AuditConfig(log=...)) -> AuditResult`; `fairsched.report.audit.write_audit_outputs`
writes report.html, orgs.csv, jobs.csv, report.json and metrics.prom.
"""

from fairsched.audit.core import ORG_COLUMNS, AuditConfig, AuditResult, run_audit

__all__ = ["ORG_COLUMNS", "AuditConfig", "AuditResult", "run_audit"]
