"""The schedules a sweep keeps with ``--keep-schedules``: each policy's schedule as Batsim's ``jobs.csv`` rows.

`batsim_schedules` is the export function `fairsched.sweep.run_sweep` takes (``keep_schedules=``): it runs in
the worker beside the model, so the sweep layer never imports this one. The rows are those of the model
command's own ``jobs.csv`` (`fairsched.report.batsim`), which evalys' ``JobSet.from_csv`` loads.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pandas as pd

from fairsched.errors import ConfigError

SCHEDULE_MODELS: tuple[str, ...] = ("online", "backfill", "mosp")


def batsim_schedules(result: Any) -> Mapping[str, pd.DataFrame]:
    """``{policy: jobs.csv rows}`` of one cell's `Result` (online: every policy, the reference included;
    backfill: its one order/rule; mosp: the cooperative schedule)."""
    from fairsched.backfill import experiment as backfill_experiment
    from fairsched.mosp import experiment as mosp_experiment
    from fairsched.online import experiment as online_experiment

    if isinstance(result, online_experiment.Result):
        from fairsched.report.batsim import online_jobs_frame, safe_workload_name

        compare = result.compare
        name = "synthetic" if compare.config.trace is None else safe_workload_name(str(compare.config.trace))
        return {policy: online_jobs_frame(outcome.result.schedule, name)
                for policy, outcome in compare.policies.items()}
    if isinstance(result, backfill_experiment.Result):
        from fairsched.report.backfill import batsim_jobs_frame

        return {result.policy: batsim_jobs_frame(result.report)}
    if isinstance(result, mosp_experiment.Result):
        from fairsched.report.mosp import batsim_jobs_frame as mosp_jobs_frame
        from fairsched.report.mosp import workload_name

        report = result.report
        return {result.config.algorithm: mosp_jobs_frame(report.instance, report.schedule, workload_name(report))}
    raise ConfigError(f"--keep-schedules: a {type(result).__module__} result has no Batsim schedule; models with "
                      f"one: {', '.join(SCHEDULE_MODELS)}")


def schedule_export(model: str) -> Callable[[Any], Mapping[str, pd.DataFrame]]:
    """`batsim_schedules`, after checking that `model` (a spec's ``model``) has schedules to keep."""
    if model not in SCHEDULE_MODELS:
        raise ConfigError(f"--keep-schedules: the {model} model has no Batsim schedule to keep; models with one: "
                          f"{', '.join(SCHEDULE_MODELS)}")
    return batsim_schedules
