"""course_plan: students and instructors plan semesters, course offerings and syllabi.

One scenario per pattern except add_remove; every dependent value is derived in ``compute`` from
the inputs the conversation states, so the gold patch is the diff before/after the requested edit.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Callable
from typing import Any

from pytest_revprop.authoring.helpers import add_days, all_of, count_word, dollars, money
from pytest_revprop.authoring.scenario import SHIPPED, Draw, Move, Revision, Scenario, Turn, regex

DOMAIN = "course_plan"


def _at_least(size: int) -> Any:
    """A move's precondition: the size is at least ``size``."""
    return lambda p: p["size"] >= size


def _renumber(
    key: str, values: range, direct: str, request: str, theme: str, lower: str = ""
) -> Callable[[dict[str, Any], Draw], Revision]:
    """A move that sets the number ``key`` of the inputs to another of ``values``; its request
    and theme are written with ``{new}`` and ``{old}`` (``lower``: the request when the new
    number is the lower one)."""

    def make(p: dict[str, Any], d: Draw) -> Revision:
        old = p[key]
        new = d.pick([n for n in values if n != old])
        text = lower if lower and new < old else request
        return Revision(
            request=text.format(new=new, old=old),
            mutate=lambda q: q.update({key: new}),
            direct=direct,
            theme=theme.format(new=new, old=old),
        )

    return make


# --------------------------------------------------------------------------- course-credit-load
# Arithmetic: one course's credit count feeds its tuition, the term and year totals, the amount
# due after aid, the installment amount, study hours and degree progress.

# (code, title, credits, days)
FALL = [
    ("CHEM 201", "Organic Chemistry I", 3, "Mon/Wed/Fri"),
    ("MATH 221", "Calculus II", 4, "Tue/Thu"),
    ("BIOL 230", "Cell Biology", 3, "Mon/Wed"),
    ("ENGL 210", "Technical Writing", 3, "Tue/Thu"),
    ("KIN 105", "Beginning Yoga", 1, "Fri"),
]
SPRING = [
    ("CHEM 202", "Organic Chemistry II", 3, "Mon/Wed/Fri"),
    ("BIOL 240", "Genetics", 4, "Tue/Thu"),
    ("STAT 210", "Biostatistics", 3, "Mon/Wed"),
    ("HIST 120", "World History", 3, "Tue/Thu"),
    ("MUS 101", "Choir", 1, "Wed"),
]
# more fall courses a plan may hold (codes unlike the spring ones); the last: 1-credit courses
MORE_FALL = [
    ("PSYC 101", "Intro to Psychology", 3, "Mon/Wed"),
    ("ECON 101", "Principles of Economics", 3, "Tue/Thu"),
    ("CS 110", "Intro to Programming", 4, "Mon/Wed/Fri"),
    ("PHIL 140", "Ethics", 3, "Tue/Thu"),
    ("SPAN 201", "Intermediate Spanish", 4, "Mon/Wed/Fri"),
]
ONE_CREDIT = [
    ("KIN 105", "Beginning Yoga", 1, "Fri"),
    ("ART 110", "Ceramics Studio", 1, "Thu"),
    ("KIN 120", "Rock Climbing", 1, "Mon"),
]
WEEKLY = {"Fri": "Fridays", "Thu": "Thursdays", "Mon": "Mondays", "Wed": "Wednesdays"}
STUDENTS = [
    ("Priya Raman", "Anita Raman"),
    ("Jonah Weiss", "Ruth Weiss"),
    ("Mei Lin", "David Lin"),
    ("Carlos Mendez", "Lucia Mendez"),
]


def credit_inputs(size: int, d: Draw) -> dict[str, Any]:
    """The plan: fall courses (CHEM 201 first; size 10 takes two) and, at size 100, spring
    courses as ``[code, title, credits, days]`` rows; tuition per credit, fees, aid, payments,
    study and work hours, credits done, the student."""
    rest = d.sample(FALL[1:4] + MORE_FALL, 3, shipped=FALL[1:4])
    fall = [FALL[0], *rest, d.pick(ONE_CREDIT)][: 2 if size == 10 else 5]
    student, contact = d.pick(STUDENTS)
    return {
        "size": size,
        "fall": [list(row) for row in fall],
        "spring": [list(row) for row in SPRING],
        "per_credit": d.pick([415, 380, 440, 455, 395]),
        "fees": [
            ["Technology fee", d.pick([150, 175, 125, 200])],
            ["Student activity fee", d.pick([85, 95, 70])],
            ["Organic chemistry lab fee", d.pick([60, 45, 75])],
        ],
        "scholarship": d.pick([2000, 1500, 2500, 3000]),
        "installments": d.pick([4, 3, 5, 6]),
        "aid": [d.pick([4000, 3000, 5000]), d.pick([1500, 1000, 2000])],
        "months": d.pick([10, 9, 12, 8]),
        "study_per_credit": d.pick([3, 2, 4]),
        "job_hours": d.pick([12, 10, 15, 8]),
        "completed": d.pick([45, 30, 60, 52]),
        "student": student,
        "contact": contact,
    }


def credit_params(size: int) -> dict[str, Any]:
    return credit_inputs(size, SHIPPED)


def _courses(p: dict[str, Any], rows: list[list[Any]]) -> list[dict[str, Any]]:
    return [
        {"code": code, "title": title, "credits": c, "tuition": c * p["per_credit"], "days": days}
        for code, title, c, days in rows
    ]


def _status(credits: int) -> str:
    return "full-time" if credits >= 12 else "part-time"


def credit_compute(p: dict[str, Any]) -> dict[str, Any]:
    size, per_credit, study_rate = p["size"], p["per_credit"], p["study_per_credit"]
    if size == 10:
        courses = [
            {"code": c["code"], "credits": c["credits"], "tuition": c["tuition"]}
            for c in _courses(p, p["fall"])
        ]
        credits = sum(c["credits"] for c in courses)
        return {
            "term": "Fall 2025",
            "courses": courses,
            "total_credits": credits,
            "total_tuition": credits * per_credit,
            "weekly_study_hours": study_rate * credits,
        }
    student = {
        "name": p["student"],
        "id": "S-204881",
        "major": "Biochemistry",
        "advisor": "Dr. Owen Lewis",
    }
    fees = sum(a for _, a in p["fees"])
    job = {"employer": "Campus library", "hours_per_week": p["job_hours"]}
    if size == 50:
        courses = _courses(p, p["fall"])
        credits = sum(c["credits"] for c in courses)
        tuition = credits * per_credit
        total = tuition + fees
        net = total - p["scholarship"]
        study = study_rate * credits
        count = p["installments"]
        return {
            "student": student,
            "term": "Fall 2025",
            "tuition_per_credit": per_credit,
            "courses": courses,
            "fees": [{"name": n, "amount": a} for n, a in p["fees"]],
            "totals": {"credits": credits, "tuition": tuition, "fees": fees, "total_due": total},
            "scholarship": p["scholarship"],
            "net_due": net,
            "installments": {"count": count, "amount": money(net / count)},
            "enrollment_status": _status(credits),
            "weekly_study_hours": study,
            "job": job,
            "weekly_commitment_hours": study + p["job_hours"],
        }
    terms = {}
    for key, name in (("fall", "Fall 2025"), ("spring", "Spring 2026")):
        courses = _courses(p, p[key])
        credits = sum(c["credits"] for c in courses)
        terms[key] = {
            "name": name,
            "courses": courses,
            "credits": credits,
            "tuition": credits * per_credit,
            "study_hours": study_rate * credits,
            "status": _status(credits),
        }
    year_credits = terms["fall"]["credits"] + terms["spring"]["credits"]
    year_tuition = year_credits * per_credit
    total = year_tuition + 2 * fees
    scholarship, grant = p["aid"]
    net = total - scholarship - grant
    months, done = p["months"], p["completed"]
    return {
        "student": student,
        "tuition_per_credit": per_credit,
        "fall": terms["fall"],
        "spring": terms["spring"],
        "fees_per_term": [{"name": n, "amount": a} for n, a in p["fees"]],
        "year": {
            "credits": year_credits,
            "tuition": year_tuition,
            "fees": 2 * fees,
            "total_due": total,
            "net_due": net,
        },
        "aid": {"scholarship": scholarship, "grant": grant},
        "payment_plan": {"months": months, "monthly_amount": money(net / months)},
        "degree_progress": {
            "required": 120,
            "completed": done,
            "planned_this_year": year_credits,
            "remaining_after_year": 120 - done - year_credits,
        },
        "job": job,
        "advisor_meetings": ["2025-09-15", "2026-02-02", "2026-04-20"],
        "housing": {"hall": "Cedar Hall", "rent_per_term": 3900},
        "books_estimate": 640,
        "meal_plan": {"plan": "Block 150", "cost_per_term": 2100},
        "clubs": ["Chem Club", "Climbing Club"],
        "emergency_contact": {"name": p["contact"], "phone": "(415) 555-0133"},
        "expected_graduation": "2028-05",
        "parking_permit": False,
    }


def _course_text(row: list[Any], first: bool = False) -> str:
    """``CHEM 201 Organic Chemistry I (3 credits, Mon/Wed/Fri)``; later ones ``(4, Tue/Thu)``."""
    code, title, credits, days = row
    return f"{code} {title} ({credits}{' credits' if first else ''}, {days})"


def _listing(rows: list[list[Any]], fall: bool = True) -> str:
    """Courses as the user lists them: the fall ones with the word credits on the first and
    ", and" before the last, the spring ones plainly."""
    texts = [_course_text(row, fall and i == 0) for i, row in enumerate(rows)]
    return ", ".join(texts[:-1]) + (", and " if fall else ", ") + texts[-1]


def credit_conversation(p: dict[str, Any]) -> list[Turn]:
    size = p["size"]
    fall = p["fall"]
    rate = p["per_credit"]
    study = p["study_per_credit"]
    if size == 10:
        (a, _, ca, _), (b, _, cb, _) = fall
        return [
            (
                "I'm planning my Fall 2025 semester. I work a lot this term, so just two courses.",
                ["/term"],
            ),
            (
                f"{a} is {ca} credits and {b} is {cb}. Tuition is ${rate} per credit hour; show what "
                "each costs.",
                ["/courses"],
            ),
            (
                f"Give me total credits and total tuition. I also plan {study} study hours a week per "
                "credit, so add my weekly study hours.",
                ["/total_credits", "/total_tuition", "/weekly_study_hours"],
            ),
        ]
    student = (
        f"I'm {p['student']}, student S-204881, Biochemistry major, my advisor is Dr. Owen Lewis. Help "
        "me plan my courses and what they cost."
    )
    (tech, tech_fee), (activity, activity_fee), (lab, lab_fee) = p["fees"]
    fee_text = (
        f"Fees per term: {tech.lower()} ${tech_fee}, {activity.lower()} ${activity_fee}, and the "
        f"{lab.lower()} ${lab_fee} (flat, not per credit)."
    )
    job = f"I work {p['job_hours']} hours a week at the campus library"
    if size == 50:
        first3 = ", ".join(_course_text(row, i == 0) for i, row in enumerate(fall[:3]))
        (c4, t4, k4, d4), (c5, t5, k5, d5) = fall[3:]
        unit = "credit" if k5 == 1 else "credits"
        count = p["installments"]
        return [
            (student, ["/student"]),
            (
                f"This is for Fall 2025. Tuition is ${rate} per credit hour.",
                ["/term", "/tuition_per_credit"],
            ),
            (
                f"Courses: {first3}. List each with its tuition.",
                ["/courses/0", "/courses/1", "/courses/2"],
            ),
            (
                f"Also {c4} {t4} ({k4} credits, {d4}) and {c5} {t5}, {k5} {unit} on {WEEKLY[d5]}.",
                ["/courses/3", "/courses/4"],
            ),
            (fee_text.replace("Fees per term", "Fees"), ["/fees"]),
            ("Totals: credits, tuition, fees, and total due (tuition plus fees).", ["/totals"]),
            (
                f"My scholarship covers {dollars(p['scholarship'])}; what's left is my net due. I'll pay "
                f"that in {count} equal installments.",
                ["/scholarship", "/net_due", "/installments"],
            ),
            (
                "12 credits or more counts as full-time here, otherwise part-time. Which am I?",
                ["/enrollment_status"],
            ),
            (
                f"I budget {study} hours of study a week per credit. I also {job[2:]}; add my total "
                "weekly commitment, study plus work.",
                ["/weekly_study_hours", "/job", "/weekly_commitment_hours"],
            ),
        ]
    scholarship, grant = p["aid"]
    return [
        (student + f" Tuition is ${rate} per credit hour.", ["/student", "/tuition_per_credit"]),
        (
            f"Fall 2025 courses: {_listing(fall)}. Each with its tuition.",
            ["/fall/name", "/fall/courses"],
        ),
        (
            f"For each term show total credits, tuition, study hours (I plan {study} a week per "
            "credit), and status: full-time at 12 credits or more, else part-time.",
            ["/fall/credits", "/fall/tuition", "/fall/study_hours", "/fall/status"],
        ),
        (
            f"Spring 2026: {_listing(p['spring'], fall=False)}. Same summary for the term.",
            ["/spring"],
        ),
        (fee_text, ["/fees_per_term"]),
        (
            f"Aid for the year: a {dollars(scholarship)} scholarship and a {dollars(grant)} grant.",
            ["/aid"],
        ),
        (
            "Year view: credits, tuition, both terms' fees, total due, and net due after aid.",
            ["/year"],
        ),
        (f"I'll pay the net due over {p['months']} equal monthly payments.", ["/payment_plan"]),
        (
            f"Degree progress: I need 120 credits and have {p['completed']} done. Show this year's "
            "planned credits and what will remain after this year.",
            ["/degree_progress"],
        ),
        (f"{job}.", ["/job"]),
        (
            "Advisor meetings are booked for 2025-09-15, 2026-02-02 and 2026-04-20.",
            ["/advisor_meetings"],
        ),
        (
            "Housing is Cedar Hall at $3,900 a term, the Block 150 meal plan is $2,100 a term, and I've budgeted "
            "$640 for books. Those are all paid separately from tuition.",
            ["/housing", "/meal_plan", "/books_estimate"],
        ),
        (
            f"I'm in Chem Club and Climbing Club. Emergency contact: {p['contact']}, (415) 555-0133. I "
            "expect to graduate in 2028-05, and I don't need a parking permit.",
            ["/clubs", "/emergency_contact", "/expected_graduation", "/parking_permit"],
        ),
    ]


