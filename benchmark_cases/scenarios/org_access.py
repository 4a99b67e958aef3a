"""org_access: an IT/HR admin sets up access for people joining a team.

The worked examples for scenario authors (see README.md in this folder): one scenario per
pattern, each a short declaration over the authoring layer.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from pytest_revprop.authoring.helpers import add_days, money
from pytest_revprop.authoring.scenario import (
    SHIPPED,
    Draw,
    Move,
    Revision,
    Scenario,
    Turn,
    regex,
)

DOMAIN = "org_access"

# --------------------------------------------------------------------------- org-role-change
# Substitution: the new hire's role changes; everything the role governs is copied in.

ROLES: dict[str, dict[str, Any]] = {
    "Financial Analyst": {
        "groups": ["fin-ledger-read", "expense-submit"],
        "approval_limit_usd": 0,
        "support_queue": "finance-helpdesk",
        "review_interval_days": 180,
        "mfa": "authenticator app",
        "distribution_list": "fin-analysts@northwind.example",
        "corporate_card_limit_usd": 2000,
        "netsuite": "view",
        "expensify": "submit",
        "coupa": "requester",
        "workday": "employee",
        "trainings": [("Excel Modeling Standards", 30)],
    },
    "Finance Manager": {
        "groups": ["fin-ledger-write", "expense-approve", "budget-owners"],
        "approval_limit_usd": 25000,
        "support_queue": "finance-priority",
        "review_interval_days": 90,
        "mfa": "hardware token",
        "distribution_list": "fin-managers@northwind.example",
        "corporate_card_limit_usd": 10000,
        "netsuite": "approve",
        "expensify": "approve",
        "coupa": "approver",
        "workday": "manager",
        "trainings": [("Approver Controls", 21), ("Managing Budgets", 45)],
    },
}
COMMON_TRAININGS = [("Security Awareness", 7), ("Code of Conduct", 14)]


FINANCE_HIRES = [
    ("Dana Whitfield", "dana.whitfield"),
    ("Maya Brooks", "maya.brooks"),
    ("Ines Carvalho", "ines.carvalho"),
    ("Lena Hoffmann", "lena.hoffmann"),
    ("Aiko Tanaka", "aiko.tanaka"),
]


def role_inputs(size: int, d: Draw) -> dict[str, Any]:
    """The hire's inputs: who, the start date, the role, and per-role changes of the role
    definitions (``policy``: what the user changed since)."""
    name, mailbox = d.pick(FINANCE_HIRES)
    return {
        "size": size,
        "role": "Financial Analyst",
        "start": d.date("2025-02-24", "2025-03-21", shipped="2025-03-03", weekdays="01234"),
        "policy": {},
        "name": name,
        "mailbox": mailbox,
    }


def role_params(size: int) -> dict[str, Any]:
    # policy: per-role changes of the role definitions (a follow-up sets one)
    return role_inputs(size, SHIPPED)


def _role(p: dict[str, Any], name: str) -> dict[str, Any]:
    """Role ``name``'s definition as the user's changes left it."""
    return {**ROLES[name], **p["policy"].get(name, {})}


def _role_systems(role: dict[str, Any], size: int) -> list[dict[str, Any]]:
    systems: list[dict[str, Any]] = [
        {"name": "NetSuite", "level": role["netsuite"]},
        {"name": "Expensify", "level": role["expensify"]},
        {"name": "Tableau", "level": "viewer"},
        {"name": "Slack", "level": "member"},
    ]
    if size >= 100:
        systems[0]["approval_limit_usd"] = role["approval_limit_usd"]
        systems += [
            {
                "name": "Coupa",
                "level": role["coupa"],
                "approval_limit_usd": role["approval_limit_usd"],
            },
            {"name": "Workday", "level": role["workday"]},
            {"name": "Confluence", "level": "editor"},
            {"name": "Zoom", "level": "licensed"},
        ]
    return systems


def role_compute(p: dict[str, Any]) -> dict[str, Any]:
    role = _role(p, p["role"])
    size = p["size"]
    employee: dict[str, Any] = {
        "name": p["name"],
        "role": p["role"],
        "start_date": p["start"],
        "manager": "Priya Nair",
    }
    access: dict[str, Any] = {
        "groups": list(role["groups"]),
        "approval_limit_usd": role["approval_limit_usd"],
        "support_queue": role["support_queue"],
        "review_interval_days": role["review_interval_days"],
        "first_review": add_days(p["start"], role["review_interval_days"]),
    }
    artifact: dict[str, Any] = {"employee": employee, "access": access}
    if size == 10:
        return artifact
    employee.update(
        email=f"{p['mailbox']}@northwind.example",
        department="Finance Operations",
        location="Chicago",
    )
    access["systems"] = _role_systems(role, size)
    extra_courses = [("Travel Policy", 30), ("Anti-Bribery", 30)] if size >= 100 else []
    trainings = COMMON_TRAININGS + extra_courses + role["trainings"]
    artifact["trainings"] = [{"course": c, "due": add_days(p["start"], d)} for c, d in trainings]
    artifact["equipment"] = {
        "laptop": "MacBook Pro 14",
        "monitors": 2,
        "delivery_date": "2025-02-27",
    }
    artifact["badge"] = {
        "name_line": p["name"],
        "title_line": p["role"],
        "floor": 4,
        "building": "Tower A",
    }
    employee["employee_id"] = "NW-20417"
    artifact["equipment"]["headset"] = "Jabra Evolve2 65"
    artifact["manager_profile"] = {
        "name": "Priya Nair",
        "role": "Finance Director",
        "approval_limit_usd": 100000,
        "review_interval_days": 90,
        "email": "priya.nair@northwind.example",
    }
    artifact["onboarding"] = {
        "buddy": "Marco Ruiz",
        "orientation_date": "2025-03-04",
        "orientation_room": "4B",
        "parking_permit": False,
        "welcome_lunch": "2025-03-07",
    }
    peers = [("Marco Ruiz", "Financial Analyst"), ("Helen Cho", "Payroll Specialist")]
    if size >= 100:
        peers += [
            ("Owen Park", "Financial Analyst"),
            ("Sasha Ivanova", "Finance Manager"),
            ("Luis Ortega", "AP Clerk"),
            ("Grace Liu", "Treasury Analyst"),
        ]
        peers.append(("Ben Adler", "Financial Analyst"))
        artifact["equipment"].update(dock="CalDigit TS4", phone_extension="4417")
        employee.update(cost_center="CC-4410", employment_type="full-time")
        artifact["manager_profile"]["support_queue"] = "finance-priority"
        artifact["badge"]["expires"] = "2026-12-31"
        access.update(
            mfa=role["mfa"],
            distribution_list=role["distribution_list"],
            expense_policy={"per_diem_usd": 75, "card_limit_usd": role["corporate_card_limit_usd"]},
        )
        artifact["calendar"] = [
            {"event": "Finance all-hands", "date": "2025-03-12"},
            {"event": "Quarter close kickoff", "date": "2025-03-24"},
            {"event": "Audit walkthrough", "date": "2025-04-09"},
            {"event": "Team offsite", "date": "2025-05-15"},
        ]
        artifact["desk"] = {"number": "4-112", "neighborhood": "Finance North"}
        artifact["it_tickets"] = [
            {"id": "IT-88213", "status": "open"},
            {"id": "IT-88214", "status": "open"},
            {"id": "IT-88230", "status": "waiting on vendor"},
        ]
    artifact["peers"] = [{"name": n, "role": r} for n, r in peers]
    return artifact


def role_conversation(p: dict[str, Any]) -> list[Turn]:
    size = p["size"]
    analyst = ROLES["Financial Analyst"]
    if size == 10:
        return [
            (
                f"{p['name']} starts on {p['start']} as a Financial Analyst, reporting to Priya Nair. "
                "Can you start her access plan?",
                ["/employee/name", "/employee/role", "/employee/start_date", "/employee/manager"],
            ),
            (
                "Everything she gets comes from her role. Analysts are in fin-ledger-read and expense-submit, "
                "have no approval authority (limit $0), raise tickets in the finance-helpdesk queue and get "
                "an access review every 180 days. Put those in.",
                [
                    "/access/groups/0",
                    "/access/groups/1",
                    "/access/approval_limit_usd",
                    "/access/support_queue",
                    "/access/review_interval_days",
                ],
            ),
            (
                "Her first review falls one review interval after her start date.",
                ["/access/first_review"],
            ),
        ]
    turns: list[Turn] = [
        (
            f"We have a new hire in Finance Operations: {p['name']}, Financial Analyst, starting "
            f"{p['start']} in Chicago under Priya Nair. Her address will be {p['mailbox']}@northwind.example "
            "and her employee number is NW-20417.",
            [
                f"/employee/{k}"
                for k in (
                    "name",
                    "role",
                    "start_date",
                    "manager",
                    "email",
                    "department",
                    "location",
                    "employee_id",
                )
            ],
        ),
        (
            "Her access is driven entirely by her role. For Financial Analysts that means the "
            f"{' and '.join(analyst['groups'])} groups, a $0 approval limit, the finance-helpdesk support "
            "queue and a 180-day review interval.",
            [
                "/access/groups",
                "/access/approval_limit_usd",
                "/access/support_queue",
                "/access/review_interval_days",
            ],
        ),
        (
            "Schedule her first access review one review interval after she starts.",
            ["/access/first_review"],
        ),
    ]
    if size == 50:
        turns.append(
            (
                "Tools: NetSuite and Expensify follow the role (analysts get view and submit), and everyone "
                "gets Tableau as a viewer and a regular Slack membership.",
                ["/access/systems"],
            )
        )
    else:
        turns.append(
            (
                "Tools next. NetSuite, Expensify, Coupa and Workday all follow her role: analysts get view, "
                "submit, requester and employee respectively. NetSuite and Coupa each carry an approval "
                "limit equal to her personal one. Everyone also gets Tableau viewer, Slack member, "
                "Confluence editor and a licensed Zoom seat.",
                ["/access/systems"],
            )
        )
    courses = "Security Awareness within 7 days and Code of Conduct within 14 days"
    if size == 100:
        courses += ", Travel Policy and Anti-Bribery within 30 days"
    turns += [
        (
            f"Required training: everybody does {courses} of the start date; on top of that analysts do "
            "Excel Modeling Standards within 30 days. List them with due dates.",
            ["/trainings"],
        ),
        (
            "Her laptop is a MacBook Pro 14 with two monitors and a Jabra Evolve2 65 headset; the "
            "delivery is booked for 2025-02-27.",
            [
                "/equipment/laptop",
                "/equipment/monitors",
                "/equipment/delivery_date",
                "/equipment/headset",
            ],
        ),
        (
            "Badge: her name on the first line, her job title on the second, access to floor 4 of Tower A.",
            ["/badge/name_line", "/badge/title_line", "/badge/floor", "/badge/building"],
        ),
        (
            "For context, she'll sit with Marco Ruiz (Financial Analyst) and Helen Cho (Payroll Specialist).",
            ["/peers/0", "/peers/1"],
        ),
        (
            "Note Priya's own setup for reference: Finance Director, $100,000 approval limit, reviewed "
            "every 90 days, priya.nair@northwind.example.",
            [
                f"/manager_profile/{k}"
                for k in ("name", "role", "approval_limit_usd", "review_interval_days", "email")
            ],
        ),
        (
            "Onboarding logistics: Marco is her buddy, orientation is 2025-03-04 in room 4B, no parking "
            "permit, and the welcome lunch is on 2025-03-07.",
            ["/onboarding"],
        ),
    ]
    if size == 100:
        turns += [
            (
                "A few more neighbours: Owen Park (Financial Analyst), Sasha Ivanova (Finance Manager), "
                "Luis Ortega (AP Clerk) and Grace Liu (Treasury Analyst).",
                ["/peers/2", "/peers/3", "/peers/4", "/peers/5"],
            ),
            (
                "Add a CalDigit TS4 dock and desk phone extension 4417.",
                ["/equipment/dock", "/equipment/phone_extension"],
            ),
            (
                "HR confirmed she's full-time on cost center CC-4410. Ben Adler (Financial Analyst) is also "
                "on her row. Priya's tickets go to finance-priority, and all badges this year expire on 2026-12-31.",
                [
                    "/employee/cost_center",
                    "/employee/employment_type",
                    "/peers/6",
                    "/manager_profile/support_queue",
                    "/badge/expires",
                ],
            ),
            (
                "Security and spending also follow the role: analysts sign in with an authenticator app, are "
                "on fin-analysts@northwind.example, and carry a $2,000 corporate card limit; the per diem is "
                "$75 for every role.",
                ["/access/mfa", "/access/distribution_list", "/access/expense_policy"],
            ),
            (
                "Her first weeks: finance all-hands 2025-03-12, quarter close kickoff 2025-03-24, audit "
                "walkthrough 2025-04-09 and the team offsite 2025-05-15.",
                ["/calendar"],
            ),
            (
                "Desk 4-112 in Finance North. Open IT tickets for her setup: IT-88213 and IT-88214 are open, "
                "IT-88230 is waiting on the vendor.",
                ["/desk", "/it_tickets"],
            ),
        ]
    return turns


def _role_reference(p: dict[str, Any], name: str) -> dict[str, Any]:
    """Role ``name``'s definition as the user hands it over, as much as the size records."""
    new = _role(p, name)
    reference: dict[str, Any] = {
        "role": name,
        "groups": new["groups"],
        "approval_limit_usd": new["approval_limit_usd"],
        "support_queue": new["support_queue"],
        "review_interval_days": new["review_interval_days"],
    }
    if p["size"] >= 50:
        reference["system_levels"] = {"NetSuite": new["netsuite"], "Expensify": new["expensify"]}
        reference["role_trainings"] = [{"course": c, "within_days": d} for c, d in new["trainings"]]
    if p["size"] >= 100:
        reference["system_levels"].update(Coupa=new["coupa"], Workday=new["workday"])
        reference.update(
            mfa=new["mfa"],
            distribution_list=new["distribution_list"],
            corporate_card_limit_usd=new["corporate_card_limit_usd"],
        )
    return reference


