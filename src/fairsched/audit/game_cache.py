"""The coalition game's Shapley values kept on disk, so that the same game is played once.

`fairsched audit` and `fairsched whatif` on the same window and ownership play the same game, and so does every
cell of a sweep over whatif's half-lives and weights; with 200 sampled orderings of 100–200 organizations it is
nearly all of their time (docs/performance.md, "Audit"). `shapley` looks the result up before playing:

* the key is a SHA-256 of everything the values depend on: the reference jobs (organization, submit time, run
  time, CPUs, estimate), the CPUs of each organization, t_end, the reference scheduler, whether the values are
  exact or sampled (and then the number of orderings and the seed), fairsched's version and the text of the
  modules that compute them (this one, `fairsched.audit.game`, `fairsched.audit._replay`, `fairsched.shapley`,
  the backfill engine and the compiled kernels): an edit to any of them misses the cache;
* an entry is one gzip'd JSON file (the Shapley values, their interval, the exact fractions, and every
  evaluated coalition's value and too-wide count), written to a temporary file and renamed, so a reader never
  sees half of one; an entry that cannot be read is ignored (and replaced);
* on a hit, the coalitions are put back into `Game.runs` (the singletons and the grand coalition are replayed
  again, since they keep each job's start, and must give the stored values), so everything computed from the
  game afterwards is what a fresh run computes: the outputs are the same bytes with and without the cache.

Where: ``$FAIRSCHED_GAME_CACHE`` (a directory), ``off`` to disable; else ``$XDG_CACHE_HOME/fairsched/games``
or ``~/.cache/fairsched/games``. Delete the directory to empty it.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import json
import os
import tempfile
from collections.abc import Callable
from fractions import Fraction
from functools import cache
from pathlib import Path

import numpy as np

import fairsched
from fairsched.audit import game as _game
from fairsched.audit.game import CoalitionRun, Game, ShapleyResult

__all__ = ["cache_dir", "game_key", "shapley"]

_FORMAT = 1
_OFF = ("off", "0", "no", "false", "none")


def cache_dir() -> Path | None:
    """The cache's directory (module docstring), or None when ``FAIRSCHED_GAME_CACHE=off``."""
    env = os.environ.get("FAIRSCHED_GAME_CACHE")
    if env is not None and env.strip():
        return None if env.strip().lower() in _OFF else Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "fairsched" / "games"


@cache
def _code_digest() -> str:
    """SHA-256 of the text of the modules the values depend on."""
    root = Path(fairsched.__file__).parent
    files = [root / "audit" / "game.py", root / "audit" / "_replay.py", root / "audit" / "game_cache.py",
             root / "shapley.py"]
    for folder in ("backfill", "_kernels"):
        files += sorted((root / folder).rglob("*.py"))
    digest = hashlib.sha256(fairsched.__version__.encode())
    for path in files:
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def game_key(game: Game, *, exact: bool, samples: int, seed: int) -> str:
    """The cache key of `game`'s Shapley values (module docstring)."""
    digest = hashlib.sha256(f"fairsched-game/{_FORMAT}/{_code_digest()}".encode())
    j = game.jobs
    for array in (j.org, j.submit, j.run, j.cpus, j.estimate, game.cpus_per_org):
        data = np.ascontiguousarray(array, dtype=np.int64)
        digest.update(str(data.shape).encode() + data.tobytes())
    setting = {"t_end": int(game.t_end), "reference": game.reference, "exact": exact}
    if not exact:
        setting |= {"samples": int(samples), "seed": int(seed)}
    digest.update(json.dumps(setting, sort_keys=True).encode())
    return digest.hexdigest()


def shapley(game: Game, *, exact_up_to: int = 12, samples: int = 200, seed: int = 0,
            progress: Callable[[str, int, int], None] | None = None) -> ShapleyResult:
    """`fairsched.audit.game.shapley`, read from the cache (`cache_dir`) when this game was played before, else
    played and stored (module docstring)."""
    where = cache_dir()
    exact = game.n_orgs <= exact_up_to
    if where is None:
        return _game.shapley(game, exact_up_to=exact_up_to, samples=samples, seed=seed, progress=progress)
    path = where / f"{game_key(game, exact=exact, samples=samples, seed=seed)}.json.gz"
    found = _load(path, game)
    if found is not None:
        if progress is not None:
            progress("coalitions (from the cache)", 1, 1)
        return found
    result = _game.shapley(game, exact_up_to=exact_up_to, samples=samples, seed=seed, progress=progress)
    with contextlib.suppress(OSError):  # a cache that cannot be written only costs time
        _store(path, game, result)
    return result


def _store(path: Path, game: Game, result: ShapleyResult) -> None:
    entry = {
        "format": _FORMAT, "method": result.method, "n_samples": result.n_samples,
        "phi": [float(x).hex() for x in result.phi], "lo": [float(x).hex() for x in result.low],
        "hi": [float(x).hex() for x in result.high], "exact": [str(x) for x in result.exact],
        "runs": [[format(mask, "x"), str(run.value), int(run.too_wide)] for mask, run in sorted(game.runs.items())],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as out:
            out.write(json.dumps(entry, separators=(",", ":")).encode())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _load(path: Path, game: Game) -> ShapleyResult | None:
    """The stored result, its coalitions put back into `game.runs`; None when absent, unreadable or not this
    game's (a singleton or the grand coalition replays to another value)."""
    try:
        with gzip.open(path, "rb") as handle:
            entry = json.loads(handle.read())
        if entry.get("format") != _FORMAT:
            return None
        runs = {int(mask, 16): (int(value), int(wide)) for mask, value, wide in entry["runs"]}
        result = ShapleyResult(
            entry["method"], np.array([float.fromhex(x) for x in entry["phi"]]),
            np.array([float.fromhex(x) for x in entry["lo"]]), np.array([float.fromhex(x) for x in entry["hi"]]),
            tuple(Fraction(x) for x in entry["exact"]), {}, int(entry["n_samples"]))
    except (OSError, ValueError, KeyError, TypeError, EOFError):
        return None
    grand = (1 << game.n_orgs) - 1
    empty = np.zeros(0, dtype=np.int64)
    kept = {}
    for mask, (value, wide) in runs.items():
        if mask == grand or _game._is_singleton(mask):
            if game.run(mask).value != value:  # not this game after all: play it
                game.runs.clear()
                return None
        else:
            kept[mask] = CoalitionRun(mask, value, empty, wide)
    game.runs.update(kept)
    values = {mask: game.runs[mask].value for mask in sorted(game.runs)}
    return ShapleyResult(result.method, result.phi, result.low, result.high, result.exact, values,
                         result.n_samples)