def credit_revision(p: dict[str, Any]) -> Revision:
    size = p["size"]
    direct = {10: "/courses/0/credits", 50: "/courses/0/credits", 100: "/fall/courses/0/credits"}[
        size
    ]

    def mutate(q: dict[str, Any]) -> None:
        q["fall"][0][2] = 4

    return Revision(
        request="Turns out CHEM 201 is 4 credits, not 3 - the lab is counted as a credit.",
        mutate=mutate,
        direct=direct,
    )


PHYS = ["PHYS 110", "Physics I", 4, "Mon/Wed/Fri"]


def credit_followups(p: dict[str, Any]) -> list[Revision]:
    fall = "/fall/courses" if p["size"] == 100 else "/courses"
    last = 1  # MATH 221's index: PHYS 110 comes "in its place"

    def drop(q: dict[str, Any]) -> None:
        q["fall"].pop(last)

    def add(q: dict[str, Any]) -> None:
        q["fall"].insert(last, list(PHYS))

    def correct(q: dict[str, Any]) -> None:
        q["fall"][last][2] = 3

    return [
        Revision(
            request="I'm dropping MATH 221 this fall; I'll take Calculus II over the summer instead.",
            mutate=drop,
            direct=f"{fall}/1",
            theme="Dropping a 4-credit course lowers the fall credits, tuition, amounts due and study hours (and "
            "drops the term under full-time)",
            pattern="add_remove",
        ),
        Revision(
            # size 10 courses hold no title or meeting days: the request there gives none
            request="I need to stay full-time for my scholarship, so I'm adding PHYS 110 in its place: 4 credits."
            if p["size"] == 10
            else "I need to stay full-time for my scholarship, so I'm adding PHYS 110 Physics I in its place: "
            "4 credits, Mon/Wed/Fri.",
            mutate=add,
            direct=f"{fall}/{last}",
            theme="Adding a 4-credit course lifts the fall term back over 12 credits: full-time again, and every "
            "total follows",
            pattern="threshold",
        ),
        Revision(
            request="Correction on PHYS 110: it's 3 credits, not 4 - the lab is a separate course I'm not taking.",
            mutate=correct,
            direct=f"{fall}/{last}/credits",
            theme="The course just added has one credit fewer: its tuition, the term and year totals, payments "
            "and study hours follow",
            pattern="arithmetic",
        ),
    ]


# moves of course-credit-load: a course's credit count is corrected by one, a course is dropped
# or added at the end of its term (none of these crossing the full-time line), tuition per credit
# changes; at sizes 50 and 100 a drop or an add crosses the full-time line and the scholarship
# changes, at size 50 the work hours. At size 100 a course may be in either term.


def _terms(p: dict[str, Any]) -> list[str]:
    return ["fall", "spring"] if p["size"] == 100 else ["fall"]


def _course_path(p: dict[str, Any], term: str, i: int) -> str:
    return f"/{term}/courses/{i}" if p["size"] == 100 else f"/courses/{i}"


def _when(p: dict[str, Any], term: str) -> str:
    return "this fall" if term == "fall" else "in the spring"


def _term_credits(p: dict[str, Any], term: str) -> int:
    return sum(row[2] for row in p[term])  # type: ignore[no-any-return]


def _crosses(p: dict[str, Any], term: str, change: int) -> bool:
    """Whether changing the term's credits by ``change`` crosses the full-time line (stated at
    sizes 50 and 100)."""
    total = _term_credits(p, term)
    return p["size"] > 10 and (total + change >= 12) != (total >= 12)


def _recredit(p: dict[str, Any], d: Draw) -> Revision | None:
    options = [
        (term, i, n)
        for term in _terms(p)
        for i, row in enumerate(p[term])
        for n in (row[2] - 1, row[2] + 1)
        if 1 <= n <= 5 and not _crosses(p, term, n - row[2])
    ]
    if not options:
        return None
    term, i, n = d.pick(options)
    code, _, old, _ = p[term][i]

    def mutate(q: dict[str, Any]) -> None:
        q[term][i][2] = n

    return Revision(
        request=d.pick(
            [
                f"Turns out {code} is {n} credits, not {old}.",
                f"Correction: {code} carries {n} credits, not {old}.",
            ]
        ).replace(" 1 credits", " 1 credit"),
        mutate=mutate,
        direct=_course_path(p, term, i) + "/credits",
        theme=f"{code} has {n} credits: its tuition and the totals follow",
    )


def _drop_course(p: dict[str, Any], d: Draw, cross: bool = False) -> Revision | None:
    keep = 1 if p["size"] == 10 else 3
    options = [
        (t, i)
        for t in _terms(p)
        for i, row in enumerate(p[t])
        if len(p[t]) > keep and _crosses(p, t, -row[2]) is cross
    ]
    if not options:
        return None
    term, i = d.pick(options)
    code = p[term][i][0]

    def mutate(q: dict[str, Any]) -> None:
        q[term].pop(i)

    why = " I'll take it over the summer instead." if cross else ""
    return Revision(
        request=f"I'm dropping {code} {_when(p, term)}.{why}",
        mutate=mutate,
        direct=_course_path(p, term, i),
        theme=f"{code} is dropped: the term's credits, tuition and what follows from them drop"
        + (", under full-time" if cross else ""),
    )


def _add_course(p: dict[str, Any], d: Draw, cross: bool = False) -> Revision | None:
    taken = {row[0] for t in ("fall", "spring") for row in p[t]}
    catalog = [row for row in FALL + MORE_FALL + ONE_CREDIT + [tuple(PHYS)] if row[0] not in taken]
    options = [
        (t, row)
        for t in _terms(p)
        for row in catalog
        if len(p[t]) < 7 and _crosses(p, t, row[2]) is cross
    ]
    if not options:
        return None
    term, (code, title, credits, days) = d.pick(options)
    unit = "credit" if credits == 1 else "credits"
    why = "I need to be full-time again, so " if cross else ""
    request = (
        f"{why}I'm adding {code} {_when(p, term)}: {credits} {unit}."
        if p["size"] == 10
        else f"{why}I'm adding {code} {title} {_when(p, term)}: {credits} {unit}, {days}."
    )
    row = [code, title, credits, days]
    return Revision(
        request=request[0].upper() + request[1:],
        mutate=lambda q: q[term].append(list(row)),
        direct=_course_path(p, term, len(p[term])),
        theme=f"{code} joins the {term} term: its credits, tuition and what follows from them grow"
        + (", full-time again" if cross else ""),
    )


def _cross_full_time(p: dict[str, Any], d: Draw) -> Revision | None:
    made = [r for r in (_drop_course(p, d, cross=True), _add_course(p, d, cross=True)) if r]
    return d.pick(made) if made else None


def _per_credit(p: dict[str, Any], d: Draw) -> Revision:
    rate = d.pick([n for n in range(350, 501, 5) if abs(n - p["per_credit"]) >= 10])
    verb = "went up" if rate > p["per_credit"] else "came down"
    return Revision(
        request=f"Tuition {verb}: it's ${rate} per credit hour now, not ${p['per_credit']}.",
        mutate=lambda q: q.update(per_credit=rate),
        direct="/tuition_per_credit" if p["size"] > 10 else "/courses/0/tuition",
        theme=f"Tuition at ${rate} a credit: every course's tuition and the totals follow",
    )


def _scholarship(p: dict[str, Any], d: Draw) -> Revision:
    old = p["scholarship"] if p["size"] == 50 else p["aid"][0]
    amount = d.pick([n for n in range(1000, 6001, 250) if n != old])

    def mutate(q: dict[str, Any]) -> None:
        if q["size"] == 50:
            q["scholarship"] = amount
        else:
            q["aid"][0] = amount

    return Revision(
        request=f"My scholarship was revised: it's {dollars(amount)} now, not {dollars(old)}.",
        mutate=mutate,
        direct="/scholarship" if p["size"] == 50 else "/aid/scholarship",
        theme=f"A {dollars(amount)} scholarship: the net due and the payments follow",
    )


CREDIT_MOVES = [
    Move("recredit", "arithmetic", _recredit),
    Move("cross-full-time", "threshold", _cross_full_time, when=_at_least(50)),
    Move("drop-course", "add_remove", _drop_course),
    Move("add-course", "add_remove", _add_course),
    Move("per-credit", "arithmetic", _per_credit),
    Move("scholarship", "arithmetic", _scholarship, when=_at_least(50), opens=False),
    Move(
        "job-hours",
        "arithmetic",
        _renumber(
            "job_hours",
            range(5, 21),
            "/job/hours_per_week",
            "The library changed my shifts: I work {new} hours a week there now.",
            "{new} work hours a week: the weekly commitment follows",
        ),
        when=lambda p: p["size"] == 50,
        opens=False,
    ),
]


# --------------------------------------------------------------------------- course-enrollment-threshold
# Threshold: final enrollment jumps past the TA and room thresholds; section counts recompute, and
# only because of the crossings the TA, room, grading turnaround (exam return dates) and the
# capped TA hours switch.

DISCUSSION_TIMES = ["Fri 09:00", "Fri 11:00", "Fri 13:00", "Fri 15:00"]
PSYC_INSTRUCTORS = [
    ("Dr. Amaka Okafor", "okafor"),
    ("Dr. Helen Brooks", "brooks"),
    ("Dr. Tomas Ferreira", "ferreira"),
    ("Dr. Leila Haddad", "haddad"),
]
# (room, its seats, the room above that)
PSYC_ROOMS = [("Room 204", 45, "Hall B"), ("Room 118", 48, "Hall C"), ("Room 310", 50, "Hall A")]


def enroll_inputs(size: int, d: Draw) -> dict[str, Any]:
    """The course's inputs: enrollment (under the TA line), the planning rules' numbers (the TA
    line also switches the grading turnaround), the per-student counts and the exam dates."""
    instructor, handle = d.pick(PSYC_INSTRUCTORS)
    ta_at = d.pick([40, 36, 38, 42])
    cap = d.pick([25, 20, 30])
    exams = [
        ["Midterm", d.date("2025-10-13", "2025-10-17", shipped="2025-10-15", weekdays="01234")],
        ["Final paper", d.date("2025-12-04", "2025-12-10", shipped="2025-12-08", weekdays="01234")],
    ]
    if size == 100:
        proposal = d.date("2025-11-10", "2025-11-14", shipped="2025-11-14", weekdays="01234")
        exams.insert(1, ["Research proposal", proposal])
    return {
        "size": size,
        "enrollment": d.int(max(26, cap + 1), min(ta_at - 3, 2 * cap), shipped=35),  # 2 sections
        "instructor": instructor,
        "zoom": handle,
        "ta_at": ta_at,
        "room": list(d.pick(PSYC_ROOMS)),
        "section_cap": cap,
        "turnaround": list(d.pick([(7, 10), (5, 8), (7, 14)])),
        "spares": d.pick([5, 3, 4, 6]),
        "kit_cost": d.pick([12, 10, 14, 15]),
        "print_cost": d.pick([0.8, 0.75, 0.9, 0.6]),
        "exams": exams,
    }


def enroll_params(size: int) -> dict[str, Any]:
    return enroll_inputs(size, SHIPPED)


