"""Sweep specification files (TOML) and the cells they expand to.

A spec names a model, its seeds, the options every run shares (``[base]``), the options to vary as a cartesian
product (``[grid]``) and, optionally, groups of options that vary together (``[[zip]]``)::

    [sweep]
    model = "online"                 # online | backfill | mosp | openshop | a dotted module path
    seeds = [0, 1, 2]                # or seeds = 3 (0, 1, 2)
    [base]
    trace = "traces/LPC-EGEE-2004-1.2-cln.swf.gz"   # relative paths are relative to the spec file
    machines = 70
    [grid]
    orgs = [2, 5, 10]
    [[zip]]
    window-start = [0, 1000000]
    window-length = [500000, 500000]

Options are the model command's flags, by name (``window-length`` or ``window_length``). A *cell* is one point of
the grid times one seed; its key hashes the normalized configuration, the seed, the fairsched version and the
sha256 of every input file, so that a changed input or a new version never reuses stale results. Every problem
is reported as one line naming the spec file, the line and the key.
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import itertools
import json
import re
import tomllib
import typing
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fairsched import __version__
from fairsched.errors import ConfigError, FairschedError, InputError
from fairsched.sweep.models import load_model, model_module_path
from fairsched.sweep.windows import WindowDraws

_TABLES = ("sweep", "base", "grid", "zip")
_SWEEP_KEYS = ("model", "seeds", "windows", "window-seed")
_KEY_LENGTH = 20  # hex digits of a cell key: 80 bits, no collision in any realistic store


@dataclass(frozen=True)
class Spec:
    """A parsed spec file (see the module docstring).

    Attributes
    ----------
    path : the spec file; relative paths in it are resolved against its directory.
    text : its text, copied into the store as ``spec.toml``.
    model : the model's name as written; ``module`` is its import path (`fairsched.sweep.models`).
    seeds : the seeds every grid point runs with, in order.
    base, grid : ``[base]`` options and ``[grid]`` option -> list of values, in file order.
    zips : one mapping per ``[[zip]]`` block, option -> list of values of equal length.
    windows : ``windows = N``: N window starts drawn per grid point (`fairsched.sweep.windows`), each a cell per
        seed; None = no drawn windows. ``window_seed`` seeds the draw.
    """

    path: Path
    text: str
    model: str
    module: str
    seeds: tuple[int, ...]
    base: dict[str, Any]
    grid: dict[str, list[Any]]
    zips: tuple[dict[str, list[Any]], ...] = ()
    windows: int | None = None
    window_seed: int = 0

    def points(self) -> list[dict[str, Any]]:
        """The grid points, in order: the cartesian product of ``[grid]`` and of the ``[[zip]]`` blocks.

        The last option varies fastest; the values of one ``[[zip]]`` block advance together.
        """
        axes: list[list[dict[str, Any]]] = [[{key: value} for value in values] for key, values in self.grid.items()]
        for block in self.zips:
            axes.append([dict(zip(block, row, strict=True)) for row in zip(*block.values(), strict=True)])
        return [{k: v for part in combo for k, v in part.items()} for combo in itertools.product(*axes)]


@dataclass(frozen=True)
class Cell:
    """One run of a sweep: a grid point's configuration and one seed.

    Attributes
    ----------
    key : hex digest identifying the result (see `cell_key`); the store's part is ``cells/<key>.parquet``.
    index : position in the spec's order (grid points in order, seeds fastest).
    point : the varying options of this cell, as the spec names them (for listings and tables); None for one that
        does not apply to it (the model's ``Config.not_applicable``; see `expand`).
    seed : the seed passed to the model's ``run``.
    config : the model's ``Config``.
    window : with ``windows = N``, which of the N drawn windows (0..N-1; its start is ``config.window_start``).
    """

    key: str
    index: int
    point: dict[str, Any]
    seed: int
    config: Any
    window: int | None = None


def load_spec(path: str | Path, *, overrides: Mapping[str, Any] | None = None) -> Spec:
    """Read and check a spec file; `overrides` replace or add ``[base]`` options (used by ``replicate``).

    Raises
    ------
    InputError : ``SPEC:LINE: field KEY: problem`` for a malformed file, an unknown table or key, a bad seed list,
        a key both in ``[base]`` and varied, an empty or non-list grid entry, or ``[[zip]]`` lists of unequal length.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read the spec ({exc.strerror or exc})", path=path) from exc
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line = re.search(r"line (\d+)", str(exc))
        raise InputError(f"not valid TOML: {exc}", path=path, line=int(line.group(1)) if line else None) from exc
    where = _Locator(path, text)
    for table in doc:
        if table not in _TABLES:
            raise where.error(table, f"unknown table [{table}]; a spec has {', '.join(f'[{t}]' for t in _TABLES)}")
    sweep = _table(doc, "sweep", where)
    for key in sweep:
        if key not in _SWEEP_KEYS:
            raise where.error(key, f"unknown key in [sweep]; expected {', '.join(_SWEEP_KEYS)}", table="sweep")
    if "model" not in sweep or not isinstance(sweep["model"], str):
        raise where.error("model", "[sweep] needs model = \"online\" (or backfill, mosp, openshop)", table="sweep")
    try:
        module = model_module_path(sweep["model"])
    except ConfigError as exc:
        raise where.error("model", str(exc), table="sweep") from exc
    base = {**_table(doc, "base", where), **dict(overrides or {})}
    grid = {key: _values(key, value, where, "grid") for key, value in _table(doc, "grid", where).items()}
    zips = tuple(_zip_block(block, where) for block in _zip_tables(doc, where))
    _check_disjoint(base, grid, zips, where)
    windows, window_seed = _windows(sweep, base, grid, zips, where)
    return Spec(path=path, text=text, model=sweep["model"], module=module, seeds=_seeds(sweep.get("seeds"), where),
                base=base, grid=grid, zips=zips, windows=windows, window_seed=window_seed)


def expand(spec: Spec) -> list[Cell]:
    """Every cell of `spec`, in order, each with its model ``Config`` built and checked and its key.

    Options that do not apply to a grid point (the model's ``Config.not_applicable``: backfill's and whatif's
    ``bf-*`` unless the rule is ``slurm``) are left out of its Config and recorded in its ``point`` as None; grid
    points that then give the same configuration are one cell, the first (a grid ``backfill = ["easy", "slurm"]``
    × ``bf-window = [3600, 86400]`` is one ``easy`` cell and two ``slurm`` cells, docs/sweeps.md).

    Raises
    ------
    InputError : a grid point the model rejects (naming the spec, the option and the point), a missing input file,
        two grid points that give the same configuration with every option applying, or an option that applies
        to no grid point (the model's own refusal, e.g. ``bf-window`` in a sweep with no ``slurm`` cell).
    """
    model = load_model(spec.module)
    where = _Locator(spec.path, spec.text)
    hashes = _FileHashes()
    draws = WindowDraws()
    cells: list[Cell] = []
    seen: dict[str, dict[str, Any]] = {}
    unused: dict[str, dict[str, Any]] = {}  # option -> the first point it did not apply to, while it applied to none
    applied: set[str] = set()
    for point in spec.points():
        config, dropped = _config(model.Config, spec, point, where)
        options = {**spec.base, **point}
        applied |= options.keys() - dropped
        unused.update({key: point for key in dropped if key not in unused})
        shown = {key: None if key in dropped else value for key, value in point.items()}
        windows: list[tuple[int | None, Any]] = [(None, config)]
        if spec.windows is not None:
            starts = _drawn_starts(config, spec, draws, where)
            windows = [(index, _config(model.Config, spec, point, where, extra={"window-start": start})[0])
                       for index, start in enumerate(starts)]
        for window, window_config in windows:
            inputs = hashes.of(window_config.input_paths(), spec.path)
            key = cell_key(spec.module, window_config, 0, inputs)  # one key per point, to find duplicate points
            if key in seen and dropped:
                continue  # the same run as an earlier point once its inapplicable options are left out
            if key in seen:
                raise InputError(f"grid points {seen[key]} and {point} give the same configuration; remove one",
                                 path=spec.path)
            seen[key] = point
            cells += [Cell(key=cell_key(spec.module, window_config, seed, inputs), index=len(cells) + i,
                           point=shown, seed=seed, config=window_config, window=window)
                      for i, seed in enumerate(spec.seeds)]
    for key in [key for key in unused if key not in applied]:  # set for nothing: the model's own refusal
        _config(model.Config, spec, unused[key], where, keep=True)
    return cells


def _drawn_starts(config: Any, spec: Spec, draws: WindowDraws, where: _Locator) -> tuple[int, ...]:
    """The window starts of ``windows = N`` for this point's trace and window length (`fairsched.sweep.windows`)."""
    names = {f.name for f in dataclasses.fields(config)}
    if not {"window_start", "window_length", "trace"} <= names:
        raise where.error("windows", f"windows = {spec.windows}: the {spec.model} model has no window-start, "
                                     "window-length and trace options to draw windows with", table="sweep")
    if config.window_length is None or config.trace is None:
        missing = "window-length" if config.window_length is None else "trace"
        raise where.error("windows", f"windows = {spec.windows} needs {missing} (set it in [base] or vary it in "
                                     "[grid])", table="sweep")
    try:
        return draws.starts(config.trace, config.window_length, spec.windows or 0, spec.window_seed)
    except FairschedError as exc:
        raise where.error("windows", str(exc), table="sweep") from exc


def cell_key(module: str, config: Any, seed: int, input_hashes: Mapping[str, str]) -> str:
    """The key of one cell: sha256 of the model, the normalized config, the seed, the fairsched version and the
    sha256 of every input file. Paths to input files enter by content, so moving a trace keeps its results.

    >>> from fairsched.sweep.spec import cell_key
    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class C:
    ...     n: int = 3
    >>> cell_key("m", C(), 0, {}) == cell_key("m", C(n=3), 0, {}) != cell_key("m", C(), 1, {})
    True
    """
    doc = {"model": module, "seed": int(seed), "version": __version__,
           "config": {f.name: _normal(getattr(config, f.name), input_hashes) for f in dataclasses.fields(config)},
           "inputs": sorted(input_hashes.values())}
    digest = hashlib.sha256(json.dumps(doc, sort_keys=True, separators=(",", ":")).encode())
    return digest.hexdigest()[:_KEY_LENGTH]


def config_columns(config: Any) -> dict[str, Any]:
    """The config's fields as table columns: scalars kept, tuples comma-joined, paths and others as strings; the
    config's own ``columns()`` when it has one (the model's rows show the same, e.g. None for options that do not
    apply)."""
    columns = getattr(config, "columns", None)
    if callable(columns):
        return {name: _column(value) for name, value in columns().items()}
    return {f.name: _column(getattr(config, f.name)) for f in dataclasses.fields(config)}


def _column(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, tuple | list):
        return ",".join(str(item) for item in value)
    return str(value)


def _normal(value: Any, input_hashes: Mapping[str, str]) -> Any:
    if isinstance(value, Path):
        return f"sha256:{input_hashes[str(value)]}" if str(value) in input_hashes else str(value)
    if isinstance(value, tuple | list):
        return [_normal(item, input_hashes) for item in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


def _config(config_class: Any, spec: Spec, point: Mapping[str, Any], where: _Locator, *,
            extra: Mapping[str, Any] | None = None, keep: bool = False) -> tuple[Any, set[str]]:
    """The model's Config for `point` (and `extra`, a drawn window's start) over ``[base]``, relative paths
    resolved against the spec's directory, and the options left out because they do not apply to it
    (`not_applicable`; none with `keep`, which lets the model refuse them).

    Every problem is one `InputError` naming the spec's line and the option: an unknown option (with the closest
    valid name), a value the model rejects, an input file that cannot be read, a required option left out.
    """
    options = {**spec.base, **point, **(extra or {})}
    at = f" at grid point {point}" if point else ""
    _check_option_names(config_class, options, spec, point, where)
    dropped = set() if keep else not_applicable(config_class, options)
    options = {key: value for key, value in options.items() if key not in dropped}
    path_fields = _path_fields(config_class)
    for key, value in options.items():
        if _field_name(key) in path_fields and isinstance(value, str) and not Path(value).is_absolute():
            options[key] = str(spec.path.parent / value)
    try:
        config = config_class.from_mapping(options)
    except FairschedError as exc:
        key = _culprit(exc, options, point)
        raise where.error(key, f"{exc}{at}", table=_table_of(key, spec, point)) from exc
    for name in getattr(config_class, "REQUIRED", ()):
        if getattr(config, name) is None:
            flag = name.replace("_", "-")
            raise InputError(f"the {spec.model} model needs {flag}; set it in [base] (or vary it in [grid])",
                             path=spec.path, line=where.header_line("base") or where.line_of("model", "sweep"),
                             field=flag)
    for path in config.input_paths():
        if not Path(path).is_file():
            key = next((k for k in options if _field_name(k) in path_fields
                        and Path(path).is_relative_to(str(options[k]))), None)
            raise where.error(key, f"input file {path} cannot be read (no such file){at}",
                              table=_table_of(key, spec, point))
    return config, dropped


def not_applicable(config_class: Any, options: Mapping[str, Any]) -> set[str]:
    """The keys of `options` (as the spec writes them) that have no effect with the others, by the model's
    optional ``Config.not_applicable(fields)``: field name -> value in, the field names that do not apply out.

    >>> from fairsched.backfill.experiment import Config
    >>> sorted(not_applicable(Config, {"backfill": "easy", "bf-window": 3600, "order": "sjf"}))
    ['bf-window']
    >>> not_applicable(Config, {"backfill": "slurm", "bf-window": 3600})
    set()
    """
    rule = getattr(config_class, "not_applicable", None)
    if rule is None:
        return set()
    names = {_field_name(key): key for key in options}
    return {names[name] for name in rule({name: options[key] for name, key in names.items()}) if name in names}


def _field_name(key: str) -> str:
    """The Config field an option names: ``--window-length``, ``window-length`` and ``window_length`` alike."""
    return str(key).strip().lstrip("-").replace("-", "_")


def _table_of(key: str | None, spec: Spec, point: Mapping[str, Any]) -> str:
    return "grid" if key in spec.grid else "zip" if key in point else "base"


def _check_option_names(config_class: Any, options: Mapping[str, Any], spec: Spec, point: Mapping[str, Any],
                        where: _Locator) -> None:
    """An option the model's Config does not have, named with its line and the closest valid option."""
    if not dataclasses.is_dataclass(config_class):
        return
    names = [f.name.replace("_", "-") for f in dataclasses.fields(config_class)]
    for key in options:
        if _field_name(key).replace("_", "-") not in names:
            close = difflib.get_close_matches(_field_name(key).replace("_", "-"), names, n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise where.error(key, f"unknown option {key!r} of the {spec.model} model; {hint}valid: "
                                   f"{', '.join(names)}", table=_table_of(key, spec, point))


def _culprit(exc: FairschedError, options: Mapping[str, Any], point: Mapping[str, Any]) -> str | None:
    """Which option a model's error is about: the one whose value the message quotes (an unknown policy name),
    else the one named first in the message (``--orgs 0``, ``window length -1``), else None."""
    if isinstance(exc, InputError) and exc.field in options:
        return exc.field
    text = str(exc)
    quoted = set(re.findall(r"'([^']*)'", text))
    by_value = [k for k in (*point, *options) if isinstance(options[k], str | list)
                and quoted & {str(v).strip() for v in (options[k] if isinstance(options[k], list)
                                                       else options[k].split(","))}]
    if by_value:
        return by_value[0]
    first: dict[str, int] = {}
    for key in options:
        name = _field_name(key)
        for form in {name, name.replace("_", "-"), name.replace("_", " ")}:
            match = re.search(rf"(?<!\w){re.escape(form)}(?![\w-])", text)
            if match:
                first[key] = min(first.get(key, match.start()), match.start())
    return min(first, key=first.__getitem__) if first else None


def _path_fields(config_class: Any) -> set[str]:
    """Names of the Config fields typed as a Path (``Path`` or ``Path | None``)."""
    hints = typing.get_type_hints(config_class)
    return {name for name, hint in hints.items() if hint is Path or Path in typing.get_args(hint)}


class _FileHashes:
    """sha256 of input files, each file read once per sweep."""

    def __init__(self) -> None:
        self._known: dict[str, str] = {}

    def of(self, paths: Iterable[str | Path], spec_path: Path) -> dict[str, str]:
        hashes = {}
        for path in paths:
            name = str(path)
            if name not in self._known:
                self._known[name] = _sha256(Path(path), spec_path)
            hashes[name] = self._known[name]
        return hashes


def _sha256(path: Path, spec_path: Path) -> str:
    digest = hashlib.sha256()
    try:
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    except OSError as exc:
        raise InputError(f"input file {path} cannot be read ({exc.strerror or exc})", path=spec_path) from exc
    return digest.hexdigest()


class _Locator:
    """Finds the line of a key in the spec's text, for ``SPEC:LINE: field KEY: problem`` messages."""

    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.lines = text.splitlines()

    def line_of(self, key: str | None, table: str | None = None) -> int | None:
        if key is None:
            return None
        current = None
        pattern = re.compile(rf'^\s*"?{re.escape(key)}"?\s*=')
        for number, line in enumerate(self.lines, start=1):
            header = re.match(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?", line)
            if header:
                current = header.group(1)
                if table is None and current == key:
                    return number
            elif pattern.match(line) and (table is None or current == table):
                return number
        return None

    def header_line(self, table: str) -> int | None:
        """The line of the ``[table]`` header, if the spec has one."""
        for number, line in enumerate(self.lines, start=1):
            if re.match(rf"^\s*\[\[?\s*{re.escape(table)}\s*\]\]?", line):
                return number
        return None

    def error(self, key: str | None, message: str, *, table: str | None = None) -> InputError:
        return InputError(message, path=self.path, line=self.line_of(key, table), field=key)


def _table(doc: Mapping[str, Any], name: str, where: _Locator) -> dict[str, Any]:
    value = doc.get(name, {})
    if not isinstance(value, dict):
        raise where.error(name, f"[{name}] must be a table of key = value lines")
    return dict(value)


def _zip_tables(doc: Mapping[str, Any], where: _Locator) -> list[dict[str, Any]]:
    blocks = doc.get("zip", [])
    if not isinstance(blocks, list) or not all(isinstance(block, dict) for block in blocks):
        raise where.error("zip", "write each group of options that vary together as a [[zip]] table")
    return blocks


def _values(key: str, value: Any, where: _Locator, table: str) -> list[Any]:
    if not isinstance(value, list) or not value:
        raise where.error(key, f"[{table}] values must be a non-empty list, e.g. {key} = [1, 2]", table=table)
    return value


def _zip_block(block: dict[str, Any], where: _Locator) -> dict[str, list[Any]]:
    values = {key: _values(key, value, where, "zip") for key, value in block.items()}
    lengths = {key: len(v) for key, v in values.items()}
    if len(set(lengths.values())) > 1:
        key = next(iter(lengths))
        raise where.error(key, f"the lists of one [[zip]] vary together and need equal lengths; got {lengths}",
                          table="zip")
    return values


def _check_disjoint(base: Mapping[str, Any], grid: Mapping[str, Any], zips: tuple[dict[str, Any], ...],
                    where: _Locator) -> None:
    """An option is set in one place only; ``window-length`` and ``window_length`` are the same option."""
    owner: dict[str, str] = {}
    for table, keys in [("base", base), ("grid", grid)] + [("zip", block) for block in zips]:
        for key in keys:
            name = key.replace("-", "_")
            if name in owner:
                raise where.error(key, f"set both in [{owner[name]}] and in [{table}]; keep one", table=table)
            owner[name] = table


def _windows(sweep: Mapping[str, Any], base: Mapping[str, Any], grid: Mapping[str, Any],
             zips: tuple[dict[str, Any], ...], where: _Locator) -> tuple[int | None, int]:
    """``windows = N`` and ``window-seed = S`` of ``[sweep]`` (`fairsched.sweep.windows`)."""
    windows, seed = sweep.get("windows"), sweep.get("window-seed", 0)
    if windows is not None and not (isinstance(windows, int) and not isinstance(windows, bool) and windows >= 1):
        raise where.error("windows", f"windows = {windows!r}: expected a number of windows >= 1", table="sweep")
    if not (isinstance(seed, int) and not isinstance(seed, bool) and seed >= 0):
        raise where.error("window-seed", f"window-seed = {seed!r}: expected an integer >= 0", table="sweep")
    if windows is None:
        if "window-seed" in sweep:
            raise where.error("window-seed", "window-seed needs windows = N in [sweep]", table="sweep")
        return None, seed
    for table, keys in [("base", base), ("grid", grid)] + [("zip", block) for block in zips]:
        for key in keys:
            if key.replace("-", "_") == "window_start":
                raise where.error(key, f"windows = {windows} draws the window starts; remove window-start "
                                       f"from [{table}]", table=table)
    return windows, seed


def _seeds(value: Any, where: _Locator) -> tuple[int, ...]:
    if value is None:
        return (0,)
    if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
        return tuple(range(value))
    if (isinstance(value, list) and value and all(isinstance(s, int) and not isinstance(s, bool) and s >= 0
                                                  for s in value) and len(set(value)) == len(value)):
        return tuple(value)
    raise where.error("seeds", f"seeds = {value!r}: expected a count >= 1 (seeds = 5 means 0..4) or a list of "
                               "distinct non-negative integers", table="sweep")
