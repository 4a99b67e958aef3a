"""project_schedule: a project manager plans tasks, dates, vendors and budgets with the assistant.

One scenario per pattern; every dependent value is derived in ``compute`` from the inputs the
conversation states, so the gold patch is the diff before/after the requested edit.
"""

from __future__ import annotations

import copy
import datetime as dt
import math
import re
from typing import Any

from pytest_revprop.authoring.helpers import add_days, all_of, count_word, date_regex, money
from pytest_revprop.authoring.scenario import (
    SHIPPED,
    Draw,
    Move,
    Override,
    Revision,
    Scenario,
    Turn,
    regex,
)

DOMAIN = "project_schedule"


def _usd(x: float) -> str:
    return f"${x:,.2f}"


# --------------------------------------------------------------------------- schedule-labor-hours
# Arithmetic: one task's hours feed its cost, the phase and role totals, labor, contingency,
# the all-in budget, the client's payment split and the summary line.

RATES = {"designer": 85, "developer": 95, "qa": 70, "pm": 110}
RATE_POOLS = {
    "designer": [85, 80, 90],
    "developer": [95, 90, 100, 105],
    "qa": [70, 65, 75],
    "pm": [110, 100, 120],
}
ROLE_WORDS = {"designer": "designer", "developer": "developer", "qa": "QA", "pm": "PM"}
# (name, phase, role, hours) per size; the migration task is the one the request edits.
LABOR_TASKS: dict[int, list[tuple[str, str, str, int]]] = {
    10: [
        ("Content migration", "build", "developer", 24),
        ("Booking form integration", "build", "developer", 40),
    ],
    50: [
        ("Wireframes", "design", "designer", 30),
        ("Visual design", "design", "designer", 36),
        ("Content migration", "build", "developer", 24),
        ("Booking form integration", "build", "developer", 40),
        ("Accessibility testing", "launch", "qa", 20),
    ],
    100: [
        ("Discovery workshops", "design", "pm", 12),
        ("Wireframes", "design", "designer", 30),
        ("Visual design", "design", "designer", 36),
        ("Content migration", "build", "developer", 24),
        ("Booking form integration", "build", "developer", 40),
        ("Patient portal links", "build", "developer", 16),
        ("Accessibility testing", "launch", "qa", 20),
        ("Cross-browser QA", "launch", "qa", 18),
        ("Go-live support", "launch", "developer", 8),
        ("Launch coordination", "launch", "pm", 10),
    ],
}
# tasks a user may add: (name, phase, role)
NEW_LABOR_TASKS = [
    ("Analytics setup", "build", "developer"),
    ("Redirect mapping", "build", "developer"),
    ("Performance tuning", "launch", "developer"),
    ("Style guide", "design", "designer"),
    ("Load testing", "launch", "qa"),
    ("Stakeholder demos", "launch", "pm"),
]
PHASES = ("design", "build", "launch")
FIXED_COSTS = {
    50: [("Hosting setup", 1200), ("Font licence", 300)],
    100: [("Hosting setup", 1200), ("Font licence", 300), ("Stock photography", 450)],
}


def _label(name: str) -> str:
    """A task's name mid-sentence: ``content migration``, ``cross-browser QA``."""
    return name if name[:2].isupper() else name[0].lower() + name[1:]


def labor_inputs(size: int, d: Draw) -> dict[str, Any]:
    """The rate card, every task's hours (``tasks``: [name, phase, role, hours] in plan order,
    edited by the moves) and the contingency share of labor."""
    return {
        "size": size,
        "rates": {r: d.pick(pool) for r, pool in RATE_POOLS.items()},
        "tasks": [
            [n, ph, r, d.int(max(4, h - 8), h + 12, shipped=h, step=2)]
            for n, ph, r, h in LABOR_TASKS[size]
        ],
        "contingency_pct": 10,
    }


def labor_params(size: int) -> dict[str, Any]:
    return labor_inputs(size, SHIPPED)


def _task_hours(p: dict[str, Any], name: str) -> int:
    return next(int(t[3]) for t in p["tasks"] if t[0] == name)


def _task_index(p: dict[str, Any], name: str) -> int:
    return next(i for i, t in enumerate(p["tasks"]) if t[0] == name)


def labor_compute(p: dict[str, Any]) -> dict[str, Any]:
    size, rate = p["size"], p["rates"]
    tasks = [tuple(t) for t in p["tasks"]]
    labor = sum(h * rate[r] for _, _, r, h in tasks)
    contingency = money(labor * p["contingency_pct"] / 100)
    if size == 10:
        return {
            "project": "Harbor Clinic website rebuild",
            "tasks": [{"name": n, "hours": h, "cost": h * rate[r]} for n, _, r, h in tasks],
            "labor_total": labor,
            "contingency": contingency,
            "total_budget": money(labor + contingency),
        }
    hours = sum(h for *_, h in tasks)
    fixed = sum(a for _, a in FIXED_COSTS[size])
    total = money(labor + contingency + fixed)
    rates = {r: rate[r] for r in (RATES if size == 100 else ("designer", "developer", "qa"))}
    artifact: dict[str, Any] = {
        "project": {"name": "Harbor Clinic website rebuild", "client": "Harbor Family Clinic"},
        "rates": rates,
        "tasks": [
            {"name": n, "phase": ph, "role": r, "hours": h, "cost": h * rate[r]}
            for n, ph, r, h in tasks
        ],
        "phases": [
            {
                "name": ph,
                "hours": sum(h for _, q, _, h in tasks if q == ph),
                "cost": sum(h * rate[r] for _, q, r, h in tasks if q == ph),
            }
            for ph in PHASES
        ],
        "fixed_costs": [{"item": i, "amount": a} for i, a in FIXED_COSTS[size]],
        "budget": {
            "total_hours": hours,
            "labor_total": labor,
            "contingency": contingency,
            "total_budget": total,
        },
        "retainer": {"hours_per_month": 20, "monthly_fee": 20 * rate["developer"]},
        "summary": f"{hours} hours of work, {_usd(total)} all-in",
    }
    if size == 100:
        artifact["project"].update(
            pm="Mara Quint", start_date="2025-03-03", client_contact="Dr. Ellen Sato"
        )
        artifact["budget"]["fixed_total"] = fixed
        artifact["role_hours"] = {r: sum(h for _, _, q, h in tasks if q == r) for r in RATES}
        deposit = money(total * 0.3)
        artifact["payments"] = [
            {"milestone": "kickoff", "share_percent": 30, "amount": deposit},
            {"milestone": "launch", "share_percent": 70, "amount": money(total - deposit)},
        ]
        artifact["schedule_weeks"] = math.ceil(hours / 60)
        artifact["phase_two_estimate"] = 18500
        artifact["team"] = [
            {"name": "Mara Quint", "role": "pm"},
            {"name": "Jonah Bell", "role": "developer"},
            {"name": "Ifeoma Eze", "role": "designer"},
        ]
    return artifact


def labor_conversation(p: dict[str, Any]) -> list[Turn]:
    size, rate, pct = p["size"], p["rates"], p["contingency_pct"]

    def h(name: str) -> int:
        return _task_hours(p, name)

    if size == 10:
        return [
            (
                "I'm budgeting the Harbor Clinic website rebuild. Everything below is developer time, which "
                f"we bill at ${rate['developer']} an hour.",
                ["/project"],
            ),
            (
                f"First item: content migration, which I estimate at {h('Content migration')} hours. "
                "Price it at that rate.",
                ["/tasks/0"],
            ),
            (
                f"Next, the booking form integration, {h('Booking form integration')} hours.",
                ["/tasks/1"],
            ),
            (
                f"Add up the task costs as the labor total, set aside {pct}% of labor as contingency, and give "
                "me the total budget as labor plus contingency.",
                ["/labor_total", "/contingency", "/total_budget"],
            ),
        ]
    turns: list[Turn] = [
        (
            "Let's build the budget for the Harbor Clinic website rebuild; the client is Harbor Family Clinic.",
            ["/project/name", "/project/client"],
        ),
    ]
    if size == 50:
        turns.append(
            (
                f"Our rate card: designers ${rate['designer']}/h, developers ${rate['developer']}/h, QA "
                f"${rate['qa']}/h. Each task costs its hours times the rate of the role doing it.",
                ["/rates"],
            )
        )
        turns += [
            (
                f"Design phase: wireframes, {h('Wireframes')} designer hours, and visual design, "
                f"{h('Visual design')} designer hours.",
                ["/tasks/0", "/tasks/1"],
            ),
            (
                f"Build phase: content migration at {h('Content migration')} developer hours, and the "
                f"booking form integration at {h('Booking form integration')}.",
                ["/tasks/2", "/tasks/3"],
            ),
            (
                f"Launch phase is just accessibility testing by QA, {h('Accessibility testing')} hours.",
                ["/tasks/4"],
            ),
        ]
    else:
        turns[0] = (
            turns[0][0]
            + " Mara Quint is the PM, we start on 2025-03-03, and our contact at the clinic "
            "is Dr. Ellen Sato.",
            [
                "/project/name",
                "/project/client",
                "/project/pm",
                "/project/start_date",
                "/project/client_contact",
            ],
        )
        turns.append(
            (
                f"Rates: designer ${rate['designer']}, developer ${rate['developer']}, QA ${rate['qa']} and "
                f"PM ${rate['pm']} per hour. A task costs its hours times its role's rate.",
                ["/rates"],
            )
        )
        turns += [
            (
                f"Design phase: discovery workshops run by the PM ({h('Discovery workshops')} h), wireframes "
                f"({h('Wireframes')} h) and visual design ({h('Visual design')} h), both by the designer.",
                ["/tasks/0", "/tasks/1", "/tasks/2"],
            ),
            (
                f"Build phase, all developer work: content migration {h('Content migration')} h, booking form "
                f"integration {h('Booking form integration')} h, and the patient portal links "
                f"{h('Patient portal links')} h.",
                ["/tasks/3", "/tasks/4", "/tasks/5"],
            ),
            (
                f"Launch phase: accessibility testing {h('Accessibility testing')} h and cross-browser QA "
                f"{h('Cross-browser QA')} h by QA, go-live support {h('Go-live support')} h by a developer, "
                f"and launch coordination {h('Launch coordination')} h by the PM.",
                ["/tasks/6", "/tasks/7", "/tasks/8", "/tasks/9"],
            ),
        ]
    turns.append(("Roll the tasks up per phase, hours and cost.", ["/phases"]))
    if size == 100:
        turns.append(("Also show total hours per role.", ["/role_hours"]))
    fixed = FIXED_COSTS[size]
    listed = ", ".join(f"{i.lower()} ${a:,}" for i, a in fixed)
    turns.append((f"Fixed costs on top of labor: {listed}.", ["/fixed_costs"]))
    budget = ["/budget/total_hours", "/budget/labor_total", "/budget/contingency"]
    if size == 100:
        budget.append("/budget/fixed_total")
    budget.append("/budget/total_budget")
    turns.append(
        (
            f"Now the totals: total hours, the labor total, a contingency of {pct}% of labor"
            + (", the fixed-cost total" if size == 100 else "")
            + ", and the all-in budget = labor + contingency + fixed costs.",
            budget,
        )
    )
    turns.append(
        (
            "Separately, the client wants a maintenance retainer after launch: 20 developer hours a month "
            "at the normal rate.",
            ["/retainer"],
        )
    )
    if size == 100:
        turns += [
            (
                "Payment terms: 30% of the all-in budget at kickoff, rounded to the cent, and the remaining 70% "
                "at launch.",
                ["/payments"],
            ),
            (
                "How many weeks is that at 60 team hours a week? Round up to whole weeks.",
                ["/schedule_weeks"],
            ),
            (
                "For the record, our phase-two estimate we sent them last month was $18,500 flat.",
                ["/phase_two_estimate"],
            ),
            ("Team: Mara Quint (pm), Jonah Bell (developer), Ifeoma Eze (designer).", ["/team"]),
        ]
    turns.append(
        (
            "Finally a one-line summary for the proposal with the total hours and the all-in amount, "
            "like '300 hours of work, $30,000.00 all-in'.",
            ["/summary"],
        )
    )
    return turns


def _set_hours(name: str, hours: int) -> Any:
    def mutate(q: dict[str, Any]) -> None:
        q["tasks"][_task_index(q, name)][3] = hours

    return mutate


def labor_revision(p: dict[str, Any]) -> Revision:
    size = p["size"]
    edit = _set_hours("Content migration", 36)
    return Revision(
        request="The content migration is going to take 36 hours, not 24.",
        mutate=edit,
        direct=f"/tasks/{_task_index(p, 'Content migration')}/hours",
        overrides=_labor_summary(_replayed(p, edit)) if size > 10 else {},
    )


def _replayed(p: dict[str, Any], *edits: Any) -> dict[str, Any]:
    """The inputs after ``edits`` (in-place mutations) applied one after another to a copy."""
    q = copy.deepcopy(p)
    for edit in edits:
        edit(q)
    return q


def _revised(p: dict[str, Any], edit: Any, overrides: Any, **revision: Any) -> Revision:
    """A move's revision whose overrides (``overrides(q)``) are read off the edited inputs."""
    return Revision(mutate=edit, overrides=overrides(_replayed(p, edit)), **revision)


def _labor_summary(q: dict[str, Any]) -> dict[str, Override]:
    """The summary line must carry the new total hours and the all-in amount (sizes 50, 100)."""
    if q["size"] == 10:
        return {}
    budget = labor_compute(q)["budget"]
    whole = f"{int(budget['total_budget']):,}".replace(",", ",?")
    return {"/summary": regex(rf"(?s)^(?=.*\b{budget['total_hours']}\b)(?=.*{whole})")}


def _insert_task(after: str, row: list[Any]) -> Any:
    def mutate(q: dict[str, Any]) -> None:
        q["tasks"].insert(_task_index(q, after) + 1, list(row))

    return mutate


def _drop_labor_task(name: str) -> Any:
    def mutate(q: dict[str, Any]) -> None:
        del q["tasks"][_task_index(q, name)]

    return mutate


