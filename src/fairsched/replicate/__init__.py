"""Replications of published experiments, one module per paper, each exposing ``run(config) -> ReplicationResult``.

* `fairsched.replicate.jsspp05`: G. Sabin, P. Sadayappan, "Unfairness metrics for space-sharing parallel job
  schedulers", JSSPP 2005, §4–§5 (docs/replication/jsspp05.md).

The ``fairsched replicate <paper>`` commands only call ``run`` and render its result (`fairsched.report`).
"""
