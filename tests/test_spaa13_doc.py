"""The rendered claims of docs/replication/spaa13.md (`fairsched.replicate.spaa13.doc_values.VALUES`) on a hand-made
result file, and the shipped run's time."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import pandas as pd
import pytest

from fairsched.replicate.spaa13.doc import FILE, RUN_FILE, ship_run_time
from fairsched.replicate.spaa13.doc_values import VALUES


def _write(data: Path, rows: list[tuple]) -> Path:
    data.mkdir(exist_ok=True)
    frame = pd.DataFrame(rows, columns=["table", "trace", "split", "orgs", "machines", "window", "policy", "ratio"])
    frame.to_csv(data / FILE, index=False)
    return data


def _figure_rows() -> list[tuple]:
    """Two seeds at k = 2 and 3 on one configuration: RAND printed (N=15) climbs above ROUNDROBIN from k = 3."""
    ratios = {  # policy -> ratio at (k, seed)
        "ROUNDROBIN": {(2, 0): 100, (2, 1): 300, (3, 0): 100, (3, 1): 100},
        "RAND (N=15)": {(2, 0): 0, (2, 1): 500, (3, 0): 4, (3, 1): 6},
        "DIRECTCONTR": {(2, 0): 1, (2, 1): 1, (3, 0): 5, (3, 1): 5},
        "RAND printed (N=15)": {(2, 0): 0, (2, 1): 10, (3, 0): 150, (3, 1): 250},
    }
    return [("fig4", "LPC-EGEE", "uniform", k, 17, seed, policy, value)
            for policy, by in ratios.items() for (k, seed), value in by.items()]


def test_figure_claims_by_hand(tmp_path: Path) -> None:
    data = _write(tmp_path / "data", _figure_rows())
    assert VALUES["spaa13-seeds"](data) == "2"
    assert VALUES["spaa13-printed-15-above-rr"](data) == "k = 3"  # k = 2: 5 < 200; k = 3: 200 > 100
    assert VALUES["spaa13-k2-outlier"](data) == "500 s, every other run is at 0"
    # points (mean over seeds): k = 2: RAND 250 vs DC 1; k = 3: RAND 5 vs DC 5, a tie
    assert VALUES["spaa13-points-rand-dc"](data) == "0 / 1 / 1"
    # runs: k = 2 seed 0 RAND fairer (0 < 1), seed 1 DC fairer, k = 3 seed 0 RAND, seed 1 DC
    assert VALUES["spaa13-runs-rand-dc"](data) == "2 / 2 / 0"
    assert VALUES["spaa13-rr-over-rand"](data) == "1.2"  # 150 / 127.5
    assert VALUES["spaa13-points-leader-rand-dc"](data) == "DIRECTCONTR"
    # no Zipf rows and a tie at k = 3: only the points put DIRECTCONTR ahead
    assert VALUES["spaa13-verdict-reverse"](data) == "by 1 of the three measures above"
    assert VALUES["spaa13-without-k2-rand-dc"](data) == ("but not without k = 2 (RAND (N=15) 5.0 against "
                                                         "DIRECTCONTR 5.0)")


def test_table_claims_by_hand(tmp_path: Path) -> None:
    rows = []
    for trace, means in (("LPC-EGEE", {"RAND (N=15)": 161, "DIRECTCONTR": 200, "ROUNDROBIN": 3000, "FAIRSHARE": 150,
                                       "UTFAIRSHARE": 205}),
                         ("RICC", {"RAND (N=15)": 900, "DIRECTCONTR": 800, "ROUNDROBIN": 9000, "FAIRSHARE": 900,
                                   "UTFAIRSHARE": 1000})):
        for split in ("uniform", "zipf"):
            rows += [("table", trace, split, 5, 70, 0, policy, value) for policy, value in means.items()]
    data = _write(tmp_path / "data", rows)
    assert VALUES["spaa13-table-paper-order"](data) == "on LPC-EGEE only"  # RICC: DIRECTCONTR ahead of RAND
    assert VALUES["spaa13-table-lpc-rand"](data) == "161.0 against the paper's 161"
    assert VALUES["spaa13-table-uniform-dc-utfs-close"](data) == "on LPC-EGEE only"  # RICC: 800 vs 1000
    assert VALUES["spaa13-table-uniform-fs-ahead"](data) == "on LPC-EGEE only"
    assert VALUES["spaa13-table-zipf-dc-ahead"](data) == "on RICC only"
    assert VALUES["spaa13-table-ricc-dc-over-paper"](data) == "0.5"  # 800 / 1520


def test_the_run_time_counts_the_cells_read_back(tmp_path: Path) -> None:
    stores = tmp_path / "sweep"
    for part, n in (("figs", 3), ("table", 2)):
        (stores / part / "cells").mkdir(parents=True)
        for i in range(n):
            (stores / part / "cells" / f"{i}.parquet").write_bytes(b"")
    log = tmp_path / "log.txt"
    log.write_text("start 06:00:00\nwall 100.0 s user 150.5 s sys 9.5 s\nend 06:01:40 rc=0\n")
    day = dt.datetime(2026, 11, 25, tzinfo=dt.UTC)
    os.utime(log, (day.replace(hour=6, minute=2).timestamp(),) * 2)
    earlier = day.replace(hour=5).timestamp()
    for old in [stores / "table" / "cells" / "0.parquet", stores / "table" / "cells" / "1.parquet",
                stores / "figs" / "cells" / "0.parquet"]:
        os.utime(old, (earlier, earlier))
    for new in (stores / "figs" / "cells").glob("[12].parquet"):
        os.utime(new, (day.replace(hour=6, minute=1).timestamp(),) * 2)
    data = tmp_path / "data"
    data.mkdir()
    assert ship_run_time(log, stores, data) == data / RUN_FILE
    assert pd.read_csv(data / RUN_FILE).iloc[0].to_dict() == pytest.approx(
        {"wall_s": 100.0, "user_s": 150.5, "sys_s": 9.5, "cells_simulated": 2, "cells_resumed": 3})
    assert VALUES["spaa13-run-time"](data) == ("100 s wall, 160 s CPU (user + sys) for the 2 cells it simulated; "
                                                "the other 3 of its 5 cells were read back from an earlier run's "
                                                "stores")


def test_disjoint_windows_claim_follows_the_spans(tmp_path: Path) -> None:
    """100 windows of 5·10^5 s need 5·10^7 s end to end: a 2.1·10^7 s trace cannot hold them, a 6·10^7 s one can."""
    from fairsched.replicate.spaa13.doc import SPANS_FILE

    rows = [("table", trace, "uniform", 5, 70, window, "DIRECTCONTR", 1.0)
            for trace in ("LPC-EGEE", "RICC") for window in range(100)]
    data = _write(tmp_path / "data", rows)
    spans = pd.DataFrame({"trace": ["LPC-EGEE", "RICC"], "first_submit": [3_585_977, 0],
                          "last_submit": [24_204_918, 13_216_249], "span_s": [20_618_941, 13_216_249]})
    spans.to_csv(data / SPANS_FILE, index=False)
    assert VALUES["spaa13-table-disjoint"](data) == ("cannot be in traces spanning 2.1·10^7 s (LPC-EGEE) and "
                                                     "1.3·10^7 s (RICC)")
    spans.assign(span_s=[60_000_000, 50_000_000]).to_csv(data / SPANS_FILE, index=False)
    assert VALUES["spaa13-table-disjoint"](data) == ("can be in traces spanning 6.0·10^7 s (LPC-EGEE) and "
                                                     "5.0·10^7 s (RICC)")
