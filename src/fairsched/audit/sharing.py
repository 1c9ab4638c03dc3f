"""Was sharing worth it, and who subsidized whom: the per-organization columns of the coalition game.

Both sides of the sharing incentive are measured in the replay's world (docs/audit.md, "The game"): alone is
the reference scheduler on the organization's own CPUs (σ[{u}]), the pool is the same scheduler on all CPUs
(σ[N], whose total utility is v(N)). The recorded schedule ran on nodes, with memory limits and an operator's
priorities that the replay ignores, so its utilities are shown beside, never mixed into, the alone-or-pool
comparison. Because a job wider than u's CPUs cannot run alone, ψ in the pool is also counted over the jobs
that fit (``replay_psi_fit``): "sharing paid off" must hold there too, or the report says that the gain comes
only from the wide jobs.

Subsidies compare the recorded utility ψ_u with u's share of the contribution applied to the recorded total:
fair_psi_u = φ_u · Σ_v ψ_v / v(N). With exact Shapley values Σφ = v(N), so Σ fair_psi = Σψ and the gaps
ψ − fair_psi sum to zero; sampled values (``--exact-up-to`` exceeded) do not sum to v(N) exactly, nor do their
gaps to zero. The gap relative to fair_psi, ψ / fair_psi − 1, carries the 95 % interval of φ: an organization is
called subsidized (subsidizing) only when the whole interval lies above (below) 0.

In CPU-hours, a gap of utility is valued at the pool's mean utility per unit of work, Σψ / p_tot (p_tot the
CPU-seconds done by t_end): subsidy_cpu_hours = (ψ − fair_psi) · p_tot / Σψ / 3600 = gap_rel · fair_psi · p_tot /
Σψ / 3600, i.e. the relative gap times the CPU-hours its share of the contribution is worth. Positive: it
received that many CPU-hours from the others; negative: it gave them.
"""

from __future__ import annotations

import math

from fairsched.audit import game

SUBSIDIZED = "subsidized"
SUBSIDIZING = "subsidizing"
EVEN = "even"
UNSURE = "within the 95% interval"
NO_GAME = "no game"


def sharing_columns(the_game: game.Game, shap: game.ShapleyResult, psi: list[int], p_tot: int) -> list[dict]:
    """One dict per organization with the game's columns of `fairsched.audit.ORG_COLUMNS` (module docstring)."""
    k = the_game.n_orgs
    if k == 1:
        nan = float("nan")
        return [{"fair_psi": nan, "gap": nan, "subsidy_cpu_hours": nan, "gap_rel": nan, "gap_rel_low": nan,
                 "gap_rel_high": nan,
                 "subsidy": NO_GAME, "alone_psi": nan, "replay_psi": nan, "replay_psi_fit": nan,
                 "alone_mean_wait": nan, "replay_mean_wait": nan, "alone_mean_bsld": nan, "better_alone": False,
                 "better_alone_fit": False, "alone_jobs_too_wide": 0}]
    v_grand = shap.values[(1 << k) - 1]
    scale = sum(psi) / v_grand if v_grand else float("nan")
    rows = []
    for u in range(k):
        alone, pool = game.alone_stats(the_game, u), game.pool_stats(the_game, u)
        fair = float(shap.phi[u]) * scale
        low, high = float(shap.low[u]) * scale, float(shap.high[u]) * scale
        rel = _relative(psi[u], fair)
        rel_low, rel_high = _relative(psi[u], high), _relative(psi[u], low)   # ψ/x − 1 falls as x grows
        if rel_low > 0:
            subsidy = SUBSIDIZED
        elif rel_high < 0:
            subsidy = SUBSIDIZING
        else:
            subsidy = EVEN if shap.method == "exact" else UNSURE
        rows.append({
            "fair_psi": fair, "gap": (psi[u] - fair) / p_tot if p_tot else float("nan"),
            "subsidy_cpu_hours": (psi[u] - fair) * p_tot / sum(psi) / 3600 if sum(psi) else float("nan"),
            "gap_rel": rel,
            "gap_rel_low": rel_low, "gap_rel_high": rel_high, "subsidy": subsidy, **alone, **pool,
            "better_alone": bool(alone["alone_psi"] > pool["replay_psi"]),
            "better_alone_fit": bool(alone["alone_psi"] > pool["replay_psi_fit"]),
        })
    return rows


def _relative(psi: float, fair: float) -> float:
    """ψ / fair − 1 (+inf when fair <= 0 < ψ; 0 when both are 0)."""
    if fair > 0:
        return psi / fair - 1
    return 0.0 if psi == 0 else math.inf

