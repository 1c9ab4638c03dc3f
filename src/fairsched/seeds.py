"""Every named random stream of fairsched, in one place.

Everything random flows from one user seed (``--seed``) through `numpy.random.SeedSequence`: a stream is
``SeedSequence(seed, spawn_key=(STAGE, ...))``, one stage key per purpose, so that changing how one thing is drawn
never changes the numbers drawn for another. The stage keys (distinct; a test checks it):

===================  ====  ==================================================================================
stream               key   drawn by
===================  ====  ==================================================================================
STAGE_ORGS           1     `fairsched.scenario`: the organization of each user/group/queue id; key
                           ``(STAGE_ORGS, id key)``, one stream per id
STAGE_MACHINES       2     `fairsched.scenario`: the machine split among organizations
STAGE_ARRIVALS       11    `fairsched.workload.synthetic`: submit times and users
STAGE_RUNTIMES       12    ... run times
STAGE_PROCESSORS     13    ... processors
STAGE_ESTIMATES      14    ... user estimates
STAGE_WINDOWS        21    `fairsched.replicate._online_windows`: window start times; key
                           ``(STAGE_WINDOWS, trace index, window length)``
STAGE_WINDOW_SEEDS   22    ... each window's scenario and policy seed; key ``(STAGE_WINDOW_SEEDS, cell, index)``
STAGE_SWEEP_WINDOWS  23    `fairsched.sweep.windows`: the window starts of a sweep's ``windows = N``; key
                           ``(STAGE_SWEEP_WINDOWS, window length)``, seeded by the spec's ``window-seed``
===================  ====  ==================================================================================

Streams derived otherwise (documented at their use):

* engines hand policies ``numpy.random.default_rng(seed)`` (online RAND, MOSP ``rnd`` local order, openshop PBA's
  perturbation and k-Max-Min's tail), one generator per run;
* `fairsched.replicate.tpds11` derives each instance's seed from ``SeedSequence(seed, spawn_key=coordinates)``
  (the instance's experiment coordinates);
* `fairsched.replicate.networking20.exact_reach` uses ``SeedSequence(seed).spawn(n)``, whose children have the
  spawn keys ``(0,) … (n-1,)`` and so coincide with ``STAGE_ORGS``, ``STAGE_MACHINES`` and the synthetic stages
  for the same seed. It is kept: the exact-reach instances are random openshop instances that never meet a
  scenario or a synthetic workload of the same seed in one run, so no two consumers share numbers, and changing
  the keys would change the published table (docs/replication/networking20.md);
* `fairsched.audit` (owned by its module) uses keys 1 and 2 for its Shapley and fair-start-time samples; an audit
  builds no scenario from its seed.
"""

from __future__ import annotations

import numpy as np

STAGE_ORGS = 1
STAGE_MACHINES = 2
STAGE_ARRIVALS = 11
STAGE_RUNTIMES = 12
STAGE_PROCESSORS = 13
STAGE_ESTIMATES = 14
STAGE_WINDOWS = 21
STAGE_WINDOW_SEEDS = 22
STAGE_SWEEP_WINDOWS = 23

STAGES: dict[str, int] = {name: value for name, value in globals().items() if name.startswith("STAGE_")}
"""Every stage key by name (distinct values)."""


def sequence(seed: int, *key: int) -> np.random.SeedSequence:
    """The seed sequence of stream `key` (a stage key, then any coordinates) of `seed`."""
    return np.random.SeedSequence(int(seed), spawn_key=tuple(int(k) for k in key))


def stream(seed: int, *key: int) -> np.random.Generator:
    """The generator of stream `key` of `seed`.

    >>> a, b = stream(0, STAGE_MACHINES).random(), stream(0, STAGE_MACHINES).random()
    >>> bool(a == b)
    True
    """
    return np.random.default_rng(sequence(seed, *key))