def _ta(p: dict[str, Any]) -> bool:
    return p["enrollment"] > p["ta_at"]  # type: ignore[no-any-return]


def _big_room(p: dict[str, Any]) -> bool:
    return p["enrollment"] > p["room"][1]  # type: ignore[no-any-return]


def _sections(p: dict[str, Any], cap: int | None = None) -> int:
    return math.ceil(p["enrollment"] / (cap or p["section_cap"]))


def enroll_compute(p: dict[str, Any]) -> dict[str, Any]:
    size, n = p["size"], p["enrollment"]
    ta = _ta(p)
    room = p["room"][2] if _big_room(p) else p["room"][0]
    sections = _sections(p)
    if size == 10:
        return {
            "course": "PSYC 210",
            "title": "Research Methods",
            "term": "Fall 2025",
            "instructor": p["instructor"],
            "meeting_time": "Mon/Wed 10:00",
            "enrollment": n,
            "room": room,
            "discussion_sections": sections,
            "ta_assigned": ta,
            "handouts_to_print": n + p["spares"],
        }
    turnaround = p["turnaround"][1] if ta else p["turnaround"][0]
    exams = p["exams"]
    artifact: dict[str, Any] = {
        "course": {
            "code": "PSYC 210",
            "title": "Research Methods",
            "term": "Fall 2025",
            "instructor": p["instructor"],
            "credits": 4,
        },
        "enrollment": n,
        "meeting": {"days": "Mon/Wed", "time": "10:00", "room": room},
        "discussion": {"sections": sections, "max_per_section": p["section_cap"]},
        "ta_assigned": ta,
        "grading": {
            "turnaround_days": turnaround,
            "weights": {"labs": 30, "midterm": 30, "final_paper": 40},
        },
        "exams": [{"name": e, "date": d, "returned_by": add_days(d, turnaround)} for e, d in exams],
        "handouts_to_print": n + p["spares"],
        "lab_kits": {"unit_cost": p["kit_cost"], "count": n, "total": p["kit_cost"] * n},
        "office_hours": {"day": "Tuesday", "time": "14:00-16:00", "location": "Psych 318"},
        "topics": [
            "Research questions",
            "Ethics and IRB",
            "Surveys",
            "Experiments",
            "Observational methods",
            "Descriptive statistics",
            "Inference",
        ],
        "guest_speakers": [
            {"name": "Dr. Lena Fischer", "date": "2025-10-01"},
            {"name": "Marcus Hale", "date": "2025-11-05"},
        ],
        "software": {"stats": "JASP", "survey": "Qualtrics"},
        "policies": {"late_penalty_per_day": 5, "max_late_days": 3, "attendance_required": True},
        "readings": ["Shaughnessy ch. 1-3", "APA manual ch. 2", "Selected articles"],
        "department_contact": {"name": "Joan Ruiz", "email": "psych-office@univ.example"},
    }
    if size == 50:
        return artifact
    artifact["course"]["prerequisite"] = "PSYC 101"
    artifact["discussion"]["times"] = DISCUSSION_TIMES[:sections]
    artifact["ta_hours_per_week"] = min(10 * sections, 25) if ta else 0
    artifact["peer_review_groups"] = math.ceil(n / 4)
    artifact["topics"] += [
        "Reliability and validity",
        "Writing in APA style",
        "Poster presentations",
        "Replication",
    ]
    artifact["poster_session"] = {
        "date": "2025-12-03",
        "room": "Atrium",
        "posters": math.ceil(n / 4),
    }
    artifact["print_cost"] = money((n + p["spares"]) * p["print_cost"])
    artifact["clicker_licences"] = n
    artifact["midterm_proctors"] = math.ceil(n / 30)
    artifact["labs"] = [
        {"name": f"Lab {i + 1}", "due": d}
        for i, d in enumerate(
            ("2025-09-17", "2025-10-01", "2025-10-22", "2025-11-12", "2025-11-26")
        )
    ]
    artifact["accommodations"] = {"office": "Access Center", "exam_extra_time": "1.5x"}
    artifact["course_site"] = "canvas.univ.example/psyc210"
    artifact["learning_outcomes"] = [
        "Design a study",
        "Evaluate evidence",
        "Analyze data",
        "Write in APA style",
    ]
    artifact["guest_speakers"].append({"name": "Priya Natarajan", "date": "2025-11-19"})
    artifact["policies"]["regrade_window_days"] = 7
    artifact["department_contact"]["phone"] = "(608) 555-0170"
    artifact["lab_kits"]["supplier"] = "LabSupply Co"
    artifact["syllabus"] = {
        "version": "v2",
        "posted": "2025-08-20",
        "final_paper_length": "3000 words",
    }
    artifact["office_hours"]["zoom"] = f"univ.zoom.example/{p['zoom']}"
    artifact["readings"] += ["Observation notes guide", "Open science primer"]
    artifact["discussion"]["room"] = "Psych 120"
    artifact["course"]["department"] = "Psychology"
    artifact["accommodations"]["contact"] = "access@univ.example"
    artifact["attendance_tool"] = "iClicker"
    return artifact


def enroll_conversation(p: dict[str, Any]) -> list[Turn]:
    size = p["size"]
    room, seats, hall = p["room"]
    rules = (
        f"Planning rules: discussion sections hold at most {p['section_cap']} students, so we need enough "
        f"sections for everyone. If more than {p['ta_at']} students enroll, the department gives me a TA. "
        f"{room} seats {seats}; above that we move to {hall}."
    )
    if size == 10:
        return [
            (
                f"I'm setting up PSYC 210 Research Methods for Fall 2025; I'm {p['instructor']} and we meet "
                "Mon/Wed at 10:00.",
                ["/course", "/title", "/term", "/instructor", "/meeting_time"],
            ),
            (f"We're expecting {p['enrollment']} students.", ["/enrollment"]),
            (
                rules + " Work out the room, number of sections and whether I get a TA.",
                ["/room", "/discussion_sections", "/ta_assigned"],
            ),
            (
                f"Print handouts for every student plus {p['spares']} spares.",
                ["/handouts_to_print"],
            ),
        ]
    course = [
        "/course/code",
        "/course/title",
        "/course/term",
        "/course/instructor",
        "/course/credits",
    ]
    dates = [date for _, date in p["exams"]]
    exam_text = f"Midterm is on {dates[0]} and the final paper is due {dates[-1]}"
    exam_ptrs = ["/exams/0", "/exams/1"]
    if size == 100:
        exam_text = (
            f"Midterm is on {dates[0]}, the research proposal is due {dates[1]}, and the final paper "
            f"{dates[2]}"
        )
        exam_ptrs.append("/exams/2")
    quick, slow = p["turnaround"]
    turns: list[Turn] = [
        (
            f"I'm {p['instructor']}, setting up PSYC 210 Research Methods (4 credits) for Fall 2025.",
            course,
        ),
        (f"Expected enrollment is {p['enrollment']}.", ["/enrollment"]),
        (
            rules + " We meet Mon/Wed at 10:00.",
            ["/meeting", "/discussion/sections", "/discussion/max_per_section", "/ta_assigned"],
        ),
        (
            f"Grading: labs 30%, midterm 30%, final paper 40%. I return graded work within {quick} days, but "
            f"with more than {p['ta_at']} students that goes to {slow} days.",
            ["/grading"],
        ),
        (exam_text + "; note the date each will be returned.", exam_ptrs),
        (f"Handouts: one per student plus {p['spares']} spares.", ["/handouts_to_print"]),
        (
            f"Every student gets a lab kit at ${p['kit_cost']} each.",
            ["/lab_kits/unit_cost", "/lab_kits/count", "/lab_kits/total"],
        ),
        (
            "Office hours Tuesday 14:00-16:00 in Psych 318.",
            ["/office_hours/day", "/office_hours/time", "/office_hours/location"],
        ),
        (
            "Topics in order: research questions, ethics and IRB, surveys, experiments, observational methods, "
            "descriptive statistics, inference.",
            [f"/topics/{i}" for i in range(7)],
        ),
        (
            "Guest speakers: Dr. Lena Fischer on 2025-10-01 and Marcus Hale on 2025-11-05.",
            ["/guest_speakers/0", "/guest_speakers/1"],
        ),
        ("Software: JASP for stats and Qualtrics for surveys.", ["/software"]),
        (
            "Policies: 5% off per late day, at most 3 late days, attendance required.",
            [
                "/policies/late_penalty_per_day",
                "/policies/max_late_days",
                "/policies/attendance_required",
            ],
        ),
        (
            "Readings: Shaughnessy ch. 1-3, APA manual ch. 2, plus selected articles. Department contact is "
            "Joan Ruiz, psych-office@univ.example.",
            [
                *(f"/readings/{i}" for i in range(3)),
                "/department_contact/name",
                "/department_contact/email",
            ],
        ),
    ]
    if size == 100:
        turns += [
            (
                "Discussion sections meet in these Friday slots, filled in this order: 09:00, 11:00, 13:00, 15:00. "
                "List the slots we use. PSYC 101 is the prerequisite.",
                ["/discussion/times", "/course/prerequisite"],
            ),
            (
                "A TA works 10 hours a week per discussion section, but the contract caps it at 25 hours a week; "
                "with no TA it's 0.",
                ["/ta_hours_per_week"],
            ),
            (
                "Students peer-review in groups of at most 4, so make enough groups for everyone.",
                ["/peer_review_groups"],
            ),
            (
                "Four more topics: reliability and validity, writing in APA style, poster presentations, replication.",
                [f"/topics/{i}" for i in range(7, 11)],
            ),
            (
                "Poster session 2025-12-03 in the Atrium; each peer-review group presents one poster.",
                ["/poster_session"],
            ),
            (
                f"Printing runs ${p['print_cost']:.2f} per handout; what's the print cost? Also one clicker "
                "licence per student, and one midterm proctor per 30 students (round up).",
                ["/print_cost", "/clicker_licences", "/midterm_proctors"],
            ),
            (
                "Lab due dates, fixed: Lab 1 2025-09-17, Lab 2 2025-10-01, Lab 3 2025-10-22, Lab 4 2025-11-12, "
                "Lab 5 2025-11-26.",
                ["/labs"],
            ),
            (
                "Accommodations go through the Access Center, with 1.5x exam time. Course site is "
                "canvas.univ.example/psyc210.",
                ["/accommodations/office", "/accommodations/exam_extra_time", "/course_site"],
            ),
            (
                "Learning outcomes: design a study, evaluate evidence, analyze data, write in APA style.",
                ["/learning_outcomes"],
            ),
            (
                "Third guest speaker: Priya Natarajan on 2025-11-19. Regrade requests within 7 days. Joan's phone "
                "is (608) 555-0170, and the kits come from LabSupply Co.",
                [
                    "/guest_speakers/2",
                    "/policies/regrade_window_days",
                    "/department_contact/phone",
                    "/lab_kits/supplier",
                ],
            ),
            (
                "Syllabus v2 was posted 2025-08-20; the final paper is 3000 words. Office hours also on Zoom at "
                f"univ.zoom.example/{p['zoom']}. Add two readings: the observation notes guide and an open "
                "science primer.",
                ["/syllabus", "/office_hours/zoom", "/readings/3", "/readings/4"],
            ),
            (
                "Discussions are in Psych 120. The course is listed under Psychology, accommodations contact is "
                "access@univ.example, and attendance is taken with iClicker.",
                [
                    "/discussion/room",
                    "/course/department",
                    "/accommodations/contact",
                    "/attendance_tool",
                ],
            ),
        ]
    return turns


def enroll_revision(p: dict[str, Any]) -> Revision:
    return Revision(
        request="Registration closed and we ended up with 52 students, not 35.",
        mutate=lambda q: q.update(enrollment=52),
        direct="/enrollment",
    )


def enroll_followups(p: dict[str, Any]) -> list[Revision]:
    def enrolled(n: int) -> Any:
        return lambda q: q.update(enrollment=n)

    return [
        Revision(
            request="Six more students got in off the waitlist this morning.",
            mutate=enrolled(58),
            direct="/enrollment",
            theme="Six more students on top of the revised count: per-student counts grow, sections and the "
            "TA stay",
            pattern="arithmetic",
        ),
        Revision(
            request="The add/drop deadline has passed and twenty students dropped, so we're down to 38.",
            mutate=enrolled(38),
            direct="/enrollment",
            theme="Enrollment falls back under 40 and 45: no TA, back to Room 204, fewer sections, 7-day "
            "grading turnaround",
            pattern="threshold",
        ),
        Revision(
            request="I miscounted: three of those drops were reversed, so the final number is 41.",
            mutate=enrolled(41),
            direct="/enrollment",
            theme="Enrollment ends just over 40: the TA and the 10-day turnaround come back, the room stays",
            pattern="threshold",
        ),
    ]


