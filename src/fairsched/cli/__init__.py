"""Command line: ``compare``, ``audit``, ``whatif``, ``fairshare``, ``trace info|fetch``, ``backfill``,
``unfairness re|fst``, ``mosp``, ``openshop``, ``replicate ...``, ``sweep``, ``results``, ``slurm up|down|replay``,
``steer``.

Each command is parse -> one library call -> render (see docs/usage.md for every flag), in one module per command
group, imported below by name (no auto-discovery; the import order is the order of ``fairsched --help``):

* `fairsched.cli._app`: the `app`, its groups, and `main`, the console entry point and the one error boundary: a
  `FairschedError` (a user error) becomes one line ``error: <message>`` on stderr and exit code 2, Ctrl-C exit code
  130; any other exception is a bug and keeps its traceback;
* `fairsched.cli._options`: the option vocabulary, every flag shared by several commands, declared once;
* `fairsched.cli._deliver`: the one delivery path (staged ``--out``, report.html, progress bar, then the terminal
  or, with ``--json``, exactly one JSON document on stdout and nothing else).

How to add a command: docs/contributing.md, "How to add a command".
"""

# The order of `fairsched --help` (commands, then the groups trace, unfairness, replicate, slurm): each module
# registers its commands on import.
from fairsched.cli import compare, audit, whatif, fairshare, trace, backfill, mosp, openshop, sweep, replicate, slurm, steer  # noqa: F401,E501  # isort: skip
from fairsched.cli._app import app, main

__all__ = ["app", "main"]