def labor_followups(p: dict[str, Any]) -> list[Revision]:
    migration = _task_index(p, "Content migration")
    booking = _task_index(p, "Booking form integration")
    analytics = booking + 1
    rev = _set_hours("Content migration", 36)
    f1 = _set_hours("Content migration", 30)
    f2 = _set_hours("Booking form integration", 52)
    f3 = _insert_task("Booking form integration", ["Analytics setup", "build", "developer", 6])
    f4 = _drop_labor_task("Analytics setup")

    return [
        Revision(
            request="I talked to the developer again: the content migration should be 30 hours, 36 was too "
            "pessimistic.",
            mutate=f1,
            direct=f"/tasks/{migration}/hours",
            overrides=_labor_summary(_replayed(p, rev, f1)),
            theme="The migration estimate is revised a second time (36 to 30 hours); its cost and every total "
            "built on it come down again",
            pattern="arithmetic",
        ),
        Revision(
            request="The booking form integration needs 52 hours now that their scheduling API is in the mix.",
            mutate=f2,
            direct=f"/tasks/{booking}/hours",
            overrides=_labor_summary(_replayed(p, rev, f1, f2)),
            theme="Another task's hours go up (40 to 52); its cost, the build phase, labor, contingency and the "
            "all-in budget follow",
            pattern="arithmetic",
        ),
        Revision(
            # size 10 tasks hold no phase or role (all of it is developer time there)
            request="Add a task called Analytics setup right after the booking form integration: 6 "
            + ("hours." if p["size"] == 10 else "developer hours in the build phase."),
            mutate=f3,
            direct=f"/tasks/{analytics}",
            overrides=_labor_summary(_replayed(p, rev, f1, f2, f3)),
            theme="A new build task is inserted; its cost joins the build phase, labor, contingency and the "
            "all-in budget",
            pattern="add_remove",
        ),
        Revision(
            request="Take the analytics setup out again; the clinic's own IT team will handle it.",
            mutate=f4,
            direct=f"/tasks/{analytics}",
            overrides=_labor_summary(_replayed(p, rev, f1, f2, f3, f4)),
            theme="The task just added is removed; every total it raised drops back",
            pattern="add_remove",
        ),
    ]


# moves of schedule-labor-hours: a task re-estimated, a role's rate changed (sizes 50 and 100
# list the rate card), a task added after another of its phase, a task taken out, the
# contingency share changed


def _rehour(p: dict[str, Any], d: Draw) -> Revision:
    i = d.pick(range(len(p["tasks"])))
    name, _, _, old = p["tasks"][i]
    new = d.pick([h for h in range(max(4, old - 12), old + 18, 2) if h != old])
    edit = _set_hours(name, new)
    return _revised(
        p,
        edit,
        _labor_summary,
        request=f"The {_label(name)} will now take {new} hours, not {old}.",
        direct=f"/tasks/{i}/hours",
        theme=f"The {_label(name)} is re-estimated ({old} to {new} hours); its cost and every total follow",
    )


def _rerate(p: dict[str, Any], d: Draw) -> Revision | None:
    roles = sorted({t[2] for t in p["tasks"]} & set(labor_compute(p)["rates"]))
    if not roles:
        return None
    role = d.pick(roles)
    old = p["rates"][role]
    new = d.pick([r for r in range(old - 15, old + 20, 5) if r != old])
    word = ROLE_WORDS[role]

    def edit(q: dict[str, Any]) -> None:
        q["rates"][role] = new

    return _revised(
        p,
        edit,
        _labor_summary,
        request=f"Our {word} rate changes from ${old} to ${new} an hour.",
        direct=f"/rates/{role}",
        theme=f"The {word} rate changes; every {word} task's cost and the totals follow",
    )


def _add_labor_task(p: dict[str, Any], d: Draw) -> Revision | None:
    size = p["size"]
    present = {t[0] for t in p["tasks"]}
    roles = set(labor_compute(p)["rates"]) if size > 10 else {"developer"}
    options = [
        (n, ph, r)
        for n, ph, r in NEW_LABOR_TASKS
        if n not in present and r in roles and any(t[1] == ph for t in p["tasks"])
    ]
    if not options:
        return None
    name, phase, role = d.pick(options)
    after = d.pick([t[0] for t in p["tasks"] if t[1] == phase])
    hours = d.int(4, 16, step=2)
    edit = _insert_task(after, [name, phase, role, hours])
    what = (
        f"{hours} hours" if size == 10 else f"{hours} {ROLE_WORDS[role]} hours in the {phase} phase"
    )
    return _revised(
        p,
        edit,
        _labor_summary,
        request=f"Add a task called {name} right after the {_label(after)}: {what}.",
        direct=f"/tasks/{_task_index(p, after) + 1}",
        theme=f"{name} is added; its cost joins labor, contingency and the budget",
    )


def _remove_labor_task(p: dict[str, Any], d: Draw) -> Revision | None:
    if len(p["tasks"]) < 2:
        return None
    i = d.pick(range(len(p["tasks"])))
    name = p["tasks"][i][0]
    edit = _drop_labor_task(name)
    return _revised(
        p,
        edit,
        _labor_summary,
        request=f"Take the {_label(name)} off the plan; it is out of scope now.",
        direct=f"/tasks/{i}",
        theme=f"The {_label(name)} is removed; every total it fed drops",
    )


def _contingency(p: dict[str, Any], d: Draw) -> Revision:
    old = p["contingency_pct"]
    new = d.pick([x for x in (5, 8, 10, 12, 15, 20) if x != old])
    return Revision(
        request=f"Make the contingency {new}% of labor instead of {old}%.",
        mutate=lambda q: q.update(contingency_pct=new),
        direct="/contingency" if p["size"] == 10 else "/budget/contingency",
        overrides=_labor_summary(_replayed(p, lambda q: q.update(contingency_pct=new))),
        theme=f"The contingency share changes to {new}%; the all-in budget follows",
    )


LABOR_MOVES = [
    Move("rehour", "arithmetic", _rehour),
    Move("rerate", "arithmetic", _rerate, when=lambda p: p["size"] >= 50),
    Move("add-task", "add_remove", _add_labor_task),
    Move("remove-task", "add_remove", _remove_labor_task),
    Move("contingency", "arithmetic", _contingency, opens=False),
]

# --------------------------------------------------------------------------- schedule-mover-swap
# Substitution: the moving company is replaced; its contact, rates, crew, insurance and lead
# time are copied in, every task assigned to it follows, and its costs and booking deadline recompute.

MOVERS: dict[str, dict[str, Any]] = {
    "Swift Movers": {
        "contact": "Kevin Marsh",
        "phone": "(312) 555-0187",
        "hourly_rate": 145,
        "crew_size": 4,
        "insurance_cover": 1000000,
        "booking_lead_days": 14,
        "crate_rate": 3.0,
    },
    "Atlas Relocation": {
        "contact": "Dana Ruiz",
        "phone": "(312) 555-0142",
        "hourly_rate": 165,
        "crew_size": 5,
        "insurance_cover": 2000000,
        "booking_lead_days": 10,
        "crate_rate": 2.5,
    },
    "Beacon Moving Group": {
        "contact": "Priya Nair",
        "phone": "(312) 555-0163",
        "hourly_rate": 125,
        "crew_size": 3,
        "insurance_cover": 750000,
        "booking_lead_days": 7,
        "crate_rate": 2.0,
    },
    "Carlisle Van Lines": {
        "contact": "Tom Becker",
        "phone": "(312) 555-0129",
        "hourly_rate": 155,
        "crew_size": 6,
        "insurance_cover": 1500000,
        "booking_lead_days": 21,
        "crate_rate": 3.5,
    },
}
MOVE_DATE = "2025-06-14"
MOVE_DATES = [MOVE_DATE, "2025-06-07", "2025-06-21"]  # Saturdays: the elevator is ours then
FURNITURE = {
    10: "Pack and move furniture",
    50: "Move furniture and boxes",
    100: "Move furniture and boxes",
}
# jobs a user may hand the movers: (job, hours)
EXTRA_JOBS = [
    ("Haul old filing cabinets", 2),
    ("Move the archive boxes", 3),
    ("Dismantle the reception desk", 1),
    ("Take the old printers to recycling", 2),
]
# (task, assignee; None = the moving company, hours or None)
MOVE_TASKS: dict[int, list[tuple[str, str | None, int]]] = {
    50: [
        ("Pack IT equipment", None, 3),
        ("Move furniture and boxes", None, 5),
        ("Reassemble workstations", None, 2),
        ("Disconnect network", "In-house IT", 4),
        ("Run new cabling", "Brightwire Cabling", 6),
        ("Deep clean old office", "SparkleClean", 5),
    ],
    100: [
        ("Pack IT equipment", None, 3),
        ("Move furniture and boxes", None, 5),
        ("Reassemble workstations", None, 2),
        ("Move server rack", None, 2),
        ("Disconnect network", "In-house IT", 4),
        ("Run new cabling", "Brightwire Cabling", 6),
        ("Deep clean old office", "SparkleClean", 5),
        ("Set up phones", "In-house IT", 3),
        ("Label desks", "Office team", 2),
    ],
}


def mover_inputs(size: int, d: Draw) -> dict[str, Any]:
    """The moving company, the move date and the tasks (``tasks``: [task, assignee or None for
    the movers, hours]; at size 10 the movers' one job carries the booked crew hours)."""
    if size == 10:
        tasks = [
            [FURNITURE[10], None, d.int(6, 12, shipped=9)],
            ["Reconnect desks and network", "In-house IT", 0],
        ]
    else:
        spread = {"Pack IT equipment": (2, 4), FURNITURE[50]: (4, 7)}
        tasks = [
            [t, who, d.int(*spread.get(t, (1, 3)), shipped=h) if who is None else h]
            for t, who, h in MOVE_TASKS[size]
        ]
    return {
        "size": size,
        "mover": d.pick(list(MOVERS)),
        "move_date": d.pick(MOVE_DATES),
        "tasks": tasks,
    }


def mover_params(size: int) -> dict[str, Any]:
    return mover_inputs(size, SHIPPED)


def _movers_hours(p: dict[str, Any]) -> int:
    return sum(int(h) for _, who, h in p["tasks"] if who is None)


def mover_compute(p: dict[str, Any]) -> dict[str, Any]:
    size, name, move_date = p["size"], p["mover"], p["move_date"]
    m = MOVERS[name]
    hours = _movers_hours(p)
    if size == 10:
        return {
            "project": "Lindqvist & Partners office move",
            "movers": {
                "name": name,
                "contact": m["contact"],
                "hourly_rate": m["hourly_rate"],
                "booked_hours": hours,
                "estimated_cost": hours * m["hourly_rate"],
            },
            "tasks": [{"name": t, "assigned_to": who or name} for t, who, _ in p["tasks"]],
        }
    tasks = p["tasks"]
    cost = hours * m["hourly_rate"]
    movers: dict[str, Any] = {
        "name": name,
        "contact": m["contact"],
        "phone": m["phone"],
        "hourly_rate": m["hourly_rate"],
        "crew_size": m["crew_size"],
        "insurance_cover": m["insurance_cover"],
        "booking_lead_days": m["booking_lead_days"],
        "booked_hours": hours,
        "estimated_cost": cost,
        "book_by": add_days(move_date, -m["booking_lead_days"]),
    }
    artifact: dict[str, Any] = {
        "project": {
            "name": "Lindqvist & Partners office move",
            "move_date": move_date,
            "from": "220 W Kinzie St, 4th floor",
            "to": "141 N Wacker Dr, 11th floor",
        },
        "movers": movers,
        "building_rules": {
            "min_insurance": 1000000,
            "elevator_window": "Saturday 07:00-15:00",
            "loading_dock": "Dock B",
        },
        "tasks": [{"name": t, "assigned_to": who or name, "hours": h} for t, who, h in tasks],
        "other_vendors": [
            {"name": "Brightwire Cabling", "contact": "Omar Haddad", "quote": 2400},
            {"name": "SparkleClean", "contact": "Rita Gomez", "quote": 650},
        ],
    }
    other = 2400 + 650
    artifact["walkthrough"] = {
        "date": add_days(move_date, -3),
        "with": m["contact"],
        "host": "Nina Lindqvist",
    }
    artifact["contacts"] = {
        "facilities": "Nina Lindqvist",
        "it_lead": "Sam Okoro",
        "landlord": "Wacker Holdings",
    }
    if size == 50:
        artifact["budget"] = {"movers": cost, "other_vendors": other, "total": cost + other}
        return artifact
    crates = 120
    crate_cost = money(crates * m["crate_rate"])
    movers["crate_rate"] = m["crate_rate"]
    artifact["crates"] = {"count": crates, "cost": crate_cost}
    artifact["budget"] = {
        "movers": money(cost + crate_cost),
        "other_vendors": other,
        "furniture": 5800,
        "total": money(cost + crate_cost + other + 5800),
    }
    artifact["key_dates"] = [
        {"event": "Lease ends", "date": "2025-06-30"},
        {"event": "Internet live at new office", "date": "2025-06-10"},
        {"event": "Furniture delivery", "date": "2025-06-12"},
    ]
    artifact["insurance_ok"] = m["insurance_cover"] >= 1000000
    artifact["staff_notice"] = (
        f"Pack your desk by Friday {add_days(move_date, -1)}; {name} arrive Saturday at 07:00."
    )
    headcount = m["crew_size"] + 6
    artifact["lunch"] = {"headcount": headcount, "per_head": 15, "cost": headcount * 15}
    artifact["seating"] = [
        {"team": t, "people": n, "zone": z}
        for t, n, z in (
            ("Partners", 6, "North"),
            ("Associates", 14, "Central"),
            ("Operations", 5, "East"),
            ("Reception", 2, "Lobby"),
        )
    ]
    artifact["it_checklist"] = [
        {"item": "Label every monitor", "owner": "Sam Okoro"},
        {"item": "Back up the file server", "owner": "Sam Okoro"},
        {"item": "Forward the main line", "owner": "Nina Lindqvist"},
    ]
    artifact["old_office"] = {
        "handover": "2025-06-30",
        "security_deposit": 8400,
        "final_inspection": "2025-06-27",
    }
    artifact["elevator_booking"] = {
        "confirmed": True,
        "booked_by": "Nina Lindqvist",
        "reference": "WK-5512",
    }
    artifact["supplies"] = {"tape_rolls": 40, "labels": 500}
    return artifact


