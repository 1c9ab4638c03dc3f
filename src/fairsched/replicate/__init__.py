"""Replications of published experiments: one folder per paper, each exposing ``run(config) -> <Paper>Result``.

* `fairsched.replicate.jsspp05`: Sabin & Sadayappan, JSSPP 2005, §4–§5 (docs/replication/jsspp05.md);
* `fairsched.replicate.ppam13`: Skowron & Rzadca, PPAM 2013, Tables 1–2 (docs/replication/ppam13.md);
* `fairsched.replicate.spaa13`: Skowron & Rzadca, SPAA 2013, §6.3 (docs/replication/spaa13.md);
* `fairsched.replicate.tpds11`: Dutot, Pascual, Rzadca & Trystram, IEEE TPDS 2011, §7 (docs/replication/tpds11.md);
* `fairsched.replicate.networking20`: Shafiee & Ghaderi, IFIP Networking 2020, §VII (docs/replication/networking20.md).

A paper folder holds ``paper`` (the set-up, the paper's values, the configuration), ``replication`` (``run``, through
the sweep layer), ``cell`` (the sweep's model, named by the shipped specs of ``specs/``), the runs behind its doc
(``ablations``, ``variants``, ...) and the doc's renderers (``doc``, ``doc_values``). What they share is beside
them: `fairsched.replicate._common` (the result's and the configuration's common fields, the traces directory, the
sweep loop, the verdict scale), `fairsched.replicate._online_windows` and `_online_plots` (the windows protocol of
the two online papers), `fairsched.replicate._doc_format` (the docs' block markers and table format) and
`fairsched.replicate._doc_tables` (the one module that gathers every paper's renderers).

The ``fairsched replicate <paper>`` commands only call ``run`` and render its result (`fairsched.report`).
"""