# moves of course-enrollment-threshold: the enrollment changes across the TA or room line, or
# within them (students off the waitlist, drops); at sizes 50 and 100 the department moves the
# TA line (with the grading turnaround), the section cap or a lab kit's price changes, an exam
# date moves; at size 100 the spare handouts change


def _flags(p: dict[str, Any], n: int) -> tuple[bool, bool]:
    q = {**p, "enrollment": n}
    return _ta(q), _big_room(q)


def _enrollments(p: dict[str, Any], cross: bool) -> list[int]:
    """Enrollments a move may set: a different count that keeps the sections within the four
    Friday slots and crosses a line (``cross``) or none."""
    cur = p["enrollment"]
    top = min(4 * p["section_cap"], 90)
    return [
        n
        for n in range(15, top + 1)
        if n != cur and (_flags(p, n) != _flags(p, cur)) is cross and abs(n - cur) <= 25
    ]


def _students(n: int, more: str = "") -> str:
    """``3 -> "Three students"``, ``1 -> "One student"``, ``12 -> "12 more students"``."""
    word = count_word(n).capitalize()
    return f"{word} {more}{'student' if n == 1 else 'students'}".replace("  ", " ")


def _enrolled(n: int) -> Any:
    return lambda q: q.update(enrollment=n)


def _cross_enrollment(p: dict[str, Any], d: Draw) -> Revision | None:
    options = _enrollments(p, cross=True)
    if not options:
        return None
    n, cur = d.pick(options), p["enrollment"]
    request = d.pick(
        [
            f"Registration closed and we ended up with {n} students, not {cur}.",
            f"{_students(n - cur, 'more ')} got in off the waitlist, so we're at {n}.",
        ]
        if n > cur
        else [
            f"The add/drop deadline has passed and {_students(cur - n).lower()} dropped, so we're "
            f"down to {n}.",
            f"{_students(cur - n)} dropped, so we're down to {n}.",
        ]
    )
    return Revision(
        request=request,
        mutate=_enrolled(n),
        direct="/enrollment",
        theme=f"Enrollment goes from {cur} to {n}, across a planning line: what the lines govern "
        "switches and the counts follow",
    )


def _within_lines(p: dict[str, Any], d: Draw, up: bool) -> Revision | None:
    """Students off the waitlist (``up``) or dropping, up to nine, across no line."""
    cur = p["enrollment"]
    options = [n for n in _enrollments(p, cross=False) if 0 < (n - cur if up else cur - n) <= 9]
    if not options:
        return None
    n = d.pick(options)
    k = abs(n - cur)
    return Revision(
        request=f"{_students(k, 'more ')} got in off the waitlist this morning."
        if up
        else f"{_students(k)} dropped the course this week.",
        mutate=_enrolled(n),
        direct="/enrollment",
        theme=f"{k} more students, no line crossed: the per-student counts grow"
        if up
        else f"{k} students drop, no line crossed: the per-student counts shrink",
    )


def _ta_line(p: dict[str, Any], d: Draw) -> Revision | None:
    cur, n = p["ta_at"], p["enrollment"]
    options = [
        t
        for t in range(25, p["room"][1])
        if t != cur and (n > t) != (n > cur) and abs(t - cur) <= 12
    ]
    if not options:
        return None
    line = d.pick(options)
    slow = p["turnaround"][1]
    return Revision(
        request=f"The department moved its line: I now get a TA with more than {line} students instead "
        f"of {cur}, and my longer {slow}-day grading turnaround switches at that same line.",
        mutate=lambda q: q.update(ta_at=line),
        direct="/ta_assigned",
        theme=f"The TA line moves to {line}: the TA and the grading turnaround switch, exam return "
        "dates follow",
    )


def _section_cap(p: dict[str, Any], d: Draw) -> Revision | None:
    cur = p["section_cap"]
    options = [
        c
        for c in range(15, 36)
        if c != cur and _sections(p, c) != _sections(p) and _sections(p, c) <= 4
    ]
    if not options:
        return None
    cap = d.pick(options)
    return Revision(
        request=f"Discussion sections can hold at most {cap} students now, not {cur}.",
        mutate=lambda q: q.update(section_cap=cap),
        direct="/discussion/max_per_section",
        theme=f"Sections of at most {cap}: the number of sections"
        + (", the Friday slots and the TA hours follow" if p["size"] == 100 else " follows"),
    )


def _exam_date(p: dict[str, Any], d: Draw) -> Revision:
    i = d.pick(range(len(p["exams"])))
    name, old = p["exams"][i]
    date = d.pick(
        [
            add_days(old, k)
            for k in range(-7, 8)
            if k and dt.date.fromisoformat(add_days(old, k)).weekday() < 5
        ]
    )

    def mutate(q: dict[str, Any]) -> None:
        q["exams"][i][1] = date

    what = "is now on" if name == "Midterm" else "is now due"
    return Revision(
        request=f"The {name.lower()} {what} {date}.",
        mutate=mutate,
        direct=f"/exams/{i}/date",
        theme=f"The {name.lower()} moves to {date}: its return date follows",
    )


ENROLL_MOVES = [
    Move("cross", "threshold", _cross_enrollment),
    Move("waitlist", "arithmetic", lambda p, d: _within_lines(p, d, up=True)),
    Move("drops", "arithmetic", lambda p, d: _within_lines(p, d, up=False)),
    Move("ta-line", "threshold", _ta_line, when=_at_least(50)),
    Move("section-cap", "arithmetic", _section_cap, when=_at_least(50)),
    Move(
        "kit-cost",
        "arithmetic",
        _renumber(
            "kit_cost",
            range(8, 21),
            "/lab_kits/unit_cost",
            "The lab kits went up to ${new} each.",
            "Lab kits at ${new}: the kit total follows",
            lower="The supplier lowered the lab kits to ${new} each.",
        ),
        when=_at_least(50),
        opens=False,
    ),
    Move("exam-date", "temporal", _exam_date, when=_at_least(50), opens=False),
    Move(
        "spares",
        "arithmetic",
        _renumber(
            "spares",
            range(2, 11),
            "/handouts_to_print",
            "Print {new} spare handouts instead of {old}.",
            "{new} spares: the handout count and the print cost follow",
        ),
        when=_at_least(100),
        opens=False,
    ),
]


# --------------------------------------------------------------------------- course-textbook-swap
# Substitution: the required textbook is replaced; its author, edition, ISBN, price and the chapter
# of every weekly reading come from the new book, and the costs built on the price follow.

BOOKS: dict[str, dict[str, Any]] = {
    "Foundations of Statistics": {
        "author": "Harold Benning",
        "edition": "4th",
        "publisher": "Larch Press",
        "isbn": "978-1-4641-2097-2",
        "price": 89,
        "chapters": {
            "Describing data": 1,
            "Sampling": 2,
            "Probability": 4,
            "Normal distribution": 5,
            "Sampling distributions": 6,
            "Confidence intervals": 7,
            "Hypothesis tests": 8,
            "Comparing two means": 9,
            "Correlation": 10,
            "Regression": 11,
            "Chi-square tests": 12,
            "ANOVA": 13,
        },
    },
    "Statistics: A Practical Start": {
        "author": "Lena Ortiz",
        "edition": "2nd",
        "publisher": "Brightwater",
        "isbn": "978-0-3935-1187-6",
        "price": 64,
        "chapters": {
            "Describing data": 1,
            "Sampling": 3,
            "Probability": 4,
            "Normal distribution": 6,
            "Sampling distributions": 6,
            "Confidence intervals": 8,
            "Hypothesis tests": 9,
            "Comparing two means": 10,
            "Correlation": 12,
            "Regression": 12,
            "Chi-square tests": 11,
            "ANOVA": 13,
        },
    },
    "Statistics in Practice": {
        "author": "Marcus Webb",
        "edition": "3rd",
        "publisher": "Halden & Co",
        "isbn": "978-1-5432-8810-4",
        "price": 72,
        "chapters": {
            "Describing data": 2,
            "Sampling": 1,
            "Probability": 3,
            "Normal distribution": 5,
            "Sampling distributions": 7,
            "Confidence intervals": 8,
            "Hypothesis tests": 8,
            "Comparing two means": 9,
            "Correlation": 11,
            "Regression": 12,
            "Chi-square tests": 10,
            "ANOVA": 14,
        },
    },
    "Statistics Made Clear": {
        "author": "Priya Anand",
        "edition": "5th",
        "publisher": "Northgate",
        "isbn": "978-1-3190-4421-8",
        "price": 95,
        "chapters": {
            "Describing data": 2,
            "Sampling": 3,
            "Probability": 5,
            "Normal distribution": 6,
            "Sampling distributions": 7,
            "Confidence intervals": 9,
            "Hypothesis tests": 10,
            "Comparing two means": 11,
            "Correlation": 13,
            "Regression": 14,
            "Chi-square tests": 12,
            "ANOVA": 15,
        },
    },
    "Essential Statistics": {
        "author": "Tom Hargreaves",
        "edition": "1st",
        "publisher": "Kestrel Books",
        "isbn": "978-0-2627-5530-3",
        "price": 58,
        "chapters": {
            "Describing data": 1,
            "Sampling": 1,
            "Probability": 3,
            "Normal distribution": 4,
            "Sampling distributions": 5,
            "Confidence intervals": 6,
            "Hypothesis tests": 7,
            "Comparing two means": 8,
            "Correlation": 9,
            "Regression": 9,
            "Chi-square tests": 10,
            "ANOVA": 11,
        },
    },
}
STAT_INSTRUCTORS = [
    "Prof. Daniel Kim",
    "Prof. Sarah Lindgren",
    "Prof. Omar Said",
    "Prof. Julia Reyes",
]
TOPICS = {
    10: ["Describing data", "Sampling"],
    50: [
        "Describing data",
        "Sampling",
        "Probability",
        "Normal distribution",
        "Sampling distributions",
        "Confidence intervals",
        "Hypothesis tests",
        "Comparing two means",
    ],
    100: list(BOOKS["Foundations of Statistics"]["chapters"]),
}


def _lower(topic: str) -> str:
    return topic if topic.isupper() else topic.lower()


def book_inputs(size: int, d: Draw) -> dict[str, Any]:
    """The course's inputs: the required book (``prices``: what the bookstore charges instead of
    a book's list price, a move sets one), the weekly topics, the licence price, the copies the
    bookstore orders and keeps on reserve, the instructor."""
    return {
        "size": size,
        "book": d.pick(list(BOOKS)),
        "prices": {},
        "topics": list(TOPICS[size]),
        "licence": d.pick([30, 25, 35, 40]),
        "copies": d.pick([60, 45, 75, 90]),
        "reserve": d.pick([4, 3, 5, 6]),
        "instructor": d.pick(STAT_INSTRUCTORS),
    }


def book_params(size: int) -> dict[str, Any]:
    return book_inputs(size, SHIPPED)


def _book(p: dict[str, Any], title: str) -> dict[str, Any]:
    """Book ``title``'s details at the price the bookstore charges."""
    return {**BOOKS[title], "price": p["prices"].get(title, BOOKS[title]["price"])}


def _surname(title: str) -> str:
    return str(BOOKS[title]["author"]).split()[-1]


def book_compute(p: dict[str, Any]) -> dict[str, Any]:
    size, title = p["size"], p["book"]
    b = _book(p, title)
    licence = p["licence"]
    readings = [{"topic": t, "chapter": b["chapters"][t]} for t in p["topics"]]
    if size == 10:
        return {
            "course": "STAT 101",
            "textbook": {
                "title": title,
                "author": b["author"],
                "isbn": b["isbn"],
                "price": b["price"],
            },
            "readings": readings,
            "student_cost": b["price"] + licence,
        }
    for i, r in enumerate(readings):
        readings[i] = {"week": i + 1, **r}
    artifact: dict[str, Any] = {
        "course": {
            "code": "STAT 101",
            "title": "Introduction to Statistics",
            "term": "Spring 2026",
            "instructor": p["instructor"],
        },
        "textbook": {
            "title": title,
            "author": b["author"],
            "edition": b["edition"],
            "publisher": b["publisher"],
            "isbn": b["isbn"],
            "price": b["price"],
        },
        "readings": readings,
        "software": {"name": "Minitab", "licence": licence},
        "student_cost": b["price"] + licence,
        "bookstore_order": {"copies": p["copies"], "value": p["copies"] * b["price"]},
        "supplementary": [{"title": "OpenIntro Statistics", "chapter": 3}],
        "exams": [
            {"name": "Midterm", "date": "2026-03-05"},
            {"name": "Final", "date": "2026-05-07"},
        ],
        "library_reserve": {"copies": p["reserve"], "loan_hours": 2, "title": title},
        "office_hours": {"day": "Thursday", "time": "13:00-15:00"},
    }
    if size == 50:
        return artifact
    artifact["course"].update(sections=2, enrollment_cap=120)
    artifact["supplementary"].append({"title": "Seeing Theory (web)", "chapter": 2})
    artifact["problem_sets"] = [
        {"week": r["week"], "chapter": r["chapter"], "exercises": ex}
        for r, ex in zip(readings[:5], ("1-20", "1-15", "2-24 even", "1-18", "5-30"), strict=True)
    ]
    artifact["lectures"] = {"days": "Mon/Wed/Fri", "time": "11:00", "room": "Bliss 120"}
    artifact["policies"] = {
        "calculator": "TI-84 allowed",
        "late_penalty_percent": 10,
        "max_late_days": 2,
    }
    artifact["course_site"] = "canvas.univ.example/stat101"
    artifact["learning_goals"] = ["Summarize data", "Reason with probability", "Draw inferences"]
    artifact["ta_team"] = [
        {"name": "Grace Liu", "section": "A"},
        {"name": "Tom Baker", "section": "B"},
    ]
    artifact["grading"] = {"homework": 25, "quizzes": 15, "midterm": 25, "final": 35}
    artifact["syllabus_note"] = (
        f"Required text: {title} ({b['edition']} ed.), about ${b['price']} new."
    )
    return artifact


