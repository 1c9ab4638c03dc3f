"""Plot REF's run time against k from `bench_ref.py` output (docs/img/ref_runtime_vs_k.png).

    .venv/bin/python benchmarks/bench_ref.py > ref.json
    .venv/bin/python benchmarks/plot_ref_scaling.py ref.json [docs/img/ref_runtime_vs_k.png]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt


def main() -> None:
    document = json.loads(Path(sys.argv[1]).read_text())
    out = Path(sys.argv[2] if len(sys.argv) > 2 else "docs/img/ref_runtime_vs_k.png")
    rows = [r for r in document["results"] if r.get("policy") == "ref" and r.get("horizon") is None]
    rows.sort(key=lambda r: r["orgs"])
    ks, seconds = [r["orgs"] for r in rows], [r["seconds"] for r in rows]
    fig, ax = plt.subplots(figsize=(6.4, 4))
    ax.semilogy(ks, seconds, "o-", label="REF (lookahead), whole LPC-EGEE, 70 machines")
    ax.axhline(600, color="grey", ls="--", lw=1, label="target for k = 10: 10 min")
    ax.set_xlabel("organizations k (REF simulates 2**k − 1 coalitions)")
    ax.set_ylabel("run time (s, log scale)")
    ax.set_title("REF run time against k (214,322 jobs)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    print(json.dumps({"plot": str(out), "points": dict(zip(ks, seconds, strict=True))}))


if __name__ == "__main__":
    main()
