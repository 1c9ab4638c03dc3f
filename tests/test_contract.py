"""The experiment contract (`fairsched._contract`, issue 11 §1), checked alike for the four models.

For every model: ``Config.from_mapping`` round-trips a spec table and names an unknown key's valid choices, a bad
value is a one-line `ConfigError` naming its flag, ``run(config, seed).rows()`` has one row per policy with the
config's columns, and ``fairsched.report.write_result(result, out_dir)`` writes exactly what the CLI's ``--out``
writes (same files, same bytes but the timings; PNGs excepted, as in tests/test_byte_identical.py).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import pytest

from fairsched.errors import ConfigError, UnknownPolicyError
from fairsched.report import write_result
from tests.conftest import run_main
from tests.test_byte_identical import normalized_hashes, small_swf


@dataclass(frozen=True)
class Case:
    """One model: a spec table, the same options as CLI arguments, the seed, the policies its rows list."""

    model: str
    command: str
    mapping: dict[str, Any]
    cli: list[str]
    seed: int
    policies: list[str]
    bad: tuple[str, Any]  # a key and a value its check refuses


CASES = [
    Case("online", "compare",
         {"orgs": 3, "policies": "roundrobin,fairshare", "reference": "utfairshare", "window-length": 150_000,
          "split": "even"},
         ["--orgs", "3", "--policies", "roundrobin,fairshare", "--reference", "utfairshare", "--window-length",
          "150000", "--split", "even"], 3, ["roundrobin", "fairshare", "utfairshare"], ("orgs", 0)),
    Case("backfill", "backfill",
         {"trace": "{swf}", "order": "sjf", "backfill": "conservative", "fairness": ["re", "fst-strict"]},
         ["--trace", "{swf}", "--order", "sjf", "--backfill", "conservative", "--fairness", "re,fst-strict"], 0,
         ["sjf/conservative"], ("procs", -4)),
    Case("mosp", "mosp", {"orgs": 3, "jobs": 20, "procs": 8, "algorithm": "mocca", "local_order": "lpt"},
         ["--orgs", "3", "--jobs", "20", "--procs", "8", "--algorithm", "mocca", "--local-order", "lpt"], 5,
         ["mocca"], ("local-order", "sideways")),
    Case("openshop", "openshop", {"jobs": 10, "machines": 3, "algorithm": "pba,fifo", "utilities": "linear"},
         ["--jobs", "10", "--machines", "3", "--algorithm", "pba,fifo", "--utilities", "linear"], 2,
         ["pba", "fifo"], ("k", 0)),
]
IDS = [case.model for case in CASES]


def experiment(case: Case) -> Any:
    return importlib.import_module(f"fairsched.{case.model}.experiment")


def with_swf(value: Any, swf: Path) -> Any:
    if isinstance(value, str):
        return value.replace("{swf}", str(swf))
    return value


def config_of(case: Case, swf: Path) -> Any:
    return experiment(case).Config.from_mapping({key: with_swf(value, swf) for key, value in case.mapping.items()})


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_from_mapping_reads_flag_names_and_round_trips(case: Case, tmp_path: Path) -> None:
    swf = small_swf(tmp_path / "small.swf")
    config = config_of(case, swf)
    for key, value in case.mapping.items():
        field = getattr(config, key.replace("-", "_"))
        expected = with_swf(value, swf)
        if isinstance(field, tuple):
            expected = tuple(expected.split(",")) if isinstance(expected, str) else tuple(expected)
        assert field == (Path(expected) if isinstance(field, Path) else expected), key
    spec = {f.name.replace("_", "-"): _spec_value(getattr(config, f.name)) for f in fields(config)}
    assert type(config).from_mapping(spec) == config
    underscored = {f.name: getattr(config, f.name) for f in fields(config)}
    assert type(config).from_mapping(underscored) == config


def _spec_value(value: Any) -> Any:
    """How a TOML spec writes a value: lists for tuples, strings for paths."""
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, Path):
        return str(value)
    return value


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_an_unknown_key_lists_the_valid_ones(case: Case) -> None:
    config_type = experiment(case).Config
    with pytest.raises(ConfigError, match=r"unknown .* option 'no-such-flag'; valid keys: ") as caught:
        config_type.from_mapping({"no-such-flag": 1})
    valid = str(caught.value).split("valid keys: ")[1].split(", ")
    assert valid == [f.name.replace("_", "-") for f in fields(config_type)]
    assert "seed" not in valid and "out" not in valid


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_a_bad_value_is_one_line_naming_its_flag(case: Case, tmp_path: Path) -> None:
    key, value = case.bad
    mapping = {**{k: with_swf(v, small_swf(tmp_path / "small.swf")) for k, v in case.mapping.items()}, key: value}
    with pytest.raises(ConfigError) as caught:
        experiment(case).Config.from_mapping(mapping)
    message = str(caught.value)
    assert "\n" not in message
    assert f"--{key.replace('_', '-')}" in message or key.replace("-", "_") in message


def test_an_unknown_policy_is_refused_on_construction() -> None:
    from fairsched.online.experiment import Config

    with pytest.raises(UnknownPolicyError, match="nosuch"):
        Config(policies=("roundrobin", "nosuch"))
    with pytest.raises(ConfigError, match="tuple of names"):
        Config(policies="roundrobin")  # type: ignore[arg-type]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_rows_have_one_row_per_policy_with_the_config_columns(case: Case, tmp_path: Path) -> None:
    swf = small_swf(tmp_path / "small.swf")
    config = config_of(case, swf)
    result = experiment(case).run(config, case.seed)
    rows = result.rows()
    assert list(rows["policy"]) == case.policies
    names = [f.name for f in fields(config)]
    assert list(rows.columns[:len(names)]) == names
    assert rows.columns[len(names)] == "policy"
    for name, cell in config.columns().items():
        assert all(value == cell or (value is None and cell is None) for value in rows[name]), name
    assert not any("time_s" in column or column == "elapsed_s" for column in rows.columns)
    assert len(rows.columns) > len(names) + 2  # some metrics
    again = experiment(case).run(config, case.seed).rows()
    assert again.equals(rows)  # same seed, same rows


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_write_result_writes_as_the_cli(case: Case, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cli_dir, lib_dir = tmp_path / "cli", tmp_path / "lib"
    hashes = []
    for base in (cli_dir, lib_dir):
        base.mkdir()
        swf = small_swf(base / "small.swf")
        if base is cli_dir:
            seed = [] if case.model == "backfill" else ["--seed", str(case.seed)]  # backfill has no randomness
            args = [case.command, *(with_swf(arg, swf) for arg in case.cli), *seed, "--out", str(base / "out")]
            code, _, err = run_main(args, capsys)
            assert code == 0, err
        else:
            written = write_result(experiment(case).run(config_of(case, swf), case.seed), base / "out")
            assert set(written) == {p.relative_to(base / "out").as_posix() for p in (base / "out").rglob("*")
                                    if p.is_file()}
        hashes.append(normalized_hashes(base / "out", base))
    assert hashes[0].pop("report.html") == "html"  # the CLI's page of the files (fairsched.report.html)
    assert hashes[0] == hashes[1]


def test_write_result_refuses_a_result_of_another_model(tmp_path: Path) -> None:
    from tests import _toy_model

    result = _toy_model.run(_toy_model.Config(), 0)
    with pytest.raises(TypeError, match=r"no writer for Result of tests\._toy_model; write_result writes the Result "
                                        r"of fairsched\.online\.experiment, "):
        write_result(result, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_results_are_data() -> None:
    """A model's Result computes and never writes: writing is `fairsched.report`'s (tests/test_layers.py checks
    that no experiment imports it)."""
    for case in CASES:
        assert not hasattr(experiment(case).Result, "write"), case.model


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_input_paths_name_the_files_read(case: Case, tmp_path: Path) -> None:
    swf = small_swf(tmp_path / "small.swf")
    assert config_of(case, swf).input_paths() == ((swf,) if case.model == "backfill" else ())


def test_input_paths_of_a_directory_and_of_an_unused_trace(tmp_path: Path) -> None:
    from fairsched.mosp.experiment import Config as MospConfig
    from fairsched.openshop.experiment import Config as OpenShopConfig

    (tmp_path / "task_events").mkdir()
    files = [tmp_path / "task_events" / "part-00001.csv.gz", tmp_path / "job_events.csv.gz"]
    for path in files:
        path.write_bytes(b"")
    assert OpenShopConfig(google=tmp_path).input_paths() == tuple(sorted(files))
    swf = small_swf(tmp_path / "small.swf")
    assert MospConfig(trace=swf).input_paths() == ()  # --generate uni never reads the trace
    assert MospConfig(trace=swf, generate="trace").input_paths() == (swf,)


def test_knobs_without_a_flag_are_ordinary_fields_of_the_one_config() -> None:
    """The library's knobs (online ``ref_max_orgs``/``validate``, openshop ``google_parts``) are fields of `Config`."""
    from fairsched.online.experiment import Config as OnlineConfig
    from fairsched.online.experiment import effective_reference
    from fairsched.openshop.experiment import Config as OpenShopConfig

    config = OnlineConfig.from_mapping({"orgs": 3, "ref-max-orgs": 2, "validate": False})
    assert (config.ref_max_orgs, config.validate) == (2, False)
    assert effective_reference(config, config.orgs) == "directcontr"  # k = 3 > 2: REF is not the default
    assert effective_reference(OnlineConfig(orgs=3), 3) == "ref"
    with pytest.raises(ConfigError, match="--ref-max-orgs"):
        OnlineConfig(ref_max_orgs=-1)
    assert OpenShopConfig.from_mapping({"google-parts": [0, 2]}).google_parts == (0, 2)
    with pytest.raises(ConfigError, match="google_parts"):
        OpenShopConfig(google_parts=("a",))  # type: ignore[arg-type]