def book_conversation(p: dict[str, Any]) -> list[Turn]:
    size = p["size"]
    title = p["book"]
    old = BOOKS[title]
    if size == 10:
        a, b = p["topics"]
        return [
            ("I'm putting together the reading plan for STAT 101.", ["/course"]),
            (
                f"Required book: {title} by {old['author']}, ISBN {old['isbn']}, ${old['price']}.",
                ["/textbook"],
            ),
            (
                "Each reading is whichever chapter of the required book covers the topic. In this book "
                f"{_lower(a)} is chapter {old['chapters'][a]} and {_lower(b)} is chapter "
                f"{old['chapters'][b]}.",
                ["/readings"],
            ),
            (
                f"Students also buy a ${p['licence']} software licence; put their total cost (book plus "
                "licence).",
                ["/student_cost"],
            ),
        ]
    topics = p["topics"]
    first = topics[:6] if size == 100 else topics
    turns: list[Turn] = [
        (
            f"I teach STAT 101 Introduction to Statistics in Spring 2026 ({p['instructor']}). Help me plan "
            "the readings.",
            ["/course/code", "/course/title", "/course/term", "/course/instructor"],
        ),
        (
            f"The required textbook is {title}, {old['edition']} edition, by {old['author']} "
            f"({old['publisher']}), ISBN {old['isbn']}, list price ${old['price']}.",
            ["/textbook"],
        ),
        (
            "One topic per week, and each week's reading is the chapter of the required textbook that covers it. "
            f"In {_surname(title)}: "
            + ", ".join(f"{_lower(t)} ch. {old['chapters'][t]}" for t in first)
            + ".",
            [f"/readings/{i}" for i in range(len(first))],
        ),
    ]
    if size == 100:
        rest = topics[6:]
        turns.append(
            (
                "Second half of the term: "
                + ", ".join(f"{_lower(t)} ch. {old['chapters'][t]}" for t in rest)
                + ".",
                [f"/readings/{i}" for i in range(6, len(topics))],
            )
        )
    turns += [
        (f"Students need a Minitab licence at ${p['licence']}.", ["/software"]),
        ("What does a student pay in total for the book and the licence?", ["/student_cost"]),
        (
            f"The bookstore wants to order {p['copies']} copies of the textbook; estimate the order value at "
            "list price.",
            ["/bookstore_order"],
        ),
        ("Supplementary, optional: OpenIntro Statistics chapter 3.", ["/supplementary/0"]),
        ("Midterm 2026-03-05, final 2026-05-07.", ["/exams"]),
        (
            f"Put {p['reserve']} copies of the required textbook on library reserve, 2-hour loans.",
            ["/library_reserve"],
        ),
        ("Office hours Thursday 13:00-15:00.", ["/office_hours"]),
    ]
    if size == 100:
        turns += [
            (
                "Two sections with a cap of 120 students overall. Also add Seeing Theory (web), chapter 2, as "
                "optional.",
                ["/course/sections", "/course/enrollment_cap", "/supplementary/1"],
            ),
            ("TAs: Grace Liu for section A and Tom Baker for section B.", ["/ta_team"]),
            ("Grading: homework 25, quizzes 15, midterm 25, final 35.", ["/grading"]),
            (
                "Add a syllabus note naming the required text with its edition and what a new copy costs.",
                ["/syllabus_note"],
            ),
            (
                "Problem sets for weeks 1-5 come from the end-of-chapter exercises of that week's reading chapter: "
                "exercises 1-20, 1-15, 2-24 even, 1-18 and 5-30 respectively.",
                ["/problem_sets"],
            ),
            (
                "Lectures Mon/Wed/Fri at 11:00 in Bliss 120. Policies: TI-84 calculators allowed, 10% off per "
                "late day, at most 2 late days. Course site canvas.univ.example/stat101.",
                ["/lectures", "/policies", "/course_site"],
            ),
            (
                "Learning goals: summarize data, reason with probability, draw inferences.",
                ["/learning_goals"],
            ),
        ]
    return turns


def book_revision(p: dict[str, Any]) -> Revision:
    size = p["size"]
    title = "Statistics: A Practical Start"
    reference = _book_reference(p, title)
    overrides = {}
    if size == 100:
        overrides["/syllabus_note"] = regex(all_of("practical start", "2nd", r"\$?64"))
    return Revision(
        request="I'm switching the required book to Statistics: A Practical Start by Lena Ortiz. Its details "
        "are below.",
        mutate=lambda q: q.update(book=title),
        direct="/textbook/title",
        overrides=overrides,
        reference=reference,
    )


def _book_reference(p: dict[str, Any], title: str) -> dict[str, Any]:
    size = p["size"]
    new = BOOKS[title]
    attrs = (
        ["author", "isbn", "price"]
        if size == 10
        else ["author", "edition", "publisher", "isbn", "price"]
    )
    return {
        "title": title,
        **{a: new[a] for a in attrs},
        "chapters": {t: new["chapters"][t] for t in p["topics"]},
    }


def book_followups(p: dict[str, Any]) -> list[Revision]:
    size = p["size"]

    def note(*patterns: str) -> dict[str, Any]:
        return {"/syllabus_note": regex(all_of(*patterns))} if size == 100 else {}

    webb = "Statistics in Practice"
    return [
        Revision(
            request="The campus bookstore sells the Ortiz book for $58, not the $64 list price. Use $58.",
            mutate=lambda q: q["prices"].update({"Statistics: A Practical Start": 58}),
            direct="/textbook/price",
            overrides=note("practical start", "2nd", r"\$?58\b"),
            theme="The new book's price drops: the student cost, the bookstore order and the syllabus note "
            "follow",
            pattern="arithmetic",
        ),
        Revision(
            request="Ortiz is back-ordered until March, so I'm going with Statistics in Practice by Marcus Webb "
            "instead. Its details are below.",
            mutate=lambda q: q.update(book=webb),
            direct="/textbook/title",
            overrides=note("statistics in practice", "3rd", r"\$?72\b"),
            reference=_book_reference(p, webb),
            theme="A second swap of the required book: its details and chapters replace the Ortiz ones, and the "
            "costs follow its price",
            pattern="substitution",
        ),
        Revision(
            request="Webb won't reach the bookstore before week 3 either. Let's go back to Benning's Foundations "
            "of Statistics after all.",
            mutate=lambda q: q.update(book="Foundations of Statistics"),
            direct="/textbook/title",
            overrides=note("foundations of statistics", "4th", r"\$?89\b"),
            theme="Back to the original book: its details from earlier in the conversation, its chapters and "
            "its price return everywhere",
            pattern="substitution",
        ),
    ]


# moves of course-textbook-swap: the required book is swapped (its details handed over), the
# bookstore's price of the current book changes, a week's topic is added at the end or dropped;
# at sizes 50 and 100 the licence price or the copies the bookstore orders change


def _note(p: dict[str, Any], title: str, price: int) -> dict[str, Any]:
    """The syllabus note (size 100) names the book, its edition and price: a pattern."""
    if p["size"] != 100:
        return {}
    edition = BOOKS[title]["edition"]
    return {"/syllabus_note": regex(all_of(re.escape(title.lower()), edition, rf"\$?{price}\b"))}


def _swap_book(p: dict[str, Any], d: Draw) -> Revision:
    title = d.pick([t for t in BOOKS if t != p["book"]])
    price = _book(p, title)["price"]
    listed = BOOKS[title]["price"]
    author = BOOKS[title]["author"]
    request = d.pick(
        [
            f"I'm switching the required book to {title} by {author}. Its details are below.",
            f"{_surname(p['book'])} is back-ordered, so the required book is now {title} by {author}. "
            "Its details are below.",
        ]
    )
    if price != listed:
        request += (
            f" The campus bookstore still sells it for ${price}, not the ${listed} list price."
        )
    return Revision(
        request=request,
        mutate=lambda q: q.update(book=title),
        direct="/textbook/title",
        overrides=_note(p, title, price),
        reference=_book_reference(p, title),
        theme=f"{title} replaces {p['book']}: its details and chapters come in and the costs follow "
        "its price",
    )


def _store_price(p: dict[str, Any], d: Draw) -> Revision:
    title = p["book"]
    cur = _book(p, title)["price"]
    price = d.pick([n for n in range(40, 121, 2) if abs(n - cur) >= 4])
    was = "list price" if cur == BOOKS[title]["price"] else "we had"
    return Revision(
        request=f"The campus bookstore sells the {_surname(title)} book for ${price}, not the ${cur} "
        f"{was}. Use ${price}.",
        mutate=lambda q: q["prices"].update({title: price}),
        direct="/textbook/price",
        overrides=_note(p, title, price),
        theme=f"The book costs ${price}: the student cost"
        + (" and the bookstore order follow" if p["size"] >= 50 else " follows"),
    )


def _add_topic(p: dict[str, Any], d: Draw) -> Revision | None:
    title = p["book"]
    topics = p["topics"]
    left = [t for t in BOOKS[title]["chapters"] if t not in topics]
    first = 5 if p["size"] == 100 else 1  # size 100: weeks 1-5 carry the problem sets
    if not left or len(topics) <= first:
        return None
    topic = d.pick(left)
    k = d.pick(range(first, len(topics)))  # the new week's index: after week k
    chapter = BOOKS[title]["chapters"][topic]
    return Revision(
        request=f"Add a week on {_lower(topic)} right after week {k} ({_lower(topics[k - 1])}): chapter "
        f"{chapter} in {_surname(title)}. The later weeks each move back one.",
        mutate=lambda q: q["topics"].insert(k, topic),
        direct=f"/readings/{k}",
        theme=f"A week on {_lower(topic)} comes in after week {k}: the later weeks renumber",
    )


def _drop_topic(p: dict[str, Any], d: Draw) -> Revision | None:
    topics = p["topics"]
    first = 5 if p["size"] == 100 else 0  # size 100: weeks 1-5 carry the problem sets
    options = list(range(first, len(topics) - 1))  # not the last: the later weeks renumber
    if len(topics) < 4 or not options:
        return None
    i = d.pick(options)
    topic = topics[i]
    return Revision(
        request=f"Drop the week on {_lower(topic)}; the later weeks each move up one.",
        mutate=lambda q: q["topics"].remove(topic),
        direct=f"/readings/{i}",
        theme=f"The week on {_lower(topic)} leaves: the later weeks renumber",
    )


def _swap_topic(p: dict[str, Any], d: Draw) -> Revision | None:
    title = p["book"]
    chapters = BOOKS[title]["chapters"]
    topics = p["topics"]
    i = d.pick(range(len(topics)))
    old = topics[i]
    left = [t for t in chapters if t not in topics and chapters[t] != chapters[old]]
    if not left:
        return None
    topic = d.pick(left)

    def mutate(q: dict[str, Any]) -> None:
        q["topics"][i] = topic

    return Revision(
        request=(
            f"Replace the {_lower(old)} reading with {_lower(topic)}"
            if p["size"] == 10
            else f"Replace the week on {_lower(old)} with {_lower(topic)}"
        )
        + f"; the chapter of {title} that covers it is below.",
        mutate=mutate,
        direct=f"/readings/{i}/topic",
        reference={"topic": topic, "chapter": chapters[topic]},
        theme=f"{topic} replaces {_lower(old)}: its chapter comes in"
        + (" and the problem set follows" if p["size"] == 100 and i < 5 else ""),
    )