def role_revision(p: dict[str, Any]) -> Revision:
    overrides = {}
    if p["size"] >= 50:
        overrides["/badge/title_line"] = regex(r"(?i)finance manager")
    return Revision(
        request="Change of plan: Dana is joining as a Finance Manager, not a Financial Analyst. "
        "The Finance Manager role definition is attached.",
        mutate=lambda q: q.update(role="Finance Manager"),
        direct="/employee/role",
        overrides=overrides,
        reference=_role_reference(p, "Finance Manager"),
    )


def role_followups(p: dict[str, Any]) -> list[Revision]:
    badge = {"/badge/title_line": regex(r"(?i)financial analyst")} if p["size"] >= 50 else {}
    return [
        Revision(
            request="Audit wants Finance Managers reviewed every 60 days now, not every 90.",
            mutate=lambda q: q["policy"].update({"Finance Manager": {"review_interval_days": 60}}),
            direct="/access/review_interval_days",
            theme="The new role's review interval shortens: her first review date moves with it",
            pattern="temporal",
        ),
        Revision(
            request="Dana's start date moved to 2025-03-17.",
            mutate=lambda q: q.update(start="2025-03-17"),
            direct="/employee/start_date",
            theme="A later start moves her first review and every training due date; fixed onboarding dates "
            "stay",
            pattern="temporal",
        ),
        Revision(
            request="Budget freeze: she joins as a Financial Analyst after all, as we first planned.",
            mutate=lambda q: q.update(role="Financial Analyst"),
            direct="/employee/role",
            overrides=badge,
            theme="Back to the original role: its groups, limits, queue, tools, trainings and 180-day review "
            "return, from the later start date",
            pattern="substitution",
        ),
    ]


# moves of org-role-change: the role swaps either way (its definition handed over), a role's
# review interval changes, the start date moves, and (size 100, where the tools carry it) a
# role's approval limit changes


def _swap_role(p: dict[str, Any], d: Draw) -> Revision:
    new = next(r for r in ROLES if r != p["role"])
    first = p["name"].split()[0]
    overrides = {"/badge/title_line": regex(f"(?i){new.lower()}")} if p["size"] >= 50 else {}
    return Revision(
        request=d.pick(
            [
                f"Change of plan: {first} is joining as a {new}, not a {p['role']}. The {new} role"
                " definition is attached.",
                f"HR moved {first} to the {new} role. Its definition is attached.",
            ]
        ),
        mutate=lambda q: q.update(role=new),
        direct="/employee/role",
        overrides=overrides,
        reference=_role_reference(p, new),
        theme=f"The {new} role replaces the {p['role']}: everything the role governs follows",
    )


def _review_interval(p: dict[str, Any], d: Draw) -> Revision:
    role = p["role"]
    days = d.pick([n for n in (60, 90, 120, 180) if n != _role(p, role)["review_interval_days"]])

    def mutate(q: dict[str, Any]) -> None:
        q["policy"].setdefault(role, {})["review_interval_days"] = days

    return Revision(
        request=f"Audit wants {role}s reviewed every {days} days now.",
        mutate=mutate,
        direct="/access/review_interval_days",
        theme=f"The {role} review interval becomes {days} days: her first review moves with it",
    )


def _role_start(p: dict[str, Any], d: Draw) -> Revision:
    days = d.pick(
        [
            n
            for n in range(-14, 22)
            if abs(n) > 1 and dt.date.fromisoformat(add_days(p["start"], n)).weekday() < 5
        ]
    )
    start = add_days(p["start"], days)
    return Revision(
        request=f"{p['name'].split()[0]}'s start date moved to {start}.",
        mutate=lambda q: q.update(start=start),
        direct="/employee/start_date",
        theme="A new start date moves her first review"
        + (" and every training due date" if p["size"] >= 50 else ""),
    )


def _approval_limit(p: dict[str, Any], d: Draw) -> Revision:
    role = p["role"]
    old = _role(p, role)["approval_limit_usd"]
    limit = d.pick([n for n in (0, 5000, 10000, 25000, 50000) if n != old])

    def mutate(q: dict[str, Any]) -> None:
        q["policy"].setdefault(role, {})["approval_limit_usd"] = limit

    return Revision(
        request=f"Finance set the {role} approval limit to ${limit:,}.",
        mutate=mutate,
        direct="/access/approval_limit_usd",
        theme=f"A {role} approval limit of ${limit:,}: the tools that carry it follow",
    )