def mover_conversation(p: dict[str, Any]) -> list[Turn]:
    size, name = p["size"], p["mover"]
    m = MOVERS[name]
    hours = {t: h for t, _, h in p["tasks"]}
    if size == 10:
        return [
            (
                "We're moving the Lindqvist & Partners office and I'd like a simple plan.",
                ["/project"],
            ),
            (
                f"We've picked {name}; our contact there is {m['contact']} and they charge "
                f"${m['hourly_rate']} an hour for the crew.",
                ["/movers/name", "/movers/contact", "/movers/hourly_rate"],
            ),
            (
                f"We're booking {_movers_hours(p)} crew hours. Estimate the cost from their hourly rate.",
                ["/movers/booked_hours", "/movers/estimated_cost"],
            ),
            (
                "Two jobs: the movers pack and move the furniture, and our in-house IT reconnects the desks and "
                "network.",
                ["/tasks/0", "/tasks/1"],
            ),
        ]
    turns: list[Turn] = [
        (
            "Help me plan our office move: Lindqvist & Partners goes from 220 W Kinzie St, 4th floor to "
            f"141 N Wacker Dr, 11th floor on {p['move_date']}.",
            ["/project"],
        ),
        (
            f"Moving company is {name}. Contact {m['contact']}, {m['phone']}, ${m['hourly_rate']} an hour, "
            f"crew of {m['crew_size']}, ${m['insurance_cover']:,} insurance cover, and they need "
            f"{m['booking_lead_days']} days' notice to book.",
            [
                "/movers/name",
                "/movers/contact",
                "/movers/phone",
                "/movers/hourly_rate",
                "/movers/crew_size",
                "/movers/insurance_cover",
                "/movers/booking_lead_days",
            ],
        ),
        (
            "The new building's rules: movers must carry at least $1,000,000 insurance, the elevator is ours "
            "Saturday 07:00-15:00, and we load at Dock B.",
            ["/building_rules"],
        ),
    ]
    n_jobs = sum(who is None for _, who, _ in MOVE_TASKS[size])
    if size == 50:
        movers_text = (
            f"The movers pack the IT equipment ({hours['Pack IT equipment']} h), move the furniture and "
            f"boxes ({hours[FURNITURE[50]]} h) and reassemble the workstations "
            f"({hours['Reassemble workstations']} h)."
        )
        others_text = (
            "The rest isn't theirs: our in-house IT disconnects the network (4 h), Brightwire Cabling "
            "runs the new cabling (6 h), and SparkleClean deep-cleans the old office (5 h)."
        )
    else:
        movers_text = (
            f"The movers pack the IT equipment ({hours['Pack IT equipment']} h), move the furniture and "
            f"boxes ({hours[FURNITURE[50]]} h), reassemble the workstations "
            f"({hours['Reassemble workstations']} h) and move the server rack ({hours['Move server rack']} h)."
        )
        others_text = (
            "The rest isn't theirs: our in-house IT disconnects the network (4 h) and sets up the "
            "phones (3 h), Brightwire Cabling runs the new cabling (6 h), SparkleClean deep-cleans "
            "the old office (5 h), and the office team labels the desks (2 h)."
        )
    turns.append((movers_text, [f"/tasks/{i}" for i in range(n_jobs)]))
    turns.append((others_text, [f"/tasks/{i}" for i in range(n_jobs, len(MOVE_TASKS[size]))]))
    turns.append(
        (
            "Book the movers for the total of their task hours and estimate their cost at their hourly "
            "rate. Also note the last day we can book them, which is their notice period before the move.",
            ["/movers/booked_hours", "/movers/estimated_cost", "/movers/book_by"],
        )
    )
    turns.append(
        (
            "Other vendors: Brightwire Cabling (Omar Haddad) quoted $2,400 and SparkleClean (Rita Gomez) "
            "$650.",
            ["/other_vendors"],
        )
    )
    if size == 50:
        turns += [
            (
                "Budget: the movers' estimate, the other vendors' quotes together, and the total.",
                ["/budget"],
            ),
            (
                "Schedule a site walkthrough three days before the move with the movers' contact; Nina Lindqvist "
                "hosts.",
                ["/walkthrough"],
            ),
            (
                "Contacts: facilities is Nina Lindqvist, IT lead Sam Okoro, landlord Wacker Holdings.",
                ["/contacts"],
            ),
        ]
        return turns
    turns += [
        (
            f"The movers also supply 120 crates; {name.split()[0]} charges ${m['crate_rate']:.2f} per crate. "
            "Add that.",
            ["/movers/crate_rate", "/crates"],
        ),
        (
            "Budget lines: movers (crew estimate plus crates), other vendors' quotes, the new furniture at $5,800, "
            "and the total.",
            ["/budget"],
        ),
        (
            "Schedule a site walkthrough three days before the move with the movers' contact; Nina Lindqvist hosts.",
            ["/walkthrough"],
        ),
        (
            "Fixed dates to keep in view: the lease ends 2025-06-30, internet goes live at the new office on "
            "2025-06-10, and furniture is delivered 2025-06-12.",
            ["/key_dates"],
        ),
        (
            "Does the movers' insurance meet the building minimum? Just yes or no.",
            ["/insurance_ok"],
        ),
        (
            f"Draft the one-line staff notice: pack desks by Friday {add_days(p['move_date'], -1)}, and name "
            "the moving company arriving Saturday at 07:00.",
            ["/staff_notice"],
        ),
        (
            "Contacts: facilities is Nina Lindqvist, IT lead Sam Okoro, landlord Wacker Holdings.",
            ["/contacts"],
        ),
        (
            "We'll buy lunch on move day for the movers' whole crew plus our 6 volunteers, $15 a head.",
            ["/lunch"],
        ),
        (
            "Seating at the new place: Partners (6 people) in the North zone, Associates (14) Central, Operations "
            "(5) East, Reception (2) in the Lobby.",
            ["/seating"],
        ),
        (
            "IT checklist: Sam labels every monitor and backs up the file server; Nina forwards the main line.",
            ["/it_checklist"],
        ),
        (
            "Old office: we hand the space back on 2025-06-30, the landlord's final inspection is 2025-06-27, and we "
            "expect our $8,400 security deposit back.",
            ["/old_office"],
        ),
        (
            "Nina confirmed the elevator booking, reference WK-5512. We also bought 40 rolls of tape and 500 labels.",
            ["/elevator_booking", "/supplies"],
        ),
    ]
    return turns


def _mover_attrs(size: int) -> list[str]:
    """The company details a size's document holds (besides the name)."""
    if size == 10:
        return ["contact", "hourly_rate"]
    attrs = ["contact", "phone", "hourly_rate", "crew_size", "insurance_cover", "booking_lead_days"]
    return [*attrs, "crate_rate"] if size == 100 else attrs


def _mover_reference(size: int, name: str) -> dict[str, Any]:
    return {"name": name, **{a: MOVERS[name][a] for a in _mover_attrs(size)}}


def _notice(size: int, name: str) -> dict[str, Override]:
    """Size 100's staff notice names the moving company."""
    return (
        {"/staff_notice": regex("(?i)" + re.escape(name.lower()).replace("\\ ", " "))}
        if size == 100
        else {}
    )


def mover_revision(p: dict[str, Any]) -> Revision:
    return Revision(
        request="Let's go with Atlas Relocation instead of Swift Movers. Their details are attached.",
        mutate=lambda q: q.update(mover="Atlas Relocation"),
        direct="/movers/name",
        overrides=_notice(p["size"], "Atlas Relocation"),
        reference=_mover_reference(p["size"], "Atlas Relocation"),
    )


def _add_hours(task: str, extra: int) -> Any:
    def mutate(q: dict[str, Any]) -> None:
        row = next(t for t in q["tasks"] if t[0] == task)
        row[2] += extra

    return mutate


def _append_job(job: str, hours: int) -> Any:
    return lambda q: q["tasks"].append([job, None, hours])


def mover_followups(p: dict[str, Any]) -> list[Revision]:
    size = p["size"]
    n_tasks = len(p["tasks"])
    old = MOVERS["Swift Movers"]
    attrs = ["contact", "hourly_rate"]
    if size > 10:
        attrs += ["phone", "crew_size", "insurance_cover", "booking_lead_days"]
    if size == 100:
        attrs.append("crate_rate")
    back = {"name": "Swift Movers", **{a: old[a] for a in attrs}}

    def f3(q: dict[str, Any]) -> None:
        q.update(mover="Swift Movers")

    return [
        Revision(
            request="Atlas says moving the furniture and boxes will take 2 more crew hours than we planned.",
            mutate=_add_hours(FURNITURE[size], 2),
            direct="/movers/booked_hours" if size == 10 else "/tasks/1/hours",
            theme="The movers' furniture job grows by 2 hours at the new company's rate; booked hours, their "
            "estimate and the budget follow",
            pattern="arithmetic",
        ),
        Revision(
            request="Add one more job for the movers at the end of the task list: Haul old filing cabinets, "
            "2 hours. Book that time with them too.",
            mutate=_append_job("Haul old filing cabinets", 2),
            direct=f"/tasks/{n_tasks}",
            theme="A new job for the moving company is appended; their booked hours, cost estimate and the "
            "budget grow",
            pattern="add_remove",
        ),
        Revision(
            request="Atlas can't do the 14th after all, so we're going back to Swift Movers. Their details "
            "are the ones we had before.",
            mutate=f3,
            direct="/movers/name",
            overrides={"/staff_notice": regex(r"(?i)swift movers")} if size == 100 else {},
            reference=back,
            theme="The earlier swap is undone: Swift's terms come back and every movers' job, including the one "
            "just added, is re-priced and re-assigned",
            pattern="substitution",
        ),
    ]


# moves of schedule-mover-swap: another moving company (its details attached), the furniture
# job grows or shrinks, a job handed to the movers or taken off them, the move date (sizes 50
# and 100 hold it)


def _swap_mover(p: dict[str, Any], d: Draw) -> Revision:
    size, old = p["size"], p["mover"]
    new = d.pick([m for m in MOVERS if m != old])
    return Revision(
        request=f"Let's go with {new} instead of {old}. Their details are attached.",
        mutate=lambda q: q.update(mover=new),
        direct="/movers/name",
        overrides=_notice(size, new),
        reference=_mover_reference(size, new),
        theme=f"{new} replace {old}: their terms are copied in and every movers' job follows",
    )


def _furniture_hours(p: dict[str, Any], d: Draw) -> Revision | None:
    size = p["size"]
    task = FURNITURE[size]
    i, old = next((i, int(t[2])) for i, t in enumerate(p["tasks"]) if t[0] == task)
    delta = d.pick([n for n in (-2, -1, 1, 2, 3) if old + n >= 2])
    more = (
        f"{abs(delta)} {'more' if delta > 0 else 'fewer'} crew hour{'s' if abs(delta) > 1 else ''}"
    )
    if size == 10:
        request = f"Packing and moving the furniture will take {more} than we planned; book the crew for that."
    else:
        request = f"The movers say moving the furniture and boxes will take {more} than we planned."
    return Revision(
        request=request,
        mutate=_add_hours(task, delta),
        direct="/movers/booked_hours" if size == 10 else f"/tasks/{i}/hours",
        theme=f"The furniture job changes by {delta} hours; booked hours, the estimate and the budget follow",
    )


def _add_job(p: dict[str, Any], d: Draw) -> Revision | None:
    present = {t[0] for t in p["tasks"]}
    options = [j for j in EXTRA_JOBS if j[0] not in present]
    if not options:
        return None
    job, hours = d.pick(options)
    return Revision(
        request=f"Add one more job for the movers at the end of the task list: {job}, {count_word(hours)} "
        f"hour{'s' if hours > 1 else ''}. Book that time with them too.",
        mutate=_append_job(job, hours),
        direct=f"/tasks/{len(p['tasks'])}",
        theme=f"The movers take on {job.lower()}; their booked hours, estimate and the budget grow",
    )


def _drop_job(p: dict[str, Any], d: Draw) -> Revision | None:
    jobs = [i for i, t in enumerate(p["tasks"]) if t[1] is None and t[0] != FURNITURE[p["size"]]]
    if not jobs:
        return None
    i = d.pick(jobs)
    job = p["tasks"][i][0]

    def mutate(q: dict[str, Any]) -> None:
        del q["tasks"][i]

    return Revision(
        request=f"Take the job '{job}' off the task list; we don't need it done after all, so don't book "
        "the movers for it.",
        mutate=mutate,
        direct=f"/tasks/{i}",
        theme=f"The movers' job '{job}' is dropped; their booked hours, estimate and the budget shrink",
    )


def _move_date(p: dict[str, Any], d: Draw) -> Revision:
    old = p["move_date"]
    new = d.pick([x for x in MOVE_DATES if x != old])
    notice = (
        f" Staff now pack their desks by Friday {add_days(new, -1)}." if p["size"] == 100 else ""
    )
    return Revision(
        request=f"The move is now on Saturday {new} instead of {old}.{notice}",
        mutate=lambda q: q.update(move_date=new),
        direct="/project/move_date",
        overrides=(
            {"/staff_notice": regex("(?i)" + date_regex(add_days(new, -1)))}
            if p["size"] == 100
            else {}
        ),
        theme="The move date changes; the booking deadline and walkthrough move with it",
    )


MOVER_MOVES = [
    Move("swap-mover", "substitution", _swap_mover),
    Move("furniture-hours", "arithmetic", _furniture_hours),
    Move("add-job", "add_remove", _add_job),
    Move("drop-job", "add_remove", _drop_job),
    Move("move-date", "temporal", _move_date, when=lambda p: p["size"] >= 50),
]

# --------------------------------------------------------------------------- schedule-drop-task
# Add/remove: a task is removed from a sequential plan; its successor relinks to its predecessor,
# every later date pulls earlier, and the task count, end date and milestones follow.

APP_START = "2025-07-01"
# (id, name, owner, days)
APP_TASKS: dict[int, list[tuple[str, str, str, int]]] = {
    10: [
        ("T1", "API hardening", "", 10),
        ("T2", "Security review", "", 5),
        ("T3", "Beta testing", "", 14),
    ],
    50: [
        ("T1", "API hardening", "Ravi", 10),
        ("T2", "Security review", "Mei", 5),
        ("T3", "Beta testing", "Ravi", 14),
        ("T4", "Store listing prep", "Lucia", 3),
        ("T5", "Launch prep", "Lucia", 2),
    ],
    100: [
        ("T1", "API hardening", "Ravi", 10),
        ("T2", "Security review", "Mei", 5),
        ("T3", "Beta testing", "Ravi", 14),
        ("T4", "Store listing prep", "Lucia", 3),
        ("T5", "Launch prep", "Lucia", 2),
        ("T6", "Store submission", "Ravi", 4),
    ],
}


# tasks a user may add: (name, owner at sizes 50 and 100, days)
NEW_APP_TASKS = [
    ("Localization", "Mei", 4),
    ("Accessibility pass", "Lucia", 3),
    ("Performance tuning", "Ravi", 5),
    ("Analytics events", "Mei", 2),
]
APP_DAYS = {"T1": (7, 12), "T2": (3, 7), "T3": (10, 21), "T4": (2, 5), "T5": (1, 4), "T6": (2, 6)}


