"""Download a known trace from the Parallel Workloads Archive into a local cache, checked by size and sha256.

The archive (D. G. Feitelson, D. Tsafrir, D. Krakov, "Experience with using the Parallel Workloads Archive",
J. Parallel Distrib. Comput. 74(10), 2014; https://www.cs.huji.ac.il/labs/parallel/workload/) serves each log as
``<root>/<dir>/<file>.swf.gz``. `KNOWN_TRACES` pins the sha256 and size of the archive files we use (measured on
byte-identical copies, ../shared/traces/SOURCES.md), so a changed or truncated download is refused, never read.

Cache: ``$FAIRSCHED_CACHE`` if set, else ``~/.cache/fairsched/traces``. A download goes to a temporary file in the
cache directory and is renamed into place only after both checks pass, so the cache never holds a partial file.
Please credit each log's provider (its ``Acknowledge:`` header line) and cite the archive.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import tempfile
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from fairsched.errors import ConfigError, FairschedError

logger = logging.getLogger(__name__)

ARCHIVE_ROOT = "https://www.cs.huji.ac.il/labs/parallel/workload"
TIMEOUT_SECONDS = 60.0
CHUNK_BYTES = 1 << 16


class FetchError(FairschedError):
    """A trace could not be downloaded, or the download is not the expected file."""


@dataclass(frozen=True)
class TraceEntry:
    """One archive log: where it lives and what its bytes must hash to.

    Attributes
    ----------
    file_name : archive file name, e.g. ``LPC-EGEE-2004-1.2-cln.swf.gz``.
    archive_dir : the log's directory on the archive, e.g. ``l_lpc``.
    sha256 : hex digest of the gzip file.
    size : file size in bytes.
    aliases : short lower-case names accepted by `fetch_trace` besides the file stem.
    """

    file_name: str
    archive_dir: str
    sha256: str
    size: int
    aliases: tuple[str, ...] = ()

    @property
    def stem(self) -> str:
        return self.file_name.removesuffix(".gz").removesuffix(".swf")

    def page_url(self, base_url: str | None = None) -> str:
        return f"{(base_url or ARCHIVE_ROOT).rstrip('/')}/{self.archive_dir}/index.html"

    def download_url(self, base_url: str | None = None) -> str:
        return f"{(base_url or ARCHIVE_ROOT).rstrip('/')}/{self.archive_dir}/{self.file_name}"


def _entries(*entries: TraceEntry) -> dict[str, TraceEntry]:
    return {entry.stem: entry for entry in entries}


# Sizes and sha256 measured on the copies in ../shared/traces (byte-identical to the archive's, SOURCES.md);
# directories from the archive's download links.
KNOWN_TRACES: dict[str, TraceEntry] = _entries(
    TraceEntry("LPC-EGEE-2004-1.2-cln.swf.gz", "l_lpc",
               "2fc37df5cc14c355fc7a88235f72e54fdf5f0d93de09399d015383ee5c35a59d", 2_718_006, ("lpc-egee", "lpc")),
    TraceEntry("RICC-2010-2.swf.gz", "l_ricc",
               "165a3915b1c268f5ffad8571521802dc9aa9a2908e32af0db1a54c78f7d67324", 3_673_009, ("ricc",)),
    TraceEntry("CTC-SP2-1996-3.1-cln.swf.gz", "l_ctc_sp2",
               "9fa28ac16c4386fb81b72a91d8bd8888281df2948a9d912769d387c5ee285bb4", 1_487_336, ("ctc-sp2", "ctc")),
    TraceEntry("SDSC-BLUE-2000-4.2-cln.swf.gz", "l_sdsc_blue",
               "9aab21f3cfa108f3ecefa52391b384d996dcf4216f920186f47a734646b2c658", 4_070_091, ("sdsc-blue",)),
    TraceEntry("SDSC-SP2-1998-4.2-cln.swf.gz", "l_sdsc_sp2",
               "e03fe48be50c4ab04d6bb2285296d9c3399e9c1f27ee79b754ad32a14abd9bac", 1_205_570, ("sdsc-sp2",)),
    TraceEntry("OSC-Clust-2000-3.1-cln.swf.gz", "l_osc",
               "f2d762130a55ab26cfedc37a9f4ab55923dd07bf185912ded67628f14dbf09ab", 536_437, ("osc", "osc-clust")),
    TraceEntry("METACENTRUM-2009-2.swf.gz", "l_metacentrum",
               "7c0b347e77fc7a9aafe91f96a20186a8dd16c11a51e5f19c692a93d11a64893c", 1_514_544, ("metacentrum",)),
)


def trace_names() -> list[str]:
    """Every accepted name: file stems, then aliases (for CLI help and error messages)."""
    return [*KNOWN_TRACES, *(alias for entry in KNOWN_TRACES.values() for alias in entry.aliases)]


def resolve_trace(name: str) -> TraceEntry:
    """The entry for a file stem, file name (``.swf`` / ``.swf.gz``) or alias; case-insensitive."""
    wanted = name.strip().lower().removesuffix(".gz").removesuffix(".swf")
    for stem, entry in KNOWN_TRACES.items():
        if wanted == stem.lower() or wanted in entry.aliases:
            return entry
    raise ConfigError(f"unknown trace {name!r}; choose one of: {', '.join(trace_names())}")


def default_cache_dir() -> Path:
    """``$FAIRSCHED_CACHE``, else ``~/.cache/fairsched/traces``."""
    env = os.environ.get("FAIRSCHED_CACHE")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "fairsched" / "traces"


def fetch_trace(name: str, *, cache_dir: str | Path | None = None, base_url: str | None = None) -> Path:
    """Path of the cached, verified trace `name`; downloads it first when it is absent or does not verify.

    Parameters
    ----------
    name : file stem (``"LPC-EGEE-2004-1.2-cln"``) or alias (``"lpc-egee"``); see `trace_names`.
    cache_dir : where traces are kept; default `default_cache_dir`.
    base_url : archive root to download from instead of `ARCHIVE_ROOT` (mirrors, tests).

    Raises
    ------
    ConfigError : unknown name (the message lists the choices).
    FetchError : network failure, or a download whose size or sha256 differs (nothing is left in the cache).
    """
    entry = resolve_trace(name)
    cache = Path(cache_dir).expanduser() if cache_dir is not None else default_cache_dir()
    target = cache / entry.file_name
    if target.is_file() and _sha256(target) == entry.sha256:
        logger.debug("trace %s found in cache at %s", entry.stem, target)
        return target
    if target.exists():
        logger.debug("cached %s does not match its sha256; downloading it again", target)
    cache.mkdir(parents=True, exist_ok=True)
    url = entry.download_url(base_url)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{entry.file_name}.", suffix=".part", dir=cache)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as out:
            size, digest = _download(url, out, entry, target)
        _check(entry, url, size, digest)
        os.replace(tmp, target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
    return target


def _download(url: str, out: BinaryIO, entry: TraceEntry, target: Path) -> tuple[int, str]:
    """Stream `url` into `out` in chunks; return (bytes written, sha256 hex)."""
    digest = hashlib.sha256()
    size = 0
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT_SECONDS) as response:
            while chunk := response.read(CHUNK_BYTES):
                out.write(chunk)
                digest.update(chunk)
                size += len(chunk)
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        reason = f"HTTP {exc.code} {exc.reason}" if isinstance(exc, urllib.error.HTTPError) else str(
            getattr(exc, "reason", exc))
        raise FetchError(
            f"could not download trace {entry.stem} from {url}: {reason}. Download it by hand from "
            f"{entry.page_url()} (file {entry.file_name}) and put it at {target} (fetch then finds it), or "
            "pass the downloaded file to a command with --trace FILE") from exc
    return size, digest.hexdigest()


def _check(entry: TraceEntry, url: str, size: int, digest: str) -> None:
    if size != entry.size or digest != entry.sha256:
        raise FetchError(
            f"download of trace {entry.stem} from {url} is not the expected file: expected {entry.size} bytes "
            f"with sha256 {entry.sha256}, got {size} bytes with sha256 {digest}. The partial file was deleted; "
            "retry, or check that the mirror serves the archive's original file")


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(CHUNK_BYTES):
            digest.update(chunk)
    return digest.hexdigest()
