"""Compiled primitives shared by several models, each with a slow twin in ``tests/naive/``.

* `first_fit` — first-fit processor assignment (the backfill and MOSP Gantt charts).
* `heap` — one binary min-heap over lexicographic key rows (the event queues of the online engine, REF/RAND,
  MOSP list scheduling and the openshop baselines; its slow twin is `heapq` on tuples).
* `int_csv` — integer CSV formatting (`fairsched._io.write_csv`; its slow twin is pandas' ``to_csv``).
"""
