"""Rendering and writing of results: terminal tables, JSON, PNG figures and output directories.

One module per model (`online`, `backfill`, `mosp`, `openshop`) on shared primitives (`tables`: tables, JSON-safe
values, number formats; `export`: atomic CSV/PNG/JSON writers). The library computes (`fairsched.<model>`); this
package only presents and writes, atomically (`fairsched._io.atomic_write`). Import the module you use (e.g.
``from fairsched.report.online import write_compare_outputs``): the package imports nothing, so that a command
pays only for what it renders.
"""