BOOK_MOVES = [
    Move("swap-book", "substitution", _swap_book),
    Move("store-price", "arithmetic", _store_price),
    Move("swap-topic", "substitution", _swap_topic),
    Move("add-topic", "add_remove", _add_topic, when=_at_least(50)),
    Move("drop-topic", "add_remove", _drop_topic, when=_at_least(50)),
    Move(
        "licence",
        "arithmetic",
        _renumber(
            "licence",
            range(20, 51, 5),
            "/software/licence",
            "The Minitab licence costs ${new} this term.",
            "A ${new} licence: the student cost follows",
        ),
        when=_at_least(50),
        opens=False,
    ),
    Move(
        "copies",
        "arithmetic",
        _renumber(
            "copies",
            range(30, 121, 5),
            "/bookstore_order/copies",
            "The bookstore now wants {new} copies of the textbook.",
            "{new} copies ordered: the order value follows",
        ),
        when=_at_least(50),
        opens=False,
    ),
]


# --------------------------------------------------------------------------- course-term-shift
# Temporal: the first class moves a week later; every week start and due date counted from it
# moves too, while registrar and department dates stay.

FIRST_CLASS = "2025-09-02"
# (assessment, days after the first class)
ASSESSMENTS = {
    10: [("Quiz 1", 9), ("Lab report 1", 21), ("Project proposal", 35)],
    50: [
        ("Quiz 1", 9),
        ("Lab report 1", 21),
        ("Quiz 2", 30),
        ("Project proposal", 35),
        ("Lab report 2", 49),
    ],
    100: [
        ("Quiz 1", 9),
        ("Lab report 1", 21),
        ("Quiz 2", 30),
        ("Project proposal", 35),
        ("Lab report 2", 49),
        ("Quiz 3", 58),
        ("Lab report 3", 77),
        ("Project poster", 91),
    ],
}
BIO_TOPICS = [
    "Cells and membranes",
    "Energy and enzymes",
    "Respiration",
    "Photosynthesis",
    "Cell cycle",
    "Mendelian genetics",
    "DNA and replication",
    "Gene expression",
    "Evolution",
    "Population ecology",
    "Ecosystems",
    "Biodiversity",
    "Plant biology",
    "Animal physiology",
]


MORE_BIO_TOPICS = ["Microbiology", "Immunology", "Neurobiology", "Human evolution", "Fungi"]
BIO_INSTRUCTORS = [
    "Prof. Ruth Alvarez",
    "Prof. Martin Cho",
    "Prof. Elise Varga",
    "Prof. Kwame Mensah",
]
BIO_TAS = [("Sam Whitaker", "swhitaker"), ("Nina Petrova", "npetrova"), ("Luis Romero", "lromero")]


def term_inputs(size: int, d: Draw) -> dict[str, Any]:
    """The course's dates: the first class (a Tuesday) and the department's midterm (a
    Thursday); ``proposal_before_midterm``: days before the midterm the proposal is due (a
    follow-up's rule, None: counted from the first class); the weekly topics, the people."""
    ta, mailbox = d.pick(BIO_TAS)
    return {
        "size": size,
        "first_class": d.date("2025-08-19", "2025-09-09", shipped=FIRST_CLASS, weekdays="1"),
        "midterm": d.date("2025-10-09", "2025-10-23", shipped="2025-10-16", weekdays="3"),
        "proposal_before_midterm": None,
        "topics": BIO_TOPICS[: {10: 0, 50: 6, 100: 14}[size]],
        "instructor": d.pick(BIO_INSTRUCTORS),
        "ta": ta,
        "ta_mailbox": mailbox,
    }


def term_params(size: int) -> dict[str, Any]:
    return term_inputs(size, SHIPPED)


def term_compute(p: dict[str, Any]) -> dict[str, Any]:
    size, first, midterm = p["size"], p["first_class"], p["midterm"]
    due = {name: add_days(first, d) for name, d in ASSESSMENTS[size]}
    if p["proposal_before_midterm"] is not None:
        due["Project proposal"] = add_days(midterm, -p["proposal_before_midterm"])
    if size == 10:
        return {
            "course": "BIO 150",
            "instructor": p["instructor"],
            "meeting_days": "Tue/Thu",
            "room": "Sci 140",
            "first_class": first,
            "quiz_1": due["Quiz 1"],
            "lab_report_1_due": due["Lab report 1"],
            "project_proposal_due": due["Project proposal"],
            "midterm": midterm,
            "final_exam": "2025-12-15",
        }
    artifact: dict[str, Any] = {
        "course": {
            "code": "BIO 150",
            "title": "Principles of Biology",
            "instructor": p["instructor"],
            "meeting_days": "Tue/Thu",
            "room": "Sci 140",
        },
        "first_class": first,
        "weeks": [
            {"week": i + 1, "starts": add_days(first, 7 * i), "topic": topic}
            for i, topic in enumerate(p["topics"])
        ],
        "assessments": [{"name": n, "due": d} for n, d in due.items()],
        "fixed_dates": [
            {"event": "Add/drop deadline", "date": "2025-09-12"},
            {"event": "Midterm", "date": midterm},
            {"event": "Thanksgiving break", "date": "2025-11-27"},
            {"event": "Final exam", "date": "2025-12-15"},
        ],
        "office_hours": {"day": "Wednesday", "time": "10:00-12:00"},
        "ta": {"name": p["ta"], "email": f"{p['ta_mailbox']}@univ.example"},
        "grading": {"quizzes": 20, "lab_reports": 30, "project": 20, "exams": 30},
    }
    if size == 50:
        return artifact
    artifact["lab"] = {
        "section": "BIO 150L",
        "day": "Friday",
        "room": "Sci 022",
        "fee": 35,
        "first_session": add_days(first, 10),
        "safety_training_by": add_days(first, 7),
    }
    artifact["review_session"] = add_days(midterm, -2)  # the Tuesday before the Thursday midterm
    artifact["office_hours"]["location"] = "Sci 210"
    artifact["fixed_dates"].append({"event": "Withdrawal deadline", "date": "2025-11-07"})
    artifact["excursion"] = {
        "place": "Cedar Marsh Preserve",
        "date": "2025-10-04",
        "bus_departs": "08:00",
    }
    artifact["materials"] = ["Lab coat", "Safety goggles", "Bound lab notebook", "Dissection kit"]
    artifact["textbook"] = {"title": "Campbell Biology", "edition": "12th", "publisher": "Pearson"}
    return artifact


def term_conversation(p: dict[str, Any]) -> list[Turn]:
    size = p["size"]
    if size == 10:
        return [
            (
                f"Help me lay out BIO 150. I'm {p['instructor']}, we meet Tue/Thu in Sci 140.",
                ["/course", "/instructor", "/meeting_days", "/room"],
            ),
            (f"First class is Tuesday {p['first_class']}.", ["/first_class"]),
            (
                "Quiz 1 is on the Thursday of week two, 9 days after the first class. Lab report 1 is due three "
                "weeks after the first class, and the project proposal five weeks after it.",
                ["/quiz_1", "/lab_report_1_due", "/project_proposal_due"],
            ),
            (
                f"The department set the midterm for {p['midterm']} and the registrar has the final on "
                "2025-12-15.",
                ["/midterm", "/final_exam"],
            ),
        ]
    topics = "; ".join(p["topics"])
    due_text = {
        50: (
            "Due dates, counted from the first class: quiz 1 after 9 days, lab report 1 after 3 weeks, quiz 2 "
            "after 30 days, the project proposal after 5 weeks, lab report 2 after 7 weeks."
        ),
        100: (
            "Due dates, counted from the first class: quiz 1 after 9 days, lab report 1 after 3 weeks, quiz 2 "
            "after 30 days, the project proposal after 5 weeks, lab report 2 after 7 weeks, quiz 3 after 58 "
            "days, lab report 3 after 11 weeks, and the project poster after 13 weeks."
        ),
    }[size]
    turns: list[Turn] = [
        (
            f"I'm {p['instructor']} and I'm planning BIO 150 Principles of Biology: Tue/Thu in Sci 140.",
            ["/course"],
        ),
        (f"We start on Tuesday {p['first_class']}.", ["/first_class"]),
        (
            f"Weekly plan: week 1 starts on the first class day and each week starts 7 days after the previous "
            f"one. Topics in order: {topics}.",
            ["/weeks"],
        ),
        (due_text, ["/assessments"]),
        (
            "Dates set by others that don't move: add/drop deadline 2025-09-12 (registrar), the midterm on "
            f"{p['midterm']} (department), Thanksgiving break 2025-11-27, final exam 2025-12-15 (registrar).",
            [f"/fixed_dates/{i}" for i in range(4)],
        ),
        (
            f"Office hours Wednesdays 10:00-12:00. My TA is {p['ta']}, {p['ta_mailbox']}@univ.example.",
            ["/office_hours/day", "/office_hours/time", "/ta"],
        ),
        ("Grading: quizzes 20, lab reports 30, project 20, exams 30.", ["/grading"]),
    ]
    if size == 100:
        turns += [
            (
                "The lab section BIO 150L meets Fridays in Sci 022 ($35 lab fee); the first lab session is 10 days "
                "after the first class and lab safety training must be done within a week of the first class.",
                ["/lab"],
            ),
            (
                f"Midterm review session on the Tuesday before the midterm, {add_days(p['midterm'], -2)}. My "
                "office hours are in Sci 210.",
                ["/review_session", "/office_hours/location"],
            ),
            ("Add the withdrawal deadline 2025-11-07 from the registrar.", ["/fixed_dates/4"]),
            (
                "Class excursion to Cedar Marsh Preserve on Saturday 2025-10-04 (the reserve only had that date); the "
                "bus leaves at 08:00.",
                ["/excursion"],
            ),
            (
                "Students need a lab coat, safety goggles, a bound lab notebook and a dissection kit. Textbook: "
                "Campbell Biology, 12th edition, Pearson.",
                ["/materials", "/textbook"],
            ),
        ]
    return turns


def term_revision(p: dict[str, Any]) -> Revision:
    return Revision(
        request="The building renovation ran late, so the first class is now Tuesday 2025-09-09.",
        mutate=lambda q: q.update(first_class="2025-09-09"),
        direct="/first_class",
    )


def term_followups(p: dict[str, Any]) -> list[Revision]:
    midterm = "/midterm" if p["size"] == 10 else "/fixed_dates/1/date"

    def rule(q: dict[str, Any]) -> None:
        q.update(midterm="2025-10-23", proposal_before_midterm=7)

    return [
        Revision(
            request="The contractor finished early after all: we start on the original date, Tuesday 2025-09-02.",
            mutate=lambda q: q.update(first_class=FIRST_CLASS),
            direct="/first_class",
            theme="The first class moves back a week: every date counted from it moves back too, fixed dates stay",
            pattern="temporal",
        ),
        Revision(
            request="The department moved the midterm to Thursday 2025-10-23. From now on I want the project "
            "proposal due exactly one week before the midterm instead of counting from the first class.",
            mutate=rule,
            direct=midterm,
            theme="The midterm moves a week; the proposal is re-anchored to one week before it (and the review "
            "session, the Tuesday before, follows)",
            pattern="temporal",
        ),
        Revision(
            request="Bad news, the renovation is back on: the first class is Tuesday 2025-09-09 after all.",
            mutate=lambda q: q.update(first_class="2025-09-09"),
            direct="/first_class",
            theme="The first class slips a week again: dates counted from it move, the proposal now tied to the "
            "midterm does not",
            pattern="temporal",
        ),
    ]


# moves of course-term-shift: the first class moves by whole weeks (still a Tuesday), the
# department moves the midterm (to a Thursday) and the proposal is tied to it or (with a move of
# the first class) counted from the first class again; at sizes 50 and 100 a week's topic is
# added or dropped, the later topics moving a week


def _midterm_path(p: dict[str, Any]) -> str:
    return "/midterm" if p["size"] == 10 else "/fixed_dates/1/date"


def _proposal_due(p: dict[str, Any]) -> str:
    art = term_compute(p)
    if p["size"] == 10:
        return str(art["project_proposal_due"])
    return str(art["assessments"][3]["due"])


def _first_classes(p: dict[str, Any]) -> list[str]:
    return [
        add_days(p["first_class"], 7 * k)
        for k in (-2, -1, 1, 2)
        if "2025-08-19" <= add_days(p["first_class"], 7 * k) <= "2025-09-09"
    ]


def _shift_first(p: dict[str, Any], d: Draw) -> Revision:
    first = d.pick(_first_classes(p))
    later = first > p["first_class"]
    request = d.pick(
        [
            f"The building renovation ran late, so the first class is now Tuesday {first}."
            if later
            else f"We can start earlier than planned: the first class is now Tuesday {first}.",
            f"The registrar moved our start: the first class is now Tuesday {first}.",
        ]
    )
    return Revision(
        request=request,
        mutate=lambda q: q.update(first_class=first),
        direct="/first_class",
        theme=f"The first class moves to {first}: every date counted from it moves too, fixed dates "
        "stay",
    )


def _midterms(p: dict[str, Any]) -> list[str]:
    return [
        add_days(p["midterm"], 7 * k)
        for k in (-2, -1, 1, 2)
        if "2025-10-02" <= add_days(p["midterm"], 7 * k) <= "2025-10-30"
    ]


