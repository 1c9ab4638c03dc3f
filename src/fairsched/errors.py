"""The one error hierarchy of fairsched.

`FairschedError` and its subclasses are *user* errors: the CLI prints their message on one line and exits
with code 2, without a traceback. Any other exception is a bug, and its traceback is kept.
"""

from __future__ import annotations

from pathlib import Path


class FairschedError(Exception):
    """Base class of every error a user can cause and fix."""


class InputError(FairschedError):
    """A malformed input file; the message names ``FILE:LINE: field NAME: problem``."""

    def __init__(self, message: str, *, path: str | Path | None = None, line: int | None = None,
                 field: str | None = None) -> None:
        self.path = None if path is None else str(path)
        self.line = line
        self.field = field
        where = ""
        if self.path is not None:
            where = f"{self.path}:{line}: " if line is not None else f"{self.path}: "
        what = f"field {field}: " if field is not None else ""
        super().__init__(f"{where}{what}{message}")


class ConfigError(FairschedError):
    """Options that do not fit together or are out of range."""


class UnknownPolicyError(ConfigError):
    """A policy name that is not registered."""


class PolicyError(FairschedError):
    """A policy took an illegal decision (a bug in the policy, reported clearly)."""


class InvariantError(AssertionError):
    """A broken internal invariant: a bug in fairsched. Never caught."""


class InvalidScheduleError(FairschedError):
    """A schedule breaks the model's rules (found by `fairsched.<model>.validate`); the message lists the violations."""


class ClusterError(FairschedError):
    """A local Slurm cluster (`fairsched.slurm`) that cannot be started, used or stopped: missing packages, a
    daemon that fails to start, a port in use, a cluster that `fairsched slurm up` did not start."""
