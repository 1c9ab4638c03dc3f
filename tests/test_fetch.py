"""fetch_trace() against a local HTTP server on 127.0.0.1 (never any other address): download, cache, refusals."""

from __future__ import annotations

import gzip
import hashlib
import http.server
import socket
import threading
from functools import partial
from pathlib import Path

import pytest

from fairsched.errors import ConfigError
from fairsched.workload import fetch
from fairsched.workload.fetch import KNOWN_TRACES, FetchError, TraceEntry, fetch_trace, resolve_trace, trace_names
from tests.conftest import TRACES_DIR

TINY = gzip.compress(b"; MaxProcs: 2\n1 0 0 10 1 -1 -1 1 20 -1 1 1 -1 -1 1 -1 -1 -1\n", mtime=0)
TINY_ENTRY = TraceEntry("TINY-2024-1.swf.gz", "l_tiny", hashlib.sha256(TINY).hexdigest(), len(TINY), ("tiny",))


class _CountingHandler(http.server.SimpleHTTPRequestHandler):
    requests: list[str]  # set per server, see `archive`

    def do_GET(self) -> None:
        self.requests.append(self.path)
        super().do_GET()

    def log_message(self, format: str, *args: object) -> None:  # keep test output clean
        pass


@pytest.fixture
def archive(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A fake archive root served on 127.0.0.1 (random port), with TINY as the only known trace."""
    root = tmp_path / "archive"
    (root / "l_tiny").mkdir(parents=True)
    (root / "l_tiny" / TINY_ENTRY.file_name).write_bytes(TINY)
    requests: list[str] = []
    handler = type("Handler", (_CountingHandler,), {"requests": requests})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), partial(handler, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    monkeypatch.setattr(fetch, "KNOWN_TRACES", {TINY_ENTRY.stem: TINY_ENTRY})
    try:
        yield root, f"http://127.0.0.1:{server.server_address[1]}", requests
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_download_then_cache_hit(archive, tmp_path: Path) -> None:
    _, base, requests = archive
    cache = tmp_path / "cache"
    path = fetch_trace("TINY-2024-1", cache_dir=cache, base_url=base)
    assert path == cache / "TINY-2024-1.swf.gz"
    assert path.read_bytes() == TINY
    assert requests == ["/l_tiny/TINY-2024-1.swf.gz"]
    assert fetch_trace("tiny", cache_dir=cache, base_url=base) == path  # alias; served from the cache
    assert len(requests) == 1
    assert sorted(p.name for p in cache.iterdir()) == ["TINY-2024-1.swf.gz"]  # no temp file left


def test_cache_dir_from_environment(archive, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _, base, _ = archive
    monkeypatch.setenv("FAIRSCHED_CACHE", str(tmp_path / "env-cache"))
    assert fetch_trace("tiny", base_url=base) == tmp_path / "env-cache" / "TINY-2024-1.swf.gz"


def test_corrupted_cache_file_is_downloaded_again(archive, tmp_path: Path) -> None:
    _, base, requests = archive
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / TINY_ENTRY.file_name).write_bytes(b"truncated")
    assert fetch_trace("tiny", cache_dir=cache, base_url=base).read_bytes() == TINY
    assert len(requests) == 1


def test_checksum_mismatch_leaves_nothing(archive, tmp_path: Path) -> None:
    root, base, _ = archive
    corrupted = TINY[:20] + bytes([TINY[20] ^ 0xFF]) + TINY[21:]  # same size, one byte flipped
    (root / "l_tiny" / TINY_ENTRY.file_name).write_bytes(corrupted)
    cache = tmp_path / "cache"
    with pytest.raises(FetchError, match=rf"expected {len(TINY)} bytes with sha256 {TINY_ENTRY.sha256}, "
                                         rf"got {len(TINY)} bytes with sha256 [0-9a-f]{{64}}"):
        fetch_trace("tiny", cache_dir=cache, base_url=base)
    assert list(cache.iterdir()) == []


def test_http_404_is_a_clear_error(archive, tmp_path: Path) -> None:
    root, base, requests = archive
    (root / "l_tiny" / TINY_ENTRY.file_name).unlink()
    cache = tmp_path / "cache"
    with pytest.raises(FetchError) as info:
        fetch_trace("tiny", cache_dir=cache, base_url=base)
    message = str(info.value)
    assert f"from {base}/l_tiny/TINY-2024-1.swf.gz: HTTP 404" in message
    assert "Download it by hand from https://www.cs.huji.ac.il/labs/parallel/workload/l_tiny/index.html" in message
    assert f"put it at {cache / 'TINY-2024-1.swf.gz'}" in message
    assert "--trace FILE" in message and "--traces" not in message  # trace fetch has no --traces flag
    assert requests == ["/l_tiny/TINY-2024-1.swf.gz"]
    assert list(cache.iterdir()) == []


def test_unknown_name_lists_the_choices(archive) -> None:
    with pytest.raises(ConfigError, match=r"unknown trace 'nope'; choose one of: TINY-2024-1, tiny"):
        fetch_trace("nope", cache_dir="unused")


def test_every_known_trace_resolves_by_stem_file_name_and_alias() -> None:
    expected_aliases = {"lpc-egee", "ricc", "ctc-sp2", "sdsc-blue", "sdsc-sp2", "osc", "metacentrum"}
    assert expected_aliases <= set(trace_names())
    for stem, entry in KNOWN_TRACES.items():
        assert resolve_trace(stem) is entry
        assert resolve_trace(entry.file_name.upper()) is entry
        for alias in entry.aliases:
            assert resolve_trace(alias.upper()) is entry
        assert entry.download_url() == f"https://www.cs.huji.ac.il/labs/parallel/workload/{entry.archive_dir}/" \
                                       f"{entry.file_name}"
    assert len(trace_names()) == len(set(trace_names()))


def test_known_checksums_match_the_local_copies() -> None:
    if not TRACES_DIR.is_dir():
        pytest.skip(f"real traces not found in {TRACES_DIR}")
    checked = 0
    for entry in KNOWN_TRACES.values():
        path = TRACES_DIR / entry.file_name
        if path.exists():
            assert (path.stat().st_size, fetch._sha256(path)) == (entry.size, entry.sha256), entry.file_name
            checked += 1
    assert checked == len(KNOWN_TRACES)  # all seven are in ../shared/traces


def test_connection_refused_is_a_clear_error(archive, tmp_path: Path) -> None:
    with socket.socket() as probe:  # a port on 127.0.0.1 that nothing listens on once closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(FetchError, match=rf"could not download trace TINY-2024-1 from http://127.0.0.1:{port}/"):
        fetch_trace("tiny", cache_dir=tmp_path / "cache", base_url=f"http://127.0.0.1:{port}")
    assert list((tmp_path / "cache").iterdir()) == []