ROLE_MOVES = [
    Move("swap-role", "substitution", _swap_role),
    Move("review-interval", "temporal", _review_interval),
    Move("shift-start", "temporal", _role_start),
    Move("approval-limit", "arithmetic", _approval_limit, when=lambda p: p["size"] == 100),
]


# --------------------------------------------------------------------------- org-start-date-shift
# Temporal: the start date moves; every date stated relative to it moves by the same amount.


SRE_HIRES = [
    ("Tomás Herrera", "tomas.herrera"),
    ("Rui Almeida", "rui.almeida"),
    ("Kenji Mori", "kenji.mori"),
    ("Felix Brandt", "felix.brandt"),
    ("Omar Haddad", "omar.haddad"),
]
SRE_MANAGERS = ["Ines Kowalski", "Marta Sousa", "Claire Dubois", "Anja Berg"]
PROBATION_DAYS = [90, 60, 120, 180]


def start_inputs(size: int, d: Draw) -> dict[str, Any]:
    """The hire's inputs: who, their manager, the start date, and the probation rule (its
    length, and whether production access waits for its end)."""
    name, mailbox = d.pick(SRE_HIRES)
    return {
        "size": size,
        "start": d.date("2025-04-02", "2025-05-16", shipped="2025-04-07", weekdays="01234"),
        "probation_days": d.pick(PROBATION_DAYS),
        "prod_after_probation": False,
        "name": name,
        "mailbox": mailbox,
        "manager": d.pick(SRE_MANAGERS),
    }


def start_params(size: int) -> dict[str, Any]:
    # probation_days / prod_after_probation: the probation rule a follow-up changes
    return start_inputs(size, SHIPPED)


def _hire(p: dict[str, Any]) -> tuple[str, str, str]:
    """The hire's name, mailbox and manager."""
    return p["name"], p["mailbox"], p["manager"]


# (system, days after the start date when access opens); size 100 only
ACCESS_SCHEDULE = [
    ("AWS read-only", 0),
    ("Grafana", 0),
    ("Datadog", 7),
    ("Terraform plan", 14),
    ("Kubernetes staging", 14),
    ("Incident tooling", 45),
    ("Kubernetes production", 60),
    ("AWS admin", 90),
    ("Vault operator", 90),
    ("Break-glass", 120),
]


def start_compute(p: dict[str, Any]) -> dict[str, Any]:
    start = p["start"]
    size = p["size"]
    probation_end = add_days(start, p["probation_days"])
    prod_from = probation_end if p["prod_after_probation"] else add_days(start, 30)
    name, mailbox, manager = _hire(p)
    artifact: dict[str, Any] = {
        "hire": {"name": name, "team": "Platform SRE", "start_date": start},
        "accounts": {
            "activate_on": add_days(start, -2),
            "vpn": True,
            "prod_access_from": prod_from,
            "laptop_shipped": "2025-04-01",
        },
        "reviews": {"probation_end": probation_end, "security_audit": "2025-06-30"},
        "manager": manager,
    }
    if size == 10:
        return artifact
    artifact["hire"].update(
        email=f"{mailbox}@corvid.example", location="Lisbon", employment="full-time"
    )
    artifact["accounts"].update(
        github_org="corvid-platform",
        oncall_shadow_from=add_days(start, 45),
        pagerduty_from=add_days(start, 60),
    )
    artifact["reviews"].update(
        first_access_review=add_days(start, 30), quarterly_audit="2025-07-15"
    )
    trainings = [
        ("Security Awareness", 7),
        ("Incident Response 101", 21),
        ("Production Change Policy", 28),
    ]
    if size >= 100:
        trainings += [
            ("Kubernetes Hardening", 35),
            ("Data Handling", 14),
            ("On-call Readiness", 42),
        ]
    artifact["trainings"] = [{"course": c, "due": add_days(start, d)} for c, d in trainings]
    artifact["equipment"] = {
        "laptop": "ThinkPad X1 Carbon",
        "yubikeys": 2,
        "monitor": "Dell U2723QE",
        "headset": "Sony WH-1000XM5",
        "carrier": "DHL",
    }
    artifact["team_events"] = [
        {"event": "Team offsite", "date": "2025-05-20"},
        {"event": "Architecture review", "date": "2025-04-24"},
    ]
    artifact["groups"] = [
        "sre-core",
        "oncall-observers",
        "vpn-users",
        "github-platform",
        "grafana-editors",
        "terraform-plan",
    ]
    artifact["peers"] = ["Amara Osei", "Jonas Weber", "Priyanka Rao", "Leo Martins"]
    artifact["mentorship"] = {
        "mentor": "Amara Osei",
        "first_session": add_days(start, 3),
        "cadence": "weekly",
        "last_session": add_days(start, 84),
    }
    artifact["oncall"] = {
        "rotation": "platform-primary",
        "escalation_policy": "sre-p1",
        "pager_app": "PagerDuty",
    }
    if size >= 100:
        artifact["hire"].update(employee_id="CV-3391", cost_center="ENG-210")
        artifact["reviews"].update(
            six_month_checkin=add_days(start, 182),
            annual_review="2026-01-15",
            benefits_enrollment_by=add_days(start, 30),
        )
        artifact["team_events"] += [
            {"event": "Quarterly planning", "date": "2025-06-10"},
            {"event": "Game day", "date": "2025-05-08"},
            {"event": "Hack week", "date": "2025-07-07"},
            {"event": "Postmortem review", "date": "2025-04-30"},
        ]
        artifact["groups"] += ["sre-oncall", "incident-commanders"]
        artifact["peers"] += ["Chen Wei", "Nadia Haddad"]
        artifact["oncall"].update(
            first_primary_shift=add_days(start, 75),
            runbook="https://wiki.corvid.example/sre/runbooks",
        )
        artifact["equipment"].update(dock="Lenovo Thunderbolt 4", keyboard="Logitech MX Mechanical")
        artifact["desk"] = {"building": "Lisbon Hub", "floor": 3, "desk": "3-C-14"}
        artifact["access_schedule"] = [
            {"system": sys_, "from": add_days(start, d)} for sys_, d in ACCESS_SCHEDULE
        ]
    return artifact


def start_conversation(p: dict[str, Any]) -> list[Turn]:
    size, start, probation = p["size"], p["start"], p["probation_days"]
    name, mailbox, manager = _hire(p)
    if size == 10:
        return [
            (
                f"{name} joins Platform SRE on {start}, reporting to {manager}. Set him up.",
                ["/hire", "/manager"],
            ),
            (
                "Activate his accounts two days before he starts, turn on VPN, and hold production access "
                "until 30 days after his start. His laptop already shipped on 2025-04-01.",
                ["/accounts"],
            ),
            (
                f"Probation ends {probation} days after the start date. The security audit he must attend is fixed on "
                "2025-06-30 for the whole company.",
                ["/reviews"],
            ),
        ]
    hire = (
        f"New SRE joining Platform SRE: {name}, full-time, based in Lisbon, first day {start}, "
        f"email {mailbox}@corvid.example, manager {manager}."
    )
    accounts = (
        "Accounts should come alive two days before day one, with VPN on and the corvid-platform "
        "GitHub org. Production access opens 30 days after he starts, on-call shadowing at 45 days, "
        "and he joins PagerDuty at 60 days. The laptop shipped on 2025-04-01."
    )
    reviews = (
        f"Probation ends {probation} days after he starts and his first access review is at 30 days. The "
        "company security audit is on 2025-06-30 and the quarterly audit on 2025-07-15, both fixed."
    )
    courses = (
        "Security Awareness within a week of starting, Incident Response 101 within 21 days "
        "and Production Change Policy within 28 days"
    )
    if size == 100:
        hire += " Employee id CV-3391, cost center ENG-210."
        reviews += (
            " Add a six-month check-in 182 days after the start, the annual review (2026-01-15 for "
            "everybody), and his benefits enrollment deadline, 30 days after his start."
        )
        courses += (
            ", plus Kubernetes Hardening by day 35, Data Handling by day 14 and On-call "
            "Readiness by day 42"
        )
    turns: list[Turn] = [
        (hire, ["/hire", "/manager"]),
        (accounts, ["/accounts"]),
        (reviews, ["/reviews"]),
        (f"Trainings, due relative to his start: {courses}.", ["/trainings"]),
        (
            "Hardware: ThinkPad X1 Carbon, two YubiKeys, a Dell U2723QE monitor and a Sony WH-1000XM5 "
            "headset, all going out with DHL.",
            [
                "/equipment/laptop",
                "/equipment/yubikeys",
                "/equipment/monitor",
                "/equipment/headset",
                "/equipment/carrier",
            ],
        ),
        (
            "Put the team calendar in so he sees it: the offsite is 2025-05-20 and the architecture review "
            "2025-04-24.",
            ["/team_events/0", "/team_events/1"],
        ),
        (
            "Groups: sre-core, oncall-observers, vpn-users, github-platform, grafana-editors and "
            "terraform-plan. His closest peers are Amara Osei, Jonas Weber, Priyanka Rao and Leo Martins.",
            [f"/groups/{i}" for i in range(6)] + [f"/peers/{i}" for i in range(4)],
        ),
        (
            "Amara will mentor him: weekly sessions, the first three days after he starts and the "
            "last 84 days after he starts.",
            ["/mentorship"],
        ),
        (
            "On-call: platform-primary rotation, escalation policy sre-p1, paging through PagerDuty.",
            ["/oncall/rotation", "/oncall/escalation_policy", "/oncall/pager_app"],
        ),
    ]
    if size == 100:
        turns += [
            (
                "More calendar entries: quarterly planning 2025-06-10, game day 2025-05-08, hack week "
                "2025-07-07 and the postmortem review 2025-04-30.",
                [f"/team_events/{i}" for i in range(2, 6)],
            ),
            (
                "Add him to sre-oncall and incident-commanders too, and list Chen Wei and Nadia Haddad as peers.",
                ["/groups/6", "/groups/7", "/peers/4", "/peers/5"],
            ),
            (
                "His first primary on-call shift is 75 days after he starts; link the runbooks at "
                "https://wiki.corvid.example/sre/runbooks.",
                ["/oncall/first_primary_shift", "/oncall/runbook"],
            ),
            (
                "Desk 3-C-14 on floor 3 of the Lisbon Hub; add a Lenovo Thunderbolt 4 dock and a Logitech MX Mechanical.",
                ["/desk", "/equipment/dock", "/equipment/keyboard"],
            ),
            (
                "Stage his system access relative to the start date: AWS read-only and Grafana on day one, "
                "Datadog after a week, Terraform plan and Kubernetes staging after two weeks, incident "
                "tooling at 45 days, Kubernetes production at 60 days, "
                "AWS admin and Vault operator at 90 days, break-glass at 120 days.",
                ["/access_schedule"],
            ),
        ]
    return turns


