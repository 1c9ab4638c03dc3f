"""The house's layers: which part of fairsched may import which (issue 23; docs/contributing.md).

The import graph is read statically from the source (`ast`), every import counted: module level, inside
functions, and under ``if TYPE_CHECKING:`` (a type-only import still ties two rooms together). A "room" is a
top-level module or package of `fairsched` (``workload``, ``online``, ``report``, ``cli``, ...). From the bottom:

====  ==========================================================  ===========================================
layer rooms                                                       what they hold
====  ==========================================================  ===========================================
0     ``fairsched`` (its ``__init__``), ``errors``, ``_io``,       the base: errors, atomic files, the
      ``_contract``, ``_registry``, ``_names``, ``_validation``,   experiment contract, registries and the
      ``_kernels``, ``_shapley_kernels``, ``seeds``                 names they hold, shared kernels, the named
                                                                  random streams
1     ``workload``                                                 traces and job tables
2     ``scenario``, ``machine_split``, ``shapley``,               organizations, their machines and what
      ``fairshare``                                                they are owed
3     ``online``, ``backfill``, ``mosp``, ``openshop``            the four models, never importing one another
4     ``audit``, ``sweep``, ``replicate``, ``slurm``, ``whatif``   built on the models' front doors
5     ``report``                                                   renders and writes results
6     ``cli``, ``__main__``                                        the command line
====  ==========================================================  ===========================================

``seeds`` sits in the base, not beside ``scenario``: it is the table of every named random stream, and the
synthetic workload generator (layer 1) draws from it like every layer above. Rooms of layer 2 and 4 may import
one another as long as no circle forms; the models may not (each is a self-contained model of its own paper).

Rules checked: every room has a layer; no room imports a room of a higher layer; no model imports another model;
no circle among rooms; no circle among the modules of any room but ``replicate`` (whose per-paper reorganisation,
issue 23 item 2, owns its internal circle); a model's ``engine`` never imports its ``policies``. Exceptions would be
listed in `ALLOWED_UPWARD` with their reason, and an exception no longer needed fails the test, so the list stays
true. It is empty: the replications render their docs' tables themselves and write tables with
`fairsched._io.write_csv`, and `report` imports `replicate` (to render a replication's result), not the reverse;
allowing ``replicate -> report`` as well would make a circle. Not checked: the backfill engine's compiled loop
(``backfill._loop``) calls the policy kernels through ``backfill.policies._dispatch``, since numba switches on
integer codes rather than taking kernels as arguments (docs/contributing.md); ``engine.py`` itself names no policy.
Rooms that other work adds (``fairshare``, ``slurm``, ``whatif``) are placed already, present or not.
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Iterator
from functools import cache
from pathlib import Path

import fairsched

PACKAGE_DIR = Path(fairsched.__file__).resolve().parent
MODELS = ("online", "backfill", "mosp", "openshop")
LAYERS: dict[str, int] = {
    **dict.fromkeys(("fairsched", "errors", "_io", "_contract", "_registry", "_names", "_validation", "_kernels",
                     "_shapley_kernels", "seeds"), 0),
    "workload": 1,
    **dict.fromkeys(("scenario", "machine_split", "shapley", "fairshare"), 2),
    **dict.fromkeys(MODELS, 3),
    **dict.fromkeys(("audit", "sweep", "replicate", "slurm", "whatif"), 4),
    "report": 5,
    **dict.fromkeys(("cli", "__main__"), 6),
}
# (importing module, imported module) -> why this upward import is right. Keep it short; each entry must be used.
ALLOWED_UPWARD: dict[tuple[str, str], str] = {}
# Rooms whose internal module circles are owned by other work (room -> why).
INTERNAL_CIRCLES_ALLOWED: dict[str, str] = {}


def module_name(path: Path) -> str:
    """``.../fairsched/backfill/engine.py`` -> ``fairsched.backfill.engine``; a package's ``__init__``: the package."""
    parts = list(path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def modules() -> dict[str, Path]:
    """Every module of fairsched by dotted name."""
    return {module_name(path): path for path in sorted(PACKAGE_DIR.rglob("*.py"))}


def imported_modules(name: str, source: str, *, is_package: bool, known: Collection[str]) -> Iterator[str]:
    """The fairsched modules that module `name` imports anywhere in `source` (``from pkg import mod`` names
    ``pkg.mod`` when that is one of the `known` modules, else ``pkg``)."""
    package = name if is_package else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([node.module] if node.module else []))
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        yield from (target for target in targets if target == "fairsched" or target.startswith("fairsched."))


