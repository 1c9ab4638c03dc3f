"""Compiled primitives shared by several models, each with a slow twin in ``tests/naive/``.

* `first_fit` — first-fit processor assignment (the backfill and MOSP Gantt charts).
* `int_csv` — integer CSV formatting (`fairsched._io.write_csv`; its slow twin is pandas' ``to_csv``).
"""