def drop_inputs(size: int, d: Draw) -> dict[str, Any]:
    """The kickoff and the plan's tasks in order (``tasks``: [id, name, owner, days]); tasks
    taken out wait in ``removed`` with the task they followed, and a new task takes number
    ``next_number``."""
    return {
        "size": size,
        "kickoff": d.date("2025-06-23", "2025-07-08", shipped=APP_START),
        "tasks": [
            [tid, name, owner, d.int(*APP_DAYS[tid], shipped=days)]
            for tid, name, owner, days in APP_TASKS[size]
        ],
        "removed": [],
        "next_number": len(APP_TASKS[size]) + 1,
    }


def drop_params(size: int) -> dict[str, Any]:
    return drop_inputs(size, SHIPPED)


def _chain(tasks: list[tuple[str, str, str, int]], start: str) -> list[dict[str, Any]]:
    """Sequential tasks: each starts the day after its predecessor ends (calendar days)."""
    out: list[dict[str, Any]] = []
    day = start
    for i, (tid, name, owner, days) in enumerate(tasks):
        end = add_days(day, days - 1)
        out.append(
            {
                "id": tid,
                "name": name,
                "owner": owner,
                "days": days,
                "depends_on": tasks[i - 1][0] if i else None,
                "start": day,
                "end": end,
            }
        )
        day = add_days(end, 1)
    return out


def _app_index(p: dict[str, Any], tid: str) -> int:
    return next(i for i, t in enumerate(p["tasks"]) if t[0] == tid)


def _drop_app_task(tid: str) -> Any:
    """Take task ``tid`` out; it remembers the task it followed (None: it was first)."""

    def mutate(q: dict[str, Any]) -> None:
        i = _app_index(q, tid)
        q["removed"].append([q["tasks"][i], q["tasks"][i - 1][0] if i else None])
        del q["tasks"][i]

    return mutate


def _put_back(tid: str, after: str | None) -> Any:
    """Put removed task ``tid`` back right after ``after`` (None: first), with its number."""

    def mutate(q: dict[str, Any]) -> None:
        k = next(k for k, (row, _) in enumerate(q["removed"]) if row[0] == tid)
        row = q["removed"].pop(k)[0]
        q["tasks"].insert(0 if after is None else _app_index(q, after) + 1, row)

    return mutate


def _new_app_task(after: str, name: str, owner: str, days: int) -> Any:
    def mutate(q: dict[str, Any]) -> None:
        q["tasks"].insert(_app_index(q, after) + 1, [f"T{q['next_number']}", name, owner, days])
        q["next_number"] += 1

    return mutate


def _app_days(tid: str, days: int) -> Any:
    def mutate(q: dict[str, Any]) -> None:
        q["tasks"][_app_index(q, tid)][3] = days

    return mutate


def drop_compute(p: dict[str, Any]) -> dict[str, Any]:
    size, kickoff = p["size"], p["kickoff"]
    tasks = [(tid, name, owner, days) for tid, name, owner, days in p["tasks"]]
    chain = _chain(tasks, kickoff)
    end = chain[-1]["end"]
    if size == 10:
        return {
            "tasks": [{"name": t["name"], "days": t["days"], "start": t["start"]} for t in chain],
            "launch_date": add_days(end, 1),
        }
    artifact: dict[str, Any] = {
        "project": {
            "name": "Q3 mobile app release",
            "owner": "Lucia Ferraro",
            "kickoff": kickoff,
            "task_count": len(chain),
            "end_date": end,
        },
        "tasks": chain,
        "milestones": [
            {"name": "Launch review", "date": add_days(end, 3)},
            {"name": "Board update", "date": "2025-08-05"},
            {"name": "Public launch", "date": add_days(end, 1)},
        ],
        "team": {"slack_channel": "#app-q3", "standup": "daily 09:30", "tracker": "Linear"},
        "calendar_days": True,
    }
    if size == 50:
        return artifact
    artifact["project"]["total_effort_days"] = sum(t["days"] for t in chain)
    beta = next(t for t in chain if t["id"] == "T3")
    artifact["marketing"] = [
        {"name": "Teaser campaign", "date": "2025-07-14"},
        {"name": "Beta invite email", "date": beta["start"]},
        {"name": "Press embargo lifts", "date": add_days(end, 1)},
        {"name": "Partner webinar", "date": "2025-08-20"},
    ]
    artifact["risks"] = [
        {"risk": "App store review delay", "owner": "Ravi"},
        {"risk": "Payment SDK upgrade", "owner": "Mei"},
    ]
    artifact["summary"] = f"{len(chain)} tasks, public launch on {add_days(end, 1)}"
    artifact["milestones"] += [
        {"name": "Retrospective", "date": add_days(end, 8)},
        {"name": "Hypercare ends", "date": add_days(end, 15)},
    ]
    artifact["marketing"].append({"name": "Store featuring pitch", "date": "2025-08-12"})
    effort = artifact["project"]["total_effort_days"]
    artifact["contractor_budget"] = {"day_rate": 650, "cost": effort * 650}
    artifact["release"] = {"version": "3.4.0", "min_ios": "16.0", "min_android": "10"}
    artifact["stakeholders"] = [
        {"name": "Lucia Ferraro", "role": "owner"},
        {"name": "Ravi Menon", "role": "tech lead"},
        {"name": "Mei Tanaka", "role": "security"},
    ]
    artifact["release_checklist"] = [
        {"item": i, "done": d}
        for i, d in (
            ("Crash reporting enabled", True),
            ("Privacy labels updated", False),
            ("Screenshots refreshed", False),
            ("Release notes drafted", False),
            ("Feature flags reviewed", True),
            ("Support team briefed", False),
        )
    ]
    return artifact


def _span(days: int) -> str:
    """A task's length as the planner says it: ``two weeks`` for 14 days."""
    return {14: "two weeks", 21: "three weeks"}.get(days, f"{days} days")


def drop_conversation(p: dict[str, Any]) -> list[Turn]:
    size, kickoff = p["size"], p["kickoff"]
    days = {t[0]: t[3] for t in p["tasks"]}
    if size == 10:
        return [
            (
                f"Planning our Q3 app release. First step is API hardening: {days['T1']} days starting "
                f"{kickoff}. We count calendar days, weekends included.",
                ["/tasks/0"],
            ),
            (
                f"Then a {days['T2']}-day security review, starting the day after the hardening finishes.",
                ["/tasks/1"],
            ),
            (
                f"After the review, {_span(days['T3'])} of beta testing, again starting the next day.",
                ["/tasks/2"],
            ),
            (
                "We launch the day after the last task ends; for now that is beta testing.",
                ["/launch_date"],
            ),
        ]
    turns: list[Turn] = [
        (
            f"I'm planning the Q3 mobile app release, owned by Lucia Ferraro, kicking off {kickoff}. We work "
            "in calendar days, weekends included.",
            ["/project/name", "/project/owner", "/project/kickoff", "/calendar_days"],
        ),
        (
            "The work is one chain: each task depends on the one before it and starts the day after it ends; "
            "a task's end date is its start plus its length minus one. Number the tasks T1, T2, ... in the order I give them; a task keeps its number for good. First, API hardening, "
            f"{days['T1']} days, Ravi, starting at kickoff.",
            ["/tasks/0"],
        ),
        (f"Next, Mei's security review, {days['T2']} days.", ["/tasks/1"]),
        (f"Then beta testing, {days['T3']} days, Ravi again.", ["/tasks/2"]),
        (
            f"Lucia does store listing prep ({days['T4']} days) and then launch prep ({days['T5']} days).",
            ["/tasks/3", "/tasks/4"],
        ),
    ]
    if size == 100:
        turns.append(
            (f"Last task: Ravi handles the store submission, {days['T6']} days.", ["/tasks/5"])
        )
    turns += [
        (
            "Put the task count and the project end date (the end of the last task) at the top.",
            ["/project/task_count", "/project/end_date"],
        ),
        (
            "Milestones: a launch review 3 days after the last task ends, the board update which is fixed on "
            "2025-08-05, and the public launch the day after the last task ends.",
            ["/milestones/0", "/milestones/1", "/milestones/2"],
        ),
        (
            "Team channel is #app-q3, standup is daily at 09:30, and we track work in Linear.",
            ["/team"],
        ),
    ]
    if size == 100:
        turns += [
            (
                "Also track total effort: the sum of all task lengths.",
                ["/project/total_effort_days"],
            ),
            (
                "Marketing: the teaser campaign runs 2025-07-14 regardless, the beta invite email goes out the "
                "day beta testing starts, the press embargo lifts on public launch day, and the partner webinar "
                "is booked for 2025-08-20.",
                [f"/marketing/{i}" for i in range(4)],
            ),
            (
                "Risks to watch: app store review delay (Ravi) and the payment SDK upgrade (Mei).",
                ["/risks"],
            ),
            ("One-line summary: number of tasks and the public launch date.", ["/summary"]),
            (
                "Two more milestones: the retrospective a week after public launch, and hypercare ending two weeks "
                "after public launch. Marketing also pitches for store featuring on 2025-08-12, a fixed slot.",
                ["/milestones/3", "/milestones/4", "/marketing/4"],
            ),
            (
                "The whole effort is contractor-backed at $650 per effort day; put the contractor cost next to the "
                "day rate.",
                ["/contractor_budget"],
            ),
            ("This ships as version 3.4.0, minimum iOS 16.0 and Android 10.", ["/release"]),
            (
                "Stakeholders: Lucia Ferraro (owner), Ravi Menon (tech lead), Mei Tanaka (security).",
                ["/stakeholders"],
            ),
            (
                "Release checklist: crash reporting enabled (done), privacy labels updated, screenshots refreshed, "
                "release notes drafted, feature flags reviewed (done), support team briefed.",
                ["/release_checklist"],
            ),
        ]
    return turns


def drop_revision(p: dict[str, Any]) -> Revision:
    edit = _drop_app_task("T2")
    return _revised(
        p,
        edit,
        _drop_summary,
        request="Take the security review out of the plan; the platform team already covered it.",
        direct="/tasks/1",
    )


def _drop_summary(q: dict[str, Any]) -> dict[str, Override]:
    """Size 100's summary line: the task count and the public launch date."""
    if q["size"] != 100:
        return {}
    after = drop_compute(q)
    launch = after["milestones"][2]["date"]
    return {"/summary": regex(all_of(rf"\b{len(after['tasks'])} tasks\b", launch))}


def drop_followups(p: dict[str, Any]) -> list[Revision]:
    rev = _drop_app_task("T2")
    f1 = _put_back("T2", "T1")
    f2 = _app_days("T3", 21)
    f3 = _new_app_task("T3", "Localization", "Mei", 4)
    return [
        Revision(
            # size 10 records no task owners: a request naming one there invites a place the gold lacks
            request="Put the security review back in after all: the platform team's review didn't cover the "
            f"mobile client. Same 5 days,{'' if p['size'] == 10 else ' Mei,'} right after the API hardening.",
            mutate=f1,
            direct="/tasks/1",
            overrides=_drop_summary(_replayed(p, rev, f1)),
            theme="The removed task is put back; its successor relinks to it and every later date moves out "
            "again by its length",
            pattern="add_remove",
        ),
        Revision(
            request="Beta testing needs three weeks, not two.",
            mutate=f2,
            direct="/tasks/2/days",
            overrides=_drop_summary(_replayed(p, rev, f1, f2)),
            theme="A longer beta pushes its end and every later task, the end date and the launch-relative "
            "milestones out by a week",
            pattern="temporal",
        ),
        Revision(
            request="Add a task called Localization right after beta testing: 4 days"
            + ("." if p["size"] == 10 else ", owned by Mei."),
            mutate=f3,
            direct="/tasks/3",
            overrides=_drop_summary(_replayed(p, rev, f1, f2, f3)),
            theme="A task inserted mid-chain takes the next number, its successor depends on it, and every "
            "later date, the count and the milestones move",
            pattern="add_remove",
        ),
    ]


# moves of schedule-drop-task: a task taken out (never beta testing: the beta invite email
# hangs on it), a removed task put back, a task re-estimated, a new task inserted after one,
# the kickoff moved


def _task_label(name: str) -> str:
    return name if name[:3] == "API" else name[0].lower() + name[1:]


def _days(n: int) -> str:
    return "1 day" if n == 1 else f"{n} days"


def _owner_words(p: dict[str, Any], owner: str) -> str:
    """``, owned by Mei`` where tasks record owners (sizes 50 and 100)."""
    return "" if p["size"] == 10 else f", owned by {owner}"


def _remove_app_task(p: dict[str, Any], d: Draw) -> Revision | None:
    tasks = p["tasks"]
    # a task whose successor has its length would read as that one renamed
    options = [
        i
        for i, t in enumerate(tasks)
        if t[0] != "T3" and (i + 1 == len(tasks) or tasks[i + 1][3] != t[3])
    ]
    if len(p["tasks"]) < 3 or not options:
        return None
    i = d.pick(options)
    tid, name = p["tasks"][i][:2]
    edit = _drop_app_task(tid)
    return _revised(
        p,
        edit,
        _drop_summary,
        request=f"Take the {_task_label(name)} out of the plan; we don't need it for this release.",
        direct=f"/tasks/{i}",
        theme=f"The {_task_label(name)} is removed; its successor relinks and every later date pulls in",
    )


def _restore_app_task(p: dict[str, Any], d: Draw) -> Revision | None:
    present = {t[0]: t[1] for t in p["tasks"]}
    options = []
    for row, after in p["removed"]:
        anchor = after if after in present else None
        i = 0 if anchor is None else _app_index(p, anchor) + 1
        # as long as the task it lands before, it would read as that one renamed
        if i == len(p["tasks"]) or p["tasks"][i][3] != row[3]:
            options.append((row, anchor, i))
    if not options:
        return None
    (tid, name, owner, days), anchor, i = d.pick(options)
    where = (
        f"right after the {_task_label(present[anchor])}"
        if anchor
        else "as the first task, starting at kickoff"
        if p["size"] > 10
        else f"as the first task, starting on {p['kickoff']}"
    )
    edit = _put_back(tid, anchor)
    return _revised(
        p,
        edit,
        _drop_summary,
        request=f"Put the {_task_label(name)} back in after all: same {_days(days)}"
        f"{_owner_words(p, owner)}, {where}.",
        direct=f"/tasks/{i}",
        theme=f"The {_task_label(name)} is put back; every later date moves out by its length",
    )


def _relength(p: dict[str, Any], d: Draw) -> Revision:
    i = d.pick(range(len(p["tasks"])))
    tid, name, _, old = p["tasks"][i]
    new = d.pick([n for n in range(max(1, old - 4), old + 8) if n != old])
    edit = _app_days(tid, new)
    label = _task_label(name)
    return _revised(
        p,
        edit,
        _drop_summary,
        request=f"{label[0].upper() + label[1:]} needs {_days(new)}, not {old}.",
        direct=f"/tasks/{i}/days",
        theme=f"The {label} takes {new} days; every later date and the launch-relative milestones move",
    )