def _tie_proposal(p: dict[str, Any], d: Draw) -> Revision | None:
    options = [
        (m, w)
        for m in _midterms(p)
        for w in (1, 2)
        if _proposal_due({**p, "midterm": m, "proposal_before_midterm": 7 * w}) != _proposal_due(p)
    ]
    if not options:
        return None
    midterm, weeks = d.pick(options)
    gap = "one week" if weeks == 1 else "two weeks"

    def mutate(q: dict[str, Any]) -> None:
        q.update(midterm=midterm, proposal_before_midterm=7 * weeks)

    return Revision(
        request=f"The department moved the midterm to Thursday {midterm}. From now on I want the "
        f"project proposal due exactly {gap} before the midterm instead of counting from the first "
        "class.",
        mutate=mutate,
        direct=_midterm_path(p),
        theme=f"The midterm moves to {midterm}; the proposal is tied to {gap} before it",
    )


def _move_midterm(p: dict[str, Any], d: Draw) -> Revision:
    midterm = d.pick(_midterms(p))
    return Revision(
        request=f"The department moved the midterm to Thursday {midterm}.",
        mutate=lambda q: q.update(midterm=midterm),
        direct=_midterm_path(p),
        theme=f"The midterm moves to {midterm}: what is tied to it follows",
    )


def _untie_proposal(p: dict[str, Any], d: Draw) -> Revision | None:
    options = [
        f
        for f in _first_classes(p)
        if _proposal_due({**p, "first_class": f, "proposal_before_midterm": None})
        != _proposal_due(p)
    ]
    if not options:
        return None
    first = d.pick(options)

    def mutate(q: dict[str, Any]) -> None:
        q.update(first_class=first, proposal_before_midterm=None)

    return Revision(
        request=f"The first class is now Tuesday {first}. And go back to counting the project "
        "proposal from the first class: due five weeks after it, not tied to the midterm.",
        mutate=mutate,
        direct="/first_class",
        theme=f"The first class moves to {first} and the proposal counts from it again",
    )


def _week_topics(p: dict[str, Any], d: Draw, add: bool) -> Revision | None:
    topics = p["topics"]
    if add:
        left = [t for t in BIO_TOPICS + MORE_BIO_TOPICS if t not in topics]
        if not left or len(topics) >= 16:
            return None
        topic = d.pick(left)
        k = d.pick(range(1, len(topics)))  # after week k: index k
        request = (
            f"Add a week on {topic} right after week {k} ({topics[k - 1]}); the later topics each "
            "move back a week, so the plan gets one week longer."
        )

        def mutate(q: dict[str, Any]) -> None:
            q["topics"].insert(k, topic)

        theme = f"A week on {topic} after week {k}: the later topics move a week, one more week"
    else:
        if len(topics) < 4:
            return None
        k = d.pick(range(len(topics) - 1))  # not the last: the later topics move up
        topic = topics[k]
        request = (
            f"Drop the week on {topic} (week {k + 1}); the later topics each move up a week, so the "
            "plan gets one week shorter."
        )

        def mutate(q: dict[str, Any]) -> None:
            q["topics"].pop(k)

        theme = f"The week on {topic} goes: the later topics move up a week, one week fewer"
    return Revision(request=request, mutate=mutate, direct=f"/weeks/{k}/topic", theme=theme)


def _tied(p: dict[str, Any]) -> bool:
    return p["proposal_before_midterm"] is not None


TERM_MOVES = [
    Move("shift-first", "temporal", _shift_first),
    # never turn 0: the conversation states the proposal's date before the midterm it ties to
    Move("tie-proposal", "temporal", _tie_proposal, when=lambda p: not _tied(p), opens=False),
    Move(
        "move-midterm",
        "temporal",
        _move_midterm,
        when=lambda p: _tied(p) or p["size"] == 100,
        opens=False,
    ),
    Move("untie-proposal", "temporal", _untie_proposal, when=_tied),
    Move("add-week", "add_remove", lambda p, d: _week_topics(p, d, add=True), when=_at_least(50)),
    Move("drop-week", "add_remove", lambda p, d: _week_topics(p, d, add=False), when=_at_least(50)),
]


# --------------------------------------------------------------------------- course-section-cancel
# Status flip: a section is cancelled; its registration, room, TA and seats move to their cancelled
# values together, and the offering totals and the instructor's load follow.

# (section, instructor (index into the drawn instructors), days, time, room, seats, ta (index
# into the drawn TAs, None: unassigned))
SECTIONS: dict[int, list[tuple[str, int | None, str, str, str, int, int | None]]] = {
    10: [("01", None, "", "", "Hum 210", 25, None), ("02", None, "", "", "Hum 118", 22, None)],
    50: [
        ("01", 0, "Mon/Wed", "09:00", "Hum 210", 25, 0),
        ("02", 0, "Mon/Wed", "13:00", "Hum 118", 22, 1),
        ("03", 1, "Tue/Thu", "10:30", "Hum 305", 25, None),
        ("04", 1, "Tue/Thu", "15:00", "Hum 210", 20, 0),
    ],
    100: [
        ("01", 0, "Mon/Wed", "09:00", "Hum 210", 25, 0),
        ("02", 0, "Mon/Wed", "13:00", "Hum 118", 22, 1),
        ("03", 1, "Tue/Thu", "10:30", "Hum 305", 25, None),
        ("04", 1, "Tue/Thu", "15:00", "Hum 210", 20, 0),
        ("05", 2, "Mon/Wed", "16:30", "Hum 118", 24, 1),
        ("06", 2, "Tue/Thu", "12:00", "Online", 30, 2),
    ],
}
CANCELLED = {
    "status": "cancelled",
    "registration_open": False,
    "room": "none",
    "ta": "unassigned",
    "seats": 0,
}
COORDINATORS = [
    ("Dr. Maya Chen", "mchen"),
    ("Dr. Hannah Cole", "hcole"),
    ("Dr. Aaron Diaz", "adiaz"),
    ("Dr. Ingrid Sato", "isato"),
]
SECOND_INSTRUCTORS = ["Prof. Victor Hale", "Prof. Laura Brandt", "Prof. Samuel Osei"]
THIRD_INSTRUCTORS = ["Dr. Nora Quinn", "Dr. Paul Mercer", "Dr. Rosa Lind"]
SECTION_TAS = ["Leo Park", "Aisha Bello", "Ben Ortiz", "Chloe Nakamura", "Diego Alvarez"]
ROOMS = ["Hum 305", "Hum 210", "Hum 118", "Hum 220", "Hum 412"]


def section_inputs(size: int, d: Draw) -> dict[str, Any]:
    """The offering: the coordinator and instructors, the TAs, each section's seats, the
    textbook price and the TA stipend; a section row is a dict (``open``: not cancelled)."""
    coordinator, mailbox = d.pick(COORDINATORS)
    instructors = [coordinator, d.pick(SECOND_INSTRUCTORS), d.pick(THIRD_INSTRUCTORS)]
    tas = d.sample(SECTION_TAS, 3)
    sections = [
        {
            "section": sec,
            "instructor": "" if who is None else instructors[who],
            "days": days,
            "time": time,
            "room": room,
            "seats": d.int(18, 30, shipped=seats),
            "ta": "" if size == 10 else "unassigned" if ta is None else tas[ta],
            "open": True,
        }
        for sec, who, days, time, room, seats, ta in SECTIONS[size]
    ]
    return {
        "size": size,
        "mailbox": mailbox,
        "instructors": instructors,
        "tas": tas,
        "sections": sections,
        "book_price": d.pick([32, 28, 30, 35]),
        "stipend": d.pick([1500, 1200, 1800, 2000]),
    }


def section_params(size: int) -> dict[str, Any]:
    return section_inputs(size, SHIPPED)


def _section(p: dict[str, Any], s: dict[str, Any]) -> dict[str, Any]:
    if p["size"] == 10:
        row: dict[str, Any] = {
            "section": s["section"],
            "status": "open",
            "room": s["room"],
            "seats": s["seats"],
        }
    else:
        row = {
            "section": s["section"],
            "instructor": s["instructor"],
            "days": s["days"],
            "time": s["time"],
            "room": s["room"],
            "seats": s["seats"],
            "status": "open",
            "registration_open": True,
            "ta": s["ta"],
        }
    if not s["open"]:
        row.update({k: v for k, v in CANCELLED.items() if k in row})
    return row


def section_compute(p: dict[str, Any]) -> dict[str, Any]:
    size = p["size"]
    sections = [_section(p, s) for s in p["sections"]]
    seats = sum(s["seats"] for s in sections)
    if size == 10:
        return {"course": "ENG 102 Composition II", "sections": sections, "seats_offered": seats}
    running = [s for s in sections if s["status"] == "open"]
    artifact: dict[str, Any] = {
        "course": {
            "code": "ENG 102",
            "title": "Composition II",
            "term": "Spring 2026",
            "credits": 3,
            "coordinator": p["instructors"][0],
            "coordinator_email": f"{p['mailbox']}@univ.example",
        },
        "sections": sections,
        "totals": {
            "sections_running": len(running),
            "seats_offered": seats,
            "ta_slots_filled": sum(s["ta"] != "unassigned" for s in sections),
        },
        "final_portfolio_due": "2026-05-08",
        "textbook": {"title": "They Say / I Say", "price": p["book_price"]},
        "writing_center": "Mon-Thu 10:00-18:00",
        "term_start": "2026-01-12",
    }
    if size == 50:
        return artifact
    instructors = []
    for name in p["instructors"]:
        teaching = sum(s["instructor"] == name and s["status"] == "open" for s in sections)
        instructors.append(
            {"name": name, "sections_teaching": teaching, "load_credits": 3 * teaching}
        )
    artifact["instructors"] = instructors
    artifact["totals"]["online_seats"] = sum(s["seats"] for s in sections if s["room"] == "Online")
    artifact["waitlist_limit_per_section"] = 5
    artifact["common_assignments"] = [
        {"name": "Annotated bibliography", "due": "2026-02-20"},
        {"name": "Argument essay", "due": "2026-03-27"},
        {"name": "Research paper", "due": "2026-04-24"},
    ]
    artifact["norming_session"] = {"date": "2026-01-09", "room": "Hum 400"}
    artifact["common_assignments"].append({"name": "Reflective letter", "due": "2026-05-01"})
    artifact["peer_tutors"] = [
        {"name": "Jade Morris", "hours": 6},
        {"name": "Omar Farouk", "hours": 8},
    ]
    artifact["placement"] = {"prerequisite": "ENG 101", "min_grade": "C"}
    artifact["library_session"] = {"date": "2026-02-10", "librarian": "Ruth Adeyemi"}
    artifact["instructor_meeting"] = "first Friday of the month"
    filled = artifact["totals"]["ta_slots_filled"]
    artifact["ta_budget"] = {"stipend_per_slot": p["stipend"], "total": p["stipend"] * filled}
    return artifact


def _section_text(s: dict[str, Any], me: bool = False) -> str:
    ta = f"TA {s['ta']}" if s["ta"] != "unassigned" else "no TA yet, so 'unassigned'"
    who = "me, " if me else ""
    return f"{who}{s['days']} {s['time']}, {s['room']}, {s['seats']} seats, {ta}"


