"""The docs cannot drift: every command shown in README.md and docs/usage.md runs, every flag of a synopsis exists.

* Every ```bash block is executed line by line (continuations joined, comments dropped), in a temporary directory,
  through the console entry point. Inputs are made small where the real one would be slow or remote: a real trace
  (``../shared/traces/X``, ``~/.cache/fairsched/traces/X``) becomes a 60-job SWF file, the embedded workload gets a
  short window, and ``fairsched trace fetch`` reads from a cache holding the real file (skipped without
  ../shared/traces). ``make`` lines only check that the Makefile has the target (``make test`` runs this test).
  Each command must exit 0 and do what it says (`output_problems`): print something (on stdout, or into the file
  ``> FILE`` redirects it to), with no traceback and no Python warning; with ``--json``, print exactly one JSON
  document; write every file it names (``--out DIR``: a directory holding ``report.json`` and no empty file;
  ``--plot FILE``; ``> FILE``), none of them empty.
* Every ```python block of README.md runs, with the same substitutions, prints something, and warns nothing.
* Every synopsis line (``fairsched ...`` in a plain fenced block) names a command that exists, and each of its
  ``--flags`` is an option of that command.
* Every ```python block of docs/replication/*.md (runs too long to execute here) is a script that would start: it
  compiles, every name it reads is imported, bound in the block or a builtin, every attribute it reads from an
  imported name exists, and a call with ``jobs=`` > 1 (spawned worker processes re-import the script) sits under
  ``if __name__ == "__main__":``.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import json
import re
import shlex
import shutil
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import TRACES_DIR, run_main
from tests.test_byte_identical import small_swf

ROOT = Path(__file__).resolve().parents[1]
DOCS = (ROOT / "README.md", ROOT / "docs" / "usage.md")
REPLICATION_DOCS = tuple(sorted((ROOT / "docs" / "replication").glob("*.md")))
_FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)
_TRACE_PATH = re.compile(r"(?:\.\./shared/traces|~/\.cache/fairsched/traces)/[\w.-]+")
SYNTHETIC_WINDOW = ["--window-length", "100000"]  # the embedded workload spans ~2.6e6 s; 1e5 s keeps it quick
OUTPUT_OPTIONS = ("--out", "--plot")  # options whose value is a file or directory the command writes
# What Python shows a user by default is a warning the docs must not produce; these categories it hides.
_HIDDEN_WARNINGS = (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning)


def fenced_blocks(path: Path) -> Iterator[tuple[str, str, int]]:
    """(language, text, line number) of every fenced block of a Markdown file."""
    text = path.read_text(encoding="utf-8")
    for match in _FENCE.finditer(text):
        yield match.group(1), match.group(2), text.count("\n", 0, match.start()) + 1


def command_lines(block: str) -> list[str]:
    """The shell lines of a block: backslash continuations joined, comments and blank lines dropped."""
    joined = block.replace("\\\n", " ")
    lines = [re.sub(r"(^|\s)#.*$", "", line).strip() for line in joined.splitlines()]
    return [line for line in lines if line]


def documented(kind: str) -> list[tuple[str, str]]:
    """(``FILE:LINE``, text) of the bash command lines, python blocks or synopsis lines of the docs."""
    found = []
    for path in DOCS:
        for language, block, line in fenced_blocks(path):
            where = f"{path.name}:{line}"
            if kind == "bash" and language == "bash":
                found.extend((where, command) for command in command_lines(block))
            elif kind == "python" and language == "python" and path.name == "README.md":
                found.append((where, block))
            elif kind == "synopsis" and language in ("", "text"):
                found.extend((where, command) for command in command_lines(block) if command.startswith("fairsched "))
    return found


def test_the_docs_show_commands() -> None:
    assert len(documented("bash")) >= 8
    assert len(documented("synopsis")) >= 15
    assert documented("python")


# ------------------------------------------------------------------------------------------------ bash commands

def _small_inputs(command: str, swf: Path) -> list[str]:
    """The command's arguments (after ``fairsched``), with small inputs substituted (module docstring)."""
    args = shlex.split(_TRACE_PATH.sub(str(swf), command))[1:]
    if args[0] == "compare" and "--trace" not in args and "--window-length" not in args:
        args += SYNTHETIC_WINDOW
    return args