def _insert_app_task(p: dict[str, Any], d: Draw) -> Revision | None:
    taken = {t[1] for t in p["tasks"]} | {row[1] for row, _ in p["removed"]}
    options = [t for t in NEW_APP_TASKS if t[0] not in taken]
    if not options:
        return None
    name, owner, days = d.pick(options)
    i = d.pick(range(len(p["tasks"])))
    anchor_id, anchor = p["tasks"][i][:2]
    if i + 1 < len(p["tasks"]) and p["tasks"][i + 1][3] == days:
        days += 1  # as long as its successor, it would read as that one renamed
    edit = _new_app_task(anchor_id, name, owner, days)
    return _revised(
        p,
        edit,
        _drop_summary,
        request=f"Add a task called {name} right after the {_task_label(anchor)}: {_days(days)}"
        f"{_owner_words(p, owner)}.",
        direct=f"/tasks/{i + 1}",
        theme=f"{name} is inserted; it takes the next number and every later date moves out",
    )


def _app_kickoff(p: dict[str, Any], d: Draw) -> Revision:
    old = p["kickoff"]
    new = d.pick(
        [
            x
            for x in (add_days(old, n) for n in range(-7, 11) if n)
            if "2025-06-16" <= x <= "2025-07-25"
        ]
    )
    later = new > old
    edit: Any = lambda q: q.update(kickoff=new)  # noqa: E731
    if p["size"] == 10:
        request = f"The first task now starts on {new} instead of {old}."
        direct = "/tasks/0/start"
    else:
        request = f"Kickoff {'slips' if later else 'moves up'} to {new}."
        direct = "/project/kickoff"
    return _revised(
        p,
        edit,
        _drop_summary,
        request=request,
        direct=direct,
        theme="The kickoff moves; every task date, the end date and the launch-relative milestones follow",
    )


DROP_MOVES = [
    Move("remove-task", "add_remove", _remove_app_task),
    Move("restore-task", "add_remove", _restore_app_task),
    Move("relength", "temporal", _relength),
    Move("insert-task", "add_remove", _insert_app_task),
    Move("kickoff", "temporal", _app_kickoff),
]

# --------------------------------------------------------------------------- schedule-permit-threshold
# Threshold: the renovated floor area crosses the city's 500 sq ft permit threshold; the material
# estimate recomputes, and only because of the crossing the permit, its review delay (every phase
# date), the inspection and the dumpster size switch.

PERMIT_THRESHOLD = 500
RENO_START = "2025-05-05"
# (phase, days)
RENO_PHASES = {
    50: [
        ("Demolition", 3),
        ("Plumbing and electrical", 5),
        ("Cabinets", 4),
        ("Flooring", 3),
        ("Painting", 2),
    ],
    100: [
        ("Demolition", 3),
        ("Plumbing and electrical", 5),
        ("Drywall", 3),
        ("Cabinets", 4),
        ("Countertops", 2),
        ("Flooring", 3),
        ("Painting", 2),
    ],
}


def permit_inputs(size: int, d: Draw) -> dict[str, Any]:
    """The renovated area, the labor quote, the flooring's box price and the start date."""
    return {
        "size": size,
        "area": d.int(300, 720, shipped=450, step=10),
        "labor": (
            d.int(6000, 11000, shipped=8000, step=250)
            if size == 10
            else d.int(11000, 18000, shipped=14500, step=250)
        ),
        "box_price": d.pick([52, 48, 56, 61]),
        "start": d.date("2025-04-28", "2025-05-16", shipped=RENO_START, weekdays="01234"),
    }


def permit_params(size: int) -> dict[str, Any]:
    return permit_inputs(size, SHIPPED)


def _boxes(area: int) -> int:
    return math.ceil(area * 11 / 200)  # 20 sq ft per box plus 10% waste


def permit_compute(p: dict[str, Any]) -> dict[str, Any]:
    size, area, start = p["size"], p["area"], p["start"]
    needed = area > PERMIT_THRESHOLD
    boxes = _boxes(area)
    flooring_cost = boxes * p["box_price"]
    fee = money(area * 1.5) if needed else 0
    labor = p["labor"]
    if size == 10:
        return {
            "project": "Maple Street ground-floor renovation",
            "contractor": "Birch & Sons",
            "start_date": start,
            "floor_area_sq_ft": area,
            "flooring": {"boxes": boxes, "cost": flooring_cost},
            "permit": {"required": needed, "fee": fee},
            "labor_cost": labor,
            "budget_total": money(labor + flooring_cost + fee),
        }
    review = 10 if needed else 0
    day = add_days(start, review)
    phases: list[dict[str, Any]] = []
    for name, days in RENO_PHASES[size]:
        end = add_days(day, days - 1)
        phases.append({"name": name, "days": days, "start": day, "end": end})
        day = add_days(end, 1)
    tile_boxes = math.ceil(80 * 11 / 100)
    artifact: dict[str, Any] = {
        "project": {
            "name": "Maple Street ground-floor renovation",
            "contractor": "Birch & Sons",
            "start_date": start,
            "completion": phases[-1]["end"],
        },
        "floor_area_sq_ft": area,
        "flooring": {
            "product": "Oak engineered plank",
            "box_price": p["box_price"],
            "boxes": boxes,
            "cost": flooring_cost,
        },
        "bathroom_tile": {"area_sq_ft": 80, "boxes": tile_boxes, "cost": tile_boxes * 38},
        "permit": {
            "required": needed,
            "fee": fee,
            "review_days": review,
            "inspection_required": needed,
        },
        "phases": phases,
        "appliance_delivery": "2025-06-20",
        "paint": {
            "wall_area_sq_ft": 1400,
            "gallons": math.ceil(1400 / 350),
            "color": "Swiss Coffee",
        },
        "budget": {
            "labor": labor,
            "materials": flooring_cost + tile_boxes * 38,
            "permit": fee,
            "total": money(labor + flooring_cost + tile_boxes * 38 + fee),
        },
    }
    artifact["homeowners"] = {
        "names": "Jen and Theo Marsh",
        "phone": "(503) 555-0119",
        "stay_elsewhere_from": start,
    }
    artifact["final_walkthrough"] = add_days(phases[-1]["end"], 2)
    artifact["notes"] = ["Keep the back door locked", "Dog stays at a friend's during demolition"]
    if size == 50:
        return artifact
    big = needed
    artifact["dumpster"] = {"size_yards": 20 if big else 10, "rental": 650 if big else 425}
    artifact["budget"]["dumpster"] = artifact["dumpster"]["rental"]
    artifact["budget"]["total"] = money(
        artifact["budget"]["total"] + artifact["dumpster"]["rental"]
    )
    artifact["payments"] = [
        {"stage": "deposit", "amount": money(labor * 0.25)},
        {"stage": "cabinets installed", "amount": money(labor * 0.5)},
        {"stage": "completion", "amount": money(labor * 0.25)},
    ]
    artifact["dumpster"]["delivery"] = phases[0]["start"]
    plumbing = next(ph for ph in phases if ph["name"] == "Plumbing and electrical")
    artifact["permit"]["rough_in_inspection"] = add_days(plumbing["end"], 1) if needed else "none"
    artifact["homeowners"]["email"] = "marsh.family@example.com"
    artifact["notes"] += ["Protect the stair runner", "No work before 08:00"]
    artifact["selections"] = [
        {"item": i, "choice": c, "allowance": a}
        for i, c, a in (
            ("Cabinets", "Shaker, sage green", 9200),
            ("Countertop", "Quartz, Calacatta look", 4100),
            ("Sink", "Single-bowl undermount", 540),
            ("Faucet", "Brushed brass pull-down", 380),
            ("Pendant lights", "Three glass globes", 690),
            ("Backsplash", "White zellige", 1150),
        )
    ]
    artifact["crew"] = {
        "lead": "Marco Birch",
        "size": 3,
        "phone": "(503) 555-0166",
        "license": "CCB 204117",
    }
    artifact["site"] = {"parking": "driveway", "access": "side gate", "lockbox_code": "4471"}
    artifact["terms"] = {"warranty_years": 2, "change_order_fee": 150}
    artifact["paint"]["finish"] = "eggshell"
    return artifact


def permit_conversation(p: dict[str, Any]) -> list[Turn]:
    size, area, start, price, labor = p["size"], p["area"], p["start"], p["box_price"], p["labor"]
    permit_rule = (
        "City rule: a renovation over 500 square feet needs a building permit, which costs $1.50 per "
        "square foot of renovated area; at or under 500 there's no permit and no fee."
    )
    if size == 10:
        return [
            (
                f"We're renovating the ground floor on Maple Street with Birch & Sons, starting {start}.",
                ["/project", "/contractor", "/start_date"],
            ),
            (f"The renovated floor area is {area} square feet.", ["/floor_area_sq_ft"]),
            (
                "Flooring comes in boxes that cover 20 square feet each; take the area plus 10% for waste and "
                f"round up to whole boxes. Boxes are ${price}.",
                ["/flooring"],
            ),
            (permit_rule + " Work out whether we need one.", ["/permit"]),
            (
                f"Labor is quoted at ${labor:,}. Budget total is labor plus flooring plus the permit fee.",
                ["/labor_cost", "/budget_total"],
            ),
        ]
    phases = RENO_PHASES[size]
    turns: list[Turn] = [
        (
            f"Let's plan the Maple Street ground-floor renovation with Birch & Sons. Work starts {start}.",
            ["/project/name", "/project/contractor", "/project/start_date"],
        ),
        (f"We're redoing {area} square feet of floor.", ["/floor_area_sq_ft"]),
        (
            f"Flooring is oak engineered plank at ${price} a box; each box covers 20 square feet, and we order the area "
            "plus 10% waste, rounded up to whole boxes.",
            ["/flooring"],
        ),
        (
            "The bathroom is separate: 80 square feet of tile, 10 square feet per box plus 10% waste (round up), "
            "$38 a box.",
            ["/bathroom_tile"],
        ),
        (
            permit_rule
            + " If a permit is needed the city also inspects, and the review takes 10 days: we apply "
            "on the start date and demolition can only begin 10 days later. Without a permit demolition starts "
            "on the start date and the review is 0 days.",
            [
                "/permit/required",
                "/permit/fee",
                "/permit/review_days",
                "/permit/inspection_required",
            ],
        ),
        (
            "Phases run back to back, each starting the day after the previous ends (calendar days; end = start "
            "+ length - 1): " + ", ".join(f"{n.lower()} {d} days" for n, d in phases) + ".",
            ["/phases"],
        ),
        ("Completion is the end of the last phase.", ["/project/completion"]),
        (
            "The appliances are being delivered on 2025-06-20; that's fixed with the store.",
            ["/appliance_delivery"],
        ),
        (
            "Paint: 1,400 square feet of wall, one gallon covers 350 (round up), color Swiss Coffee.",
            ["/paint/wall_area_sq_ft", "/paint/gallons", "/paint/color"],
        ),
        (
            f"Budget: labor is ${labor:,}; materials are the flooring plus the tile; then the permit fee, and the "
            "total of all of it.",
            ["/budget"],
        ),
    ]
    if size == 100:
        turns[-1] = (
            turns[-1][0].replace(
                "and the total of all of it.", "then the dumpster, and the total of all of it."
            ),
            ["/budget"],
        )
        turns.insert(
            -1,
            (
                "The hauler's rule: jobs over 500 square feet need the 20-yard dumpster at $650; "
                "otherwise the 10-yard one at $425 is fine.",
                ["/dumpster/size_yards", "/dumpster/rental"],
            ),
        )
    turns += [
        (
            f"Homeowners are Jen and Theo Marsh, (503) 555-0119; they stay elsewhere from {start}.",
            ["/homeowners/names", "/homeowners/phone", "/homeowners/stay_elsewhere_from"],
        ),
        ("Book a final walkthrough two days after completion.", ["/final_walkthrough"]),
        (
            "Notes for the crew: keep the back door locked, and the dog stays at a friend's during demolition.",
            ["/notes/0", "/notes/1"],
        ),
    ]
    if size == 100:
        turns += [
            (
                "Birch & Sons want labor paid 25% upfront, 50% once the cabinets are in, and 25% at completion.",
                ["/payments"],
            ),
            ("The dumpster arrives the day demolition starts.", ["/dumpster/delivery"]),
            (
                "With a permit, the rough-in inspection is the day after plumbing and electrical finishes; without "
                "one, put 'none'.",
                ["/permit/rough_in_inspection"],
            ),
            (
                "Their email is marsh.family@example.com. Two more crew notes: protect the stair runner, and no "
                "work before 08:00.",
                ["/homeowners/email", "/notes/2", "/notes/3"],
            ),
            (
                "Owner selections with allowances: cabinets Shaker in sage green $9,200; quartz countertop, "
                "Calacatta look, $4,100; single-bowl undermount sink $540; brushed brass pull-down faucet $380; "
                "three glass globe pendants $690; white zellige backsplash $1,150. They pay these directly.",
                ["/selections"],
            ),
            (
                "Crew lead is Marco Birch, crew of 3, (503) 555-0166, license CCB 204117. Park in the driveway, "
                "enter by the side gate, lockbox code 4471.",
                ["/crew", "/site"],
            ),
            (
                "Their terms: 2-year warranty and a $150 fee per change order. Paint finish is eggshell.",
                ["/terms", "/paint/finish"],
            ),
        ]
    return turns


def permit_revision(p: dict[str, Any]) -> Revision:
    return Revision(
        request="We're opening up the dining room too, so the renovated floor area is now 620 square feet.",
        mutate=lambda q: q.update(area=620),
        direct="/floor_area_sq_ft",
    )


def permit_followups(p: dict[str, Any]) -> list[Revision]:
    size = p["size"]

    def f1(q: dict[str, Any]) -> None:
        q.update(area=480)

    def f2(q: dict[str, Any]) -> None:
        q["labor"] += 1500

    def f3(q: dict[str, Any]) -> None:
        q.update(area=500)

    return [
        Revision(
            request="Scratch the dining room: we're keeping it to the kitchen and hall, 480 square feet after "
            "all.",
            mutate=f1,
            direct="/floor_area_sq_ft",
            theme="The area drops back under the 500 sq ft line: the permit, its fee, review delay, inspection "
            "and big dumpster go away and the phases move back to the start date",
            pattern="threshold",
        ),
        Revision(
            request="Birch & Sons raised their labor quote by $1,500.",
            mutate=f2,
            direct="/labor_cost" if size == 10 else "/budget/labor",
            theme="A higher labor quote raises the budget total and every labor payment stage",
            pattern="arithmetic",
        ),
        Revision(
            request="They measured again: the renovated area is exactly 500 square feet.",
            mutate=f3,
            direct="/floor_area_sq_ft",
            theme="The area rises to exactly the threshold: flooring and costs follow, but at 500 sq ft no "
            "permit is needed, so the schedule stays",
            pattern="threshold",
        ),
    ]


