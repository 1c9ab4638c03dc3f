"""Plot REF's run time against k from `bench_ref.py` output (docs/img/ref_runtime_vs_k.png).

    .venv/bin/python benchmarks/bench_ref.py > ref.json
    .venv/bin/python benchmarks/plot_ref_scaling.py ref.json [more.json ...] [docs/img/ref_runtime_vs_k.png]
    .venv/bin/python benchmarks/plot_ref_scaling.py docs/performance/data/ref.json   # the saved measurement

Several JSON documents may be given (e.g. one run of the small k and one of k = 11, 12): their rows are pooled.
CPU time (``cpu_s``) is plotted where the run recorded it, else the wall time.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt


def series(rows: list[dict], horizon: int | None) -> tuple[list[int], list[float]]:
    """(k, seconds) of REF on the full trace (horizon None) or on the window; CPU time where the run measured it."""
    chosen = sorted((r for r in rows if r.get("policy") == "ref" and r.get("horizon") == horizon),
                    key=lambda r: r["orgs"])
    return [r["orgs"] for r in chosen], [r.get("cpu_s", r["seconds"]) for r in chosen]


def main() -> None:
    documents = [json.loads(Path(arg).read_text()) for arg in sys.argv[1:] if arg.endswith(".json")]
    outs = [arg for arg in sys.argv[1:] if not arg.endswith(".json")]
    out = Path(outs[0] if outs else "docs/img/ref_runtime_vs_k.png")
    # bench_ref.py output, or its saved form (`run_all.py --save`: the document under "result")
    rows = [row for document in documents for row in document.get("result", document)["results"]]
    full, windowed = series(rows, None), series(rows, 10**6)
    fig, ax = plt.subplots(figsize=(6.4, 4))
    ax.semilogy(*full, "o-", label="whole LPC-EGEE (214,322 jobs)")
    if windowed[0]:
        ax.semilogy(*windowed, "s--", label="first 10⁶ s of LPC-EGEE")
    ax.axhline(600, color="grey", ls=":", lw=1, label="target for k = 12: 10 min")
    ax.set_ylim(top=max(ax.get_ylim()[1], 1500))  # keep the target line in view
    ax.set_xlabel("organizations k (REF simulates 2**k − 1 coalitions)")
    ax.set_ylabel("CPU time of one simulation (s, log scale)")
    ax.set_title("Exact REF: run time against k (70 machines)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="lower right")
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    print(json.dumps({"plot": str(out), "whole_trace": dict(zip(*full, strict=True)),
                      "window": dict(zip(*windowed, strict=True))}))


if __name__ == "__main__":
    main()
