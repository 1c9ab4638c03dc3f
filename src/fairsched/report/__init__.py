"""Rendering and writing of results: terminal tables, JSON, the PNG figure and the output directory.

The library computes (`fairsched.experiment`, `fairsched.online.metrics`); this package only presents and
writes, atomically (`fairsched._io.atomic_write`).
"""

from fairsched.report.export import write_compare_outputs
from fairsched.report.plots import utility_figure
from fairsched.report.tables import compare_renderable, to_json

__all__ = ["compare_renderable", "to_json", "utility_figure", "write_compare_outputs"]
