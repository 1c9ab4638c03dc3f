"""fairsched: fair scheduling in shared computing systems owned by several organizations.

Data flows one way: workload -> scenario -> engine + policy -> schedule -> metrics -> report.

Numba's on-disk cache (``@njit(cache=True)``) is checked against the source file of each cached function only: a
kernel whose callee in *another* file changed keeps running its old compiled code, silently (seen three times
while the ticked backfill orders were written). So, unless the user set ``NUMBA_CACHE_DIR``, the cache lives in a
directory named after a hash of every module that uses numba (`_numba_cache_dir`): editing any kernel starts a
fresh cache. This runs before numba is imported and uses only ``os`` and ``hashlib`` (a few milliseconds).
"""

import hashlib
import os

__version__ = "0.1.0"


def _numba_cache_dir(package: str) -> str:
    """``<package>/__pycache__/numba-<hash>``: the hash covers the text of every module that mentions numba."""
    digest = hashlib.sha256()
    for root, dirs, files in os.walk(package):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(f for f in files if f.endswith(".py")):
            with open(os.path.join(root, name), "rb") as handle:
                text = handle.read()
            if b"numba" in text:
                digest.update(os.path.relpath(os.path.join(root, name), package).encode() + b"\0" + text)
    return os.path.join(package, "__pycache__", f"numba-{digest.hexdigest()[:16]}")


if "NUMBA_CACHE_DIR" not in os.environ:
    _here = os.path.dirname(os.path.abspath(__file__))
    if os.access(_here, os.W_OK):  # an installed, read-only package keeps numba's own default
        os.environ["NUMBA_CACHE_DIR"] = _numba_cache_dir(_here)
