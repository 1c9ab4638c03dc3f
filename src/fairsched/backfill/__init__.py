"""The backfilling model: one cluster of P processors, rigid parallel jobs, queue order × backfilling rule.

Implements the scheduling model of G. Sabin, P. Sadayappan, "Unfairness metrics for space-sharing parallel job
schedulers", JSSPP 2005, §4 (FCFS / SJF / LXF × no backfilling, no-guarantee, EASY, conservative), with the
event semantics of the pyss simulator (../shared/oracles/pyss/README.md), which it reproduces job for job.
See docs/backfill.md.

Entry points: `simulate` (one schedule), `BackfillSimulator` (the stepping core, for what-if simulations),
`BackfillJobs` / `jobs_from_workload` (input), `fairsched.backfill.metrics.summary` (classic metrics) and
`fairsched.backfill.validate.check_backfill_schedule` (independent validation).
"""

from fairsched.backfill.engine import SCHEDULE_COLUMNS, BackfillResult, BackfillSimulator, simulate
from fairsched.backfill.jobs import BackfillJobs, jobs_from_workload

__all__ = ["SCHEDULE_COLUMNS", "BackfillJobs", "BackfillResult", "BackfillSimulator", "jobs_from_workload",
           "simulate"]
