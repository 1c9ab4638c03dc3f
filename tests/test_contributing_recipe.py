"""docs/contributing.md's online recipe, followed literally on a throwaway copy of the package.

The recipe ("How to add a policy", online) must be all a newcomer needs. This test copies ``src/`` and ``tests/``
(and the docs page the recipe names) into a temporary directory, then applies the recipe's steps there, each to
the file the step names, with the guide's own example: its ``python`` block is written as the policy's module, its
``BURST_DECISIONS`` entry is added to the contract suite. Every file edited must be named in the recipe's text.
Then one pytest run in the copy checks that the policy is picked up everywhere: the registry and ``_names.py``
(checked on import), the contract suite (tests/test_online_policies.py: the validator on its schedules, the
time-stepped twin, non-clairvoyance, seeds, the hand-computed timeline, the docs table), the module's doctest,
``fairsched compare --help`` and ``fairsched compare --policies NAME`` through the CLI, and a sweep spec listing it
(tests/_recipe_checks.py). If the code needs a step the recipe does not name, that run fails: this test is what
keeps the guide true. The source tree is never touched; the copy is deleted with ``tmp_path``.
"""

from __future__ import annotations

import ast
import hashlib
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "contributing.md"
_PYTHON_BLOCK = re.compile(r"^( *)```python\n(.*?)^\1```", re.M | re.S)


def online_recipe() -> str:
    """The text of the guide's online recipe: from ``### online`` to the next section."""
    text = GUIDE.read_text(encoding="utf-8")
    start = text.index("### online")
    return text[start:text.index("\n#", start + 1)]


def python_blocks(text: str) -> list[str]:
    """The ```python blocks of `text`, dedented (the recipe's blocks sit inside numbered steps)."""
    return [textwrap.dedent(match.group(2)) for match in _PYTHON_BLOCK.finditer(text)]


def example() -> tuple[str, str, str, str]:
    """(registered name, class name, module source, BURST_DECISIONS entry) of the recipe's example."""
    module, entry = python_blocks(online_recipe())
    name = re.search(r'@register\("([\w-]+)"', module).group(1)
    return name, re.search(r"^class (\w+)", module, re.M).group(1), module, entry


# -- the recipe's steps, each editing the one file it names (paths relative to the repository) ------------------
def step_module(copy: Path, name: str, module: str) -> str:
    path = f"src/fairsched/online/policies/{name.replace('-', '_')}.py"
    (copy / path).write_text(module, encoding="utf-8")
    return "src/fairsched/online/policies/<name>.py"


def step_import(copy: Path, name: str) -> str:
    path = "src/fairsched/online/policies/__init__.py"
    text = (copy / path).read_text(encoding="utf-8")
    anchor = "from fairsched.online.policies import (  # noqa: F401\n"
    assert anchor in text, f"{path} has no import list to add the module to"
    (copy / path).write_text(text.replace(anchor, f"{anchor}    {name.replace('-', '_')},\n"), encoding="utf-8")
    return path


def step_names(copy: Path, name: str) -> str:
    path = "src/fairsched/_names.py"
    text = (copy / path).read_text(encoding="utf-8")
    listed = re.search(r"^ONLINE_POLICIES: tuple\[str, \.\.\.\] = (\(.*?\))\n", text, re.M | re.S)
    names = tuple(sorted((*ast.literal_eval(listed.group(1)), name)))
    (copy / path).write_text(text[:listed.start(1)] + repr(names) + text[listed.end(1):], encoding="utf-8")
    return path


def step_timeline(copy: Path, entry: str) -> str:
    path = "tests/test_online_policies.py"
    text = (copy / path).read_text(encoding="utf-8")
    anchor = "BURST_DECISIONS = {\n"
    assert anchor in text
    (copy / path).write_text(text.replace(anchor, anchor + textwrap.indent(entry, "    ")), encoding="utf-8")
    return path


def step_docs(copy: Path, name: str, class_name: str) -> str:
    path = "docs/online-policies.md"
    lines = (copy / path).read_text(encoding="utf-8").splitlines(keepends=True)
    last_row = max(i for i, line in enumerate(lines) if line.startswith("| `"))
    lines.insert(last_row + 1, f"| `{name}` | `{class_name}` | `{name}.py` | nothing: lowest id first | no |\n")
    (copy / path).write_text("".join(lines), encoding="utf-8")
    return path


