"""Compiled primitives shared by several models, each with a slow twin in ``tests/naive/``.

* `first_fit` — first-fit processor assignment (the backfill and MOSP Gantt charts).
"""
