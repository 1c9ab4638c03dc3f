"""The names each model registers, importable without numpy: the CLI's ``--help`` lists them from here.

``fairsched --help`` must start fast, and every model's registry imports numpy and numba, so the lists the help
shows cannot be read from the registries when the CLI starts. The registries stay the truth: each
``policies/__init__.py`` ends with `fairsched._registry.Registry.check_listed` against its list here, so a
plug-in registered without its name here (or a name left here after its plug-in is gone) fails on import, with a
message naming this file; ``tests/test_cli_ux.py`` checks the same. Adding a plug-in is one more line here.

>>> ONLINE_POLICIES[:2]
('currfairshare', 'directcontr')
"""

ONLINE_POLICIES: tuple[str, ...] = ("currfairshare", "directcontr", "fairshare", "rand", "rand-antithetic",
                                    "rand-stratified", "ref", "ref-literal", "roundrobin", "utfairshare")
"""`fairsched.online.policies.REGISTRY`, sorted by name."""

QUEUE_ORDERS: tuple[str, ...] = ("fcfs", "sjf", "lxf")
"""`fairsched.backfill.policies.ORDERS` whose keys need no parameters (``order_names(ticked=False)``), by code."""

TICKED_ORDERS: tuple[str, ...] = ("drf", "directcontr", "slurm-fair-tree", "slurm-classic")
"""The ticked orders of `fairsched.backfill.policies.ORDERS` (keys recomputed every ``calc_period``; they need
the organizations and shares, so the ``backfill`` command does not offer them), by code."""

BACKFILL_RULES: tuple[str, ...] = ("none", "no-guarantee", "easy", "conservative", "slurm")
"""`fairsched.backfill.policies.BACKFILLS`, by code."""

MOSP_ALGORITHMS: tuple[str, ...] = ("local", "mocca", "mocca-exp", "mocca4", "ilba", "mocca+ilba")
"""`fairsched.mosp.policies.ALGORITHMS`, in registration order."""

OPENSHOP_ALGORITHMS: tuple[str, ...] = ("fifo", "kmaxmin", "lptf", "luf", "pba", "sptf", "exact")
"""`fairsched.openshop.policies.ALGORITHMS`, in registration order."""
