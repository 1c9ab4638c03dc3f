"""Compiled primitives shared by several models (issue 15 §2), each with a slow twin in ``tests/naive/``.

* `first_fit` — first-fit processor assignment (the backfill and MOSP Gantt charts).
"""
