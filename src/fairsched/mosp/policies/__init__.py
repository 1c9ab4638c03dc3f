"""MOSP algorithms, one module per algorithm (TPDS'11): ``local``, ``mocca`` (Algorithms 1–3), ``mocca_exp``
(§7.1), ``mocca_alpha`` (Algorithm 4), ``ilba`` (§6). `ALGORITHMS` maps the registered names ``local``, ``mocca``,
``mocca-exp``, ``mocca4``, ``ilba`` and ``mocca+ilba`` to functions ``(instance, *, local_order, seed)``.
"""

from fairsched import _names
from fairsched.mosp.policies._registry import ALGORITHMS, get_algorithm

ALGORITHMS.check_listed(_names.MOSP_ALGORITHMS, "MOSP_ALGORITHMS")  # the list the CLI's --help shows

__all__ = ["ALGORITHMS", "get_algorithm"]
