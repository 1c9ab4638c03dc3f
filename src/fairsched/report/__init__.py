"""Rendering and writing of results: terminal tables, JSON, PNG figures and output directories.

One module per model (`online`, `backfill`, `mosp`, `openshop`) on shared primitives (`tables`: tables, JSON-safe
values, number formats; `export`: atomic CSV/PNG/JSON writers). The library computes (`fairsched.<model>`); this
package only presents and writes, atomically (`fairsched._io.atomic_write`).
"""

from fairsched.report.online import compare_renderable, to_json, utility_figure, write_compare_outputs

__all__ = ["compare_renderable", "to_json", "utility_figure", "write_compare_outputs"]
