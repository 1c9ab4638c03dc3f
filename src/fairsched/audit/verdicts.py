"""The report's first lines, in plain words, from the numbers of `fairsched.audit.core` (docs/audit.md).

Order: the answer (was sharing worth it, for every organization, separating the jobs wider than its own CPUs
from the jobs that fit), the game the answer rests on, the replay's own baseline beside the recorded one, who
subsidized whom (only beyond the 95 % interval of sampled Shapley values), then the pool size, the distance
from fairness, usage above entitlement and the records dropped or merged. A single organization has nothing to
share: the answer says so and no game is reported.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from fairsched.audit.game import ShapleyResult
from fairsched.audit.sharing import NO_GAME, SUBSIDIZED, SUBSIDIZING, UNSURE


def verdicts(orgs: pd.DataFrame, summary: dict[str, Any], shap: ShapleyResult) -> tuple[str, ...]:
    """The verdict lines (module docstring); the first one answers the operator's question."""
    lines = [_answer(orgs)]
    if len(orgs) > 1:
        lines += [_game(orgs, summary), _baseline(summary), _subsidies(orgs, shap)]
    if summary.get("cpus_excess_text"):
        lines.append(summary["cpus_excess_text"])
    if len(orgs) > 1:
        lines.append(f"Δψ/p_tot = {summary['delta_psi_over_ptot']:.4g} s (distance from "
                     f"{summary['fair_utilities']}); Shapley values {shap.method}.")
    over = orgs[orgs["usage_ratio"] > 1]
    if not over.empty and len(orgs) > 1:
        lines.append("Used more than its entitlement: " + ", ".join(
            f"{r.org} ({r.usage_ratio:.2f}×)" for r in over.itertuples()) + ".")
    lines.append(records_line(summary))
    return tuple(lines)