def throwaway_copy(tmp_path: Path) -> Path:
    """src/, tests/ and the docs page the recipe edits, in `tmp_path` (the files keep their mtimes)."""
    copy = tmp_path / "repo"
    junk = shutil.ignore_patterns("__pycache__", "*.egg-info", ".hypothesis")
    shutil.copytree(ROOT / "src", copy / "src", ignore=junk)
    shutil.copytree(ROOT / "tests", copy / "tests", ignore=junk)
    (copy / "docs").mkdir()
    shutil.copy2(ROOT / "docs" / "online-policies.md", copy / "docs")
    shutil.copy2(ROOT / "pyproject.toml", copy)
    return copy


def numba_cache_for(copy: Path) -> Path:
    """A numba cache directory for the copy, holding the kernels this process compiled for the source tree.

    The copy must not write into the source tree's cache, and need not compile again: numba files a module's
    kernels under ``NUMBA_CACHE_DIR/<folder>_<sha1 of the folder's absolute path>`` and checks them against the
    source file's mtime and size, which `throwaway_copy` keeps; so each folder's entry is copied under the copy's
    path. (Were numba to file them otherwise, the copy would only compile them again: slower, still right.)
    """
    cache = copy / "numba-cache"
    cache.mkdir()
    source_cache = Path(os.environ.get("NUMBA_CACHE_DIR", "/nonexistent"))  # fairsched/__init__ sets it

    def entry(folder: Path) -> str:
        return f"{folder.name}_{hashlib.sha1(str(folder).encode()).hexdigest()}"

    for folder in [ROOT / "src" / "fairsched", *(ROOT / "src" / "fairsched").rglob("*")]:
        if folder.is_dir() and (source_cache / entry(folder)).is_dir():
            twin = copy / folder.relative_to(ROOT)
            shutil.copytree(source_cache / entry(folder), cache / entry(twin))
    return cache


def test_the_recipe_shows_a_whole_policy_and_its_timeline() -> None:
    name, class_name, module, entry = example()
    compile(module, "recipe example", "exec")
    assert "def decide(self, view: OnlineView) -> Assignment:" in module and "list[Assignment]" not in module
    assert ast.literal_eval("{" + entry + "}")[name]  # a BURST_DECISIONS entry for the example's name
    assert class_name and name.replace("-", "_").isidentifier()


@pytest.mark.slow
def test_following_the_online_recipe_adds_a_policy_everywhere(tmp_path: Path) -> None:
    name, class_name, module, entry = example()
    copy = throwaway_copy(tmp_path)
    touched = [step_module(copy, name, module), step_import(copy, name), step_names(copy, name),
               step_timeline(copy, entry), step_docs(copy, name, class_name)]
    recipe = online_recipe()
    unnamed = [path for path in touched if f"`{path}`" not in recipe]
    assert not unnamed, f"the recipe test edits files the recipe does not name: {unnamed}"

    module_path = f"src/fairsched/online/policies/{name.replace('-', '_')}.py"
    selected = [name, "registered", "registry_holds", "every_model_registers", "documented", "help_defaults",
                "_names", "recipe_checks", "every_greedy_policy"]
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
               "tests/test_online_policies.py", "tests/test_registry.py", "tests/test_cli_ux.py",
               "tests/test_rand.py", "tests/_recipe_checks.py", module_path, "src/fairsched/_names.py",
               "-k", " or ".join(selected)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(copy / "src"), str(copy)]),
           "FAIRSCHED_RECIPE_POLICY": name, "NUMBA_CACHE_DIR": str(numba_cache_for(copy))}
    run = subprocess.run(command, cwd=copy, env=env, capture_output=True, text=True, check=False)
    report = run.stdout[-6000:] + run.stderr[-3000:]
    assert run.returncode == 0, f"the recipe's steps are not enough:\n{report}"
    passed = int(re.search(r"(\d+) passed", run.stdout).group(1))
    assert "skipped" not in run.stdout.splitlines()[-1], report  # the recipe checks ran, not skipped
    assert passed >= 20, report