@cache
def edges() -> frozenset[tuple[str, str]]:
    """(importer, imported) over every module of fairsched, self-imports dropped."""
    known = modules()
    return frozenset((name, target) for name, path in known.items()
                     for target in imported_modules(name, path.read_text(encoding="utf-8"),
                                                    is_package=path.name == "__init__.py", known=known)
                     if target != name)


def room(module: str) -> str:
    """The top-level room of a module: ``fairsched.backfill.engine`` -> ``backfill``; ``fairsched`` -> itself."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan), each sorted; sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def upward(pairs: frozenset[tuple[str, str]]) -> list[tuple[str, str]]:
    """The imports of a room of a higher layer (rooms without a layer are `test_every_room_has_a_layer`'s)."""
    return sorted((a, b) for a, b in pairs
                  if room(a) in LAYERS and room(b) in LAYERS and LAYERS[room(a)] < LAYERS[room(b)])


# ------------------------------------------------------------------------------------------------------ the rules

def test_the_reader_sees_every_kind_of_import() -> None:
    """Else every rule below could pass on a graph with arrows missing."""
    source = """
import numpy
import fairsched.errors
from typing import TYPE_CHECKING
from fairsched.backfill import fairness, BackfillJobs
from . import view
from ..workload.swf import read_swf
if TYPE_CHECKING:
    from fairsched.report.online import to_json
def later():
    from fairsched import sweep
"""
    known = {"fairsched.errors", "fairsched.backfill", "fairsched.backfill.fairness", "fairsched.backfill.view",
             "fairsched.workload.swf", "fairsched.report.online", "fairsched.sweep"}
    found = list(imported_modules("fairsched.backfill.engine", source, is_package=False, known=known))
    assert found == ["fairsched.errors", "fairsched.backfill.fairness", "fairsched.backfill", "fairsched.backfill.view",
                     "fairsched.workload.swf", "fairsched.report.online", "fairsched.sweep"]
    assert list(imported_modules("fairsched.backfill", "from . import view", is_package=True, known=known)) == [
        "fairsched.backfill.view"]
    assert len(modules()) > 150 and len(edges()) > 400  # the real graph: every module read


def test_every_room_has_a_layer() -> None:
    unplaced = sorted({room(name) for name in modules()} - set(LAYERS))
    assert not unplaced, (f"rooms without a layer: {unplaced}; add each to LAYERS in tests/test_layers.py (and to "
                          "the picture in docs/contributing.md)")


def test_no_room_imports_a_higher_layer() -> None:
    wrong = [(a, b) for a, b in upward(edges()) if (a, b) not in ALLOWED_UPWARD]
    assert not wrong, "lower layers import higher ones:\n" + "\n".join(
        f"  {a} (layer {LAYERS[room(a)]}) -> {b} (layer {LAYERS[room(b)]})" for a, b in wrong)


def test_allowed_exceptions_are_still_needed() -> None:
    stale = sorted(set(ALLOWED_UPWARD) - set(upward(edges())))
    assert not stale, f"remove these entries of ALLOWED_UPWARD, no module imports them any more: {stale}"


def test_models_never_import_one_another() -> None:
    lateral = sorted((a, b) for a, b in edges() if room(a) in MODELS and room(b) in MODELS and room(a) != room(b))
    assert not lateral, f"a model imports another model: {lateral}"


def test_no_circle_among_rooms() -> None:
    graph: dict[str, set[str]] = {}
    example: dict[tuple[str, str], tuple[str, str]] = {}
    for a, b in sorted(edges()):
        if room(a) != room(b):
            graph.setdefault(room(a), set()).add(room(b))
            example.setdefault((room(a), room(b)), (a, b))
    found = circles(graph)
    assert not found, "circles among rooms: " + "; ".join(" <-> ".join(c) for c in found) + "; upward arrows:\n" + (
        "\n".join(f"  {a} -> {b}" for (ra, rb), (a, b) in sorted(example.items())
                  if LAYERS.get(ra, -1) < LAYERS.get(rb, -1) and any(ra in c and rb in c for c in found)))


def test_no_circle_among_modules() -> None:
    graph: dict[str, set[str]] = {}
    for a, b in edges():
        if not (room(a) == room(b) in INTERNAL_CIRCLES_ALLOWED):
            graph.setdefault(a, set()).add(b)
    found = circles(graph)
    assert not found, "circles among modules:\n" + "\n".join("  " + " <-> ".join(c) for c in found)


def test_engines_never_import_policies() -> None:
    """STYLE 2.2: the engine takes the policy it is given; only the front doors and experiments name policies."""
    wrong = sorted((a, b) for a, b in edges() for model in MODELS
                   if a == f"fairsched.{model}.engine" and b.startswith(f"fairsched.{model}.policies"))
    assert not wrong, f"engines import policies: {wrong}"
