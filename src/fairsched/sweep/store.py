"""The results store of a sweep: plain files in one directory, no server.

Layout of ``DIR``:

* ``spec.toml`` — a copy of the spec last run into ``DIR``;
* ``manifest.json`` — the model and, in order, every cell of that spec: ``key``, ``seed``, ``point`` (the varying
  options; null for one that does not apply to the cell), plus ``config_columns`` (the model's Config fields,
  which are columns of every part);
* ``cells/<key>.parquet`` — one finished cell: the model's ``Result.rows()`` (one row per policy or algorithm:
  config columns, ``policy``, metrics) preceded by ``cell`` (the key), ``seed``, ``status`` (``ok``) and
  ``error`` (empty);
* ``cells/<key>.failed.parquet`` — a cell whose run raised: one row of config columns with ``status`` ``failed``
  and ``error`` its one-line message. Failed cells are tried again by the next run;
* ``orgs/<key>.parquet`` — the cell's per-organization table, when the model has one (`fairsched.sweep.cell`);
* ``schedules/<key>/<policy>.jobs.csv`` — with ``--keep-schedules``, each policy's schedule (Batsim ``jobs.csv``);
* ``report.html`` — the page ``fairsched sweep`` and ``fairsched results`` write (`fairsched.report.sweep`).

Every file is written to a temporary name in the same directory and renamed over its target (``os.replace``), so
a part is either complete or absent, whenever the sweep is killed: resuming computes exactly the absent cells.
One sweep at a time writes into a store.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fairsched.errors import ConfigError, InputError
from fairsched.sweep.spec import Cell, Spec

MANIFEST = "manifest.json"
SPEC_COPY = "spec.toml"
CELLS = "cells"
ORGS = "orgs"
SCHEDULES = "schedules"
FAILED_SUFFIX = ".failed.parquet"
_LISTED = 4  # stores named in the "not a sweep directory" message before "and N more"


@dataclass(frozen=True)
class Manifest:
    """What ``manifest.json`` holds (see the module docstring)."""

    model: str
    module: str
    spec: str
    config_columns: tuple[str, ...]
    cells: tuple[dict[str, Any], ...]

    @property
    def keys(self) -> list[str]:
        return [cell["key"] for cell in self.cells]


class Store:
    """The files of one sweep directory; every write is atomic."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self.cells_dir = self.root / CELLS

    def prepare(self, spec: Spec, cells: list[Cell], config_columns: Iterable[str]) -> None:
        """Create ``DIR/cells`` and (re)write ``spec.toml`` and ``manifest.json`` for this spec's cells."""
        try:
            self.cells_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(f"cannot create the sweep directory ({exc.strerror or exc}); choose another --out",
                             path=self.root) from exc
        for stale in [*self.cells_dir.glob(".*.tmp"), *self.root.glob(f"{ORGS}/.*.tmp"),
                      *self.root.glob(f"{SCHEDULES}/*/.*.tmp")]:  # left by a sweep killed while writing a file
            stale.unlink(missing_ok=True)
        manifest = {"model": spec.model, "module": spec.module, "spec": str(spec.path),
                    "config_columns": list(config_columns),
                    "cells": [{"key": c.key, "seed": c.seed, "point": c.point,
                               **({} if c.window is None else {"window": c.window})} for c in cells]}
        self.write_bytes(self.root / SPEC_COPY, spec.text.encode())
        self.write_bytes(self.root / MANIFEST, json.dumps(manifest, indent=1).encode())

    def manifest(self) -> Manifest:
        """Read ``manifest.json``; ConfigError when `root` is not a sweep directory."""
        path = self.root / MANIFEST
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ConfigError(self._not_a_store()) from None
        return Manifest(model=doc["model"], module=doc["module"], spec=doc["spec"],
                        config_columns=tuple(doc["config_columns"]), cells=tuple(doc["cells"]))

    def _not_a_store(self) -> str:
        """Why `root` has no manifest, in one line: the stores below it (``replicate --out OUT`` keeps one per
        experiment in OUT/sweep/NAME), or how to make one."""
        below = find_stores(self.root)
        if not below:
            return (f"{self.root} is not a sweep directory (no {MANIFEST}); run `fairsched sweep SPEC --out "
                    f"{self.root}` first")
        shown = ", ".join(str(path) for path in below[:_LISTED])
        more = f" and {len(below) - _LISTED} more" if len(below) > _LISTED else ""
        return (f"{self.root} is not a sweep directory itself but holds {len(below)} "
                f"{'store' if len(below) == 1 else 'stores'}: {shown}{more}; read one with `fairsched results "
                f"{below[0]}`")

    def done_keys(self) -> set[str]:
        """Keys of the cells finished successfully (their part exists)."""
        if not self.cells_dir.is_dir():
            return set()
        return {p.name.removesuffix(".parquet") for p in self.cells_dir.glob("*.parquet")
                if not p.name.endswith(FAILED_SUFFIX)}

    def failed_keys(self) -> set[str]:
        """Keys of the cells whose last run failed."""
        if not self.cells_dir.is_dir():
            return set()
        return {p.name.removesuffix(FAILED_SUFFIX) for p in self.cells_dir.glob(f"*{FAILED_SUFFIX}")}

    def part_path(self, key: str, *, failed: bool = False) -> Path:
        return self.cells_dir / (f"{key}{FAILED_SUFFIX}" if failed else f"{key}.parquet")

    def write_part(self, key: str, data: bytes, *, failed: bool, files: Mapping[str, bytes] | None = None) -> None:
        """Store one cell's part, after its detail `files` (paths relative to the store): the part is what marks
        the cell done, so a cell whose part exists has all its details. A success also removes the part of an
        earlier failure of that cell."""
        for name, content in sorted((files or {}).items()):
            path = self.root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            self.write_bytes(path, content)
        self.write_bytes(self.part_path(key, failed=failed), data)
        if not failed:
            self.part_path(key, failed=True).unlink(missing_ok=True)

    def schedules_kept(self) -> set[str]:
        """Keys of the cells whose schedules are kept (``schedules/<key>/``, ``--keep-schedules``)."""
        folder = self.root / SCHEDULES
        return {p.name for p in folder.iterdir() if p.is_dir()} if folder.is_dir() else set()

    @staticmethod
    def write_bytes(path: Path, data: bytes) -> None:
        """Write `data` to a temporary file beside `path`, then rename it over `path`.

        No fsync: the rename makes the file appear whole or not at all to any later process, whatever happens to
        this one (SIGKILL included); only a power failure could lose the last cells, which a rerun computes again.
        """
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        try:
            os.fchmod(fd, 0o644)  # mkstemp's 0600 would hide results from the other members of a project
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


def find_stores(root: str | Path, *, depth: int = 2) -> list[Path]:
    """The sweep directories (holding a ``manifest.json``) below `root`, at most `depth` levels down, sorted."""
    root = Path(root)
    found: list[Path] = []
    for level in range(1, depth + 1):
        found += [path.parent for path in root.glob("/".join(["*"] * level) + f"/{MANIFEST}")]
    return sorted(found)


@contextlib.contextmanager
def store_or_temporary(store: str | Path | None, *, prefix: str = "fairsched-sweep-") -> Iterator[Path]:
    """`store` itself, or a temporary directory removed afterwards (a run that keeps nothing to resume)."""
    if store is not None:
        yield Path(store)
        return
    with tempfile.TemporaryDirectory(prefix=prefix) as folder:
        yield Path(folder)