def start_revision(p: dict[str, Any]) -> Revision:
    return Revision(
        request="Tomás's first day moved: he now starts on 2025-04-22.",
        mutate=lambda q: q.update(start="2025-04-22"),
        direct="/hire/start_date",
    )


def start_followups(p: dict[str, Any]) -> list[Revision]:
    return [
        Revision(
            request="His visa appointment slipped, so Tomás now starts on 2025-05-05.",
            mutate=lambda q: q.update(start="2025-05-05"),
            direct="/hire/start_date",
            theme="The start date moves a second time: every date relative to it moves again, company dates "
            "stay",
            pattern="temporal",
        ),
        Revision(
            request="HR changed probation for SRE hires to 120 days, and production access should now open "
            "only on the day his probation ends.",
            mutate=lambda q: q.update(probation_days=120, prod_after_probation=True),
            direct="/reviews/probation_end",
            theme="A longer probation moves its end date, and production access is re-tied to that end date",
            pattern="temporal",
        ),
        Revision(
            request="Good news, the visa came through early after all: he starts on 2025-04-22 again.",
            mutate=lambda q: q.update(start="2025-04-22"),
            direct="/hire/start_date",
            theme="The start date moves back: relative dates follow, production access now via the 120-day "
            "probation",
            pattern="temporal",
        ),
    ]


# moves of org-start-date-shift: the start date moves (any number of times, back and forth),
# production access is tied to the end of probation or untied, and the probation's length
# changes while production access waits for it


def _first(p: dict[str, Any]) -> str:
    return _hire(p)[0].split()[0]


def _shift_start(p: dict[str, Any], d: Draw) -> Revision | None:
    days = d.pick(
        [
            n
            for n in range(-21, 29)
            if abs(n) > 1 and dt.date.fromisoformat(add_days(p["start"], n)).weekday() < 5
        ]
    )
    start = add_days(p["start"], days)
    later = "later" if days > 0 else "earlier"
    return Revision(
        request=d.pick(
            [
                f"{_first(p)}'s first day moved: he now starts on {start}.",
                f"Change of plan, {_first(p)} starts {later}, on {start}.",
            ]
        ),
        mutate=lambda q: q.update(start=start),
        direct="/hire/start_date",
        theme=f"The start date moves {abs(days)} days {later}: every date relative to it follows,"
        " company dates stay",
    )


def _tie_prod(p: dict[str, Any], d: Draw) -> Revision:
    days = d.pick([n for n in PROBATION_DAYS if n != p["probation_days"]])
    return Revision(
        request=f"HR changed probation for SRE hires to {days} days, and production access should"
        " now open only on the day his probation ends.",
        mutate=lambda q: q.update(probation_days=days, prod_after_probation=True),
        direct="/reviews/probation_end",
        theme=f"A {days}-day probation moves its end date, and production access is tied to it",
    )


def _untie_prod(p: dict[str, Any], d: Draw) -> Revision:
    days = d.pick([n for n in PROBATION_DAYS if n != p["probation_days"]])
    return Revision(
        request=f"Probation for SRE hires is {days} days now, and production access goes back to"
        " the usual rule: 30 days after he starts.",
        mutate=lambda q: q.update(probation_days=days, prod_after_probation=False),
        direct="/reviews/probation_end",
        theme=f"A {days}-day probation moves its end date; production access is untied from it",
    )


def _probation(p: dict[str, Any], d: Draw) -> Revision:
    days = d.pick([n for n in PROBATION_DAYS if n != p["probation_days"]])
    return Revision(
        request=f"HR changed probation for SRE hires to {days} days.",
        mutate=lambda q: q.update(probation_days=days),
        direct="/reviews/probation_end",
        theme=f"A {days}-day probation moves its end date, and production access, tied to it, follows",
    )


START_MOVES = [
    Move("shift-start", "temporal", _shift_start),
    Move(
        "tie-prod",
        "temporal",
        _tie_prod,
        when=lambda p: not p["prod_after_probation"],
        opens=False,  # its direct place (probation's end) is stated after production access
    ),
    Move("untie-prod", "temporal", _untie_prod, when=lambda p: p["prod_after_probation"]),
    Move("probation", "temporal", _probation, when=lambda p: p["prod_after_probation"]),
]


# --------------------------------------------------------------------------- org-approval-base
# Arithmetic: the department's base approval limit feeds every level's limit and the totals.

LEVEL_MULTIPLIERS = {"Buyer": 1, "Senior Buyer": 2, "Lead Buyer": 3, "Procurement Manager": 5}
BUYERS = [
    ("Aisha Bello", "Buyer"),
    ("Rafael Costa", "Senior Buyer"),
    ("Mei Tanaka", "Buyer"),
    ("Oskar Lind", "Lead Buyer"),
    ("Fatima Zahra", "Senior Buyer"),
    ("Daniel Kim", "Procurement Manager"),
    ("Irene Papadopoulos", "Buyer"),
    ("Kwame Mensah", "Senior Buyer"),
    ("Lucia Romero", "Buyer"),
    ("Ethan Brooks", "Lead Buyer"),
    ("Noor Haddad", "Buyer"),
    ("Victor Almeida", "Senior Buyer"),
    ("Hana Sato", "Buyer"),
    ("Pavel Novak", "Senior Buyer"),
    ("Grace Owusu", "Lead Buyer"),
    ("Sven Olsen", "Buyer"),
]
# People whose limit is fixed by a CFO exception, whatever the base (size 100 only).
FIXED_LIMITS = [("Jordan Blake", "Senior Buyer", 15000), ("Amelia Grant", "Buyer", 5000)]


NEW_BUYERS = ["Tariq Hassan", "Elif Demir", "Bruno Salas", "Keiko Abe", "Nils Berg", "Zara Qureshi"]
DELEGATING = {"Daniel Kim", "Oskar Lind", "Ethan Brooks", "Grace Owusu", "Rafael Costa"}
"""Buyers the size-100 delegations name: they never leave the team in a generated chain."""


def base_inputs(size: int, d: Draw) -> dict[str, Any]:
    """The department's inputs: the base limit, promotions (``levels``), buyers added
    (``extra``) and buyers who left (``left``)."""
    levels = {}
    for name, shipped in BUYERS[:2]:
        level = d.pick(["Buyer", "Senior Buyer"], shipped=shipped)
        if level != shipped:
            levels[name] = level
    return {
        "size": size,
        "base": d.pick([2000, 1200, 1500, 1800, 2200, 2500, 3000, 4000]),
        "levels": levels,
        "extra": [],
        "left": [],
    }


def base_params(size: int) -> dict[str, Any]:
    # levels / extra: promotions and new buyers of the follow-ups
    return base_inputs(size, SHIPPED)


