"""One registry shape for the four models (`fairsched._registry`), one front door each, schedules with ``meta``."""

from __future__ import annotations

import numpy as np
import pytest

import fairsched
from fairsched import backfill, mosp, online, openshop
from fairsched._registry import Entry, Registry
from fairsched.errors import ConfigError, UnknownPolicyError
from fairsched.mosp.generate import generate
from fairsched.mosp.policies.mocca_alpha import mocca_alpha
from fairsched.openshop.generate import random_instance

REGISTRIES = {
    "online": online.REGISTRY,
    "backfill orders": backfill.policies.ORDERS,
    "backfill rules": backfill.policies.BACKFILLS,
    "mosp": mosp.ALGORITHMS,
    "openshop": openshop.ALGORITHMS,
}


@pytest.mark.parametrize("registry", REGISTRIES.values(), ids=REGISTRIES.keys())
def test_every_model_registers_entries_with_tags_and_params(registry: Registry) -> None:
    assert isinstance(registry, Registry) and len(registry) >= 3
    for name in registry:
        entry = registry[name]
        assert isinstance(entry, Entry) and entry.name == name and entry.plugin is not None
        assert registry.entry(f" {name.upper()} ") is entry
    with pytest.raises(UnknownPolicyError) as caught:
        registry.entry("no-such")
    assert str(caught.value).endswith(f"'no-such'; choose one of: {', '.join(registry)}")


def test_tags_are_declared_where_engines_read_them() -> None:
    assert online.REGISTRY["ref"].tags.clairvoyant and not online.REGISTRY["roundrobin"].tags.clairvoyant
    assert backfill.policies.BACKFILLS["easy"].tags.reservations == 1
    assert backfill.policies.BACKFILLS["conservative"].tags.reservations == -1
    event_driven = {name for name, entry in openshop.ALGORITHMS.items() if entry.tags.event_driven}
    assert {"fifo", "luf", "sptf"} <= event_driven and not {"pba", "kmaxmin", "exact"} & event_driven


def test_moccas_alpha_is_a_registered_parameter_of_the_front_door() -> None:
    assert mosp.ALGORITHMS["mocca4"].params == {"alpha": 4.0}
    instance = generate("uni", n_orgs=4, n_jobs=40, procs=np.full(4, 8), seed=np.random.default_rng(3))
    default = mosp.solve(instance, "mocca4")
    assert np.array_equal(default.start, mocca_alpha(instance, alpha=4.0).start)
    other = mosp.solve(instance, "mocca4", alpha=2.5)
    direct = mocca_alpha(instance, alpha=2.5)
    assert np.array_equal(other.start, direct.start) and np.array_equal(other.cluster, direct.cluster)
    assert other.meta["parameters"] == {"alpha": 2.5} and other.algorithm == "mocca4"
    with pytest.raises(ConfigError, match="takes no parameter beta; its parameters: alpha"):
        mosp.solve(instance, "mocca4", beta=1.0)
    with pytest.raises(ConfigError, match="takes no parameter alpha; its parameters: none"):
        mosp.solve(instance, "local", alpha=1.0)


def test_front_doors_return_a_schedule_and_meta() -> None:
    from fairsched.scenario import scenario_from_arrays

    scenario = scenario_from_arrays(release=[0, 0, 1], processing_time=[3, 2, 1], org=[0, 1, 0],
                                    machines_per_org=[1, 1])
    on = online.simulate(scenario, online.get_policy("rand"), seed=5)
    assert len(on.schedule) == 3 and on.meta["seed"] == 5
    instance = generate("uni", n_orgs=3, n_jobs=20, procs=np.full(3, 4), seed=np.random.default_rng(1))
    m = mosp.solve(instance, "mocca+ilba", local_order="rnd", seed=7)
    assert m.meta == {"algorithm": "mocca+ilba", "parameters": {"alpha": 3.0}, "local_order": "rnd", "seed": 7,
                      "fairsched_version": fairsched.__version__}
    shop = random_instance(8, 3, np.random.default_rng(2))
    o = openshop.solve(shop, "kmaxmin", k=3, seed=4)
    assert o.meta["parameters"] == {"k": 3} and o.meta["seed"] == 4 and o.meta["online"] is False
    live = openshop.run_online(shop, "sptf", seed=1)
    assert live.meta["algorithm"] == "sptf" and live.meta["online"] is True


def test_a_plugin_that_returns_no_schedule_is_a_policy_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """The front doors check what an algorithm returns, as the online engine checks each decision: a newcomer's
    algorithm returning a list gets a PolicyError naming it, not a TypeError from deep inside."""
    from fairsched.errors import PolicyError
    from fairsched.mosp.instance import MospInstance
    from fairsched.openshop.instance import OpenShopInstance

    def listing(instance: object, **_: object) -> list[int]:
        return [0]

    monkeypatch.setattr(mosp, "get_algorithm", lambda name: Entry("listing", listing))
    with pytest.raises(PolicyError, match=r"^MOSP algorithm 'listing' returned list; an algorithm returns one "
                                          r"MospSchedule"):
        mosp.solve(MospInstance.from_arrays([1], [0], [1], [1]), "listing")
    monkeypatch.setattr(openshop, "get_algorithm", lambda name: Entry("listing", listing))
    with pytest.raises(PolicyError, match=r"^openshop algorithm 'listing' returned list; an algorithm returns one "
                                          r"OpenShopSchedule"):
        openshop.solve(OpenShopInstance.from_dense([[1]]), "listing")
