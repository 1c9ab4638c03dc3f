"""Rendering and writing of results: terminal tables, JSON, PNG figures and output directories.

One module per model (`online`, `backfill`, `mosp`, `openshop`) on shared primitives (`tables`: tables, JSON-safe
values, number formats; `export`: atomic CSV/PNG/JSON writers). The library computes (`fairsched.<model>`, whose
``experiment.run`` returns a `Result` of data); this package only presents and writes, atomically
(`fairsched._io.atomic_write`). `write_result` writes any model's `Result` as the model command's ``--out`` does.
Import the module you use (e.g. ``from fairsched.report.online import write_compare_outputs``): the package imports
nothing, so that a command pays only for what it renders.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fairsched._contract import Result

# The model's experiment module -> the report module whose `write_result` writes that model's `Result`.
RESULT_WRITERS: dict[str, str] = {
    "fairsched.online.experiment": "fairsched.report.online",
    "fairsched.backfill.experiment": "fairsched.report.backfill",
    "fairsched.mosp.experiment": "fairsched.report.mosp",
    "fairsched.openshop.experiment": "fairsched.report.openshop",
    "fairsched.audit.whatif_experiment": "fairsched.report.whatif",
}


def write_result(result: Result, out_dir: str | Path) -> dict[str, Path]:
    """Write the files of the model command's ``--out DIR`` for `result` (what ``experiment.run`` returned).

    Parameters
    ----------
    result : the `Result` of ``fairsched.<model>.experiment.run`` for one of the four models.
    out_dir : the directory to write into (created if needed); each file is written atomically.

    Returns
    -------
    dict mapping each file's path relative to `out_dir` to its full path, ``report.json`` included.

    Raises
    ------
    TypeError : `result` is not a `Result` of one of the four models (a model of one's own writes its own files).
    """
    module = type(result).__module__
    if module not in RESULT_WRITERS:
        raise TypeError(f"no writer for {type(result).__qualname__} of {module}; write_result writes the Result of "
                        f"{', '.join(RESULT_WRITERS)}")
    return importlib.import_module(RESULT_WRITERS[module]).write_result(result, out_dir)
