"""Run AccaSim's EASY backfilling on an SWF log (a peer of `bench_process.py`; runs in AccaSim's own venv).

    /work/peers-venv/bin/python benchmarks/peer_accasim.py LOG PROCESSORS RESULTS_DIR

AccaSim 1.1.3 (PyPI) imports ``collections.Mapping`` and friends, which Python 3.10 removed: the aliases are put
back from `collections.abc` before it is imported. The machine is PROCESSORS nodes of one core each (the SWF
"processors" of the log), the dispatcher ``EASYBackfilling`` with the ``FirstFit`` allocator, AccaSim's default
outputs written into RESULTS_DIR (they are part of its whole process). Prints nothing on success.
"""

import collections
import collections.abc
import json
import sys
from pathlib import Path

for _name in ("Mapping", "MutableMapping", "Sequence", "Iterable", "Callable", "Hashable", "MutableSet"):
    if not hasattr(collections, _name):
        setattr(collections, _name, getattr(collections.abc, _name))

from accasim.base.allocator_class import FirstFit  # noqa: E402
from accasim.base.scheduler_class import EASYBackfilling  # noqa: E402
from accasim.base.simulator_class import Simulator  # noqa: E402


def main() -> None:
    log, processors, results = sys.argv[1], int(sys.argv[2]), Path(sys.argv[3])
    results.mkdir(parents=True, exist_ok=True)
    config = results / "sys_config.json"
    config.write_text(json.dumps({"groups": {"g0": {"core": 1}}, "resources": {"g0": processors}}))
    dispatcher = EASYBackfilling(FirstFit())
    simulator = Simulator(log, str(config), dispatcher, RESULTS_FOLDER_PATH=str(results), show_statistics=False)
    simulator.start_simulation()


if __name__ == "__main__":
    main()