def base_compute(p: dict[str, Any]) -> dict[str, Any]:
    size, base = p["size"], p["base"]
    count = {10: 2, 50: 10, 100: 16}[size]
    levels = {n: p["levels"].get(n, lv) for n, lv in BUYERS[:count] if n not in p["left"]}
    members = [
        {"name": n, "level": lv, "limit_usd": base * LEVEL_MULTIPLIERS[lv]}
        for n, lv in levels.items()
    ]
    if size == 100:
        members += [{"name": n, "level": lv, "limit_usd": fixed} for n, lv, fixed in FIXED_LIMITS]
    members += [
        {
            "name": n,
            "level": p["levels"].get(n, lv),
            "limit_usd": base * LEVEL_MULTIPLIERS[p["levels"].get(n, lv)],
        }
        for n, lv in p["extra"]
    ]
    policy: dict[str, Any] = {
        "department": "Procurement",
        "base_limit_usd": base,
        "escalation_above_usd": 10 * base,
    }
    total = sum(m["limit_usd"] for m in members)
    artifact: dict[str, Any] = {"policy": policy, "members": members}
    if size == 10:
        artifact["total_delegated_usd"] = total
        return artifact
    policy.update(
        card_limit_usd=2000, currency="USD", effective_date="2025-07-01", approved_by="CFO Office"
    )
    artifact["level_limits_usd"] = {lv: base * m for lv, m in LEVEL_MULTIPLIERS.items()}
    artifact["totals"] = {"members": len(members), "total_delegated_usd": total}
    artifact["systems"] = [
        {"name": "Coupa", "sync": "nightly"},
        {"name": "SAP Ariba", "sync": "hourly"},
    ]
    artifact["review"] = {
        "owner": "Finance Controls",
        "next_review": "2025-12-01",
        "ticket": "GRC-1142",
    }
    if size == 100:
        policy["last_updated_by"] = "M. Chen"
        artifact["totals"]["average_limit_usd"] = money(total / len(members))
        artifact["systems"].append({"name": "Concur", "sync": "daily"})
        artifact["delegations"] = [
            {"from": "Daniel Kim", "to": "Oskar Lind", "until": "2025-08-15"},
            {"from": "Ethan Brooks", "to": "Grace Owusu", "until": "2025-09-01"},
            {"from": "Grace Owusu", "to": "Rafael Costa", "until": "2025-10-03"},
        ]
        artifact["preapproved_vendors"] = [
            "Staples",
            "CDW",
            "Grainger",
            "Uline",
            "Dell",
            "Insight",
            "Amazon Business",
        ]
        artifact["review"].update(
            last_review="2024-12-02", evidence_folder="GRC/Procurement/Limits"
        )
        artifact["po_required_above_usd"] = {
            "IT hardware": base,
            "Office supplies": base,
            "Travel": 5000,
            "Software": 500,
        }
    return artifact


def _buyer_text(members: list[tuple[str, str]], sep: str = "; ") -> str:
    return sep.join(f"{n} ({lv})" for n, lv in members)


def _initial_team(p: dict[str, Any], count: int) -> list[tuple[str, str]]:
    """The first ``count`` buyers at their levels as the inputs give them."""
    return [(n, p["levels"].get(n, lv)) for n, lv in BUYERS[:count]]


def base_conversation(p: dict[str, Any]) -> list[Turn]:
    size = p["size"]
    count = {10: 2, 50: 10, 100: 16}[size]
    if size == 10:
        return [
            (
                f"I'm setting spending authority for Procurement. The base approval limit is ${p['base']:,}, and "
                "anything above ten times the base escalates to the CFO.",
                ["/policy"],
            ),
            (
                "Limits scale with level: a Buyer gets the base, a Senior Buyer twice the base, a Lead"
                f" Buyer three times the base. Add {_buyer_text(_initial_team(p, 2), ' and ')}.",
                ["/members/0", "/members/1"],
            ),
            ("What's the total authority we're delegating? Add it up.", ["/total_delegated_usd"]),
        ]
    turns: list[Turn] = [
        (
            "Procurement spending authority, effective 2025-07-01 and signed off by the CFO Office: base "
            f"approval limit ${p['base']:,} in USD, and anything over ten times the base escalates to the CFO. "
            "Corporate cards stay at a flat $2,000 regardless.",
            [
                "/policy/department",
                "/policy/base_limit_usd",
                "/policy/escalation_above_usd",
                "/policy/card_limit_usd",
                "/policy/currency",
                "/policy/effective_date",
                "/policy/approved_by",
            ],
        ),
        (
            "Each level is a multiple of the base: Buyer 1x, Senior Buyer 2x, Lead Buyer 3x, Procurement "
            "Manager 5x. Write the limit per level down.",
            ["/level_limits_usd"],
        ),
        (
            f"The team, each with the limit for their level: {_buyer_text(_initial_team(p, count))}.",
            [f"/members/{i}" for i in range(count)],
        ),
    ]
    if size == 100:
        turns += [
            (
                "Two exceptions approved by the CFO with fixed limits that don't follow the base: Jordan "
                "Blake (Senior Buyer) at $15,000 and Amelia Grant (Buyer) at $5,000.",
                [f"/members/{count}", f"/members/{count + 1}"],
            ),
            (
                "Summarise: headcount, total delegated authority, and the average limit per person to the cent.",
                ["/totals"],
            ),
            (
                "Purchase orders: IT hardware and office supplies need one above the base limit, travel above "
                "$5,000 and software above $500.",
                ["/po_required_above_usd"],
            ),
            ("Limits sync to Coupa nightly, SAP Ariba hourly and Concur daily.", ["/systems"]),
            (
                "Current delegations while people are out: Daniel Kim to Oskar Lind until 2025-08-15, Ethan "
                "Brooks to Grace Owusu until 2025-09-01, Grace Owusu to Rafael Costa until 2025-10-03.",
                ["/delegations"],
            ),
            (
                "Pre-approved vendors: Staples, CDW, Grainger, Uline, Dell, Insight and Amazon Business. Note "
                "M. Chen as the last editor.",
                ["/preapproved_vendors", "/policy/last_updated_by"],
            ),
        ]
    else:
        turns += [
            ("Summarise headcount and total delegated authority.", ["/totals"]),
            ("Limits sync to Coupa nightly and SAP Ariba hourly.", ["/systems"]),
        ]
    if size == 100:
        turns.append(
            (
                "Finance Controls owns this; it was last reviewed 2024-12-02, the next review is 2025-12-01 "
                "under ticket GRC-1142, and evidence lives in GRC/Procurement/Limits.",
                ["/review"],
            )
        )
    else:
        turns.append(
            (
                "Finance Controls owns this; next review 2025-12-01 under ticket GRC-1142.",
                ["/review"],
            )
        )
    return turns


def base_revision(p: dict[str, Any]) -> Revision:
    return Revision(
        request="Finance approved a higher base: make the Procurement base approval limit $2,500.",
        mutate=lambda q: q.update(base=2500),
        direct="/policy/base_limit_usd",
    )


def base_followups(p: dict[str, Any]) -> list[Revision]:
    size = p["size"]
    new = {10: 2, 50: 10, 100: 18}[size]  # the index a member added at the end takes
    return [
        Revision(
            request="Aisha Bello got promoted to Senior Buyer.",
            mutate=lambda q: q["levels"].update({"Aisha Bello": "Senior Buyer"}),
            direct="/members/0/level",
            theme="A promotion replaces one buyer's level: her limit becomes twice the revised base and the "
            "totals follow",
            pattern="substitution",
        ),
        Revision(
            request="Add Tariq Hassan to the team as a Lead Buyer.",
            mutate=lambda q: q["extra"].append(("Tariq Hassan", "Lead Buyer")),
            direct=f"/members/{new}",
            theme="A new Lead Buyer joins at three times the base: headcount, total and average follow",
            pattern="add_remove",
        ),
        Revision(
            request="New fiscal year: Finance raised the base approval limit again, to $3,000.",
            mutate=lambda q: q.update(base=3000),
            direct="/policy/base_limit_usd",
            theme="The base rises a second time: every level-based limit (including the promotion and the new "
            "buyer), the escalation line and totals follow; fixed amounts stay",
            pattern="arithmetic",
        ),
    ]


# moves of org-approval-base: the base changes, a buyer's level changes, a buyer joins or
# leaves. Size 10 states only the Buyer and Senior Buyer levels.


def _levels(p: dict[str, Any]) -> list[str]:
    return list(LEVEL_MULTIPLIERS)[: 2 if p["size"] == 10 else 4]


def _team(p: dict[str, Any]) -> list[dict[str, Any]]:
    return base_compute(p)["members"]  # type: ignore[no-any-return]


def _rebase(p: dict[str, Any], d: Draw) -> Revision:
    base = d.pick([n for n in (1500, 2000, 2500, 3000, 3500, 4000) if n != p["base"]])
    return Revision(
        request=d.pick(
            [
                f"Finance set the Procurement base approval limit to ${base:,}.",
                f"New guidance from Finance: the base approval limit is ${base:,} now.",
            ]
        ),
        mutate=lambda q: q.update(base=base),
        direct="/policy/base_limit_usd",
        theme=f"A ${base:,} base: every level-based limit, the escalation line and the totals follow",
    )


def _relevel(p: dict[str, Any], d: Draw) -> Revision | None:
    fixed = {n for n, _, _ in FIXED_LIMITS}
    team = [(i, m) for i, m in enumerate(_team(p)) if m["name"] not in fixed]
    i, member = d.pick(team)
    level = d.pick([lv for lv in _levels(p) if lv != member["level"]])
    up = LEVEL_MULTIPLIERS[level] > LEVEL_MULTIPLIERS[member["level"]]
    return Revision(
        request=f"{member['name']} got promoted to {level}."
        if up
        else f"{member['name']} moves to the {level} level.",
        mutate=lambda q: q["levels"].update({member["name"]: level}),
        direct=f"/members/{i}/level",
        theme=f"{member['name']} becomes a {level}: the limit and the totals follow",
    )


def _join(p: dict[str, Any], d: Draw) -> Revision | None:
    names = {m["name"] for m in _team(p)} | set(p["left"])
    free = [n for n in NEW_BUYERS if n not in names]
    if not free:
        return None
    name, level = d.pick(free), d.pick(_levels(p))
    return Revision(
        request=f"Add {name} to the team as a {level}.",
        mutate=lambda q: q["extra"].append((name, level)),
        direct=f"/members/{len(_team(p))}",
        theme=f"{name} joins as a {level}: the totals follow",
    )


