"""Column names of the Standard Workload Format, in one place.

The 18 SWF fields, in file order (../shared/traces/SWF_FORMAT.md; PWA swf.html v2.2). Readers, writers,
cleaning and scenarios all use these names; nothing else spells them.
"""

from __future__ import annotations

SWF_FIELDS: tuple[str, ...] = (
    "job_number",            # 1
    "submit_time",           # 2  seconds since log start
    "wait_time",             # 3
    "run_time",              # 4
    "allocated_processors",  # 5
    "average_cpu_time",      # 6
    "used_memory",           # 7
    "requested_processors",  # 8
    "requested_time",        # 9  user's runtime estimate
    "requested_memory",      # 10
    "status",                # 11 1 completed, 0 failed, 5 cancelled, 2/3/4 checkpoint parts
    "user_id",               # 12
    "group_id",              # 13
    "executable_number",     # 14
    "queue_number",          # 15
    "partition_number",      # 16
    "preceding_job_number",  # 17
    "think_time",            # 18
)
N_SWF_FIELDS = len(SWF_FIELDS)

# Fields that may hold fractional seconds; every other field is an integer.
SWF_FLOAT_FIELDS: frozenset[str] = frozenset(
    {"submit_time", "wait_time", "run_time", "average_cpu_time", "used_memory", "requested_time",
     "requested_memory", "think_time"}
)

# Derived columns added by the reader after documented fallbacks (see fairsched.workload.swf).
PROCESSORS = "processors"              # allocated_processors, else requested_processors
RUNTIME_ESTIMATE = "runtime_estimate"  # requested_time, else run_time

MISSING = -1

# Accounting columns that the readers of scheduler logs (fairsched.workload.sacct, fairsched.workload.jobs_csv)
# add beside the SWF ones: the log's own job id and the accounting keys that can form organizations, as strings
# ("" when the log lacks the key), and the job's memory in MB (NaN when unknown).
JOB_ID = "job_id"
ACCOUNTING_KEYS: tuple[str, ...] = ("account", "user", "group", "partition", "queue")
MEMORY_MB = "memory_mb"
# What Slurm's AllocTRES adds (fairsched.workload.sacct): the job's billing rate (TRESBillingWeights applied;
# NaN when the log has none) and its GPUs (gres/gpu; NaN when the log has no TRES).
BILLING = "billing"
GPUS = "gpus"
