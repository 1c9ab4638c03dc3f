"""The models a sweep can run: name -> module following the experiment contract.

A model module exports ``Config`` (a frozen dataclass with ``from_mapping(mapping)`` and ``input_paths()``) and
``run(config, seed, *, progress=None) -> Result`` whose ``Result.rows()`` is a pandas DataFrame, one row per
policy or algorithm; optionally ``Config.not_applicable(options) -> field names``, the options that have no
effect with the others (backfill's ``bf_*`` unless the rule is ``slurm``: `fairsched.sweep.spec.expand` leaves them
out of such a cell). A spec names one of `MODELS`, or the dotted import path of any module that follows the
contract (``model = "mypackage.my_experiment"``): that is how tests plug in a toy model, and how a user sweeps a
model of their own. Modules are imported only when a sweep needs them.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from fairsched.errors import ConfigError

MODELS: dict[str, str] = {
    "online": "fairsched.online.experiment",
    "backfill": "fairsched.backfill.experiment",
    "mosp": "fairsched.mosp.experiment",
    "openshop": "fairsched.openshop.experiment",
    "whatif": "fairsched.audit.whatif_experiment",
}


def model_module_path(name: str) -> str:
    """The import path of model `name`: a `MODELS` entry, or `name` itself when it is a dotted path.

    >>> model_module_path("mosp")
    'fairsched.mosp.experiment'
    >>> model_module_path("tests._toy_model")
    'tests._toy_model'
    """
    if name in MODELS:
        return MODELS[name]
    if "." in name:
        return name
    raise ConfigError(f"unknown model {name!r}; choose one of {', '.join(MODELS)}, or give the dotted import path "
                      "of a module that exports Config and run")


def load_model(module_path: str) -> ModuleType:
    """Import the model module at `module_path` and check that it follows the contract (``Config``, ``run``)."""
    try:
        module = importlib.import_module(module_path)
    except ImportError as exc:
        raise ConfigError(f"model module {module_path!r} cannot be imported ({exc})") from exc
    missing = [name for name in ("Config", "run") if not hasattr(module, name)]
    if missing:
        raise ConfigError(f"model module {module_path!r} does not follow the experiment contract: it lacks "
                          f"{', '.join(missing)} (see docs/sweeps.md)")
    return module
