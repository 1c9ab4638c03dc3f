"""Windows as a dimension of a sweep: ``windows = N`` in ``[sweep]`` draws N window starts of a trace.

The documented draw (docs/sweeps.md, "Windows"), the one the online replications use
(`fairsched.replicate._online_windows`), from a stream of its own:

1. read the trace and keep the jobs a simulator can replay (`fairsched.workload.clean.clean`);
2. draw integer start times uniformly in [first submit, max(first submit, last submit − length)] from
   ``SeedSequence(window_seed, spawn_key=(STAGE_SWEEP_WINDOWS, length))`` (`fairsched.seeds`), the spec's
   ``window-seed`` (default 0): every grid point and seed with this trace and length sees the same windows;
3. redraw a start whose window [start, start + length) holds no job, or that was drawn already, so the N windows
   are distinct and none is empty (at most 1,000 draws per window).

The starts then go into each cell's ``window-start``; the cells of window i carry ``window = i``.
"""

from __future__ import annotations

import math
from pathlib import Path

from fairsched.errors import ConfigError
from fairsched.seeds import STAGE_SWEEP_WINDOWS, stream

MAX_DRAWS = 1000  # per window


class WindowDraws:
    """Window starts per (trace, length, N, seed), each trace read once per sweep."""

    def __init__(self) -> None:
        self._submits: dict[str, list[float]] = {}
        self._starts: dict[tuple[str, float, int, int], tuple[int, ...]] = {}

    def starts(self, trace: str | Path, length: float, n: int, seed: int) -> tuple[int, ...]:
        key = (str(trace), float(length), int(n), int(seed))
        if key not in self._starts:
            self._starts[key] = window_starts(self._submit_times(trace), length, n, seed, source=str(trace))
        return self._starts[key]

    def _submit_times(self, trace: str | Path) -> list[float]:
        name = str(trace)
        if name not in self._submits:
            from fairsched.workload.clean import clean
            from fairsched.workload.swf import read_swf

            cleaned, _ = clean(read_swf(Path(trace)))
            self._submits[name] = sorted(cleaned.jobs["submit_time"].astype(float).tolist())
        return self._submits[name]


def window_starts(submit_times: list[float], length: float, n: int, seed: int, *,
                  source: str = "the trace") -> tuple[int, ...]:
    """`n` distinct window starts (integer trace seconds), each window holding a job (module docstring).

    >>> window_starts([0.0, 10.0, 20.0, 30.0], 10, 3, 0)
    (11, 18, 9)
    """
    import bisect

    submit = sorted(submit_times)
    if not submit:
        raise ConfigError(f"{source}: no job to draw windows from")
    first, last = math.floor(submit[0]), math.floor(submit[-1])
    high = max(first, last - math.ceil(length))
    rng = stream(seed, STAGE_SWEEP_WINDOWS, int(length))
    starts: list[int] = []
    for _ in range(n * MAX_DRAWS):
        start = int(rng.integers(first, high + 1))
        holds = bisect.bisect_left(submit, start + length) > bisect.bisect_left(submit, start)
        if holds and start not in starts:
            starts.append(start)
            if len(starts) == n:
                return tuple(starts)
    raise ConfigError(f"{source}: could not draw {n} distinct windows of {length:g} s holding a job (its jobs are "
                      f"submitted between {first} and {last}); ask for fewer windows or shorter ones")