def _leave(p: dict[str, Any], d: Draw) -> Revision | None:
    fixed = {n for n, _, _ in FIXED_LIMITS}
    team = [
        (i, m["name"])
        for i, m in enumerate(_team(p))
        if m["name"] not in fixed and (p["size"] < 100 or m["name"] not in DELEGATING)
    ]
    if len(team) < 2:
        return None
    i, name = d.pick(team)

    def mutate(q: dict[str, Any]) -> None:
        q["left"].append(name)
        q["extra"] = [e for e in q["extra"] if e[0] != name]

    return Revision(
        request=f"{name} left the company; take them off the team.",
        mutate=mutate,
        direct=f"/members/{i}",
        theme=f"{name} leaves: the totals follow",
    )


BASE_MOVES = [
    Move("rebase", "arithmetic", _rebase),
    Move("relevel", "substitution", _relevel),
    Move("join", "add_remove", _join),
    Move("leave", "add_remove", _leave),
]


# --------------------------------------------------------------------------- org-privileged-threshold
# Threshold: lowering the privileged-approver threshold flips the gated controls of the people it now covers.

APPROVERS = [
    ("Ava Lindqvist", 7500),
    ("Ben Okafor", 12000),
    ("Carla Mendes", 3000),
    ("Dev Patel", 6200),
    ("Elena Rossi", 25000),
    ("Farid Haidari", 4800),
    ("Gwen Foster", 9900),
    ("Hugo Laurent", 15000),
    ("Ingrid Berg", 5000),
    ("Jae-won Choi", 2500),
    ("Kofi Asante", 8000),
    ("Lena Vogel", 11000),
    ("Mateo Silva", 5500),
    ("Nina Petrova", 1500),
]


NEW_APPROVERS = ["Omar Rahman", "Sofia Marino", "Tomasz Nowak", "Yuki Sato", "Amina Diallo"]
PRIV_COUNT = {10: 2, 50: 8, 100: 14}


def priv_inputs(size: int, d: Draw) -> dict[str, Any]:
    """The policy's inputs: the threshold, the approvers' limits as changed from the list
    (``limits``), approvers added (``extra``) and removed (``left``). At size 100 the SOX roster
    lists the privileged approvers, so the draw keeps their number (four) and the size exact."""
    while True:
        limits = {}
        for name, shipped in APPROVERS[: PRIV_COUNT[size]]:
            limit = d.pick([shipped, shipped + 500, shipped - 500, shipped + 1000], shipped=shipped)
            if limit != shipped:
                limits[name] = limit
        inputs = {
            "size": size,
            "threshold": d.pick([10000, 8000, 9000, 12000]),
            "limits": limits,
            "extra": [],
            "left": [],
        }
        if size < 100 or sum(_privileged(inputs)) == 4:
            return inputs


def priv_params(size: int) -> dict[str, Any]:
    # limits / extra: changed limits and new approvers of the follow-ups
    return priv_inputs(size, SHIPPED)


def _approver_rows(p: dict[str, Any]) -> list[tuple[str, int]]:
    """The approvers in order, with their limits as the inputs leave them."""
    rows = [*APPROVERS[: PRIV_COUNT[p["size"]]], *p["extra"]]
    return [(n, p["limits"].get(n, lim)) for n, lim in rows if n not in p["left"]]


def _approver(name: str, limit: int, threshold: int, size: int) -> dict[str, Any]:
    privileged = limit >= threshold
    person: dict[str, Any] = {"name": name, "limit_usd": limit, "privileged": privileged}
    person["review_cadence"] = "quarterly" if privileged else "semi-annual"
    if size >= 50:
        person["dual_approval"] = privileged
    if size >= 100:
        person["mfa"] = "hardware token" if privileged else "authenticator app"
    return person


def priv_compute(p: dict[str, Any]) -> dict[str, Any]:
    size, threshold = p["size"], p["threshold"]
    people = [_approver(n, lim, threshold, size) for n, lim in _approver_rows(p)]
    privileged = [x["name"] for x in people if x["privileged"]]
    artifact: dict[str, Any] = {
        "policy": {"privileged_threshold_usd": threshold},
        "approvers": people,
    }
    if size == 10:
        artifact["privileged_count"] = len(privileged)
        return artifact
    artifact["policy"].update(
        owner="IT Risk", standard_review_days=180, privileged_review_days=90, sox_scope=True
    )
    artifact["summary"] = {
        "privileged_count": len(privileged),
        "standard_count": len(people) - len(privileged),
    }
    if size == 100:
        artifact["sox_training_roster"] = privileged
        artifact["audit"] = {
            "auditor": "Grant & Wells LLP",
            "fieldwork_start": "2025-09-08",
            "evidence_due": "2025-08-29",
            "contact": "Ruth Adeyemi",
        }
        artifact["summary"]["review_hours_per_year"] = 4 * len(privileged) + 2 * (
            len(people) - len(privileged)
        )
    else:
        artifact["audit"] = {
            "auditor": "Grant & Wells LLP",
            "fieldwork_start": "2025-09-08",
            "evidence_due": "2025-08-29",
        }
    return artifact


def priv_conversation(p: dict[str, Any]) -> list[Turn]:
    size = p["size"]
    count = {10: 2, 50: 8, 100: 14}[size]
    rule = (
        f"Anyone whose approval limit is at or above the privileged threshold of ${p['threshold']:,} is a "
        "privileged approver and gets quarterly access reviews; everyone else is reviewed semi-annually."
    )
    if size >= 50:
        rule += " Privileged approvers also need dual approval on every payment."
    if size >= 100:
        rule += " They sign in with a hardware token; the rest use an authenticator app."
    people = "; ".join(f"{n} ${lim:,}" for n, lim in _approver_rows(p)[:count])
    if size == 10:
        return [
            (rule, ["/policy"]),
            (f"Set up the approvers with their limits: {people}.", ["/approvers"]),
            ("How many privileged approvers do we have?", ["/privileged_count"]),
        ]
    turns: list[Turn] = [
        (
            "IT Risk owns the approval-access policy and it is in SOX scope. Standard reviews happen every "
            "180 days and privileged ones every 90.",
            [
                "/policy/owner",
                "/policy/standard_review_days",
                "/policy/privileged_review_days",
                "/policy/sox_scope",
            ],
        ),
        (rule, ["/policy/privileged_threshold_usd"]),
        (f"Here are the approvers and their limits: {people}.", ["/approvers"]),
    ]
    if size == 100:
        turns += [
            (
                "Every privileged approver has to take SOX controls training; list them in that roster, in the "
                "same order as the approver list.",
                ["/sox_training_roster"],
            ),
            (
                "Count privileged and standard approvers, and estimate review effort per year: four hours for "
                "each privileged person (quarterly) and two for each standard one.",
                ["/summary"],
            ),
            (
                "The external audit is by Grant & Wells LLP, fieldwork from 2025-09-08, evidence due "
                "2025-08-29, our contact is Ruth Adeyemi.",
                ["/audit"],
            ),
        ]
    else:
        turns += [
            ("Count how many are privileged and how many standard.", ["/summary"]),
            (
                "Grant & Wells LLP audits us; fieldwork starts 2025-09-08 and evidence is due 2025-08-29.",
                ["/audit"],
            ),
        ]
    return turns


def priv_revision(p: dict[str, Any]) -> Revision:
    return Revision(
        request="IT Risk is tightening the policy: the privileged threshold is now $5,000.",
        mutate=lambda q: q.update(threshold=5000),
        direct="/policy/privileged_threshold_usd",
    )


def priv_followups(p: dict[str, Any]) -> list[Revision]:
    new = {10: 2, 50: 8, 100: 14}[p["size"]]  # the index an approver added at the end takes
    return [
        Revision(
            request="Ava Lindqvist's approval limit is cut to $4,500 now that her team is smaller.",
            mutate=lambda q: q["limits"].update({"Ava Lindqvist": 4500}),
            direct="/approvers/0/limit_usd",
            theme="A limit falls back under the new threshold: that approver loses the privileged controls "
            "the revision gave her",
            pattern="threshold",
        ),
        Revision(
            request="Add Omar Rahman as an approver with a $5,000 limit.",
            mutate=lambda q: q["extra"].append(("Omar Rahman", 5000)),
            direct=f"/approvers/{new}",
            theme="A new approver exactly at the threshold is privileged: his controls and the counts follow",
            pattern="add_remove",
        ),
        Revision(
            request="IT Risk settled on $6,000 for the privileged threshold after all.",
            mutate=lambda q: q.update(threshold=6000),
            direct="/policy/privileged_threshold_usd",
            theme="The threshold is raised a little: approvers between $5,000 and $6,000 (the new one too) "
            "lose privileged controls",
            pattern="threshold",
        ),
    ]


# moves of org-privileged-threshold: the threshold moves so that someone's status flips, an
# approver's limit crosses it, an approver joins or leaves (at size 10, where only the
# privileged count follows, a privileged one)


def _privileged(p: dict[str, Any]) -> list[bool]:
    return [lim >= p["threshold"] for _, lim in _approver_rows(p)]