# moves of schedule-permit-threshold: the area crosses the 500 sq ft line, the area changes on
# its side of the line, the labor quote changes, the flooring's box price changes, the start
# date moves (sizes 50 and 100, where the phases hang on it)


def _area_request(old: int, new: int) -> str:
    why = "we're opening up more of the floor" if new > old else "we're cutting back the scope"
    return f"Change of plan, {why}: the renovated floor area is now {new} square feet."


def _cross_area(p: dict[str, Any], d: Draw) -> Revision:
    old = p["area"]
    over = old > PERMIT_THRESHOLD
    pool = range(300, 501, 10) if over else range(510, 751, 10)
    new = d.pick(list(pool))
    return Revision(
        request=_area_request(old, new),
        mutate=lambda q: q.update(area=new),
        direct="/floor_area_sq_ft",
        theme=f"The area crosses the 500 sq ft line ({old} to {new}): the permit and everything it "
        "governs switch",
    )


def _resize_area(p: dict[str, Any], d: Draw) -> Revision | None:
    old = p["area"]
    over = old > PERMIT_THRESHOLD
    pool = [
        a
        for a in (range(510, 751, 10) if over else range(300, 501, 10))
        if _boxes(a) != _boxes(old)
    ]
    if not pool:
        return None
    new = d.pick(pool)
    return Revision(
        request=_area_request(old, new),
        mutate=lambda q: q.update(area=new),
        direct="/floor_area_sq_ft",
        theme=f"The area changes on its side of the 500 sq ft line ({old} to {new}): flooring and "
        "the costs follow, the permit status stays",
    )


def _labor_quote(p: dict[str, Any], d: Draw) -> Revision:
    delta = d.pick([n for n in range(-2000, 2501, 250) if n and p["labor"] + n >= 5000])
    verb = "raised" if delta > 0 else "lowered"
    return Revision(
        request=f"Birch & Sons {verb} their labor quote by ${abs(delta):,}.",
        mutate=lambda q: q.update(labor=q["labor"] + delta),
        direct="/labor_cost" if p["size"] == 10 else "/budget/labor",
        theme=f"The labor quote changes by ${delta:,}; the budget total and every labor payment follow",
    )


def _box_price(p: dict[str, Any], d: Draw) -> Revision:
    new = d.pick([x for x in range(44, 66) if x != p["box_price"]])
    return Revision(
        request=f"The flooring boxes now cost ${new} each.",
        mutate=lambda q: q.update(box_price=new),
        direct="/flooring/cost" if p["size"] == 10 else "/flooring/box_price",
        theme=f"The box price changes to ${new}; the flooring cost and the totals follow",
    )


def _reno_start(p: dict[str, Any], d: Draw) -> Revision:
    old = p["start"]
    new = d.pick(
        [
            x
            for x in (add_days(old, n) for n in range(-14, 15) if n)
            if dt.date.fromisoformat(x).weekday() < 5 and "2025-04-14" <= x <= "2025-05-30"
        ]
    )
    stay = " Jen and Theo will stay elsewhere from that day instead."
    return Revision(
        request=f"Work now starts on {new} instead of {old}.{stay}",
        mutate=lambda q: q.update(start=new),
        direct="/project/start_date",
        theme="The start date moves; every phase date, completion and the walkthrough follow",
    )


PERMIT_MOVES = [
    Move("cross-area", "threshold", _cross_area),
    Move("resize-area", "arithmetic", _resize_area),
    Move("labor-quote", "arithmetic", _labor_quote),
    Move("box-price", "arithmetic", _box_price, opens=False),
    Move("start-date", "temporal", _reno_start, when=lambda p: p["size"] >= 50),
]


# --------------------------------------------------------------------------- schedule-kickoff-shift
# Temporal: the kickoff slips; every milestone, sprint and meeting day set relative to it moves,
# while board, fiscal and vendor dates stay.

# (milestone, days after kickoff, or None with an absolute date)
MILESTONES = {
    10: [("Requirements workshop", 3), ("Design sign-off", 21), ("Go-live", 84)],
    50: [
        ("Requirements workshop", 3),
        ("Design sign-off", 21),
        ("Data migration dry run", 56),
        ("User acceptance testing", 63),
        ("Go-live", 84),
        ("Hypercare ends", 112),
    ],
    100: [
        ("Requirements workshop", 3),
        ("Design sign-off", 21),
        ("Data migration dry run", 56),
        ("User acceptance testing", 63),
        ("Cutover rehearsal", 77),
        ("Go-live", 84),
        ("Hypercare ends", 112),
    ],
}
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


SPONSORS = ["Gail Porter", "Marion Keller", "Renee Castillo"]
BOARD_DATES = ["2025-05-20", "2025-05-13", "2025-05-27"]


def kickoff_inputs(size: int, d: Draw) -> dict[str, Any]:
    """The kickoff, the sponsor, the board's review date, the milestones (``milestones``:
    [name, days after kickoff] in list order; hypercare, 4 weeks after go-live, moves with it),
    the milestones a user fixed on a date (``pinned``) and Finance training's day."""
    return {
        "size": size,
        "kickoff": d.date("2025-03-31", "2025-04-25", shipped="2025-04-07", weekdays="01234"),
        "sponsor": d.pick(SPONSORS),
        "board": d.pick(BOARD_DATES),
        "milestones": [[n, days] for n, days in MILESTONES[size]],
        "training": 70,
        "pinned": {},
    }


def kickoff_params(size: int) -> dict[str, Any]:
    return kickoff_inputs(size, SHIPPED)


def kickoff_compute(p: dict[str, Any]) -> dict[str, Any]:
    size, k = p["size"], p["kickoff"]
    sponsor, board = p["sponsor"], p["board"]
    pinned = p["pinned"]
    milestones = [{"name": n, "date": pinned.get(n) or add_days(k, d)} for n, d in p["milestones"]]
    if size == 10:
        return {
            "project": "Northwind ERP rollout",
            "sponsor": sponsor,
            "kickoff": k,
            "milestones": milestones,
            "board_review": board,
        }
    artifact: dict[str, Any] = {
        "project": {
            "name": "Northwind ERP rollout",
            "sponsor": sponsor,
            "vendor": "Corelane Systems",
            "kickoff": k,
        },
        "milestones": milestones,
        "fixed_dates": [
            {"event": "Board review", "date": board},
            {"event": "Fiscal year end", "date": "2025-06-30"},
            {"event": "Memorial Day (office closed)", "date": "2025-05-26"},
            {"event": "Vendor contract renewal", "date": "2025-09-01"},
        ],
        "training": [
            {"group": "Finance", "date": add_days(k, p["training"])},
            {"group": "Warehouse", "date": add_days(k, p["training"] + 2)},
        ],
        "environments": {
            "sandbox": "nw-erp-sbx",
            "test": "nw-erp-uat",
            "production": "nw-erp-prod",
        },
        "team": [
            {"name": sponsor, "role": "sponsor"},
            {"name": "Dev Patel", "role": "project lead"},
            {"name": "Hanna Berg", "role": "finance lead"},
        ],
    }
    artifact["status_meeting"] = {
        "weekday": WEEKDAYS[dt.date.fromisoformat(k).weekday()],
        "time": "09:00",
        "room": "Harbor 3",
    }
    artifact["budget"] = {"licences": 48000, "implementation": 126000, "currency": "USD"}
    artifact["risks"] = [
        {"risk": "Legacy data quality", "owner": "Hanna Berg"},
        {"risk": "Warehouse scanner compatibility", "owner": "Dev Patel"},
    ]
    artifact["communications"] = {
        "channel": "#erp-rollout",
        "newsletter": "every other Friday",
        "intranet_page": "intranet/erp",
    }
    if size == 50:
        return artifact
    artifact["training"] += [
        {"group": "Sales", "date": add_days(k, p["training"] + 4)},
        {"group": "Purchasing", "date": add_days(k, p["training"] + 6)},
    ]
    artifact["sprints"] = [
        {"name": f"Sprint {i + 1}", "start": add_days(k, 14 * i), "end": add_days(k, 14 * i + 13)}
        for i in range(6)
    ]
    artifact["fixed_dates"] += [
        {"event": "Q2 audit", "date": "2025-07-15"},
        {"event": "Annual stocktake", "date": "2025-07-31"},
    ]
    artifact["team"].append({"name": "Luis Romero", "role": "warehouse lead"})
    artifact["budget"]["contingency"] = 17400
    artifact["steering_meetings"] = ["2025-04-24", "2025-05-29", "2025-06-26"]
    artifact["migration_waves"] = [
        {"wave": "Master data", "date": add_days(k, 49)},
        {"wave": "Open orders", "date": add_days(k, 56)},
        {"wave": "Balances", "date": add_days(k, 82)},
    ]
    artifact["modules"] = ["General ledger", "Payables", "Receivables", "Inventory", "Purchasing"]
    artifact["risks"] += [
        {"risk": "Super-user availability in June", "owner": sponsor},
        {"risk": "EDI partner testing", "owner": "Luis Romero"},
    ]
    artifact["environments"]["training"] = "nw-erp-trn"
    return artifact


def kickoff_conversation(p: dict[str, Any]) -> list[Turn]:
    size, k, sponsor, board = p["size"], p["kickoff"], p["sponsor"], p["board"]
    if size == 10:
        return [
            (
                f"Set up the plan for the Northwind ERP rollout. {sponsor} is the sponsor, and we kick off on "
                f"{k}.",
                ["/project", "/sponsor", "/kickoff"],
            ),
            (
                "Requirements workshop 3 days after kickoff, design sign-off three weeks after kickoff, and "
                "go-live 12 weeks after kickoff.",
                ["/milestones"],
            ),
            (
                f"The board reviews the project on {board}; that's their fixed meeting date.",
                ["/board_review"],
            ),
        ]
    turns: list[Turn] = [
        (
            f"New project: the Northwind ERP rollout with Corelane Systems as the vendor. {sponsor} sponsors "
            f"it and kickoff is {k}.",
            ["/project"],
        ),
        (
            "Milestones, all counted from kickoff: requirements workshop after 3 days, design sign-off after 3 "
            "weeks, the data migration dry run after 8 weeks, user acceptance testing after 9 weeks"
            + (", cutover rehearsal after 11 weeks" if size == 100 else "")
            + ", go-live after 12 weeks, and hypercare ends 4 weeks after go-live.",
            ["/milestones"],
        ),
        (
            f"Dates we don't control: board review {board}, fiscal year end 2025-06-30, the office is closed "
            "2025-05-26 for Memorial Day, and the vendor contract renews 2025-09-01.",
            ["/fixed_dates/0", "/fixed_dates/1", "/fixed_dates/2", "/fixed_dates/3"],
        ),
        (
            "End-user training: Finance 10 weeks after kickoff, Warehouse two days after that"
            + (
                ", Sales two days after Warehouse, and Purchasing two days after Sales."
                if size == 100
                else "."
            ),
            ["/training"],
        ),
        (
            "Environments: nw-erp-sbx for sandbox, nw-erp-uat for test, nw-erp-prod for production.",
            ["/environments/sandbox", "/environments/test", "/environments/production"],
        ),
        (
            f"Core team: {sponsor} (sponsor), Dev Patel (project lead), Hanna Berg (finance lead).",
            ["/team/0", "/team/1", "/team/2"],
        ),
        (
            "Weekly status meeting at 09:00 in Harbor 3, on the same weekday as the kickoff.",
            ["/status_meeting"],
        ),
        (
            "Budget: $48,000 licences and $126,000 implementation, in USD.",
            ["/budget/licences", "/budget/implementation", "/budget/currency"],
        ),
        (
            "Risks: legacy data quality (Hanna Berg) and warehouse scanner compatibility (Dev Patel).",
            ["/risks/0", "/risks/1"],
        ),
        (
            "Comms: Slack channel #erp-rollout, a newsletter every other Friday, and the intranet page intranet/erp.",
            ["/communications"],
        ),
    ]
    if size == 100:
        turns += [
            (
                "We'll run six two-week sprints back to back starting on kickoff day; each ends 13 days after "
                "it starts.",
                ["/sprints"],
            ),
            (
                "Add the Q2 audit on 2025-07-15 and the annual stocktake on 2025-07-31 to the fixed dates, and "
                "Luis Romero as warehouse lead.",
                ["/fixed_dates/4", "/fixed_dates/5", "/team/3"],
            ),
            (
                "Hold $17,400 of contingency in the budget. Steering committee meets on the dates the board office "
                "gave us: 2025-04-24, 2025-05-29 and 2025-06-26.",
                ["/budget/contingency", "/steering_meetings"],
            ),
            (
                "Data migration waves, counted from kickoff: master data after 7 weeks, open orders after 8 weeks, "
                "balances 82 days after kickoff.",
                ["/migration_waves"],
            ),
            (
                "Modules in scope: general ledger, payables, receivables, inventory and purchasing. Two more risks: "
                f"availability of our super-users in June ({sponsor}) and EDI partner testing (Luis Romero). We also get a "
                "training environment, nw-erp-trn.",
                ["/modules", "/risks/2", "/risks/3", "/environments/training"],
            ),
        ]
    return turns


def kickoff_revision(p: dict[str, Any]) -> Revision:
    return Revision(
        request="Kickoff has slipped to 2025-04-16.",
        mutate=lambda q: q.update(kickoff="2025-04-16"),
        direct="/kickoff" if p["size"] == 10 else "/project/kickoff",
    )


def kickoff_followups(p: dict[str, Any]) -> list[Revision]:
    size = p["size"]
    direct = "/kickoff" if size == 10 else "/project/kickoff"

    def f1(q: dict[str, Any]) -> None:
        q.update(kickoff="2025-04-22")

    def f2(q: dict[str, Any]) -> None:
        for row in q["milestones"]:
            if row[0] in ("Design sign-off", "Go-live", "Hypercare ends"):
                row[1] += 7

    def f3(q: dict[str, Any]) -> None:
        q.update(kickoff="2025-04-16")

    return [
        Revision(
            request="Bad news, it slipped again: kickoff is now 2025-04-22.",
            mutate=f1,
            direct=direct,
            theme="The kickoff moves a second time (to a Tuesday); every kickoff-relative date moves again and the "
            "status meeting changes weekday",
            pattern="temporal",
        ),
        Revision(
            request="Corelane needs an extra week for design: sign-off is now four weeks after kickoff, and "
            "go-live slides by the same week.",
            mutate=f2,
            direct="/milestones/1/date",
            theme="Design sign-off and go-live slide a week; hypercare, set from go-live, follows while the other "
            "kickoff-relative dates stay",
            pattern="temporal",
        ),
        Revision(
            request="Corelane freed up a team, so kickoff is back on 2025-04-16 after all. Keep the extra design "
            "week.",
            mutate=f3,
            direct=direct,
            theme="The second slip is undone: every kickoff-relative date, including the slid sign-off and "
            "go-live, moves back six days and the meeting weekday returns",
            pattern="temporal",
        ),
    ]