def _names(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _answer(orgs: pd.DataFrame) -> str:
    """The first line: alone against the pool, both replayed; the wide jobs apart from the jobs that fit."""
    if len(orgs) == 1:
        return (f"One organization ({orgs['org'].iat[0]}): there is nothing to share, so no coalition game is "
                "played; the report shows its usage and waits only.")
    idle = orgs[orgs["jobs"] == 0]
    orgs = orgs[orgs["jobs"] > 0]
    alone = orgs[orgs["better_alone"]]
    wide_only = orgs[~orgs["better_alone"] & orgs["better_alone_fit"]]
    parts = []
    if not idle.empty:
        parts.append(f"{_names(idle['org'].tolist())} ran no job in the window: "
                     + ("its" if len(idle) == 1 else "their") + " CPUs ("
                     + ", ".join(f"{r.cpus:,}" for r in idle.itertuples()) + ") served the others.")
    if not alone.empty:
        parts.append("Better off alone: " + ", ".join(
            f"{r.org} (ψ alone {r.alone_psi / r.replay_psi - 1:+.1%} vs the pool; mean wait "
            f"{r.alone_mean_wait:,.0f} s alone vs {r.replay_mean_wait:,.0f} s in the pool)" if r.replay_psi
            else str(r.org) for r in alone.itertuples()) + ".")
    if not wide_only.empty:
        wide = ", ".join(f"{r.org} {r.alone_jobs_too_wide:,}" for r in wide_only.itertuples())
        names = _names(wide_only["org"].tolist())
        who = "Every organization gains" if len(wide_only) == len(orgs) else f"{names} gain" + (
            "s" if len(wide_only) == 1 else "")
        parts.append(f"{who} from sharing only because of {'its' if len(wide_only) == 1 else 'their'} jobs "
                     f"wider than {'its' if len(wide_only) == 1 else 'their'} own CPUs ({wide}); for the jobs "
                     f"that fit, {names} would have done better alone.")
    if orgs.empty:
        return " ".join(parts)
    if alone.empty and wide_only.empty:
        parts.append(("Sharing paid off: every organization with jobs" if not idle.empty else
                      "Sharing paid off: every organization") + " got more utility (ψsp) in the pool than alone on its "
                     "own CPUs, also counting only the jobs that fit its own CPUs.")
    elif alone.empty and len(wide_only) < len(orgs):
        rest = orgs[~orgs["better_alone_fit"]]["org"].tolist()
        parts.append(f"{_names(rest)} gained from sharing also on the jobs that fit.")
    return " ".join(parts)


def _game(orgs: pd.DataFrame, summary: dict[str, Any]) -> str:
    own = ", ".join(f"{r.org} {r.cpus:,}" for r in orgs.itertuples())
    return (f"The game: alone = {summary['reference_scheduler']} of the organization's jobs on its own CPUs "
            f"({own}); the pool = the same scheduler on all {summary['cpus']:,} CPUs; both sides are replays "
            "(the same world), compared by ψsp at the end of the window; a job wider than its organization's "
            "CPUs cannot run alone.")


def _baseline(summary: dict[str, Any]) -> str:
    return (f"The replay's own baseline: in the replayed pool a job waits {summary['replay_mean_wait']:,.0f} s on "
            f"average, against {summary['recorded_mean_wait']:,.0f} s recorded (the replay ignores nodes, memory "
            f"and priorities); utility v(N) = {summary['v_grand']:,} replayed against Σψ = {summary['sum_psi']:,} "
            "recorded. The recorded figures are shown beside the replayed ones, never mixed with them.")


def _subsidies(orgs: pd.DataFrame, shap: ShapleyResult) -> str:
    sampled = shap.method == "sampled"

    def show(r: Any) -> str:
        text = f"{r.org} ({_percent(r.gap_rel)}"
        return text + (f", 95% interval {_percent(r.gap_rel_low)} to {_percent(r.gap_rel_high)})" if sampled
                       else ")")

    given = orgs[orgs["subsidy"] == SUBSIDIZED]
    gave = orgs[orgs["subsidy"] == SUBSIDIZING]
    head = ("Recorded utility against each organization's share of the contribution (φ scaled to the recorded "
            "total), relative to it")
    if sampled:
        head += (f"; Shapley values sampled ({shap.n_samples} permutations), so the gaps need not sum to zero and "
                 "an organization whose 95% interval holds 0 is called neither")
    body = []
    if not given.empty:
        body.append("subsidized: " + ", ".join(show(r) for r in given.itertuples()))
    if not gave.empty:
        body.append("subsidizing: " + ", ".join(show(r) for r in gave.itertuples()))
    unsure = orgs[orgs["subsidy"] == UNSURE]
    if not unsure.empty:
        body.append("within the interval: " + ", ".join(show(r) for r in unsure.itertuples()))
    return head + ": " + ("; ".join(body) if body else "nobody got more or less than its share") + "."


def _percent(x: float) -> str:
    """A relative gap with three significant digits: +2.91%, -0.0153%."""
    return f"{x * 100:+.3g}%"


def records_line(summary: dict[str, Any]) -> str:
    """Jobs read and used, and every record dropped or merged, by reason (nothing is dropped silently)."""
    skipped = summary.get("skipped") or {}
    return (f"Jobs read {summary['jobs_read']:,}, used {summary['jobs_used']:,}; records dropped or merged: "
            + (", ".join(f"{k}: {v:,}" for k, v in skipped.items()) or "none") + ".")


def worth_it(row: Any) -> str:
    """Was sharing worth it for this organization (one row of orgs), in a few words (the page's answer table)."""
    if row.subsidy == NO_GAME:
        return "no game (one organization)"
    if row.jobs == 0:
        return "no jobs: its CPUs served the others"
    if row.better_alone:
        return "no: better off alone"
    if row.better_alone_fit:
        return f"only for its {row.alone_jobs_too_wide:,} jobs too wide to run alone"
    return "yes"


def who_subsidized_whom(orgs: pd.DataFrame) -> str:
    """One sentence: who gave, who received, how many CPU-hours and what share of its contribution."""
    if len(orgs) < 2:
        return "One organization: nobody subsidized anybody."

    def part(r: Any) -> str:
        return f"{r.org} {abs(r.subsidy_cpu_hours):,.1f} CPU-hours ({_percent(r.gap_rel)} of its contribution)"

    gave = orgs[orgs["subsidy"] == SUBSIDIZING].sort_values("subsidy_cpu_hours")
    got = orgs[orgs["subsidy"] == SUBSIDIZED].sort_values("subsidy_cpu_hours", ascending=False)
    if gave.empty and got.empty:
        return "Nobody subsidized anybody beyond the 95% interval of the Shapley values."
    head = (f"{_names(gave['org'].tolist())} subsidized {_names(got['org'].tolist())}. " if len(gave) and len(got)
            else "")
    body = [f"{label}: " + "; ".join(part(r) for r in rows.itertuples())
            for label, rows in (("Gave", gave), ("Received", got)) if len(rows)]
    return head + ". ".join(body) + "."