def _rethreshold(p: dict[str, Any], d: Draw) -> Revision | None:
    options = [
        t
        for t in range(2000, 26001, 1000)
        if t != p["threshold"] and _privileged({**p, "threshold": t}) != _privileged(p)
    ]
    if not options:
        return None
    threshold = d.pick(options)
    verb = "tightening" if threshold < p["threshold"] else "relaxing"
    return Revision(
        request=f"IT Risk is {verb} the policy: the privileged threshold is now ${threshold:,}.",
        mutate=lambda q: q.update(threshold=threshold),
        direct="/policy/privileged_threshold_usd",
        theme=f"A ${threshold:,} threshold flips the approvers it now covers or releases",
    )


def _cross_limit(p: dict[str, Any], d: Draw) -> Revision:
    rows = _approver_rows(p)
    i = d.pick(range(len(rows)))
    name, old = rows[i]
    above = old >= p["threshold"]
    limit = d.pick(
        [n for n in range(1000, 30001, 500) if (n >= p["threshold"]) != above and n != old]
    )
    return Revision(
        request=f"{name}'s approval limit is now ${limit:,}.",
        mutate=lambda q: q["limits"].update({name: limit}),
        direct=f"/approvers/{i}/limit_usd",
        theme=f"{name}'s limit crosses the threshold: the privileged controls and counts follow",
    )


def _add_approver(p: dict[str, Any], d: Draw) -> Revision | None:
    taken = {n for n, _ in _approver_rows(p)} | set(p["left"])
    free = [n for n in NEW_APPROVERS if n not in taken]
    if not free:
        return None
    name = d.pick(free)
    low = p["threshold"] if p["size"] == 10 else 1000
    limit = d.pick(list(range(low, 30001, 500)))
    return Revision(
        request=f"Add {name} as an approver with a ${limit:,} limit.",
        mutate=lambda q: q["extra"].append((name, limit)),
        direct=f"/approvers/{len(_approver_rows(p))}",
        theme=f"{name} joins with a ${limit:,} limit: the counts follow",
    )


def _remove_approver(p: dict[str, Any], d: Draw) -> Revision | None:
    rows = _approver_rows(p)
    flags = _privileged(p)
    options = [i for i in range(len(rows)) if p["size"] > 10 or flags[i]]
    if len(rows) < 2 or not options:
        return None
    i = d.pick(options)
    name = rows[i][0]
    return Revision(
        request=f"{name} no longer approves payments; remove them from the list.",
        mutate=lambda q: q["left"].append(name),
        direct=f"/approvers/{i}",
        theme=f"{name} leaves the approvers: the counts follow",
    )


PRIV_MOVES = [
    Move("rethreshold", "threshold", _rethreshold),
    Move("cross-limit", "threshold", _cross_limit),
    Move("add-approver", "add_remove", _add_approver),
    Move("remove-approver", "add_remove", _remove_approver),
]


# --------------------------------------------------------------------------- org-remove-member
# Add/remove: a person leaves the audit project; the backup chain, headcount and seat costs follow.

AUDIT_TEAM = [
    ("Bea Sandoval", "Audit Lead"),
    ("Cal Whitaker", "IT Auditor"),
    ("Dina Moreau", "IT Auditor"),
    ("Emil Horvath", "Data Analyst"),
    ("Faye Lindgren", "Controls Tester"),
    ("Gil Navarro", "IT Auditor"),
    ("Hollis Grant", "Controls Tester"),
]
TOOLS = [
    ("AuditBoard", 85),
    ("Tableau", 70),
    ("Snowflake reader", 40),
    ("Jira", 12),
    ("Confluence", 10),
    ("Zoom", 15),
]


AUDITORS = [
    ("Jonah Pike", "IT Auditor"),
    ("Ivo Petrov", "Data Analyst"),
    ("Kira Lund", "Controls Tester"),
    ("Leon Baptiste", "IT Auditor"),
    ("Mona Aziz", "Data Analyst"),
    ("Noel Ferris", "Controls Tester"),
]
"""People who can join the audit team (and the pool a fresh team is drawn from)."""


def team_inputs(size: int, d: Draw) -> dict[str, Any]:
    """The team in roster order (the lead first), the tools' seat prices and, at size 10, the
    AuditBoard seat price."""
    count = {10: 3, 50: 6, 100: 7}[size]
    rest = d.sample(AUDIT_TEAM[1:] + AUDITORS, count - 1, shipped=AUDIT_TEAM[1:count])
    return {
        "size": size,
        "team": [list(m) for m in [AUDIT_TEAM[0], *rest]],
        "seat": d.pick([45, 40, 50, 55]),
        "prices": {t: d.pick([price, price + 5, price - 5], shipped=price) for t, price in TOOLS},
    }


def team_params(size: int) -> dict[str, Any]:
    return team_inputs(size, SHIPPED)


def _email(name: str) -> str:
    return name.lower().replace(" ", ".") + "@northwind.example"


def team_compute(p: dict[str, Any]) -> dict[str, Any]:
    size, team = p["size"], p["team"]
    n = len(team)
    members: list[dict[str, Any]] = []
    for i, (name, role) in enumerate(team):
        member: dict[str, Any] = {"name": name, "backup": team[(i + 1) % n][0]}
        if size >= 50:
            member["role"] = role
        if size >= 100:
            member["email"] = _email(name)
        members.append(member)
    if size == 10:
        return {
            "project": "Q3 SOX audit",
            "members": members,
            "headcount": n,
            "license": {"seats": n, "monthly_cost_usd": p["seat"] * n},
        }
    tools = [(t, p["prices"][t]) for t, _ in TOOLS[: {50: 4, 100: 6}[size]]]
    artifact: dict[str, Any] = {
        "project": {
            "name": "Q3 SOX audit",
            "sponsor": "Miriam Okonkwo",
            "code": "AUD-2025-Q3",
            "kickoff": "2025-07-07",
            "report_due": "2025-09-26",
            "budget_usd": 180000,
            "status": "planning",
        },
        "scope": [
            "ERP access",
            "change management",
            "backup and restore",
            "privileged access",
            "vendor onboarding",
            "payroll interface",
            "SoD conflicts",
        ],
        "members": members,
        "headcount": n,
        "tools": [
            {"name": t, "price_usd": price, "seats": n, "monthly_cost_usd": price * n}
            for t, price in tools
        ],
    }
    artifact["monthly_total_usd"] = sum(t["monthly_cost_usd"] for t in artifact["tools"])
    if size == 100:
        artifact["project"].update(risk_rating="high", region="EMEA")
        artifact["scope"] += ["treasury access", "IT general controls"]
        artifact["quarterly_total_usd"] = 3 * artifact["monthly_total_usd"]
        artifact["milestones"] = [
            {"name": "Walkthroughs done", "date": "2025-07-25"},
            {"name": "Testing complete", "date": "2025-08-29"},
            {"name": "Draft report", "date": "2025-09-12"},
            {"name": "Management responses", "date": "2025-09-19"},
        ]
        artifact["meetings"] = [
            {"name": "Daily stand-up", "day": "weekdays", "time": "09:15"},
            {"name": "Sponsor check-in", "day": "Tuesday", "time": "14:00"},
            {"name": "Issue triage", "day": "Thursday", "time": "11:00"},
            {"name": "Evidence review", "day": "Friday", "time": "15:30"},
        ]
        artifact["evidence_repository"] = {
            "location": "SharePoint/Audit/Q3",
            "retention_years": 7,
            "owner": "Bea Sandoval",
        }
        artifact["stakeholders"] = {
            "cfo": "Leah Brandt",
            "cio": "Omar Siddiqui",
            "external_auditor": "Grant & Wells LLP",
            "head_of_internal_audit": "Tomasz Wróbel",
        }
    return artifact


def team_conversation(p: dict[str, Any]) -> list[Turn]:
    size = p["size"]
    team = p["team"]
    n = len(team)
    roster = ", ".join(name if size == 10 else f"{name} ({role})" for name, role in team)
    backup_rule = (
        "Everyone's backup is the next person in the roster order, and the last person is "
        "covered by the first."
    )
    if size == 10:
        return [
            ("We're staffing the Q3 SOX audit.", ["/project"]),
            (
                f"The team in roster order: {roster}. {backup_rule}",
                [f"/members/{i}" for i in range(n)],
            ),
            (
                "Track the headcount, and the AuditBoard license: one seat per team member at"
                f" ${p['seat']} a month each.",
                ["/headcount", "/license"],
            ),
        ]
    project = [
        f"/project/{k}"
        for k in ("name", "sponsor", "code", "kickoff", "report_due", "budget_usd", "status")
    ]
    roster_text = f"Roster, in this order: {roster}. {backup_rule}"
    if size == 100:
        roster_text += " Emails are firstname.lastname@northwind.example."
    turns: list[Turn] = [
        (
            "New project: Q3 SOX audit (code AUD-2025-Q3), sponsored by Miriam Okonkwo, kickoff 2025-07-07, "
            "final report due 2025-09-26, budget $180,000, currently in planning.",
            project,
        ),
        (
            "Scope: ERP access, change management, backup and restore, privileged access, vendor onboarding, "
            "payroll interface and SoD conflicts.",
            [f"/scope/{i}" for i in range(7)],
        ),
        (roster_text, [f"/members/{i}" for i in range(n)] + ["/headcount"]),
    ]
    tools = [(t, p["prices"][t]) for t, _ in TOOLS[: {50: 4, 100: 6}[size]]]
    prices = ", ".join(f"{t} ${price}" for t, price in tools)
    turns.append(
        (
            f"Tools: one seat per team member in each, monthly price per seat: {prices}. Show seats and the "
            "monthly cost for each tool, then the monthly total.",
            ["/tools", "/monthly_total_usd"],
        )
    )
    if size == 100:
        turns += [
            ("Also put the quarterly tool spend (three months) in.", ["/quarterly_total_usd"]),
            (
                "Risk rating is high, region EMEA. Add treasury access and IT general controls to the scope.",
                ["/project/risk_rating", "/project/region", "/scope/7", "/scope/8"],
            ),
            (
                "Milestones: walkthroughs done 2025-07-25, testing complete 2025-08-29, draft report "
                "2025-09-12, management responses 2025-09-19.",
                ["/milestones"],
            ),
            (
                "Standing meetings: daily stand-up on weekdays at 09:15, sponsor check-in Tuesdays 14:00, "
                "issue triage Thursdays 11:00, evidence review Fridays 15:30.",
                ["/meetings"],
            ),
            (
                "Evidence goes to SharePoint/Audit/Q3, kept seven years, owned by Bea.",
                ["/evidence_repository"],
            ),
            (
                "Stakeholders: CFO Leah Brandt, CIO Omar Siddiqui, external auditor Grant & Wells LLP, and "
                "Tomasz Wróbel as head of internal audit.",
                ["/stakeholders"],
            ),
        ]
    return turns


