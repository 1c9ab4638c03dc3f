"""Run every benchmark script of this folder and print their JSON documents as one JSON list (`make bench`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> None:
    documents = []
    for script in sorted(HERE.glob("bench_*.py")):
        done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, check=False)
        if done.returncode != 0:
            documents.append({"benchmark": script.stem, "error": done.stderr.strip().splitlines()[-1:]})
            continue
        documents.append(json.loads(done.stdout))
    print(json.dumps(documents, indent=1))


if __name__ == "__main__":
    main()
