"""Workloads: SWF and Google readers/writers, synthetic models, cleaning, windows and load scaling."""

from fairsched.workload.model import ReadReport, Workload, WorkloadColumns

__all__ = ["ReadReport", "Workload", "WorkloadColumns"]