def _drop_member(name: str) -> Any:
    def mutate(q: dict[str, Any]) -> None:
        q["team"] = [m for m in q["team"] if m[0] != name]

    return mutate


def team_revision(p: dict[str, Any]) -> Revision:
    return Revision(
        request="Cal Whitaker has been pulled onto another engagement, so take him off the audit team.",
        mutate=_drop_member("Cal Whitaker"),
        direct="/members/1",
    )


def _swap_member(old: str, new: list[str]) -> Any:
    def mutate(q: dict[str, Any]) -> None:
        q["team"] = [new if m[0] == old else m for m in q["team"]]

    return mutate


def team_followups(p: dict[str, Any]) -> list[Revision]:
    end = len(p["team"])  # Cal back in: the index a member added at the end takes
    return [
        Revision(
            request="Cal's other engagement fell through. Put him back on the audit team, in his old spot.",
            mutate=lambda q: q["team"].insert(1, ["Cal Whitaker", "IT Auditor"]),
            direct="/members/1",
            theme="The removed member returns at his old place: the backup chain, headcount and seat costs "
            "go back",
            pattern="add_remove",
        ),
        Revision(
            # size 10 members hold no title: the request there gives none
            request="Dina Moreau is going on leave; Jonah Pike"
            + ("" if p["size"] == 10 else ", also an IT Auditor,")
            + " takes her place in the roster.",
            mutate=_swap_member("Dina Moreau", ["Jonah Pike", "IT Auditor"]),
            direct="/members/2/name",
            theme="One member is replaced by another in the same place: the backup naming her and her email "
            "follow, counts stay",
            pattern="substitution",
        ),
        Revision(
            # size 10 members hold no title: the request there gives none
            request="Add Ivo Petrov at the end of the roster."
            if p["size"] == 10
            else "Add Ivo Petrov, Data Analyst, at the end of the roster.",
            mutate=lambda q: q["team"].append(["Ivo Petrov", "Data Analyst"]),
            direct=f"/members/{end}",
            theme="A member added at the end becomes the last person's backup and is covered by the first; "
            "headcount and seats grow",
            pattern="add_remove",
        ),
    ]


# moves of org-remove-member: a member leaves, joins at the end, or is replaced in place; at
# sizes 50 and 100 a tool's seat price changes


def _movable(p: dict[str, Any]) -> list[int]:
    """Members a move may take out or replace: at size 100 not the lead, whom the evidence
    repository names as its owner."""
    return [i for i, m in enumerate(p["team"]) if p["size"] < 100 or m[0] != AUDIT_TEAM[0][0]]


def _team_leave(p: dict[str, Any], d: Draw) -> Revision | None:
    i = d.pick(_movable(p))
    name = p["team"][i][0]
    return Revision(
        request=d.pick(
            [
                f"{name} has been pulled onto another engagement; take them off the audit team.",
                f"Please remove {name} from the audit team.",
            ]
        ),
        mutate=_drop_member(name),
        direct=f"/members/{i}",
        theme=f"{name} leaves: the backup chain, headcount and seat costs follow",
    )


def _newcomer(p: dict[str, Any], d: Draw) -> list[str] | None:
    names = {m[0] for m in p["team"]}
    free = [list(m) for m in AUDIT_TEAM + AUDITORS if m[0] not in names]
    return d.pick(free) if free else None


def _team_join(p: dict[str, Any], d: Draw) -> Revision | None:
    new = _newcomer(p, d)
    if new is None:
        return None
    who = new[0] if p["size"] == 10 else f"{new[0]}, {new[1]},"
    return Revision(
        request=f"Add {who} at the end of the roster.",
        mutate=lambda q: q["team"].append(new),
        direct=f"/members/{len(p['team'])}",
        theme=f"{new[0]} joins at the end: the backup chain, headcount and seat costs follow",
    )


def _team_replace(p: dict[str, Any], d: Draw) -> Revision | None:
    i = d.pick(_movable(p))
    old, role = p["team"][i]
    new = _newcomer(p, d)
    if new is None:
        return None
    new = [new[0], role]
    also = "" if p["size"] == 10 else f", also a {role},"
    return Revision(
        request=f"{old} is going on leave; {new[0]}{also} takes their place in the roster.",
        mutate=_swap_member(old, new),
        direct=f"/members/{i}/name",
        theme=f"{new[0]} takes {old}'s place: the backup naming them follows, counts stay",
    )


def _seat_price(p: dict[str, Any], d: Draw) -> Revision:
    tools = [t for t, _ in TOOLS[: {50: 4, 100: 6}[p["size"]]]]
    j = d.pick(range(len(tools)))
    tool = tools[j]
    price = d.pick([n for n in range(5, 101, 5) if n != p["prices"][tool]])
    return Revision(
        request=f"{tool} now costs ${price} a seat per month.",
        mutate=lambda q: q["prices"].update({tool: price}),
        direct=f"/tools/{j}/price_usd",
        theme=f"A new {tool} seat price: its cost and the totals follow",
    )


TEAM_MOVES = [
    Move("leave", "add_remove", _team_leave, when=lambda p: len(p["team"]) > 2),
    Move("join", "add_remove", _team_join),
    Move("replace", "substitution", _team_replace),
    Move("seat-price", "arithmetic", _seat_price, when=lambda p: p["size"] >= 50),
]


SCENARIOS = [
    Scenario(
        id="org-role-change",
        domain=DOMAIN,
        pattern="substitution",
        theme="Switching a new hire's role replaces the groups, limits, tools, trainings and review dates it governs",
        params=role_params,
        compute=role_compute,
        conversation=role_conversation,
        revision=role_revision,
        followups=role_followups,
        inputs=role_inputs,
        moves=ROLE_MOVES,
        notes="Role attributes are stated for the old role in the conversation; the new role comes as reference data.",
    ),
    Scenario(
        id="org-start-date-shift",
        domain=DOMAIN,
        pattern="temporal",
        theme="Moving a hire's start date shifts every access date set relative to it, not the fixed company dates",
        params=start_params,
        compute=start_compute,
        conversation=start_conversation,
        revision=start_revision,
        followups=start_followups,
        inputs=start_inputs,
        moves=START_MOVES,
        notes="Distractors: company-wide audit dates, team events and shipping dates are absolute.",
    ),
    Scenario(
        id="org-approval-base",
        domain=DOMAIN,
        pattern="arithmetic",
        theme="Raising the department's base approval limit recomputes every level-based limit, the escalation line and the totals",
        params=base_params,
        compute=base_compute,
        conversation=base_conversation,
        revision=base_revision,
        followups=base_followups,
        inputs=base_inputs,
        moves=BASE_MOVES,
        notes="Distractors: the flat corporate card limit equals the old base; CFO exceptions and some PO lines are fixed amounts.",
    ),
    Scenario(
        id="org-privileged-threshold",
        domain=DOMAIN,
        pattern="threshold",
        theme="Lowering the privileged-approver threshold flips review cadence, dual approval and sign-in for the people it now covers",
        params=priv_params,
        compute=priv_compute,
        conversation=priv_conversation,
        revision=priv_revision,
        followups=priv_followups,
        inputs=priv_inputs,
        moves=PRIV_MOVES,
        notes="The rule is 'at or above': a limit exactly at the new threshold becomes privileged.",
    ),
    Scenario(
        id="org-remove-member",
        domain=DOMAIN,
        pattern="add_remove",
        theme="Removing a team member relinks the backup chain and shrinks headcount, tool seats and costs",
        params=team_params,
        compute=team_compute,
        conversation=team_conversation,
        revision=team_revision,
        followups=team_followups,
        inputs=team_inputs,
        moves=TEAM_MOVES,
        notes="Backups follow roster order with wrap-around; removing the second person changes the first person's backup.",
    ),
]
