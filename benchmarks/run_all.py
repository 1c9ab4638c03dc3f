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
        lines = [json.loads(line) for line in done.stdout.splitlines() if line.strip().startswith("{")]
        # A script prints either one (indented) JSON document or one JSON object per line.
        documents.append(json.loads(done.stdout) if not lines or done.stdout.lstrip().startswith("{\n")
                         else {"benchmark": script.stem, "results": lines})
    print(json.dumps(documents, indent=1))


if __name__ == "__main__":
    main()