@pytest.mark.parametrize(("where", "command"), documented("bash"), ids=[w for w, _ in documented("bash")])
def test_documented_command_runs(where: str, command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    if command.startswith("make "):
        target = command.split()[1]
        assert re.search(rf"^{re.escape(target)}:", (ROOT / "Makefile").read_text(), re.M), command
        return
    assert command.startswith("fairsched "), f"{where}: not a fairsched command: {command}"
    swf = small_swf(tmp_path / "small.swf")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "out").mkdir()
    redirect = None
    if " > " in command:
        command, redirect = (part.strip() for part in command.split(" > "))
    args = _small_inputs(command, swf)
    if args[:2] == ["trace", "fetch"]:
        args = _offline_fetch(args, tmp_path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        code, out, err = run_main(args, capsys)
    assert code == 0, f"{where}: {command}\n{err}"
    if redirect is not None:
        (tmp_path / redirect).write_text(out)
    problems = output_problems(args, out, err, shown_warnings(caught), tmp_path, redirect)
    assert not problems, f"{where}: {command}\n" + "\n".join(problems)


def shown_warnings(caught: list[warnings.WarningMessage]) -> list[str]:
    """The warnings a user would see (Python's default filters hide the `_HIDDEN_WARNINGS` of other packages)."""
    return [f"{w.category.__name__}: {w.message} ({Path(w.filename).name}:{w.lineno})" for w in caught
            if not issubclass(w.category, _HIDDEN_WARNINGS) or "fairsched" in Path(w.filename).parts]


def output_problems(args: list[str], out: str, err: str, warned: list[str], cwd: Path,
                    redirect: str | None = None) -> list[str]:
    """What is wrong with a documented command's run (module docstring); empty when nothing is.

    `args` are the command's arguments after ``fairsched``, `out` and `err` what it printed, `warned` the Python
    warnings it raised, `cwd` where it ran, `redirect` the file its stdout went to (``> FILE``), if any.
    """
    problems = [f"Python warning: {message}" for message in warned]
    for stream, text in (("stdout", out), ("stderr", err)):
        problems += [f"{stream} shows a {word}" for word in ("Traceback", "Warning") if word in text]
    if not out.strip():
        problems.append("prints nothing" + (f" into {redirect}" if redirect else ""))
    if "--json" in args:
        try:
            if not isinstance(json.loads(out), dict):
                problems.append("--json: the document is not a JSON object")
        except json.JSONDecodeError as exc:
            problems.append(f"--json: stdout is not one JSON document ({exc})")
    named = [args[i + 1] for i, arg in enumerate(args[:-1]) if arg in OUTPUT_OPTIONS]
    out_dir = args[args.index("--out") + 1] if "--out" in args[:-1] else None
    for name in [*named, *([redirect] if redirect else [])]:
        path = cwd / name
        if not path.exists():
            problems.append(f"{name} was not written")
        elif path.is_dir():
            empty = sorted(str(p.relative_to(path)) for p in path.rglob("*") if p.is_file() and not p.stat().st_size)
            problems += [f"{name}/{file} is empty" for file in empty]
            if name == out_dir and not (path / "report.json").is_file():
                problems.append(f"{name} holds no report.json")
        elif not path.stat().st_size:
            problems.append(f"{name} is empty")
    return problems


def test_output_check_can_fail(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "summary.csv").write_text("")
    args = ["compare", "--json", "--out", "out", "--plot", "fig.png"]
    assert output_problems(args, "{\"a\": 1}\n{}", "Traceback (most recent call last):", ["UserWarning: x"],
                           tmp_path) == [
        "Python warning: UserWarning: x", "stderr shows a Traceback",
        "--json: stdout is not one JSON document (Extra data: line 2 column 1 (char 9))",
        "out/summary.csv is empty", "out holds no report.json", "fig.png was not written"]
    assert output_problems(["trace", "info", "x"], " \n", "RuntimeWarning: overflow", [], tmp_path) == [
        "stderr shows a Warning", "prints nothing"]
    (tmp_path / "out" / "summary.csv").write_text("policy\n")
    (tmp_path / "out" / "report.json").write_text("{}")
    (tmp_path / "fig.png").write_bytes(b"png")
    assert output_problems(args, "{\"a\": 1}", "", [], tmp_path) == []


def _offline_fetch(args: list[str], tmp_path: Path) -> list[str]:
    """``trace fetch NAME`` against a cache that already holds the real file: checked by sha256, not downloaded."""
    from fairsched.workload.fetch import resolve_trace

    entry = resolve_trace(args[2])
    real = TRACES_DIR / entry.file_name
    if not real.exists():
        pytest.skip(f"{entry.file_name} not in {TRACES_DIR}: trace fetch would need the network")
    cache = tmp_path / "cache"
    cache.mkdir()
    shutil.copyfile(real, cache / entry.file_name)
    return [*args, "--cache-dir", str(cache)]


# ------------------------------------------------------------------------------------------------ python blocks

@pytest.mark.parametrize(("where", "block"), documented("python"), ids=[w for w, _ in documented("python")])
def test_documented_python_runs(where: str, block: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture[str]) -> None:
    swf = small_swf(tmp_path / "small.swf")
    monkeypatch.chdir(tmp_path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec(compile(_TRACE_PATH.sub(str(swf), block), where, "exec"), {"__name__": "__docs__"})
    assert capsys.readouterr().out.strip(), f"{where}: the example prints nothing"
    assert not shown_warnings(caught), f"{where}: the example warns: {shown_warnings(caught)}"


# ------------------------------------------------------------------------------------------------ replication scripts

def replication_scripts() -> list[tuple[str, str]]:
    """(``FILE:LINE``, text) of the ```python blocks of docs/replication/*.md."""
    return [(f"{path.name}:{line}", block) for path in REPLICATION_DOCS
            for language, block, line in fenced_blocks(path) if language == "python"]


def script_problems(block: str, where: str = "<block>") -> list[str]:
    """What would stop `block`, run as a script, before its first library call returns (module docstring)."""
    tree = ast.parse(compile(block, where, "exec", ast.PyCF_ONLY_AST))
    bound, imported = set(dir(builtins)), {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                name = alias.asname or alias.name.split(".")[0]
                bound.add(name)
                imported[name] = (node, alias)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            bound.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
    problems = sorted({f"{node.id!r} (line {node.lineno}) is never imported or bound" for node in ast.walk(tree)
                       if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in bound})
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in imported
                and not hasattr(_imported_object(*imported[node.value.id]), node.attr)):
            problems.append(f"{node.value.id}.{node.attr} (line {node.lineno}) does not exist")
    guarded = {id(node) for guard in tree.body if _is_main_guard(guard) for node in ast.walk(guard)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and id(node) not in guarded and any(
                keyword.arg == "jobs" and not (isinstance(keyword.value, ast.Constant) and keyword.value.value == 1)
                for keyword in node.keywords):
            problems.append(f"line {node.lineno}: jobs= spawns workers, so the call needs an "
                            "'if __name__ == \"__main__\":' guard")
    return problems


def _imported_object(node: ast.Import | ast.ImportFrom, alias: ast.alias) -> object:
    if isinstance(node, ast.Import):
        return importlib.import_module(alias.name.split(".")[0] if alias.asname is None else alias.name)
    module = importlib.import_module(node.module or "")
    return getattr(module, alias.name) if hasattr(module, alias.name) else importlib.import_module(
        f"{node.module}.{alias.name}")


def _is_main_guard(node: ast.stmt) -> bool:
    return (isinstance(node, ast.If) and isinstance(node.test, ast.Compare)
            and ast.unparse(node.test).replace("'", '"') == '__name__ == "__main__"')


def test_the_replication_docs_show_scripts() -> None:
    assert len(replication_scripts()) >= 4


@pytest.mark.parametrize(("where", "block"), replication_scripts(), ids=[w for w, _ in replication_scripts()])
def test_replication_script_would_run(where: str, block: str) -> None:
    assert script_problems(block, where) == [], where


def _variants_run(block: str) -> tuple[tuple[str, ...], Path] | None:
    """(variant names, out_dir) of a block that runs a chosen list of PPAM'13 variants (``v.name in (...)``)."""
    tree = ast.parse(block)
    names = [tuple(e.value for e in node.comparators[0].elts) for node in ast.walk(tree)
             if isinstance(node, ast.Compare) and isinstance(node.ops[0], ast.In)
             and ast.unparse(node.left) == "v.name" and isinstance(node.comparators[0], ast.Tuple)]
    out = [node.args[0].value for node in ast.walk(tree) if isinstance(node, ast.Call)
           and ast.unparse(node.func) == "Path" and node.args and isinstance(node.args[0], ast.Constant)]
    return (names[0], ROOT / out[0]) if names and out else None


def test_variant_scripts_list_the_variants_shipped() -> None:
    """A command shown for a variants run names exactly the variants whose rows its directory ships."""
    import pandas as pd

    runs = [(where, run) for where, block in replication_scripts() if (run := _variants_run(block)) is not None]
    assert len(runs) >= 2
    for where, (names, out_dir) in runs:
        shipped = tuple(dict.fromkeys(pd.read_csv(out_dir / "ppam13_variants_cells.csv")["variant"]))
        assert names == shipped, f"{where}: the command runs {names}, {out_dir.name} ships {shipped}"


def test_fig1_script_runs_the_windows_shipped() -> None:
    """The command shown for PPAM'13 Fig. 1 asks for as many windows as its shipped table averages."""
    import pandas as pd

    runs = []
    for where, block in replication_scripts():
        for node in ast.walk(ast.parse(block)):
            if isinstance(node, ast.Call) and ast.unparse(node.func) == "run_fig1":
                config = {k.arg: k.value for k in node.args[0].keywords}
                runs.append((where, config["windows"].value, ROOT / config["out_dir"].args[0].value))
    assert runs
    for where, windows, out_dir in runs:
        shipped = int(pd.read_csv(out_dir / "ppam13_fig1_table.csv")["windows"].max())
        assert windows == shipped, f"{where}: the command runs {windows} windows, {out_dir.name} ships {shipped}"


def test_script_check_can_fail() -> None:
    unguarded = ("from fairsched.replicate import ppam13\n"
                 "ppam13.run(ppam13.PPAM13Config(jobs=2, out_dir=Path('x')))\n")
    assert script_problems(unguarded) == ["'Path' (line 2) is never imported or bound",
                                          "line 2: jobs= spawns workers, so the call needs an "
                                          "'if __name__ == \"__main__\":' guard"]
    guarded = ("from pathlib import Path\n\nfrom fairsched.replicate import ppam13\n\n"
               "if __name__ == '__main__':\n    ppam13.run(ppam13.PPAM13Config(jobs=2, out_dir=Path('x')))\n")
    assert script_problems(guarded) == []
    assert script_problems(guarded.replace("ppam13.run(", "ppam13.no_such_run(")) == [
        "ppam13.no_such_run (line 6) does not exist"]


# ------------------------------------------------------------------------------------------------ synopses

def _command_tree() -> dict[str, set[str]]:
    """``"replicate tpds11"`` -> its option names, for every command of the CLI."""
    import typer.main

    from fairsched.cli import app

    tree: dict[str, set[str]] = {}

    def walk(command: Any, path: tuple[str, ...]) -> None:  # typer's (vendored) click Command or Group
        if hasattr(command, "commands"):
            for name, sub in command.commands.items():
                walk(sub, (*path, name))
        else:
            tree[" ".join(path)] = {opt for param in command.params for opt in (*param.opts, *param.secondary_opts)}

    walk(typer.main.get_command(app), ())
    return tree


def _synopsis_commands(line: str, tree: dict[str, set[str]]) -> list[str]:
    """The commands a synopsis line stands for (``unfairness re|fst ...`` stands for two, ``replicate a|b`` too)."""
    words = line.split()[1:]
    first = words[0].split("|")
    second = words[1].split("|") if len(words) > 1 else [""]
    names = [f"{a} {b}" for a in first for b in second if f"{a} {b}" in tree] or [a for a in first if a in tree]
    return names


@pytest.mark.parametrize(("where", "line"), documented("synopsis"), ids=[w for w, _ in documented("synopsis")])
def test_synopsis_flags_exist(where: str, line: str) -> None:
    tree = _command_tree()
    names = _synopsis_commands(line, tree)
    assert names, f"{where}: no such command: {line}"
    flags = set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", line))
    for name in names:
        unknown = sorted(flags - tree[name])
        assert not unknown, f"{where}: fairsched {name} has no {', '.join(unknown)}"


def test_synopsis_check_can_fail() -> None:
    tree = _command_tree()
    assert _synopsis_commands("fairsched replicate ppam13|tpds11 [--traces DIR]", tree) == ["replicate ppam13",
                                                                                            "replicate tpds11"]
    assert "--traces" not in tree["replicate tpds11"]
    assert _synopsis_commands("fairsched nonsense [--x]", tree) == []
