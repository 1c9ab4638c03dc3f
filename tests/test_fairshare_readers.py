"""The association-tree readers (TREE CSV, sshare -a -l -P, sacctmgr -P) and `fairsched fairshare` on them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fairsched.errors import InputError
from fairsched.fairshare import fair_tree
from fairsched.workload.share_tree import PARENT, Association, share_tree
from fairsched.workload.sshare import read_share_tree
from tests.conftest import run_main

DATA = Path(__file__).parent / "data" / "fairshare"
HEADER = "account,user,parent,shares,raw_usage"


def _write(tmp_path: Path, text: str, name: str = "tree.csv") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_csv_tree_in_sshare_order_with_rolled_up_usage(tmp_path: Path) -> None:
    path = _write(tmp_path, f"{HEADER}\nb,,root,1,\nb,zed,,1,4\na,,root,3,\nb,amy,,parent,6\nb1,,b,2,\n"
                            "b1,x,,1,5\n")
    tree = read_share_tree(path)
    assert [(a.account, a.user) for a in tree.associations] == [
        ("root", None), ("a", None), ("b", None), ("b", "amy"), ("b", "zed"), ("b1", None), ("b1", "x")]
    assert tree.depths == (0, 1, 1, 2, 2, 2, 3)
    assert tree.associations[3].shares == PARENT
    table = fair_tree(tree)
    assert [r.raw_usage for r in table.rows] == [15.0, 0.0, 15.0, 6.0, 4.0, 5.0, 5.0]


def test_sshare_dump_keeps_slurms_numbers_beside_ours() -> None:
    tree = read_share_tree(DATA / "sshare_test24_4.txt")
    assert tree.source == "sshare" and tree.reported is not None and len(tree.associations) == 35
    assert tree.associations[tree.index("aDA")].parent == "aD"
    assert tree.reported[tree.index("aGA", "uGA2")].fairshare == 0.095238
    csv_table = fair_tree(read_share_tree(DATA / "test24_4.csv"))
    assert fair_tree(tree).rows == csv_table.rows  # same tree, same numbers, whichever file it came from


def test_cli_compares_with_the_dump(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_main(["fairshare", str(DATA / "sshare_test24_4.txt")], capsys)
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0].endswith("|LevelFS|SshareFairShare|DiffFairShare|SshareLevelFS|DiffLevelFS")
    assert lines[9] == "   aAB|uAB2|1|0.500000|0|0.000000|0.000000|0.571429|inf|0.571429|+0.000000|inf|+0.000000"
    diffs = [field for line in lines[1:] for field in line.split("|")[10::2]]
    assert diffs and set(diffs) <= {"", "+0.000000"}


def test_cli_shows_a_difference(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = (DATA / "sshare_test24_4.txt").read_text().replace("|0.095238|0.833333|", "|0.100000|0.833333|")
    code, out, _ = run_main(["fairshare", str(_write(tmp_path, text, "dump.txt")), "--json"], capsys)
    row = json.loads(out)["rows"][-1]
    assert (code, row["user"], row["sshare_fairshare"]) == (0, "uGA2", 0.1)
    assert row["diff_fairshare"] == pytest.approx(-0.004762, abs=1e-12)


def test_cli_json_rows(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(["fairshare", str(DATA / "test24_4.csv"), "--json"], capsys)
    doc = json.loads(out)
    assert code == 0 and doc["algorithm"] == "fair-tree" and len(doc["rows"]) == 35
    assert doc["rows"][0] == {"account": "root", "user": None, "raw_shares": None, "norm_shares": 0.0,
                              "raw_usage": 240.0, "norm_usage": None, "effective_usage": 1.0, "fairshare": None,
                              "level_fs": None}
    assert doc["rows"][1]["level_fs"] == "inf" and doc["rows"][1]["fairshare"] == 1.0
    assert {r["raw_shares"] for r in doc["rows"] if r["user"] == "uD1"} == {"parent"}


def test_sacctmgr_dump_gives_shares_only() -> None:
    tree = read_share_tree(DATA / "sacctmgr_small.txt")
    assert tree.source == "sacctmgr" and {a.raw_usage for a in tree.associations if a.is_user} == {0.0}
    assert tree.associations[tree.index("theory")].parent == "phys"
    rows = {(r.account, r.user): r for r in fair_tree(tree).rows}
    assert rows["chem", "bob"].norm_shares == 0.75 and rows["root", "root"].norm_shares == pytest.approx(1 / 101)
    assert rows["theory", "dave"].norm_shares == 1.0  # reparented under phys, where carol and theory hold none


@pytest.mark.parametrize(("text", "where", "message"), [
    (f"{HEADER}\na,,b,1,\nb,,a,1,\n", 2, "accounts form a cycle: a -> b -> a"),
    (f"{HEADER}\na,,nowhere,1,\n", 2, "account 'a' names unknown parent account 'nowhere'"),
    (f"{HEADER}\na,,root,1,\na,u,,-3,1\n", 3, "field shares: shares is -3; shares cannot be negative"),
    (f"{HEADER}\na,,root,1,\n,u,,1,1\n", 3, "field account: user row 'u' without an account"),
    (f"{HEADER}\na,,root,1,\nb,u,,1,1\n", 3, "user 'u' names unknown parent account 'b'"),
    ("account,user,shares,raw_usage\nroot,,,\n", 1, "field parent: missing column parent"),
    (f"{HEADER}\na,,root,x,\n", 2, "field shares: shares is 'x'"),
    (f"{HEADER}\na,,root,1,-2\n", 2, "field raw_usage: '-2': expected a number >= 0"),
    (f"{HEADER}\na,,,1,\n", 2, "account 'a' has no parent; only root may have an empty parent"),
    (f"{HEADER}\na,,root,1,\na,,root,2,\n", 3, "account 'a' appears twice (first on line 2)"),
    ("Account|User|RawShares|NormShares\nroot|||0.5\n", 1, "missing column RawUsage"),
    ("Account|User|RawShares|RawUsage\nroot|||10\naA||1|5\n", 3, "field Account: account 'aA' is indented by 0"),
    ("Account|User|RawShares|RawUsage\n aA||1|5\n", 2, "the first row must be root"),
    ("Account|User|Share|Par Name\nroot|||\nx|||root\n", 3, "field shares: shares is empty"),
])
def test_bad_input_is_one_line_with_file_and_line(tmp_path: Path, text: str, where: int, message: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, text)
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")) as caught:
        read_share_tree(path)
    assert caught.value.line == where
    code, out, err = run_main(["fairshare", str(path)], capsys)
    assert (code, out) == (2, "")
    assert err.startswith(f"error: {path}:{where}: ") and err.count("\n") == 1 and message in err


def test_share_tree_in_code_checks_too() -> None:
    with pytest.raises(InputError, match=r"shares is 1\.5; expected an integer >= 0 or .parent."):
        share_tree([Association("a", parent="root", shares=1.5)])  # type: ignore[arg-type]