# moves of schedule-kickoff-shift: the kickoff moves to a date or by a span, the kickoff moves
# while one milestone is fixed on its date (the one fixed before goes back to kickoff-relative),
# go-live is re-timed and hypercare follows, Finance training is re-timed, the sponsor changes
# (sizes 50 and 100 for the last three: size 10 derives nothing else from them)


def _offset_words(days: int) -> str:
    if days % 7:
        return f"{days} days"
    weeks = days // 7
    return "1 week" if weeks == 1 else f"{weeks} weeks"


def _milestone_label(name: str) -> str:
    return name[0].lower() + name[1:]


def _kickoff_direct(p: dict[str, Any]) -> str:
    return "/kickoff" if p["size"] == 10 else "/project/kickoff"


def _before_fixed(x: str, pinned: dict[str, str]) -> bool:
    """Whether kickoff ``x`` comes before every milestone fixed on a date."""
    return all(x < date for date in pinned.values())


def _new_kickoff(p: dict[str, Any], d: Draw, pinned: dict[str, str]) -> str | None:
    old = p["kickoff"]
    options = [
        x
        for x in (add_days(old, n) for n in range(-14, 22) if n)
        if dt.date.fromisoformat(x).weekday() < 5
        and "2025-03-17" <= x <= "2025-05-16"
        and _before_fixed(x, pinned)
    ]
    return d.pick(options) if options else None


def _shift_kickoff(p: dict[str, Any], d: Draw) -> Revision | None:
    old, new = p["kickoff"], _new_kickoff(p, d, p["pinned"])
    if new is None:
        return None
    verb = "has slipped" if new > old else "moves up"
    return Revision(
        request=f"Kickoff {verb} to {new}.",
        mutate=lambda q: q.update(kickoff=new),
        direct=_kickoff_direct(p),
        theme=f"The kickoff moves from {old} to {new}; every kickoff-relative date follows",
    )


def _slip_kickoff(p: dict[str, Any], d: Draw) -> Revision | None:
    spans = [-7, -3, -2, 2, 3, 5, 7, 9, 14]
    spans = [n for n in spans if _before_fixed(add_days(p["kickoff"], n), p["pinned"])]
    if not spans:
        return None
    days = d.pick(spans)
    span = _offset_words(abs(days))
    request = (
        f"Push the kickoff back by {span}." if days > 0 else f"Bring the kickoff forward by {span}."
    )
    return Revision(
        request=request,
        mutate=lambda q: q.update(kickoff=add_days(q["kickoff"], days)),
        direct=_kickoff_direct(p),
        theme=f"The kickoff moves by {days} days; every kickoff-relative date follows",
    )


def _pin_milestone(p: dict[str, Any], d: Draw) -> Revision | None:
    rows = p["milestones"]
    held = () if p["size"] == 10 else ("Go-live", "Hypercare ends")  # hypercare hangs on go-live
    options = [n for n, _ in rows if n not in held and n not in p["pinned"]]
    if not options:
        return None
    name = d.pick(options)
    date = kickoff_compute(p)["milestones"][[n for n, _ in rows].index(name)]["date"]
    new = _new_kickoff(p, d, {name: date})
    if new is None:
        return None
    freed = [(n, off) for n, off in rows if n in p["pinned"]]
    back = "".join(
        f" The {_milestone_label(n)} is no longer fixed: it goes back to {_offset_words(off)} after "
        "kickoff."
        for n, off in freed
    )

    def mutate(q: dict[str, Any]) -> None:
        q.update(kickoff=new, pinned={name: date})

    return Revision(
        request=f"Kickoff moves to {new}, but the {_milestone_label(name)} stays on {date}: we "
        f"promised that date, so keep it fixed whatever kickoff does from now on.{back}",
        mutate=mutate,
        direct=_kickoff_direct(p),
        theme=f"The kickoff moves while the {_milestone_label(name)} is fixed on its date",
    )


def _retime_golive(p: dict[str, Any], d: Draw) -> Revision:
    rows = p["milestones"]
    i = next(i for i, (n, _) in enumerate(rows) if n == "Go-live")
    old = rows[i][1]
    last = max(off for n, off in rows if n not in ("Go-live", "Hypercare ends"))
    new = d.pick([x for x in range(last + 7, 17 * 7, 7) if x != old])

    def mutate(q: dict[str, Any]) -> None:
        for row in q["milestones"]:
            if row[0] in ("Go-live", "Hypercare ends"):
                row[1] += new - old

    return Revision(
        request=f"Go-live is now {_offset_words(new)} after kickoff instead of {_offset_words(old)}.",
        mutate=mutate,
        direct=f"/milestones/{i}/date",
        theme="Go-live is re-timed from kickoff; hypercare, set from go-live, follows",
    )


def _retrain(p: dict[str, Any], d: Draw) -> Revision:
    old = p["training"]
    new = d.pick([x for x in range(49, 92, 7) if x != old])
    return Revision(
        request=f"Finance training is now {_offset_words(new)} after kickoff instead of "
        f"{_offset_words(old)}; the other groups keep their two-day spacing after it.",
        mutate=lambda q: q.update(training=new),
        direct="/training/0/date",
        theme="Finance training is re-timed; the groups chained after it follow",
    )


def _swap_sponsor(p: dict[str, Any], d: Draw) -> Revision:
    old = p["sponsor"]
    new = d.pick([n for n in SPONSORS if n != old])
    return Revision(
        request=f"{new} takes over as sponsor from {old}, including everything {old} owned on "
        "this project.",
        mutate=lambda q: q.update(sponsor=new),
        direct="/project/sponsor",
        theme=f"{new} replaces {old} as sponsor wherever {old} appeared",
    )


KICKOFF_MOVES = [
    Move("shift-kickoff", "temporal", _shift_kickoff),
    Move("slip-kickoff", "temporal", _slip_kickoff),
    Move("pin-milestone", "temporal", _pin_milestone),
    Move("retime-go-live", "temporal", _retime_golive, when=lambda p: p["size"] >= 50, opens=False),
    Move("retime-training", "temporal", _retrain, when=lambda p: p["size"] >= 50, opens=False),
    Move("swap-sponsor", "substitution", _swap_sponsor, when=lambda p: p["size"] >= 50),
]


# --------------------------------------------------------------------------- schedule-workstream-hold
# Status flip: a workstream goes on hold; its sync, contractor hours, health, reporting and open
# tasks move to their on-hold values together, and the project totals follow.

# (name, lead, sync, contractor hours, health)
STREAMS = {
    10: [("Web app", "", "Tuesday 10:00", 40, ""), ("Mobile app", "", "Thursday 14:00", 30, "")],
    50: [
        ("Web app", "Ana Silva", "Tuesday 10:00", 40, "green"),
        ("Mobile app", "Kofi Mensah", "Thursday 14:00", 30, "amber"),
        ("Marketing site", "Elena Novak", "Monday 11:00", 12, "green"),
    ],
    100: [
        ("Web app", "Ana Silva", "Tuesday 10:00", 40, "green"),
        ("Mobile app", "Kofi Mensah", "Thursday 14:00", 30, "amber"),
        ("Marketing site", "Elena Novak", "Monday 11:00", 12, "green"),
        ("Data platform", "Raj Iyer", "Wednesday 15:00", 24, "green"),
    ],
}
# (task, workstream, status)
STREAM_TASKS = {
    50: [
        ("Offline sync", "Mobile app", "in progress"),
        ("Push notifications", "Mobile app", "to do"),
        ("Login redesign", "Mobile app", "done"),
        ("Checkout flow", "Web app", "in progress"),
        ("Pricing page", "Marketing site", "to do"),
    ],
    100: [
        ("Offline sync", "Mobile app", "in progress"),
        ("Push notifications", "Mobile app", "to do"),
        ("Login redesign", "Mobile app", "done"),
        ("Tablet layout", "Mobile app", "to do"),
        ("Checkout flow", "Web app", "in progress"),
        ("Order history", "Web app", "to do"),
        ("Pricing page", "Marketing site", "to do"),
        ("Event pipeline", "Data platform", "in progress"),
        ("Crash reporting", "Mobile app", "done"),
        ("Usage dashboard", "Data platform", "to do"),
    ],
}
HOLD = {
    "status": "on hold",
    "weekly_sync": "cancelled",
    "contractor_hours": 0,
    "health": "grey",
    "report_cadence": "monthly",
}


# workstreams a user may add: (name, lead, sync, health)
NEW_STREAMS = [
    ("Partner API", "Lena Park", "Friday 09:00", "green"),
    ("Design system", "Tomas Reyes", "Wednesday 11:00", "amber"),
    ("Customer support tools", "Aisha Bello", "Monday 15:00", "green"),
]


def hold_inputs(size: int, d: Draw) -> dict[str, Any]:
    """The workstreams (``streams``: [name, lead, sync, weekly contractor hours, health]), the
    tasks ([title, workstream, status]) and the workstreams on hold (``held``)."""
    return {
        "size": size,
        "streams": [
            [n, lead, sync, d.int(max(6, h - 12), h + 12, shipped=h, step=2), health]
            for n, lead, sync, h, health in STREAMS[size]
        ],
        "tasks": [list(t) for t in STREAM_TASKS.get(size, [])],
        "held": [],
    }


def hold_params(size: int) -> dict[str, Any]:
    return hold_inputs(size, SHIPPED)


def _stream(
    p: dict[str, Any], name: str, lead: str, sync: str, hours: int, health: str
) -> dict[str, Any]:
    row: dict[str, Any] = {"name": name}
    if p["size"] > 10:
        row["lead"] = lead
    row.update(status="active", weekly_sync=sync, contractor_hours=hours)
    if p["size"] > 10:
        row.update(health=health, report_cadence="weekly")
    if name in p["held"]:
        row.update({k: v for k, v in HOLD.items() if k in row})
    return row


def hold_compute(p: dict[str, Any]) -> dict[str, Any]:
    size = p["size"]
    streams = [_stream(p, *s) for s in p["streams"]]
    hours = sum(s["contractor_hours"] for s in streams)
    if size == 10:
        return {
            "project": "Atlas 2.0 launch",
            "workstreams": streams,
            "weekly_contractor_hours": hours,
        }
    tasks = [
        {
            "title": t,
            "workstream": ws,
            "status": "paused" if ws in p["held"] and st != "done" else st,
        }
        for t, ws, st in p["tasks"]
    ]
    artifact: dict[str, Any] = {
        "project": {
            "name": "Atlas 2.0 launch",
            "director": "Helen Cho",
            "target_release": "2025-10-01",
        },
        "workstreams": streams,
        "tasks": tasks,
        "totals": {
            "active_workstreams": sum(s["status"] == "active" for s in streams),
            "weekly_contractor_hours": hours,
            "weekly_contractor_cost": hours * 80,
        },
        "steering": {"day": "first Monday of the month", "chair": "Helen Cho"},
    }
    artifact["vendors"] = [
        {"name": "Pixelcraft", "rate": 80, "contract_end": "2025-12-31"},
        {"name": "Nordlight QA", "rate": 65, "contract_end": "2025-09-30"},
    ]
    if size == 100:
        active = artifact["totals"]["active_workstreams"]
        artifact["totals"]["open_tasks"] = sum(
            t["status"] in ("to do", "in progress") for t in tasks
        )
        artifact["totals"]["monthly_contractor_forecast"] = hours * 80 * 4
        artifact["project"]["budget_code"] = "ATL-2025"
        artifact["milestones"] = [
            {"name": n, "workstream": ws, "date": d}
            for n, ws, d in (
                ("Public beta", "Web app", "2025-08-15"),
                ("Store submission", "Mobile app", "2025-09-05"),
                ("Site relaunch", "Marketing site", "2025-09-20"),
                ("Warehouse cutover", "Data platform", "2025-08-29"),
            )
        ]
        artifact["ceremonies"] = {"demo_day": "every other Friday", "retro": "monthly"}
        artifact["tools"] = ["Jira", "Figma", "Slack", "GitHub"]
        artifact["contacts"] = {"finance": "Paolo Ricci", "legal": "Sara Kim"}
        artifact["status_line"] = f"{active} active workstreams, {hours} contractor hours a week"
        artifact["risks"] = [
            {"risk": "Payment provider migration", "owner": "Ana Silva"},
            {"risk": "Data retention review", "owner": "Raj Iyer"},
        ]
    return artifact