def section_conversation(p: dict[str, Any]) -> list[Turn]:
    size = p["size"]
    rows = p["sections"]
    policy = (
        "If I ever cancel a section: mark it 'cancelled', release its room (write 'none'), and set its "
        "seats to 0."
    )
    if size == 10:
        return [
            ("I coordinate ENG 102 Composition II. Let's set up the spring sections.", ["/course"]),
            (
                f"Section 01 in {rows[0]['room']} with {rows[0]['seats']} seats and section 02 in "
                f"{rows[1]['room']} with {rows[1]['seats']} seats, both open.",
                ["/sections/0", "/sections/1"],
            ),
            (policy + " Also show total seats offered across sections.", ["/seats_offered"]),
        ]
    me, second, third = p["instructors"]
    turns: list[Turn] = [
        (
            f"I'm {me} ({p['mailbox']}@univ.example), coordinating ENG 102 Composition II (3 credits) for "
            "Spring 2026; the term starts 2026-01-12.",
            ["/course", "/term_start"],
        ),
        (
            f"Sections, all open for registration: 01 {_section_text(rows[0], True)}; 02 "
            f"{_section_text(rows[1], True)}.",
            ["/sections/0", "/sections/1"],
        ),
        (
            f"{second} teaches 03 ({_section_text(rows[2])}) and 04 ({_section_text(rows[3])}).",
            ["/sections/2", "/sections/3"],
        ),
    ]
    if size == 100:
        turns.append(
            (
                f"{third} has 05 ({_section_text(rows[4])}) and 06 ({_section_text(rows[5])}). All open.",
                ["/sections/4", "/sections/5"],
            )
        )
    turns.append(
        (
            policy.replace(
                "and set its seats to 0.",
                "set its seats to 0, close registration and release "
                "the TA ('unassigned'). The instructor stays listed in case we reopen.",
            )
            + " Totals: sections running, seats offered, and TA slots filled.",
            ["/totals/sections_running", "/totals/seats_offered", "/totals/ta_slots_filled"],
        )
    )
    turns += [
        ("Final portfolios are due 2026-05-08 for every section.", ["/final_portfolio_due"]),
        (
            f"Common textbook: They Say / I Say, ${p['book_price']}. The writing center is open Mon-Thu "
            "10:00-18:00.",
            ["/textbook", "/writing_center"],
        ),
    ]
    if size == 100:
        turns += [
            (
                "Instructor load: for each instructor, the number of running sections they teach, at 3 load "
                "credits per section.",
                ["/instructors"],
            ),
            (
                "Also total the online seats. Each section can waitlist up to 5 students.",
                ["/totals/online_seats", "/waitlist_limit_per_section"],
            ),
            (
                "Common assignments across sections: annotated bibliography due 2026-02-20, argument essay "
                "2026-03-27, research paper 2026-04-24.",
                [f"/common_assignments/{i}" for i in range(3)],
            ),
            (
                "Grading norming session for all instructors on 2026-01-09 in Hum 400. Add a reflective letter "
                "due 2026-05-01 to the common assignments.",
                ["/norming_session", "/common_assignments/3"],
            ),
            (
                "Peer tutors: Jade Morris 6 hours a week and Omar Farouk 8. Students need ENG 101 with a C or "
                "better.",
                ["/peer_tutors", "/placement"],
            ),
            (
                "Library research session 2026-02-10 with Ruth Adeyemi; instructors meet the first Friday of the "
                "month.",
                ["/library_session", "/instructor_meeting"],
            ),
            (
                f"Each filled TA slot carries a {dollars(p['stipend'])} stipend; show the stipend and the total "
                "TA budget.",
                ["/ta_budget"],
            ),
        ]
    return turns


def _set_open(q: dict[str, Any], sec: str, is_open: bool) -> None:
    next(s for s in q["sections"] if s["section"] == sec)["open"] = is_open


def section_revision(p: dict[str, Any]) -> Revision:
    sec = "02" if p["size"] == 10 else "04"
    index = 1 if p["size"] == 10 else 3
    return Revision(
        request=f"Cancel section {sec}; only six students signed up.",
        mutate=lambda q: _set_open(q, sec, False),
        direct=f"/sections/{index}/status",
    )


def section_followups(p: dict[str, Any]) -> list[Revision]:
    size = p["size"]
    index = 1 if size == 10 else 3
    new = len(SECTIONS[size])
    number = f"{new + 1:02d}"
    evening = {
        "section": number,
        "instructor": "" if size == 10 else p["instructors"][1],
        "days": "" if size == 10 else "Wed",
        "time": "" if size == 10 else "18:00",
        "room": "Hum 305",
        "seats": 18,
        "ta": "" if size == 10 else p["tas"][2],
        "open": True,
    }
    cancelled = p["sections"][index]["section"]

    def reopen(q: dict[str, Any]) -> None:
        _set_open(q, cancelled, True)

    return [
        Revision(
            request="Eight late registrations just came in, so reopen the section I cancelled.",
            mutate=reopen,
            direct=f"/sections/{index}/status",
            theme="The cancelled section reopens: its room, seats, registration and TA come back and the totals "
            "follow",
            pattern="status_flip",
        ),
        Revision(
            # size 10 sections hold no instructor, days, time or TA: the request there gives none
            request=f"Add an evening section {number} in Hum 305 with 18 seats, open for registration."
            if size == 10
            else f"Add an evening section {number}: {p['instructors'][1]}, Wed at 18:00 in Hum 305, 18 "
            f"seats, TA {p['tas'][2]}, open for registration.",
            mutate=lambda q: q["sections"].append(dict(evening)),
            direct=f"/sections/{new}",
            theme="A new open section adds its seats, a running section, a TA slot and instructor load to the "
            "totals",
            pattern="add_remove",
        ),
        Revision(
            request=f"Only two people signed up for the evening section {number}. Cancel it.",
            mutate=lambda q: _set_open(q, number, False),
            direct=f"/sections/{new}/status",
            theme="The section just added is cancelled: the cancellation policy empties it and the totals drop "
            "again",
            pattern="status_flip",
        ),
    ]


# moves of course-section-cancel: a running section is cancelled or a cancelled one reopens, a
# section is added at the end, a running section's seat cap changes, and (sizes 50 and 100, where
# sections have TAs) a TA is assigned to a running section without one or leaves one


def _indices(p: dict[str, Any], is_open: bool) -> list[int]:
    return [i for i, s in enumerate(p["sections"]) if s["open"] is is_open]


def _cancel_section(p: dict[str, Any], d: Draw) -> Revision | None:
    running = _indices(p, True)
    if len(running) < 2:
        return None
    i = d.pick(running)
    sec = p["sections"][i]["section"]
    signed = d.int(2, 7)
    return Revision(
        request=d.pick(
            [
                f"Cancel section {sec}; only {count_word(signed)} students signed up.",
                f"Section {sec} is too small to run ({count_word(signed)} students). Please cancel it.",
            ]
        ),
        mutate=lambda q: _set_open(q, sec, False),
        direct=f"/sections/{i}/status",
        theme=f"Section {sec} is cancelled: the policy empties it and the totals drop",
    )


def _reopen_section(p: dict[str, Any], d: Draw) -> Revision | None:
    closed = _indices(p, False)
    if not closed:
        return None
    i = d.pick(closed)
    s = p["sections"][i]
    what = "its room and seats" if p["size"] == 10 else "its room, seats, registration and TA"
    return Revision(
        request=f"Late registrations came in for section {s['section']}: reopen it, with {what} as "
        "they were before I cancelled it.",
        mutate=lambda q: _set_open(q, s["section"], True),
        direct=f"/sections/{i}/status",
        theme=f"Section {s['section']} reopens: what it had comes back and the totals follow",
    )


def _add_section(p: dict[str, Any], d: Draw) -> Revision | None:
    rows = p["sections"]
    if len(rows) >= 9:
        return None
    number = f"{max(int(s['section']) for s in rows) + 1:02d}"
    room = d.pick(ROOMS + (["Online"] if p["size"] == 100 else []))
    seats = d.int(15, 30)
    if p["size"] == 10:
        new = {"section": number, "instructor": "", "days": "", "time": "", "ta": ""}
        request = f"Add section {number} in {room} with {seats} seats, open for registration."
    else:
        teachers = p["instructors"][: 2 if p["size"] == 50 else 3]
        new = {
            "section": number,
            "instructor": d.pick(teachers),
            "days": d.pick(["Mon/Wed", "Tue/Thu", "Wed", "Fri"]),
            "time": d.pick(["08:00", "11:30", "14:30", "18:00"]),
            "ta": d.pick(p["tas"]),
        }
        request = (
            f"Add section {number}: {new['instructor']}, {new['days']} {new['time']}, {room}, "
            f"{seats} seats, TA {new['ta']}, open for registration."
        )
    new.update(room=room, seats=seats, open=True)
    return Revision(
        request=request,
        mutate=lambda q: q["sections"].append(new),
        direct=f"/sections/{len(rows)}",
        theme=f"Section {number} joins, open: the totals grow",
    )


def _reseat_section(p: dict[str, Any], d: Draw) -> Revision | None:
    i = d.pick(_indices(p, True))
    s = p["sections"][i]
    seats = d.pick([n for n in range(15, 36) if n != s["seats"]])
    verb = "Raise" if seats > s["seats"] else "Lower"

    def mutate(q: dict[str, Any]) -> None:
        q["sections"][i]["seats"] = seats

    return Revision(
        request=f"{verb} the cap on section {s['section']} to {seats} seats.",
        mutate=mutate,
        direct=f"/sections/{i}/seats",
        theme=f"Section {s['section']} offers {seats} seats: the seat totals follow",
    )


def _set_ta(i: int, ta: str) -> Any:
    def mutate(q: dict[str, Any]) -> None:
        q["sections"][i]["ta"] = ta

    return mutate


def _assign_ta(p: dict[str, Any], d: Draw) -> Revision | None:
    free = [i for i in _indices(p, True) if p["sections"][i]["ta"] == "unassigned"]
    if not free:
        return None
    i = d.pick(free)
    ta = d.pick(p["tas"])
    sec = p["sections"][i]["section"]
    return Revision(
        request=f"Good news: {ta} will TA section {sec}.",
        mutate=_set_ta(i, ta),
        direct=f"/sections/{i}/ta",
        theme=f"Section {sec} gets a TA: the filled TA slots follow",
    )


def _release_ta(p: dict[str, Any], d: Draw) -> Revision | None:
    staffed = [i for i in _indices(p, True) if p["sections"][i]["ta"] != "unassigned"]
    if not staffed:
        return None
    i = d.pick(staffed)
    s = p["sections"][i]
    return Revision(
        request=f"{s['ta']} can't TA section {s['section']} after all; mark it unassigned for now.",
        mutate=_set_ta(i, "unassigned"),
        direct=f"/sections/{i}/ta",
        theme=f"Section {s['section']} loses its TA: the filled TA slots follow",
    )


def _has_tas(p: dict[str, Any]) -> bool:
    return p["size"] >= 50  # type: ignore[no-any-return]


SECTION_MOVES = [
    Move("cancel", "status_flip", _cancel_section),
    Move("reopen", "status_flip", _reopen_section),
    Move("add-section", "add_remove", _add_section),
    Move("reseat", "arithmetic", _reseat_section),
    Move("assign-ta", "add_remove", _assign_ta, when=_has_tas, opens=False),
    Move("release-ta", "add_remove", _release_ta, when=_has_tas, opens=False),
]


SCENARIOS = [
    Scenario(
        id="course-credit-load",
        domain=DOMAIN,
        pattern="arithmetic",
        theme="Changing one course's credits recomputes its tuition, the term and year totals, aid balance, payments and study hours",
        params=credit_params,
        compute=credit_compute,
        conversation=credit_conversation,
        revision=credit_revision,
        followups=credit_followups,
        inputs=credit_inputs,
        moves=CREDIT_MOVES,
        notes="Tuition is $415 per credit (stated); totals, net due after aid, installments, study hours "
        "(3 per credit) and degree progress follow. Flat fees, full-time status and the spring term stay.",
    ),
    Scenario(
        id="course-enrollment-threshold",
        domain=DOMAIN,
        pattern="threshold",
        theme="Enrollment rising past 40 and 45 students adds a TA, moves the room and lengthens grading turnaround",
        params=enroll_params,
        compute=enroll_compute,
        conversation=enroll_conversation,
        revision=enroll_revision,
        followups=enroll_followups,
        inputs=enroll_inputs,
        moves=ENROLL_MOVES,
        notes="Sections = ceil(n/25) and per-student counts recompute; the TA (>40), room (>45), 7->10 day "
        "turnaround (exam return dates) switch only because thresholds are crossed; TA hours clamp at 25.",
    ),
    Scenario(
        id="course-textbook-swap",
        domain=DOMAIN,
        pattern="substitution",
        theme="Switching the required textbook copies in its details and re-points every weekly reading to its chapters",
        params=book_params,
        compute=book_compute,
        conversation=book_conversation,
        revision=book_revision,
        followups=book_followups,
        inputs=book_inputs,
        moves=BOOK_MOVES,
        notes="Readings hold the chapter of the required book covering each topic; the new book's chapter map "
        "is reference data (some chapters coincide). Student cost and bookstore order follow the price; "
        "supplementary readings and exams stay.",
    ),
    Scenario(
        id="course-term-shift",
        domain=DOMAIN,
        pattern="temporal",
        theme="Moving the first class a week later shifts week starts and due dates counted from it, not registrar dates",
        params=term_params,
        compute=term_compute,
        conversation=term_conversation,
        revision=term_revision,
        followups=term_followups,
        inputs=term_inputs,
        moves=TERM_MOVES,
        notes="Week starts, quizzes, lab reports and lab dates are offsets from the first class (+7 days); "
        "add/drop, midterm, holidays, withdrawal, excursion and final exam are absolute.",
    ),
    Scenario(
        id="course-section-cancel",
        domain=DOMAIN,
        pattern="status_flip",
        theme="Cancelling a course section closes it, releases its room, TA and seats, and updates offering totals",
        params=section_params,
        compute=section_compute,
        conversation=section_conversation,
        revision=section_revision,
        followups=section_followups,
        inputs=section_inputs,
        moves=SECTION_MOVES,
        notes="The cancellation policy is stated in the conversation; the section's governed values, the "
        "running/seat/TA totals and the instructor's load change; the other sections stay.",
    ),
]
