"""Algorithms of the openshop model, one module each, registered by name in `ALGORITHMS`.

``pba`` (Algorithm 2; §VI generalization with linear utilities), ``kmaxmin`` (Algorithm 1), baselines ``fifo``,
``sptf``, ``luf`` (§VII), ``lptf`` (§VII's SPTF as its text reads: longest first), and ``exact`` (brute force /
lexicographic MILP, imported on first use). Each is
``f(instance, *, seed=0, utilities="equal", **params) -> OpenShopSchedule``.
"""

from fairsched import _names
from fairsched.openshop.policies import fifo, kmaxmin, lptf, luf, pba, sptf
from fairsched.openshop.policies._registry import ALGORITHMS, algorithm_names, get_algorithm, lazy_exact, register

register("exact", lazy_exact)  # the module `exact` (highspy) is imported on first use
ALGORITHMS.check_listed(_names.OPENSHOP_ALGORITHMS, "OPENSHOP_ALGORITHMS")  # the list the CLI's --help shows

__all__ = ["ALGORITHMS", "algorithm_names", "fifo", "get_algorithm", "kmaxmin", "lptf", "luf", "pba", "sptf"]