def hold_conversation(p: dict[str, Any]) -> list[Turn]:
    size = p["size"]
    hours = {row[0]: row[3] for row in p["streams"]}
    if size == 10:
        return [
            ("I run the Atlas 2.0 launch. Start a tracker for it.", ["/project"]),
            (
                "Two workstreams, both active: the web app syncs Tuesdays at 10:00 and uses "
                f"{hours['Web app']} contractor hours a week; the mobile app syncs Thursdays at 14:00 with "
                f"{hours['Mobile app']} contractor hours.",
                ["/workstreams/0", "/workstreams/1"],
            ),
            (
                "Our rule: a workstream on hold is marked 'on hold', its weekly sync is cancelled (write "
                "'cancelled'), and its contractor hours go to 0. Total the weekly contractor hours across "
                "workstreams.",
                ["/weekly_contractor_hours"],
            ),
        ]
    turns: list[Turn] = [
        (
            "I'm the PM for the Atlas 2.0 launch, director Helen Cho, target release 2025-10-01.",
            ["/project/name", "/project/director", "/project/target_release"],
        ),
        (
            "Workstreams, all active and reporting weekly: web app (Ana Silva, syncs Tuesday 10:00, "
            f"{hours['Web app']} contractor hours a week, health green), mobile app (Kofi Mensah, Thursday "
            f"14:00, {hours['Mobile app']} hours, amber) and the marketing site (Elena Novak, Monday 11:00, "
            f"{hours['Marketing site']} hours, green).",
            [f"/workstreams/{i}" for i in range(3)],
        ),
    ]
    if size == 100:
        turns.append(
            (
                f"Add the data platform too: Raj Iyer, Wednesday 15:00, {hours['Data platform']} contractor "
                "hours, green, active, weekly reports.",
                ["/workstreams/3"],
            )
        )
    turns.append(
        (
            "How we handle pauses: when a workstream goes on hold its status becomes 'on hold', its weekly "
            "sync is 'cancelled', contractor hours drop to 0, health turns 'grey', and it reports "
            "'monthly' instead of weekly. Its unfinished tasks become 'paused'; finished ones stay done.",
            ["/tasks/0", "/tasks/1", "/tasks/2"],
        )
    )
    n = len(STREAM_TASKS[size])
    rest = ", ".join(f"{t.lower()} ({ws.lower()}, {st})" for t, ws, st in STREAM_TASKS[size][3:])
    turns[-1] = (
        turns[-1][0]
        + " Current mobile tasks: offline sync (in progress), push notifications (to do) "
        "and login redesign (done).",
        turns[-1][1],
    )
    turns.append((f"Other tasks: {rest}.", [f"/tasks/{i}" for i in range(3, n)]))
    total_ptrs = [
        "/totals/active_workstreams",
        "/totals/weekly_contractor_hours",
        "/totals/weekly_contractor_cost",
    ]
    text = (
        "Totals: number of active workstreams, weekly contractor hours, and weekly contractor cost at the "
        "blended $80 an hour."
    )
    if size == 100:
        total_ptrs.append("/totals/open_tasks")
        text += " Also count the open tasks (to do or in progress)."
    turns.append((text, total_ptrs))
    turns.append(
        ("Steering meets the first Monday of the month, chaired by Helen Cho.", ["/steering"])
    )
    turns.append(
        (
            "Contractor firms: Pixelcraft at $80/h until 2025-12-31 and Nordlight QA at $65/h until "
            "2025-09-30.",
            ["/vendors"],
        )
    )
    if size == 100:
        turns += [
            (
                "Risks: payment provider migration (Ana Silva) and the data retention review (Raj Iyer).",
                ["/risks"],
            ),
            (
                "Finance wants a monthly contractor forecast: four weeks of the weekly contractor cost. Our budget "
                "code is ATL-2025.",
                ["/totals/monthly_contractor_forecast", "/project/budget_code"],
            ),
            (
                "Milestones (these dates hold until we re-plan, paused or not): public beta for the web app "
                "2025-08-15, mobile store submission 2025-09-05, marketing site relaunch 2025-09-20, data platform "
                "warehouse cutover 2025-08-29.",
                ["/milestones"],
            ),
            (
                "Demo day is every other Friday and the retro is monthly. Tools: Jira, Figma, Slack, GitHub. "
                "Finance contact Paolo Ricci, legal Sara Kim.",
                ["/ceremonies", "/tools", "/contacts"],
            ),
            (
                "Give me a status line for the weekly email: how many workstreams are active and the weekly "
                "contractor hours, like '5 active workstreams, 120 contractor hours a week'.",
                ["/status_line"],
            ),
        ]
    return turns


def hold_revision(p: dict[str, Any]) -> Revision:
    overrides = {}
    if p["size"] == 100:
        after = hold_compute(dict(p, held=["Mobile app"]))["totals"]
        overrides["/status_line"] = regex(
            all_of(
                rf"\b{after['active_workstreams']} active",
                rf"\b{after['weekly_contractor_hours']}\b",
            )
        )
    return Revision(
        request="Put the mobile app workstream on hold until the funding decision comes through.",
        mutate=lambda q: q.update(held=["Mobile app"]),
        direct="/workstreams/1/status",
        overrides=overrides,
    )


def _hold_status_line(q: dict[str, Any]) -> dict[str, Override]:
    """Size 100's status line: the active count and the weekly contractor hours."""
    if q["size"] != 100:
        return {}
    totals = hold_compute(q)["totals"]
    return {
        "/status_line": regex(
            all_of(
                rf"\b{totals['active_workstreams']} active",
                rf"\b{totals['weekly_contractor_hours']}\b",
            )
        )
    }


def hold_followups(p: dict[str, Any]) -> list[Revision]:
    def rev(q: dict[str, Any]) -> None:
        q.update(held=["Mobile app"])

    def f1(q: dict[str, Any]) -> None:
        q.update(held=[])

    def f2(q: dict[str, Any]) -> None:
        q["streams"][1][3] = 36

    def f3(q: dict[str, Any]) -> None:
        q.update(held=["Web app"])

    return [
        Revision(
            request="Funding came through, so the mobile app is back on: same sync slot, contractor hours and "
            "health as before, weekly reports again, and its paused tasks go back to where they were.",
            mutate=f1,
            direct="/workstreams/1/status",
            overrides=_hold_status_line(_replayed(p, rev, f1)),
            theme="The hold is lifted: the workstream's sync, hours, health, reporting and paused tasks return "
            "and the totals go back up",
            pattern="status_flip",
        ),
        Revision(
            request="Kofi needs more help on mobile: make it 36 contractor hours a week.",
            mutate=f2,
            direct="/workstreams/1/contractor_hours",
            overrides=_hold_status_line(_replayed(p, rev, f1, f2)),
            theme="The reactivated workstream's contractor hours rise; the weekly hours, cost and forecast follow",
            pattern="arithmetic",
        ),
        Revision(
            request="Put the web app on hold while we re-scope checkout.",
            mutate=f3,
            direct="/workstreams/0/status",
            overrides=_hold_status_line(_replayed(p, rev, f1, f2, f3)),
            theme="Another workstream goes on hold: its governed values and open tasks take the on-hold values "
            "and the totals drop",
            pattern="status_flip",
        ),
    ]


# moves of schedule-workstream-hold: an active workstream goes on hold (one stays active), a
# held one comes back (its old values named, the conversation states only the way in), an
# active one's contractor hours change, a workstream is added at the end or an added active
# one dropped, an open task of an active workstream is finished (size 100 counts open tasks)


def _ws_label(name: str) -> str:
    return name[0].lower() + name[1:]


def _flip_stream(p: dict[str, Any], d: Draw, hold: bool) -> Revision | None:
    """Put an active workstream on hold (one stays active), or bring a held one back."""
    rows = [i for i, row in enumerate(p["streams"]) if (row[0] in p["held"]) != hold]
    if len(rows) < (2 if hold else 1):
        return None
    i = d.pick(rows)
    name = _ws_label(p["streams"][i][0])
    if hold:
        request = f"Put the {name} workstream on hold until further notice."
        theme = (
            f"The {name} goes on hold: its governed values and open tasks take the on-hold values"
        )
    else:
        back = (
            "same sync slot and contractor hours as before"
            if p["size"] == 10
            else "same sync slot, contractor hours and health as before, weekly reports again, and "
            "its paused tasks go back to where they were"
        )
        request = f"The {name} workstream is back on: {back}."
        theme = f"The {name} hold is lifted: its values and paused tasks return"

    def mutate(q: dict[str, Any]) -> None:
        if hold:
            q["held"].append(q["streams"][i][0])
        else:
            q["held"].remove(q["streams"][i][0])

    return _revised(
        p,
        mutate,
        _hold_status_line,
        request=request,
        direct=f"/workstreams/{i}/status",
        theme=theme + ", and the totals follow",
    )


def _stream_hours(p: dict[str, Any], d: Draw) -> Revision | None:
    active = [i for i, row in enumerate(p["streams"]) if row[0] not in p["held"]]
    if not active:
        return None
    i = d.pick(active)
    name, lead, _, old, _ = p["streams"][i]
    new = d.pick([h for h in range(max(4, old - 16), old + 18, 2) if h != old])

    def mutate(q: dict[str, Any]) -> None:
        q["streams"][i][3] = new

    who = f" ({lead}'s)" if p["size"] > 10 else ""
    return _revised(
        p,
        mutate,
        _hold_status_line,
        request=f"Make the {_ws_label(name)} workstream{who} {new} contractor hours a week instead of "
        f"{old}.",
        direct=f"/workstreams/{i}/contractor_hours",
        theme=f"The {_ws_label(name)} contractor hours change; the weekly hours, cost and forecast follow",
    )


def _add_stream(p: dict[str, Any], d: Draw) -> Revision | None:
    present = {row[0] for row in p["streams"]}
    options = [s for s in NEW_STREAMS if s[0] not in present]
    if not options:
        return None
    name, lead, sync, health = d.pick(options)
    hours = d.int(8, 30, step=2)
    if p["size"] == 10:
        detail = f"syncs {sync}, {hours} contractor hours a week"
    else:
        detail = (
            f"{lead} leads it, syncs {sync}, {hours} contractor hours a week, health {health}, "
            "active and reporting weekly"
        )

    def mutate(q: dict[str, Any]) -> None:
        q["streams"].append([name, lead, sync, hours, health])

    return _revised(
        p,
        mutate,
        _hold_status_line,
        request=f"Add a workstream at the end of the list: {name}; {detail}.",
        direct=f"/workstreams/{len(p['streams'])}",
        theme=f"The {_ws_label(name)} workstream joins; the totals grow",
    )


def _drop_stream(p: dict[str, Any], d: Draw) -> Revision | None:
    extra = {s[0] for s in NEW_STREAMS}
    options = [
        i
        for i, row in enumerate(p["streams"])
        # a held one counts for nothing: dropping it would change nothing else
        if row[0] in extra and row[0] not in p["held"] and len(p["streams"]) - len(p["held"]) > 1
    ]
    if not options:
        return None
    i = d.pick(options)
    name = p["streams"][i][0]

    def mutate(q: dict[str, Any]) -> None:
        del q["streams"][i]

    return _revised(
        p,
        mutate,
        _hold_status_line,
        request=f"Drop the {_ws_label(name)} workstream from the tracker; we're not doing it after all.",
        direct=f"/workstreams/{i}",
        theme=f"The {_ws_label(name)} workstream is removed; the totals follow",
    )


def _finish_task(p: dict[str, Any], d: Draw) -> Revision | None:
    options = [
        i
        for i, (_, ws, st) in enumerate(p["tasks"])
        if ws not in p["held"] and st in ("to do", "in progress")
    ]
    if not options:
        return None
    i = d.pick(options)
    title = p["tasks"][i][0]

    def mutate(q: dict[str, Any]) -> None:
        q["tasks"][i][2] = "done"

    return Revision(
        request=f"The {_ws_label(title)} task is done.",
        mutate=mutate,
        direct=f"/tasks/{i}/status",
        theme="A task is finished: the open-task count drops",
    )


HOLD_MOVES = [
    Move("hold", "status_flip", lambda p, d: _flip_stream(p, d, hold=True)),
    Move("resume", "status_flip", lambda p, d: _flip_stream(p, d, hold=False)),
    Move("stream-hours", "arithmetic", _stream_hours),
    Move("add-stream", "add_remove", _add_stream),
    Move("drop-stream", "add_remove", _drop_stream),
    Move("finish-task", "status_flip", _finish_task, when=lambda p: p["size"] == 100, opens=False),
]


SCENARIOS = [
    Scenario(
        id="schedule-labor-hours",
        domain=DOMAIN,
        pattern="arithmetic",
        theme="Re-estimating one task's hours recomputes its cost, the phase and budget totals, contingency and payments",
        params=labor_params,
        compute=labor_compute,
        conversation=labor_conversation,
        revision=labor_revision,
        followups=labor_followups,
        inputs=labor_inputs,
        moves=LABOR_MOVES,
        notes="Task cost = hours x role rate (rates stated in the conversation); labor, 10% contingency, all-in "
        "budget, phase/role roll-ups, payment split and summary follow. Retainer, fixed costs and the "
        "phase-two estimate are distractors.",
    ),
    Scenario(
        id="schedule-mover-swap",
        domain=DOMAIN,
        pattern="substitution",
        theme="Switching the moving company copies in its contact, rates and terms and re-points every task assigned to it",
        params=mover_params,
        compute=mover_compute,
        conversation=mover_conversation,
        revision=mover_revision,
        followups=mover_followups,
        inputs=mover_inputs,
        moves=MOVER_MOVES,
        notes="The new company's attributes come as reference data; its tasks' assignee, the crew cost, the "
        "booking deadline (move date minus notice days) and budget follow. Other vendors' tasks stay.",
    ),
    Scenario(
        id="schedule-drop-task",
        domain=DOMAIN,
        pattern="add_remove",
        theme="Removing a task from a sequential plan relinks its successor and pulls every later date earlier",
        params=drop_params,
        compute=drop_compute,
        conversation=drop_conversation,
        revision=drop_revision,
        followups=drop_followups,
        inputs=drop_inputs,
        moves=DROP_MOVES,
        notes="Tasks run back to back (start = day after the predecessor ends); removing one relinks the "
        "successor, shifts later dates by its length and updates count, end and relative milestones; "
        "the board update, teaser and webinar dates are absolute.",
    ),
    Scenario(
        id="schedule-permit-threshold",
        domain=DOMAIN,
        pattern="threshold",
        theme="Growing the renovated area past 500 sq ft triggers the permit, its fee and review delay, and a bigger dumpster",
        params=permit_params,
        compute=permit_compute,
        conversation=permit_conversation,
        revision=permit_revision,
        followups=permit_followups,
        inputs=permit_inputs,
        moves=PERMIT_MOVES,
        notes="Flooring boxes recompute from the area; only because the area crosses the stated 500 sq ft "
        "threshold do the permit, fee, inspection, 10-day review (shifting every phase) and dumpster size "
        "change. Tile, paint, labor payments and the appliance date are distractors.",
    ),
    Scenario(
        id="schedule-kickoff-shift",
        domain=DOMAIN,
        pattern="temporal",
        theme="A later kickoff shifts every milestone, training day and sprint set relative to it, not the fixed dates",
        params=kickoff_params,
        compute=kickoff_compute,
        conversation=kickoff_conversation,
        revision=kickoff_revision,
        followups=kickoff_followups,
        inputs=kickoff_inputs,
        moves=KICKOFF_MOVES,
        notes="Milestones, trainings and sprints are offsets from kickoff (+9 days); the status meeting weekday "
        "is the kickoff weekday; board, fiscal, holiday, audit and vendor dates are absolute.",
    ),
    Scenario(
        id="schedule-workstream-hold",
        domain=DOMAIN,
        pattern="status_flip",
        theme="Putting a workstream on hold moves its sync, contractor hours, health, reporting and open tasks to on-hold values",
        params=hold_params,
        compute=hold_compute,
        conversation=hold_conversation,
        revision=hold_revision,
        followups=hold_followups,
        inputs=hold_inputs,
        moves=HOLD_MOVES,
        notes="The on-hold policy is stated in the conversation; the held workstream's governed values, its "
        "unfinished tasks and the project totals change; its done tasks and other workstreams stay.",
    ),
]
