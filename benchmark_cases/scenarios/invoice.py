"""invoice: freelancers and small businesses draw up invoices with an assistant.

One scenario per propagation pattern. The billing rules (rates, discounts, tax, payment
terms, what changes once an invoice is paid) are stated by the user in the conversation;
every derived amount, date and status-governed value is computed here from those rules, so
the gold patch of each revision is the difference between two runs of the same program.

Every scenario generates fresh instances and long chains: its ``*_inputs(size, d)`` draws the
names, amounts, counts and dates the conversation states (the shipped value beside each draw),
and its ``*_MOVES`` are the edits a chain makes, each request written for its size.
"""

from __future__ import annotations

import copy
import datetime as _dt
import math
from typing import Any

from pytest_revprop.authoring.helpers import (
    CLEARED_OR_NONE,
    add_days,
    all_of_lazy,
    count_word,
    date_regex,
    days_between,
    dollars,
    money,
    money_regex,
)
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

DOMAIN = "invoice"


def _sized(least: int) -> Any:
    """A move's precondition: the size is at least ``least``."""
    return lambda p: p["size"] >= least


def _edited(p: dict[str, Any], mutate: Any) -> dict[str, Any]:
    """The inputs ``p`` after a revision's ``mutate`` (a copy; ``p`` is left alone)."""
    q = copy.deepcopy(p)
    mutate(q)
    return q


def _weekdays(first: str, last: str) -> list[str]:
    """The dates Monday to Friday from ``first`` to ``last`` (ISO, both included)."""
    days = [add_days(first, n) for n in range(days_between(first, last) + 1)]
    return [x for x in days if _dt.date.fromisoformat(x).weekday() < 5]


# --------------------------------------------------------------------------- invoice-workshop-hours
# Arithmetic: a line's quantity feeds its amount, the subtotal, the discount, the tax, the
# total, the balance after the deposit and the two installments. Fresh instances draw the
# workshop hours and rate, the other lines' quantities, the contact and the deposit; moves
# re-count or re-rate the workshop, re-count another line, change the returning-client
# discount, and add or drop a line.

# (description, unit, quantity, unit price)
HOURS_LINES_50: list[tuple[str, str, int, float]] = [
    ("Logo design package", "package", 1, 1400.0),
    ("Packaging mockups", "mockup", 6, 120.0),
    ("Menu board layouts", "board", 3, 150.0),
    ("Photo retouching", "image", 20, 12.5),
]
HOURS_LINES_100: list[tuple[str, str, int, float]] = [
    ("Brand guidelines document", "document", 1, 900.0),
    ("Social media templates", "template", 10, 35.0),
    ("Storefront signage design", "sign", 2, 275.0),
    ("Business card design", "design", 1, 180.0),
]
# how the user counts a line's units (lines of one flat unit are not re-counted)
HOURS_COUNTED = {
    "Packaging mockups": "packaging mockups",
    "Menu board layouts": "menu board layouts",
    "Photo retouching": "retouched photos",
    "Social media templates": "social media templates",
    "Storefront signage design": "storefront sign designs",
}
HOURS_EXPENSES: list[tuple[str, float]] = [
    ("Mileage to client site, 120 mi at $0.70", 84.0),
    ("Printed mockup proofs", 62.4),
    ("Stock photo licenses", 45.0),
]
HOURS_CONSULTATION = ("Follow-up consultation", "hour", 2, 85.0)
# lines a move may add: (description, unit, quantity, unit price)
HOURS_EXTRAS: list[tuple[str, str, int, float]] = [
    HOURS_CONSULTATION,
    ("Window decal design", "design", 1, 220.0),
    ("Menu photography", "hour", 3, 95.0),
    ("Loyalty card design", "design", 1, 160.0),
]
HOURS_CONTACTS = [("Rosa", "Delgado"), ("Mia", "Torres"), ("Hannah", "Brooks"), ("Leila", "Nasser")]
HOURS_RATES = [85.0, 75.0, 90.0, 95.0, 110.0]
HOURS_DISCOUNTS = [10, 5, 12, 15]


def hours_inputs(size: int, d: Draw) -> dict[str, Any]:
    """The invoice's inputs: its lines ``[description, unit, quantity, unit price]`` (the
    workshop first), the returning-client discount, the contact and the deposit."""
    rows = [("Brand strategy workshop", "hour", d.int(8, 16, shipped=12), d.pick(HOURS_RATES))]
    rows += HOURS_LINES_50 if size >= 50 else []
    rows += HOURS_LINES_100 if size == 100 else []
    lines = [list(row) for row in rows]
    for line in lines[1:]:
        if line[2] > 1:
            line[2] = d.int(2, 12, shipped=line[2]) if line[2] < 20 else d.int(16, 30, shipped=20)
    return {
        "size": size,
        "lines": lines,
        "discount": HOURS_DISCOUNTS[0],
        "contact": list(d.pick(HOURS_CONTACTS)),
        "deposit": d.pick([1500.0, 1000.0, 1200.0, 2000.0]),
    }


def hours_params(size: int) -> dict[str, Any]:
    return hours_inputs(size, SHIPPED)


def _priced_line(description: str, unit: str | None, quantity: int, price: float) -> dict[str, Any]:
    line: dict[str, Any] = {"description": description}
    if unit is not None:
        line["unit"] = unit
    line.update(quantity=quantity, unit_price=price, amount=money(quantity * price))
    return line


def hours_compute(p: dict[str, Any]) -> dict[str, Any]:
    size = p["size"]
    first, last = p["contact"]
    lines = [_priced_line(d, u if size >= 50 else None, q, r) for d, u, q, r in p["lines"]]
    subtotal = money(sum(line["amount"] for line in lines))
    if size == 10:
        tax = money(subtotal * 0.08)
        return {
            "client": "Harbor Lane Bakery",
            "currency": "USD",
            "lines": lines,
            "subtotal": subtotal,
            "tax_rate_percent": 8,
            "tax": tax,
            "total": money(subtotal + tax),
        }
    art: dict[str, Any] = {
        "invoice_number": "LA-2025-0412",
        "issue_date": "2025-05-06",
        "due_date": "2025-06-05",
        "currency": "USD",
        "studio": {
            "name": "Lumen & Ash Studio",
            "email": "billing@lumenash.studio",
            "address": "218 Alder St, Portland, OR 97204",
        },
        "client": {
            "name": "Harbor Lane Bakery",
            "contact": f"{first} {last}",
            "email": f"{first.lower()}@harborlanebakery.com",
        },
        "project": {"name": "Harbor Lane rebrand", "po_number": "HLB-PO-118", "phase": "Phase 1"},
        "lines": lines,
    }
    discount = money(subtotal * (p["discount"] / 100))
    taxable = money(subtotal - discount)
    tax = money(taxable * 0.08)
    totals: dict[str, Any] = {
        "subtotal": subtotal,
        "discount_percent": p["discount"],
        "discount": discount,
        "taxable_amount": taxable,
        "tax_rate_percent": 8,
        "tax": tax,
    }
    art["totals"] = totals
    art["payment"] = {
        "method": "ACH transfer",
        "bank": "First Harbor Bank",
        "account_ending": "4471",
        "reference": "LA-2025-0412",
    }
    if size == 50:
        totals["total"] = money(taxable + tax)
        art["late_fee_percent_per_month"] = 1.5
        return art
    deposit = p["deposit"]
    art["studio"].update(phone="(503) 555-0186", tax_id="93-4417208", website="lumenash.studio")
    art["project"]["account_manager"] = "Theo Ash"
    art["terms"] = "Net 30"
    art["client"].update(address="77 Wharf Rd, Astoria, OR 97103", phone="(503) 555-0420")
    art["expenses"] = [{"description": d, "amount": a} for d, a in HOURS_EXPENSES]
    expenses = money(sum(a for _, a in HOURS_EXPENSES))
    total = money(taxable + tax + expenses)
    balance = money(total - deposit)
    half = money(balance / 2)
    totals.update(expenses=expenses, total=total, deposit_received=deposit, balance_due=balance)
    art["installments"] = [
        {"due_date": "2025-06-05", "amount": half},
        {"due_date": "2025-07-07", "amount": money(balance - half)},
    ]
    art["memo"] = (
        f"Thanks, {first}! After your ${deposit:,.2f} deposit, the remaining ${balance:,.2f} "
        "is split into the two installments below."
    )
    art["previous_invoice"] = {"number": "LA-2025-0388", "total": 1101.6, "status": "paid"}
    art["milestones"] = [
        {"name": "Strategy sign-off", "date": "2025-04-18"},
        {"name": "Logo approval", "date": "2025-04-29"},
        {"name": "Print handoff", "date": "2025-05-02"},
    ]
    art["late_fee_percent_per_month"] = 1.5
    return art


def _hours_lines_text(rows: list[list[Any]]) -> str:
    """The deliverables as the user lists them: flat lines by their price, counted ones by
    their count and unit price."""
    spoken = {
        "Logo design package": lambda q, r: f"the logo design package at a flat {dollars(r)}",
        "Packaging mockups": lambda q, r: f"{count_word(q)} packaging mockups at {dollars(r)} each",
        "Menu board layouts": lambda q, r: (
            f"{count_word(q)} menu board layouts at {dollars(r)} apiece"
        ),
        "Photo retouching": lambda q, r: f"retouching for {q} photos at {dollars(r)} per image",
        "Brand guidelines document": lambda q, r: f"the brand guidelines document ({dollars(r)})",
        "Social media templates": lambda q, r: (
            f"{count_word(q)} social media templates at {dollars(r)}"
        ),
        "Storefront signage design": lambda q, r: (
            f"{count_word(q)} storefront sign designs at {dollars(r)} each"
        ),
        "Business card design": lambda q, r: f"the business card design ({dollars(r)})",
    }
    parts = [spoken[d](q, r) for d, _, q, r in rows]
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def hours_conversation(p: dict[str, Any]) -> list[Turn]:
    size = p["size"]
    first, last = p["contact"]
    _, _, hours, rate = p["lines"][0]
    if size == 10:
        return [
            (
                "I need to bill Harbor Lane Bakery for the brand strategy workshop. US dollars.",
                ["/client", "/currency"],
            ),
            (
                f"We ran {hours} hours of workshop at {dollars(rate)} an hour; the line amount is hours times the rate.",
                ["/lines/0"],
            ),
            (
                "Subtotal is the sum of the lines, then 8% sales tax on the subtotal (to the cent), and the "
                "total is subtotal plus tax.",
                ["/subtotal", "/tax_rate_percent", "/tax", "/total"],
            ),
        ]
    turns: list[Turn] = [
        (
            "Let's put together the invoice for Harbor Lane Bakery's rebrand, phase 1. Number LA-2025-0412, "
            "dated 2025-05-06, due 2025-06-05, in US dollars. Their PO number is HLB-PO-118.",
            [
                "/invoice_number",
                "/issue_date",
                "/due_date",
                "/currency",
                "/project/name",
                "/project/po_number",
                "/project/phase",
            ],
        ),
        (
            "It comes from Lumen & Ash Studio, billing@lumenash.studio, 218 Alder St, Portland, OR 97204. "
            f"On their side it goes to {first} {last}, {first.lower()}@harborlanebakery.com.",
            [
                "/studio/name",
                "/studio/email",
                "/studio/address",
                "/client/name",
                "/client/contact",
                "/client/email",
            ],
        ),
        (
            f"First line: the brand strategy workshop, {hours} hours at {dollars(rate)} an hour. Each line's amount is "
            "quantity times unit price.",
            ["/lines/0"],
        ),
        (
            f"Next, {_hours_lines_text(p['lines'][1:5])}.",
            ["/lines/1", "/lines/2", "/lines/3", "/lines/4"],
        ),
    ]
    if size == 100:
        turns.append(
            (
                f"Four more deliverables: {_hours_lines_text(p['lines'][5:9])}.",
                ["/lines/5", "/lines/6", "/lines/7", "/lines/8"],
            )
        )
    totals_text = (
        f"Now the totals. Subtotal = all lines added up. They're a returning client, so {p['discount']}% comes "
        "off the subtotal; sales tax is 8% of what's left after the discount. Round every money "
        "figure to the cent."
    )
    totals_ptrs = [
        "/totals/subtotal",
        "/totals/discount_percent",
        "/totals/discount",
        "/totals/taxable_amount",
        "/totals/tax_rate_percent",
        "/totals/tax",
    ]
    if size == 50:
        turns.append(
            (
                totals_text + " The total is the discounted amount plus the tax.",
                [*totals_ptrs, "/totals/total"],
            )
        )
        turns.append(
            (
                "They pay by ACH to First Harbor Bank, account ending 4471, quoting the invoice "
                "number as the reference; late payments accrue 1.5% a month.",
                ["/payment", "/late_fee_percent_per_month"],
            )
        )
        return turns
    turns += [
        (totals_text, totals_ptrs),
        (
            "We also pass through some expenses at cost: $84.00 mileage to their site (120 miles at $0.70), "
            "$62.40 for printed mockup proofs and $45.00 in stock photo licenses. No discount and no tax on "
            "those; just add their sum on top.",
            ["/expenses", "/totals/expenses"],
        ),
        (
            f"So the invoice total is the discounted amount, plus tax, plus expenses. {first} already paid a "
            f"{dollars(p['deposit'])} deposit; show it and the balance still due.",
            ["/totals/total", "/totals/deposit_received", "/totals/balance_due"],
        ),
        (
            "She asked to split the balance into two installments, due 2025-06-05 and 2025-07-07: the first "
            "is half the balance rounded to the cent, the second whatever remains.",
            ["/installments"],
        ),
        (
            f"Add a short friendly memo to {first} that states the deposit and the remaining balance.",
            ["/memo"],
        ),
        (
            "Payment by ACH to First Harbor Bank, account ending 4471, with the invoice number as reference; "
            "terms Net 30 and a 1.5% monthly late fee. Put our phone (503) 555-0186, tax ID 93-4417208 and "
            "website lumenash.studio on it, their address and phone (77 Wharf Rd, Astoria, OR 97103, "
            "(503) 555-0420), and Theo Ash as our account manager for the project.",
            [
                "/payment",
                "/terms",
                "/late_fee_percent_per_month",
                "/studio/phone",
                "/studio/tax_id",
                "/studio/website",
                "/client/address",
                "/client/phone",
                "/project/account_manager",
            ],
        ),
        (
            "For reference, last month's invoice LA-2025-0388 was $1,101.60 and is paid. Also list the "
            "milestones we hit: strategy sign-off 2025-04-18, logo approval 2025-04-29, print handoff 2025-05-02.",
            ["/previous_invoice", "/milestones"],
        ),
    ]
    return turns


def _hours_memo(p: dict[str, Any], mutate: Any) -> dict[str, Override]:
    """At size 100 the memo quotes the balance: a pattern of the new one, when it changes."""
    if p["size"] != 100:
        return {}
    old, new = (hours_compute(x)["totals"]["balance_due"] for x in (p, _edited(p, mutate)))
    return {"/memo": regex(money_regex(new))} if new != old else {}


def _set_line(line: int, field: int, value: Any) -> Any:
    return lambda q: q["lines"][line].__setitem__(field, value)


def hours_revision(p: dict[str, Any]) -> Revision:
    mutate = _set_line(0, 2, 14)
    return Revision(
        request=f"We ran long on the workshop. Please bill 14 hours for it instead of {p['lines'][0][2]}.",
        mutate=mutate,
        direct="/lines/0/quantity",
        overrides=_hours_memo(p, mutate),
    )


def hours_followups(p: dict[str, Any]) -> list[Revision]:
    size = p["size"]
    consultation = len(p["lines"])
    who = p["contact"][0] if size >= 50 else "they"
    # each follow-up's memo pattern is computed on the inputs the earlier ones left
    hours = _edited(p, _set_line(0, 2, 14))
    rate = _set_line(0, 3, 95.0)
    rated = _edited(hours, rate)

    def add(q: dict[str, Any]) -> None:
        q["lines"].append(list(HOURS_CONSULTATION))

    added = _edited(rated, add)

    def drop(q: dict[str, Any]) -> None:
        del q["lines"][consultation]

    return [
        Revision(
            request=f"We'd agreed $95 an hour for the workshop, not {dollars(p['lines'][0][3])}. Please fix the rate.",
            mutate=rate,
            direct="/lines/0/unit_price",
            overrides=_hours_memo(hours, rate),
            theme="A higher rate on the hours just revised: the line, subtotal, tax and totals "
            "follow (and the discount, balance and installments)",
            pattern="arithmetic",
        ),
        Revision(
            request="Add a line, Follow-up consultation: 2 hours at $85 an hour.",
            mutate=add,
            direct=f"/lines/{consultation}",
            overrides=_hours_memo(rated, add),
            theme="A new consultation line raises the subtotal, tax and totals",
            pattern="add_remove",
        ),
        Revision(
            request=f"{who.capitalize()} asked us not to bill the consultation after all; take that "
            "line back off.",
            mutate=drop,
            direct=f"/lines/{consultation}",
            overrides=_hours_memo(added, drop),
            theme="The consultation line just added comes off: the totals go back down",
            pattern="add_remove",
        ),
    ]


# moves of invoice-workshop-hours: the workshop's hours or rate change, another line is
# re-counted (50+), the returning-client discount changes (50+), a line is added or dropped.


def _rehours(p: dict[str, Any], d: Draw) -> Revision:
    old = p["lines"][0][2]
    hours = d.pick([h for h in range(6, 21) if h != old])
    mutate = _set_line(0, 2, hours)
    return Revision(
        request=d.pick(
            [
                f"Please bill {hours} hours for the workshop instead of {old}.",
                f"I miscounted the workshop: it was {hours} hours, not {old}."
                if hours < old
                else f"We ran long on the workshop. Please bill {hours} hours for it instead of {old}.",
            ]
        ),
        mutate=mutate,
        direct="/lines/0/quantity",
        overrides=_hours_memo(p, mutate),
        theme=f"{hours} workshop hours: the line, subtotal, tax and totals follow",
    )


def _rerate(p: dict[str, Any], d: Draw) -> Revision:
    old = p["lines"][0][3]
    rate = d.pick([r for r in HOURS_RATES if r != old])
    mutate = _set_line(0, 3, rate)
    return Revision(
        request=f"We'd agreed {dollars(rate)} an hour for the workshop, not {dollars(old)}. Please fix the rate.",
        mutate=mutate,
        direct="/lines/0/unit_price",
        overrides=_hours_memo(p, mutate),
        theme=f"A {dollars(rate)} workshop rate: the line, subtotal, tax and totals follow",
    )


def _recount(p: dict[str, Any], d: Draw) -> Revision | None:
    lines = [i for i, row in enumerate(p["lines"]) if row[0] in HOURS_COUNTED]
    if not lines:
        return None
    line = d.pick(lines)
    old = p["lines"][line][2]
    many = p["lines"][line][0] == "Photo retouching"
    n = d.pick([x for x in (range(12, 31) if many else range(2, 13)) if x != old])
    mutate = _set_line(line, 2, n)
    spoken = HOURS_COUNTED[p["lines"][line][0]]
    return Revision(
        request=f"Bill {n} {spoken} instead of {old}.",
        mutate=mutate,
        direct=f"/lines/{line}/quantity",
        overrides=_hours_memo(p, mutate),
        theme=f"{n} {spoken}: the line, subtotal, tax and totals follow",
    )


def _rediscount(p: dict[str, Any], d: Draw) -> Revision:
    rate = d.pick([r for r in HOURS_DISCOUNTS if r != p["discount"]])

    def mutate(q: dict[str, Any]) -> None:
        q["discount"] = rate

    return Revision(
        request=f"Make their returning-client discount {rate}% instead of {p['discount']}%.",
        mutate=mutate,
        direct="/totals/discount_percent",
        overrides=_hours_memo(p, mutate),
        theme=f"A {rate}% discount: the discount, taxable amount, tax and totals follow",
    )


def _hours_add(p: dict[str, Any], d: Draw) -> Revision | None:
    have = {row[0] for row in p["lines"]}
    fits = [row for row in HOURS_EXTRAS if row[0] not in have]
    if not fits:
        return None
    desc, unit, qty, price = d.pick(fits)

    def mutate(q: dict[str, Any]) -> None:
        q["lines"].append([desc, unit, qty, price])

    units = f"{count_word(qty)} {unit}" + ("s" if qty > 1 else "")
    per = " an hour" if unit == "hour" else ""
    return Revision(
        request=f"Add a line, {desc}: {units} at {dollars(price)}{per}.",
        mutate=mutate,
        direct=f"/lines/{len(p['lines'])}",
        overrides=_hours_memo(p, mutate),
        theme=f"A new line ({desc}) raises the subtotal, tax and totals",
    )


def _hours_drop(p: dict[str, Any], d: Draw) -> Revision | None:
    extra = {row[0] for row in HOURS_EXTRAS}
    lines = [
        i for i, row in enumerate(p["lines"]) if i > 0 and (row[0] in extra or p["size"] >= 50)
    ]
    if not lines:
        return None
    line = d.pick(lines)
    desc = p["lines"][line][0]

    def mutate(q: dict[str, Any]) -> None:
        del q["lines"][line]

    return Revision(
        request=f"Take the {desc[0].lower()}{desc[1:]} line off the invoice; we're not billing it.",
        mutate=mutate,
        direct=f"/lines/{line}",
        overrides=_hours_memo(p, mutate),
        theme=f"The {desc} line comes off: the subtotal, tax and totals fall",
    )


HOURS_MOVES = [
    Move("rehours", "arithmetic", _rehours),
    Move("rerate", "arithmetic", _rerate),
    Move("recount", "arithmetic", _recount, when=_sized(50)),
    Move("discount", "arithmetic", _rediscount, when=_sized(50), opens=False),
    Move("add-line", "add_remove", _hours_add),
    Move("drop-line", "add_remove", _hours_drop),
]


# --------------------------------------------------------------------------- invoice-bill-to-parent
# Substitution: the invoice is re-addressed to the client's parent company; the billing
# entity's details, its payment terms and what derives from them are replaced.

BILL_TO_ENTITIES: dict[str, dict[str, Any]] = {
    "Ridgeway Outdoor Ltd": {
        "contact": "Megan Hale",
        "address": "14 Lake Road, Keswick CA12 5BX",
        "vat_number": "GB 284 1937 66",
        "accounts_email": "accounts@ridgewayoutdoor.co.uk",
        "customer_code": "RWO-01",
        "po_number": "PO-55120",
        "payment_terms_days": 30,
    },
    "Ridgeway Holdings plc": {
        "contact": "Tom Ashworth",
        "address": "2 Wharf Street, Leeds LS2 7EQ",
        "vat_number": "GB 731 4402 18",
        "accounts_email": "ap@ridgewayholdings.co.uk",
        "customer_code": "RWH-07",
        "po_number": "HPO-20931",
        "payment_terms_days": 45,
    },
    "Ridgeway Group Services Ltd": {
        "contact": "Hannah Price",
        "address": "Unit 4, Kirkstall Forge, Leeds LS5 3BF",
        "vat_number": "GB 905 3318 42",
        "accounts_email": "invoices@ridgewaygroup.co.uk",
        "customer_code": "RWG-02",
        "po_number": "GS-7716",
        "payment_terms_days": 60,
    },
    "Ridgeway Retail Ltd": {
        "contact": "Owen Bell",
        "address": "3 Station Approach, Kendal LA9 6BT",
        "vat_number": "GB 418 2265 09",
        "accounts_email": "payables@ridgewayretail.co.uk",
        "customer_code": "RWR-03",
        "po_number": "RR-40877",
        "payment_terms_days": 21,
    },
}
# why a move re-bills the invoice to each company, in the user's words
BILL_TO_REASONS = {
    "Ridgeway Outdoor Ltd": "Change of plan: Ridgeway Outdoor Ltd will pay for this themselves after "
    "all. Bill it to them again; their details are attached.",
    "Ridgeway Holdings plc": "Their finance team just told me the parent company pays for this. "
    "Please bill it to Ridgeway Holdings plc instead; their details are attached.",
    "Ridgeway Group Services Ltd": "Supplier invoices now go through Ridgeway Group Services Ltd, "
    "the group's shared-services company. Bill it to them instead; their details are attached.",
    "Ridgeway Retail Ltd": "The Keswick store now sits under Ridgeway Retail Ltd, who will pay for "
    "this. Bill it to them instead; their details are attached.",
}
BILL_TO_LINES_50: list[tuple[str, float, float]] = [
    ("Fire risk assessment, Keswick store", 2, 650.0),
    ("Evacuation plan update", 1, 550.0),
    ("Staff fire warden training", 1, 480.0),
    ("Emergency lighting survey", 0.5, 600.0),
]
BILL_TO_LINES_100: list[tuple[str, float, float]] = [
    ("Fire door inspection", 0.5, 600.0),
    ("Action plan review meeting", 0.5, 550.0),
]
BILL_TO_FINDINGS: list[tuple[str, str, str]] = [
    ("Fire doors", "high", "Replace the damaged self-closer on the stockroom door"),
    ("Signage", "medium", "Add exit signs on the mezzanine"),
    ("Extinguishers", "medium", "Service the two CO2 units by the tills"),
    ("Escape routes", "medium", "Keep the rear corridor clear of stock"),
    ("Training", "low", "Refresh the fire warden roster"),
]
BILL_TO_ISSUE = "2025-03-14"


BILL_TO_TERMS = [14, 21, 30, 45, 60, 90]
# the spoken name of each line, for the moves that re-count its days
BILL_TO_SPOKEN = {
    "Fire risk assessment, Keswick store": "fire risk assessment",
    "Evacuation plan update": "evacuation plan update",
    "Staff fire warden training": "staff fire warden training",
    "Emergency lighting survey": "emergency lighting survey",
    "Fire door inspection": "fire door inspection",
    "Action plan review meeting": "action plan review meeting",
}


def bill_to_inputs(size: int, d: Draw) -> dict[str, Any]:
    """The invoice's inputs: the billed company, the invoice date, payment terms agreed for
    this invoice (None: the company's own), the lines ``[description, days, day rate]`` and
    size 10's single amount."""
    rows = BILL_TO_LINES_50 + (BILL_TO_LINES_100 if size == 100 else [])
    lines = [list(row) for row in rows]
    lines[0][2] = d.pick([650.0, 600.0, 700.0, 750.0])
    lines[2][2] = d.pick([480.0, 450.0, 520.0])
    return {
        "size": size,
        "entity": "Ridgeway Outdoor Ltd",
        "issue": d.date("2025-03-12", "2025-03-21", shipped=BILL_TO_ISSUE, weekdays="01234"),
        "terms": None,
        "amount": d.pick([1850.0, 1650.0, 1975.0, 2100.0]),
        "lines": lines,
    }


def bill_to_params(size: int) -> dict[str, Any]:
    return bill_to_inputs(size, SHIPPED)


def _bill_to_terms(p: dict[str, Any]) -> int:
    usual: int = BILL_TO_ENTITIES[p["entity"]]["payment_terms_days"]
    return usual if p["terms"] is None else p["terms"]  # type: ignore[no-any-return]


def bill_to_compute(p: dict[str, Any]) -> dict[str, Any]:
    size, name, issue = p["size"], p["entity"], p["issue"]
    e = BILL_TO_ENTITIES[name]
    terms = _bill_to_terms(p)
    if size == 10:
        return {
            "invoice_number": "FSC-1187",
            "issue_date": issue,
            "currency": "GBP",
            "bill_to": {"name": name, "address": e["address"], "vat_number": e["vat_number"]},
            "payment_terms_days": terms,
            "due_date": add_days(issue, terms),
            "service": "Fire risk assessment, Keswick store",
            "amount": p["amount"],
        }
    due = add_days(issue, terms)
    lines: list[dict[str, Any]] = [
        {"description": d, "days": n, "day_rate": r, "amount": money(n * r)}
        for d, n, r in p["lines"]
    ]
    net = money(sum(line["amount"] for line in lines))
    vat = money(net * 0.2)
    art: dict[str, Any] = {
        "invoice_number": "FSC-1187",
        "issue_date": issue,
        "currency": "GBP",
        "supplier": {
            "name": "Fenwick Safety Consulting",
            "address": "9 Mill Yard, Penrith CA11 7HS",
            "vat_number": "GB 552 0917 34",
            "email": "accounts@fenwicksafety.co.uk",
        },
        "bill_to": {
            "name": name,
            "contact": e["contact"],
            "address": e["address"],
            "vat_number": e["vat_number"],
            "accounts_email": e["accounts_email"],
            "customer_code": e["customer_code"],
            "po_number": e["po_number"],
        },
        "site": {
            "name": "Ridgeway Outdoor, Keswick store",
            "address": "14 Lake Road, Keswick CA12 5BX",
            "visit_date": "2025-03-06",
        },
        "lines": lines,
        "totals": {"net": net, "vat_rate_percent": 20, "vat": vat, "gross": money(net + vat)},
        "payment": {
            "terms_days": terms,
            "due_date": due,
            "reminder_date": add_days(due, -7),
            "bank": "Lloyds Bank",
            "sort_code": "30-94-57",
            "account_number": "41927730",
        },
        "assessor": {"name": "Callum Fenwick", "qualification": "IFE Member, FRACS registered"},
    }
    art["report"] = {
        "reference": "FRA-KES-2025-03",
        "delivered_on": "2025-03-11",
        "risk_rating": "moderate",
    }
    art["supplier"].update(phone="01768 891204", company_number="11842093")
    if size == 50:
        return art
    art["report"].update(actions_high=1, actions_medium=4, actions_low=6, next_review="2026-03-06")
    art["findings"] = [{"area": a, "priority": pr, "action": ac} for a, pr, ac in BILL_TO_FINDINGS]
    art["email"] = {
        "to": e["accounts_email"],
        "cc": "accounts@fenwicksafety.co.uk",
        "subject": f"Invoice FSC-1187 for {name}",
        "cover_note": (
            f"Dear {e['contact'].split()[0]}, please find attached our invoice for the fire "
            "risk assessment at the Keswick store, quoting your purchase order "
            f"{e['po_number']}."
        ),
        "attachments": ["FSC-1187.pdf", "FRA-KES-2025-03.pdf"],
    }
    art["late_payment"] = {
        "interest": "8% above Bank of England base rate",
        "fixed_compensation_gbp": 70.0,
        "applies_from": add_days(due, 1),
    }
    art["site"].update(
        manager="Priya Doshi",
        phone="017687 74410",
        floors=3,
        access_notes="Sign in at the customer service desk",
    )
    art["supplier"]["website"] = "fenwicksafety.co.uk"
    art["payment"]["remittance_reference"] = "FSC-1187"
    art["previous_invoices"] = [
        {
            "number": "FSC-0942",
            "billed_to": "Ridgeway Outdoor Ltd",
            "gross": 1260.0,
            "status": "paid",
        },
        {
            "number": "FSC-1033",
            "billed_to": "Ridgeway Outdoor Ltd",
            "gross": 780.0,
            "status": "paid",
        },
    ]
    return art


def bill_to_conversation(p: dict[str, Any]) -> list[Turn]:
    size = p["size"]
    if size == 10:
        return [
            (
                f"Invoice FSC-1187, dated {p['issue']}, in pounds: the fire risk assessment we did at the "
                f"Keswick store, £{p['amount']:,.0f}.",
                ["/invoice_number", "/issue_date", "/currency", "/service", "/amount"],
            ),
            (
                "Bill it to Ridgeway Outdoor Ltd, 14 Lake Road, Keswick CA12 5BX, VAT number GB 284 1937 66.",
                ["/bill_to"],
            ),
            (
                "Use whatever payment terms the billed company has with us (Ridgeway Outdoor is on 30 days), "
                "and set the due date that many days after the invoice date.",
                ["/payment_terms_days", "/due_date"],
            ),
        ]
    turns: list[Turn] = [
        (
            f"Let's raise invoice FSC-1187 dated {p['issue']}, in GBP, from Fenwick Safety Consulting, 9 Mill "
            "Yard, Penrith CA11 7HS, VAT GB 552 0917 34, accounts@fenwicksafety.co.uk.",
            [
                "/invoice_number",
                "/issue_date",
                "/currency",
                "/supplier/name",
                "/supplier/address",
                "/supplier/vat_number",
                "/supplier/email",
            ],
        ),
        (
            "The customer is Ridgeway Outdoor Ltd at 14 Lake Road, Keswick CA12 5BX (VAT GB 284 1937 66). "
            "Megan Hale handles it; invoices go to accounts@ridgewayoutdoor.co.uk, our customer code for "
            "them is RWO-01 and their purchase order is PO-55120.",
            ["/bill_to"],
        ),
        (
            "The work was at their Keswick store, same address, visited on 2025-03-06. Note that as the site; "
            "it stays the site whoever pays.",
            ["/site/name", "/site/address", "/site/visit_date"],
        ),
    ]
    line_text = (
        f"Lines, each days times day rate: the fire risk assessment, 2 days at £{p['lines'][0][2]:,.0f}; the "
        f"evacuation plan update, 1 day at £550; staff fire warden training, 1 day at £{p['lines'][2][2]:,.0f}; and a "
        "half-day emergency lighting survey at £600 a day."
    )
    line_ptrs = ["/lines/0", "/lines/1", "/lines/2", "/lines/3"]
    if size == 100:
        line_text += " Plus half a day each for the fire door inspection (£600 a day) and the action plan review meeting (£550 a day)."
        line_ptrs += ["/lines/4", "/lines/5"]
    turns += [
        (line_text, line_ptrs),
        ("Totals: net of the lines, VAT at 20%, and the gross.", ["/totals"]),
        (
            "Payment terms follow the billed company's terms with us (30 days for Ridgeway Outdoor); the due "
            "date is the invoice date plus those days, and we send a reminder 7 days before the due date. "
            "Bank: Lloyds Bank, sort code 30-94-57, account 41927730.",
            [
                "/payment/terms_days",
                "/payment/due_date",
                "/payment/reminder_date",
                "/payment/bank",
                "/payment/sort_code",
                "/payment/account_number",
            ],
        ),
        ("The assessor was Callum Fenwick, IFE Member, FRACS registered.", ["/assessor"]),
    ]
    report = (
        "The report is FRA-KES-2025-03, delivered 2025-03-11, overall risk moderate. Our phone is "
        "01768 891204, company number 11842093."
    )
    report_ptrs = [
        "/report/reference",
        "/report/delivered_on",
        "/report/risk_rating",
        "/supplier/phone",
        "/supplier/company_number",
    ]
    if size == 50:
        turns.append((report, report_ptrs))
        return turns
    turns += [
        (
            report
            + " It lists 1 high, 4 medium and 6 low priority actions; next review due 2026-03-06.",
            [
                *report_ptrs,
                "/report/actions_high",
                "/report/actions_medium",
                "/report/actions_low",
                "/report/next_review",
            ],
        ),
        (
            "Summarise the main findings: fire doors (high) - replace the damaged self-closer on the stockroom "
            "door; signage (medium) - add exit signs on the mezzanine; extinguishers (medium) - service the two "
            "CO2 units by the tills; escape routes (medium) - keep the rear corridor clear of stock; training "
            "(low) - refresh the fire warden roster.",
            ["/findings"],
        ),
        (
            "Email it to the billed company's accounts address, cc our accounts inbox. Subject should be the "
            "invoice number and who it's billed to, and add a short cover note addressed to their contact by "
            "first name that quotes their PO. Attach FSC-1187.pdf and FRA-KES-2025-03.pdf.",
            ["/email"],
        ),
        (
            "Late payment: interest at 8% above Bank of England base rate plus £70 fixed compensation, "
            "applying from the day after the due date.",
            ["/late_payment"],
        ),
        (
            "The store manager is Priya Doshi, 017687 74410; three floors; visitors sign in at the customer "
            "service desk. Our website is fenwicksafety.co.uk, and payers should quote FSC-1187 as the "
            "remittance reference.",
            [
                "/site/manager",
                "/site/phone",
                "/site/floors",
                "/site/access_notes",
                "/supplier/website",
                "/payment/remittance_reference",
            ],
        ),
        (
            "For the file: we billed Ridgeway Outdoor Ltd twice before, FSC-0942 for £1,260 and FSC-1033 for "
            "£780, both paid.",
            ["/previous_invoices"],
        ),
    ]
    return turns


def _bill_to_fields(size: int) -> list[str]:
    """The fields of a new bill-to entity the user hands over at this size."""
    if size == 10:
        return ["address", "vat_number", "payment_terms_days"]
    return [
        "contact",
        "address",
        "vat_number",
        "accounts_email",
        "customer_code",
        "po_number",
        "payment_terms_days",
    ]


def _ordinal(iso: str) -> str:
    """The day of ``iso`` as people say it: ``14th``, ``21st``."""
    day = int(iso[-2:])
    suffix = "th" if 10 <= day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")
    return f"{day}{suffix}"


def _rebill(
    p: dict[str, Any], name: str, request: str, theme: str = "", pattern: str = ""
) -> Revision:
    """Re-bill the invoice to ``name``: its details come as the reference; it pays on its own
    terms. At size 100 the email subject and cover note are judged by patterns."""
    size = p["size"]
    new = BILL_TO_ENTITIES[name]
    overrides: dict[str, Override] = {}
    if size == 100:
        short = name.rsplit(" ", 1)[0].lower()
        first = new["contact"].split()[0].lower()
        overrides["/email/subject"] = regex(all_of_lazy("FSC-1187", short))
        overrides["/email/cover_note"] = regex(all_of_lazy(rf"\b{first}\b", new["po_number"]))
    return Revision(
        request=request,
        mutate=lambda q: q.update(entity=name, terms=None),
        direct="/bill_to/name",
        overrides=overrides,
        reference={"name": name, **{k: new[k] for k in _bill_to_fields(size)}},
        theme=theme,
        pattern=pattern,
    )


def bill_to_revision(p: dict[str, Any]) -> Revision:
    name = "Ridgeway Holdings plc"
    return _rebill(p, name, BILL_TO_REASONS[name])


def _terms_path(size: int) -> str:
    return "/payment_terms_days" if size == 10 else "/payment/terms_days"


def bill_to_followups(p: dict[str, Any]) -> list[Revision]:
    size = p["size"]
    later = add_days(p["issue"], 7)
    return [
        Revision(
            request=f"Let's hold it a week: date the invoice {later} instead of the {_ordinal(p['issue'])}.",
            mutate=lambda q: q.update(issue=later),
            direct="/issue_date",
            theme="A later invoice date moves the due date the new terms set, and the dates that "
            "hang on it",
            pattern="temporal",
        ),
        _rebill(
            p,
            "Ridgeway Group Services Ltd",
            "Ridgeway Holdings now routes supplier invoices through Ridgeway Group Services "
            "Ltd, its shared-services company. Bill it to them instead; their details are attached.",
            "A second re-billing replaces the parent's details with the shared-services "
            "company's and its 60-day terms move the due date again",
            "substitution",
        ),
        Revision(
            request="Group Services agreed to pay this one in 30 days rather than their usual 60.",
            mutate=lambda q: q.update(terms=30),
            direct=_terms_path(size),
            theme="Shorter terms for the new payer pull the due date (and what hangs on it) back",
            pattern="temporal",
        ),
    ]


# moves of invoice-bill-to-parent: the invoice is re-billed to another company of the group
# (its details attached), re-dated, given other payment terms, or (50+) a line's days change.


def _rebill_move(p: dict[str, Any], d: Draw) -> Revision:
    name = d.pick([n for n in BILL_TO_ENTITIES if n != p["entity"]])
    return _rebill(p, name, BILL_TO_REASONS[name], f"The invoice is re-billed to {name}")


def _bill_to_redate(p: dict[str, Any], d: Draw) -> Revision:
    # after the report went out
    issue = d.pick([x for x in _weekdays("2025-03-12", "2025-04-04") if x != p["issue"]])
    return Revision(
        request=d.pick(
            [
                f"Date the invoice {issue} instead of {p['issue']}.",
                f"Let's change the invoice date to {issue}.",
            ]
        ),
        mutate=lambda q: q.update(issue=issue),
        direct="/issue_date",
        theme=f"Dated {issue}: the due date and the dates that hang on it follow",
    )


def _bill_to_reterm(p: dict[str, Any], d: Draw) -> Revision:
    old = _bill_to_terms(p)
    days = d.pick([n for n in BILL_TO_TERMS if n != old])
    return Revision(
        request=f"{p['entity']} agreed to pay this one in {days} days rather than their usual {old}."
        if p["terms"] is None
        else f"Make the payment terms for this invoice {days} days instead of {old}.",
        mutate=lambda q: q.update(terms=days),
        direct=_terms_path(p["size"]),
        theme=f"{days}-day terms move the due date (and what hangs on it)",
    )


def _days_text(days: float) -> str:
    if days == 0.5:
        return "half a day"
    return f"{days:g} day" + ("" if days == 1 else "s")


def _bill_to_days(p: dict[str, Any], d: Draw) -> Revision:
    line = d.pick(range(len(p["lines"])))
    desc, old, _ = p["lines"][line]
    days = d.pick([x for x in (0.5, 1, 1.5, 2, 2.5, 3) if x != old])
    spoken = BILL_TO_SPOKEN[desc]
    return Revision(
        request=f"The {spoken} took {_days_text(days)}, not {_days_text(old)}; please bill it that way.",
        mutate=lambda q: q["lines"][line].__setitem__(1, days),
        direct=f"/lines/{line}/days",
        theme=f"The {spoken} is billed for {_days_text(days)}: its amount, the net, VAT and gross follow",
    )


BILL_TO_MOVES = [
    Move("rebill", "substitution", _rebill_move),
    Move("redate", "temporal", _bill_to_redate),
    Move("terms", "temporal", _bill_to_reterm, opens=False),
    Move("days", "arithmetic", _bill_to_days, when=_sized(50)),
]


# --------------------------------------------------------------------------- invoice-drop-line-item
# Add/remove: a catering line is removed; the line count, the category and invoice totals,
# the balance, the per-guest cost and the setup schedule entry that belongs to it follow.
# Fresh instances draw the headcount, the prices, the linen and server counts and the
# deposit; moves drop a line or put one back in its old place, change the headcount or a
# per-guest price, and swap the dinner service.

CATERING_GUESTS = 60
# (item, category, quantity, unit price, setup time); quantity None = one per guest
CATERING_LINES: list[tuple[str, str, int | None, float, str]] = [
    ("Buffet dinner", "food", None, 35.0, "18:30"),
    ("Passed appetizers", "food", None, 12.0, "17:45"),
    ("Champagne toast", "beverage", None, 9.0, "20:15"),
    ("Coffee and dessert station", "food", None, 8.0, "20:00"),
    ("Linen rental", "rental", 12, 18.0, "16:00"),
    ("Event staff", "staff", 4, 160.0, "16:30"),
]
CATERING_LINES_100: list[tuple[str, str, int | None, float, str]] = [
    ("Hosted bar, 3 hours", "beverage", None, 22.0, "17:30"),
    ("Late-night sliders", "food", None, 6.0, "21:30"),
    ("Glassware rental", "rental", None, 1.5, "16:00"),
]
CATERING_DEPOSIT = 1500.0
# the dinner services the client may switch between: (item, price per guest, setup time)
CATERING_DINNERS: list[tuple[str, float, str]] = [
    ("Buffet dinner", 35.0, "18:30"),
    ("Plated dinner", 42.0, "19:00"),
    ("Family-style dinner", 39.0, "18:45"),
    ("Taco bar dinner", 28.0, "18:15"),
]
DINNER_NAMES = {name for name, _, _ in CATERING_DINNERS}
CATERING_SPOKEN = {
    "Buffet dinner": "buffet",
    "Plated dinner": "plated dinner",
    "Family-style dinner": "family-style dinner",
    "Taco bar dinner": "taco bar dinner",
    "Passed appetizers": "passed appetizers",
    "Champagne toast": "champagne toast",
    "Coffee and dessert station": "coffee and dessert station",
    "Linen rental": "linens",
    "Event staff": "event staff",
    "Hosted bar, 3 hours": "hosted bar",
    "Late-night sliders": "late-night sliders",
    "Glassware rental": "glassware",
}


def catering_inputs(size: int, d: Draw) -> dict[str, Any]:
    """The invoice's inputs: the catalog of its lines ``[item, category, quantity (None: one per
    guest), unit price, setup time]`` in invoice order, the items taken off (``off``), the
    headcount and the deposit."""
    if size == 10:
        catalog = [CATERING_LINES[0], CATERING_LINES[2]]
    else:
        catalog = (
            CATERING_LINES[:5] + (CATERING_LINES_100 if size == 100 else []) + CATERING_LINES[5:]
        )
    rows = [list(row) for row in catalog]
    prices = {
        "Buffet dinner": [35.0, 32.0, 38.0, 40.0],
        "Passed appetizers": [12.0, 10.0, 14.0],
        "Champagne toast": [9.0, 8.0, 11.0],
        "Coffee and dessert station": [8.0, 7.0, 9.5],
        "Event staff": [160.0, 150.0, 175.0],
    }
    for row in rows:
        if row[0] in prices:
            row[3] = d.pick(prices[row[0]])
        if row[0] == "Linen rental":
            row[2] = d.int(8, 16, shipped=12)
        if row[0] == "Event staff":
            row[2] = d.int(3, 6, shipped=4)
    return {
        "size": size,
        "rows": rows,
        "off": [],
        "guests": d.int(40, 90, shipped=CATERING_GUESTS, step=5),
        "deposit": d.pick([CATERING_DEPOSIT, 1000.0, 2000.0]),
    }


def catering_params(size: int) -> dict[str, Any]:
    return catering_inputs(size, SHIPPED)


def _catering_rows(p: dict[str, Any]) -> list[tuple[str, str, int, float, str]]:
    """The invoice's lines: those not taken off, per-guest ones counting the guests."""
    return [
        (item, category, p["guests"] if qty is None else qty, price, ready)
        for item, category, qty, price, ready in p["rows"]
        if item not in p["off"]
    ]


def catering_compute(p: dict[str, Any]) -> dict[str, Any]:
    size = p["size"]
    rows = _catering_rows(p)
    if size == 10:
        small: list[dict[str, Any]] = [
            {"item": i, "quantity": q, "amount": money(q * u)} for i, _, q, u, _ in rows
        ]
        subtotal = money(sum(line["amount"] for line in small))
        return {
            "client": "Brightwave Media",
            "lines": small,
            "line_count": len(small),
            "subtotal": subtotal,
            "total": money(subtotal * 1.07),
        }
    lines: list[dict[str, Any]] = [
        {"item": i, "category": c, "quantity": q, "unit_price": u, "amount": money(q * u)}
        for i, c, q, u, _ in rows
    ]
    subtotal = money(sum(line["amount"] for line in lines))
    food_bev = sum(line["amount"] for line in lines if line["category"] in ("food", "beverage"))
    service = money(food_bev * 0.18)
    tax = money((subtotal + service) * 0.07)
    total = money(subtotal + service + tax)
    art: dict[str, Any] = {
        "invoice_number": "STC-2291",
        "issue_date": "2025-12-15",
        "due_date": "2026-01-14",
        "caterer": {"name": "Saffron Table Catering", "phone": "(312) 555-0147"},
        "client": {
            "name": "Brightwave Media",
            "contact": "Jordan Pike",
            "email": "jordan.pike@brightwave.io",
        },
        "event": {
            "name": "Holiday party",
            "date": "2025-12-12",
            "venue": "Brightwave HQ, 4th floor",
            "guests": p["guests"],
        },
        "lines": lines,
        "line_count": len(lines),
    }
    if size == 100:
        art["category_totals"] = {
            cat: money(sum(line["amount"] for line in lines if line["category"] == cat))
            for cat in ("food", "beverage", "rental", "staff")
        }
    art["totals"] = {
        "subtotal": subtotal,
        "service_charge": service,
        "tax": tax,
        "total": total,
        "deposit_paid": p["deposit"],
        "balance_due": money(total - p["deposit"]),
        "cost_per_guest": money(total / p["guests"]),
    }
    if size == 100:
        art["setup_schedule"] = [{"item": i, "ready_by": t} for i, _, _, _, t in rows]
        art["dietary"] = {"vegetarian": 12, "gluten_free": 5, "nut_allergy": 2}
        art["payment"] = {
            "method": "card on file",
            "card_last4": "8812",
            "deposit_date": "2025-11-14",
        }
        art["event"].update(arrival="17:30", end="23:00", coordinator="Alia Moreno")
        art["caterer"].update(
            email="events@saffrontable.com",
            license="IL-FSS-48210",
            address="1418 W Fulton St, Chicago, IL 60607",
        )
        art["client"]["po_number"] = "BW-PO-7731"
    return art


def catering_conversation(p: dict[str, Any]) -> list[Turn]:
    size = p["size"]
    price = {row[0]: row[3] for row in p["rows"]}
    count = {row[0]: row[2] for row in p["rows"]}
    linens = (
        f"{count['Linen rental']} linens at {dollars(price['Linen rental'])} (rental)"
        if size >= 50
        else ""
    )
    servers = (
        f"{count['Event staff']} servers at {dollars(price['Event staff'])} each (staff)"
        if size >= 50
        else ""
    )
    if size == 10:
        return [
            (
                f"Can you start an invoice for Brightwave Media's holiday party? {p['guests']} guests.",
                ["/client"],
            ),
            (
                f"They had the buffet dinner at {dollars(price['Buffet dinner'])} per guest and a champagne "
                f"toast at {dollars(price['Champagne toast'])} a head. Show the "
                "quantity and the amount for each.",
                ["/lines/0", "/lines/1"],
            ),
            (
                "Keep a count of how many lines are on the invoice, the subtotal of the lines, and a total "
                "that adds 7% sales tax to the subtotal, rounded to the cent.",
                ["/line_count", "/subtotal", "/total"],
            ),
        ]
    n_lines = len(_catering_rows(p))
    turns: list[Turn] = [
        (
            "Invoice for Brightwave Media's holiday party please: number STC-2291, issued 2025-12-15, due "
            "2026-01-14. From Saffron Table Catering, (312) 555-0147; their contact is Jordan Pike, "
            "jordan.pike@brightwave.io.",
            [
                "/invoice_number",
                "/issue_date",
                "/due_date",
                "/caterer/name",
                "/caterer/phone",
                "/client/name",
                "/client/contact",
                "/client/email",
            ],
        ),
        (
            f"The party was 2025-12-12 at Brightwave HQ, 4th floor, for {p['guests']} guests.",
            ["/event/name", "/event/date", "/event/venue", "/event/guests"],
        ),
        (
            f"Food and drink per guest: buffet dinner {dollars(price['Buffet dinner'])}, passed appetizers "
            f"{dollars(price['Passed appetizers'])}, champagne toast {dollars(price['Champagne toast'])}, coffee "
            f"and dessert station {dollars(price['Coffee and dessert station'])}. Each line is quantity times unit price, with a category (food or "
            "beverage).",
            ["/lines/0", "/lines/1", "/lines/2", "/lines/3"],
        ),
    ]
    if size == 50:
        turns.append(
            (
                f"Then {linens} and {servers}.",
                ["/lines/4", "/lines/5", "/line_count"],
            )
        )
        turns[-1] = (turns[-1][0] + " Keep a count of the lines on the invoice.", turns[-1][1])
    else:
        turns += [
            (
                f"Then {linens}, the hosted bar, 3 hours at $22 a guest (beverage), "
                "late-night sliders at $6 a guest (food), glassware at $1.50 a guest (rental), and "
                f"{servers}.",
                [f"/lines/{i}" for i in range(4, n_lines)],
            ),
            (
                "Keep a count of the lines, and a subtotal per category (food, beverage, rental, staff).",
                ["/line_count", "/category_totals"],
            ),
        ]
    turns.append(
        (
            "Totals: the subtotal of all lines; an 18% service charge on the food and beverage lines only; 7% "
            f"sales tax on the subtotal plus service charge; then the total. They paid a {dollars(p['deposit'])} deposit, so "
            f"show the balance due, and the cost per guest (total divided by the {p['guests']} guests). Round to the cent.",
            ["/totals"],
        )
    )
    if size == 100:
        turns += [
            (
                "For the crew, keep a setup schedule with one entry per line on the invoice and the time it "
                "has to be ready: buffet 18:30, appetizers 17:45, toast 20:15, coffee and dessert 20:00, "
                "linens 16:00, bar 17:30, sliders 21:30, glassware 16:00, staff 16:30.",
                ["/setup_schedule"],
            ),
            ("Dietary counts were 12 vegetarian, 5 gluten-free and 2 nut allergies.", ["/dietary"]),
            (
                "The deposit went on the card on file ending 8812 on 2025-11-14. Guests arrived 17:30, it "
                "ended at 23:00, and Alia Moreno coordinated. Add our email events@saffrontable.com, license "
                "IL-FSS-48210 and address 1418 W Fulton St, Chicago, IL 60607, and their PO BW-PO-7731.",
                [
                    "/payment",
                    "/event/arrival",
                    "/event/end",
                    "/event/coordinator",
                    "/caterer/email",
                    "/caterer/license",
                    "/caterer/address",
                    "/client/po_number",
                ],
            ),
        ]
    return turns


def _line_of(p: dict[str, Any], item: str) -> int:
    return [r[0] for r in _catering_rows(p)].index(item)


def _take_off(item: str) -> Any:
    return lambda q: q["off"].append(item)


def _put_on(item: str) -> Any:
    return lambda q: q["off"].remove(item)


def _swap_dinner(p: dict[str, Any], new: tuple[str, float, str]) -> tuple[Any, dict[str, Override]]:
    """The edit that replaces the dinner service by ``new`` (in its place), and the patterns
    that judge its name (the user says it their way)."""
    line = next(i for i, r in enumerate(_catering_rows(p)) if r[0] in DINNER_NAMES)
    row = next(i for i, r in enumerate(p["rows"]) if r[0] in DINNER_NAMES)

    def mutate(q: dict[str, Any]) -> None:
        q["rows"][row][0], q["rows"][row][3], q["rows"][row][4] = new

    name = regex(f"(?i)^{new[0].lower()}$")  # names of letters, spaces and hyphens
    paths = [f"/lines/{line}/item"] + ([f"/setup_schedule/{line}/item"] if p["size"] == 100 else [])
    return mutate, {path: name for path in paths}


def catering_revision(p: dict[str, Any]) -> Revision:
    return Revision(
        request="Turns out they skipped the champagne toast and we never served it. Take it off the invoice.",
        mutate=_take_off("Champagne toast"),
        direct=f"/lines/{_line_of(p, 'Champagne toast')}",
    )


def catering_followups(p: dict[str, Any]) -> list[Revision]:
    size = p["size"]
    toast = _line_of(p, "Champagne toast")
    plated, names = _swap_dinner(p, CATERING_DINNERS[1])
    return [
        Revision(
            request=f"The final headcount was 65 guests, not {p['guests']}. Bill the per-guest items for 65.",
            mutate=lambda q: q.update(guests=65),
            direct="/lines/0/quantity" if size == 10 else "/event/guests",
            theme="More guests raise every per-guest line, the totals, service charge, tax and "
            "balance; the cost per guest is re-divided",
            pattern="arithmetic",
        ),
        Revision(
            request="Sorry, my mistake: we did pour the champagne toast after all, for all 65 "
            "guests. Put it back on the invoice, in its old place.",
            mutate=_put_on("Champagne toast"),
            direct=f"/lines/{toast}",
            theme="The removed toast comes back at the new headcount: line count, totals and its "
            "setup entry return",
            pattern="add_remove",
        ),
        Revision(
            # only size 100 keeps a setup schedule: the smaller requests give no time
            request="They switched from the buffet to the plated dinner: $42 a guest"
            + (", ready by 19:00." if size == 100 else "."),
            mutate=plated,
            direct="/lines/0/item",
            overrides=names,
            theme="The plated dinner replaces the buffet: its line, the food totals, service "
            "charge, tax and its setup time follow",
            pattern="substitution",
        ),
    ]


# moves of invoice-drop-line-item: a line is taken off or put back in its old place, the
# headcount or a per-guest price changes, the dinner service is swapped.


def _catering_phrase(p: dict[str, Any], row: list[Any]) -> str:
    """A line as the user states it when putting it back: count, price, and at 50+ its
    category, at 100 its setup time."""
    item, category, qty, price, ready = row
    if qty is None:
        text = f"{dollars(price)} a guest for all {p['guests']} guests"
    elif item == "Event staff":
        text = f"{qty} servers at {dollars(price)} each"
    else:
        text = f"{qty} linens at {dollars(price)}"
    if p["size"] >= 50:
        text += f" ({category})"
    if p["size"] == 100:
        text += f", ready by {ready}"
    return text


def _catering_drop(p: dict[str, Any], d: Draw) -> Revision | None:
    rows = _catering_rows(p)
    if len(rows) <= (1 if p["size"] == 10 else 3):
        return None
    line = d.pick(range(len(rows)))
    item = rows[line][0]
    spoken = CATERING_SPOKEN[item]
    served = next(r for r in p["rows"] if r[0] == item)[2] is None
    return Revision(
        request=f"Turns out they skipped the {spoken} and we never served it. Take it off the invoice."
        if served and d.chance(0.5)
        else f"Take the {spoken} line off the invoice; it wasn't part of the final order.",
        mutate=_take_off(item),
        direct=f"/lines/{line}",
        theme=f"The {spoken} line comes off: the line count, totals and balance follow",
    )


def _catering_put_back(p: dict[str, Any], d: Draw) -> Revision | None:
    if not p["off"]:
        return None
    item = d.pick(p["off"])
    row = next(r for r in p["rows"] if r[0] == item)
    spoken = CATERING_SPOKEN[item]
    q = _edited(p, _put_on(item))
    return Revision(
        request=f"Sorry, my mistake: we did serve the {spoken} after all. Put it back on the "
        f"invoice in its old place: {_catering_phrase(p, row)}."
        if row[2] is None
        else f"Sorry, my mistake: the {spoken} line belongs on the invoice after all. Put it back "
        f"in its old place: {_catering_phrase(p, row)}.",
        mutate=_put_on(item),
        direct=f"/lines/{_line_of(q, item)}",
        theme=f"The {spoken} comes back: the line count, totals and balance follow",
    )


def _catering_headcount(p: dict[str, Any], d: Draw) -> Revision | None:
    guests = d.pick([n for n in range(40, 95, 5) if n != p["guests"]])
    per_guest = [i for i, r in enumerate(p["rows"]) if r[2] is None and r[0] not in p["off"]]
    small = p["size"] == 10
    if small and not per_guest:
        return None
    return Revision(
        request=f"The final headcount was {guests} guests, not {p['guests']}. Bill the per-guest "
        f"items for {guests}.",
        mutate=lambda q: q.update(guests=guests),
        direct=f"/lines/{_line_of(p, p['rows'][per_guest[0]][0])}/quantity"
        if small
        else "/event/guests",
        theme=f"{guests} guests: every per-guest line, the totals and the cost per guest follow",
    )


def _catering_reprice(p: dict[str, Any], d: Draw) -> Revision | None:
    rows = [r for r in _catering_rows(p) if r[0] in {x[0] for x in p["rows"] if x[2] is None}]
    if not rows:
        return None
    item, _, _, old, _ = d.pick(rows)
    prices = {money(old + step) for step in (-3, -2, -1, -0.5, 0.5, 1, 2, 3)}
    price = d.pick(sorted(x for x in prices if x >= 1 and x != old))
    spoken = CATERING_SPOKEN[item]
    return Revision(
        request=f"Re-price the {spoken} at {dollars(price)} a guest instead of {dollars(old)}.",
        mutate=lambda q: next(r for r in q["rows"] if r[0] == item).__setitem__(3, price),
        direct=f"/lines/{_line_of(p, item)}/" + ("amount" if p["size"] == 10 else "unit_price"),
        theme=f"The {spoken} is re-priced: its line, the totals and balance follow",
    )


def _catering_dinner(p: dict[str, Any], d: Draw) -> Revision | None:
    row = next(r for r in p["rows"] if r[0] in DINNER_NAMES)
    if row[0] in p["off"]:
        return None
    fits = [x for x in CATERING_DINNERS if x[0] != row[0] and x[1] != row[3]]
    if not fits:
        return None
    new = d.pick(fits)
    mutate, names = _swap_dinner(p, new)
    return Revision(
        request=f"They switched from the {CATERING_SPOKEN[row[0]]} to the "
        f"{CATERING_SPOKEN[new[0]]}: {dollars(new[1])} a guest"
        + (f", ready by {new[2]}." if p["size"] == 100 else "."),
        mutate=mutate,
        direct=f"/lines/{_line_of(p, row[0])}/item",
        overrides=names,
        theme=f"The {CATERING_SPOKEN[new[0]]} replaces the dinner: its line and the totals follow",
    )


CATERING_MOVES = [
    Move("drop-line", "add_remove", _catering_drop),
    Move("put-back", "add_remove", _catering_put_back),
    Move("headcount", "arithmetic", _catering_headcount),
    Move("reprice", "arithmetic", _catering_reprice, opens=False),
    Move("swap-dinner", "substitution", _catering_dinner),
]


# --------------------------------------------------------------------------- invoice-free-shipping
# Threshold: more bags push the coffee subtotal over the free-shipping line; shipping, the
# total, the note and the perk gated by the same line flip; the volume discount does not.

# (product, bag size, price per bag, sku); bags per size below
COFFEE: dict[str, tuple[str, float, str]] = {
    "Ethiopia Guji": ("5 lb", 46.0, "CR-ETG-5"),
    "House Espresso": ("5 lb", 38.0, "CR-HES-5"),
    "Decaf Colombia": ("12 oz", 9.5, "CR-DCO-12"),
    "Guatemala Huehuetenango": ("12 oz", 10.0, "CR-GHU-12"),
    "Sumatra Mandheling": ("12 oz", 9.5, "CR-SUM-12"),
    "Kenya Nyeri": ("12 oz", 12.0, "CR-KNY-12"),
    "Cold Brew Blend": ("12 oz", 8.5, "CR-CBB-12"),
    "Colombia Supremo": ("12 oz", 9.0, "CR-CSU-12"),
}
COFFEE_BAGS: dict[int, dict[str, int]] = {
    10: {"Ethiopia Guji": 4, "House Espresso": 2},
    50: {
        "Ethiopia Guji": 4,
        "House Espresso": 1,
        "Decaf Colombia": 3,
        "Guatemala Huehuetenango": 2,
        "Sumatra Mandheling": 2,
    },
    100: {
        "Ethiopia Guji": 3,
        "House Espresso": 1,
        "Decaf Colombia": 2,
        "Guatemala Huehuetenango": 2,
        "Sumatra Mandheling": 2,
        "Kenya Nyeri": 1,
        "Cold Brew Blend": 2,
        "Colombia Supremo": 1,
    },
}
SHIPPING_FLAT = 24.0
FREE_SHIPPING_AT = 300.0


COFFEE_CONTACTS = [("Ines", "Okafor"), ("Marta", "Silva"), ("Keisha", "Grant"), ("Yara", "Haddad")]
# the bags each line may start with (shipped: COFFEE_BAGS), and its price per bag
COFFEE_BAG_RANGE = {"Ethiopia Guji": (2, 4), "House Espresso": (1, 2)}
COFFEE_PRICES = {
    "Ethiopia Guji": [46.0, 44.0, 48.0, 42.0],
    "House Espresso": [38.0, 36.0, 40.0],
    "Kenya Nyeri": [12.0, 11.5, 13.0],
}


def shipping_inputs(size: int, d: Draw) -> dict[str, Any]:
    """The invoice's inputs: its lines ``[product, bags, price per bag]`` in order, and the
    café's contact (first and last name)."""
    lines = []
    for name, bags in COFFEE_BAGS[size].items():
        lo, hi = COFFEE_BAG_RANGE.get(name, (1, 4))
        if size == 10:
            lo = max(lo, 2)  # size 10 says "two 5 lb bags"
        count = d.int(lo, max(hi, bags), shipped=bags)
        lines.append([name, count, d.pick(COFFEE_PRICES.get(name, [COFFEE[name][1]]))])
    return {"size": size, "lines": lines, "contact": list(d.pick(COFFEE_CONTACTS))}


def shipping_params(size: int) -> dict[str, Any]:
    return shipping_inputs(size, SHIPPED)


def _coffee_subtotal(p: dict[str, Any]) -> float:
    return money(sum(money(n * price) for _, n, price in p["lines"]))


def shipping_compute(p: dict[str, Any]) -> dict[str, Any]:
    size = p["size"]
    first, last = p["contact"]
    if size == 10:
        lines = [
            {
                "product": f"{name}, {COFFEE[name][0]}",
                "bags": n,
                "line_total": money(n * price),
            }
            for name, n, price in p["lines"]
        ]
    else:
        lines = [
            {
                "product": name,
                "sku": COFFEE[name][2],
                "bag_size": COFFEE[name][0],
                "bags": n,
                "price_per_bag": price,
                "line_total": money(n * price),
            }
            for name, n, price in p["lines"]
        ]
    coffee = money(sum(line["line_total"] for line in lines))
    free = coffee >= FREE_SHIPPING_AT
    shipping = 0.0 if free else SHIPPING_FLAT
    if size == 10:
        return {
            "customer": "Juniper Street Café",
            "lines": lines,
            "coffee_subtotal": coffee,
            "shipping": shipping,
            "total": money(coffee + shipping),
        }
    discount = money(coffee * 0.05) if coffee >= 1000 else 0.0
    art: dict[str, Any] = {
        "invoice_number": "CPL-5520",
        "order_date": "2025-02-10",
        "delivery_date": "2025-02-13",
        "roaster": {
            "name": "Copperline Roasters",
            "email": "wholesale@copperline.coffee",
            "phone": "(614) 555-0193",
        },
        "customer": {
            "name": "Juniper Street Café",
            "contact": f"{first} {last}",
            "address": "410 Juniper St, Columbus, OH 43215",
            "account_number": "JSC-0042",
            "email": f"{first.lower()}@juniperstreetcafe.com",
            "phone": "(614) 555-0127",
        },
        "lines": lines,
    }
    art["roaster"].update(address="88 Kiln Ave, Columbus, OH 43201", roast_day="Monday")
    pricing: dict[str, Any] = {
        "coffee_subtotal": coffee,
        "volume_discount": discount,
        "shipping": shipping,
    }
    art["pricing"] = pricing
    art["shipping_note"] = (
        "Free shipping: coffee subtotal is $300 or more"
        if free
        else f"Flat-rate freight, ${SHIPPING_FLAT:.2f}"
    )
    if size == 50:
        pricing["total"] = money(coffee - discount + shipping)
        art["payment_terms"] = "Net 15"
        return art
    equipment: list[dict[str, Any]] = [
        {"item": "Espresso machine lease (February)", "amount": 85.0},
        {"item": "Grinder burr replacement", "amount": 42.0},
        {"item": "Water filter cartridge", "amount": 36.0},
    ]
    art["equipment"] = equipment
    equipment_total = money(sum(e["amount"] for e in equipment))
    total = money(coffee - discount + shipping + equipment_total)
    pricing.update(
        equipment=equipment_total, total=total, store_credit=15.0, amount_due=money(total - 15.0)
    )
    art["perks"] = {
        "free_sample_pack": free,
        "loyalty_points": math.floor(coffee),
        "barista_training_hours": 2 if coffee >= 750 else 0,
    }
    art["payment_terms"] = "Net 15"
    art["customer"].update(customer_since="2023", tax_exempt=False)
    art["price_list"] = "Winter 2025"
    art["previous_orders"] = [
        {"invoice_number": "CPL-5391", "coffee_subtotal": 318.5, "shipping": 0.0, "paid": True},
        {"invoice_number": "CPL-5244", "coffee_subtotal": 241.0, "shipping": 24.0, "paid": True},
        {"invoice_number": "CPL-5102", "coffee_subtotal": 296.5, "shipping": 24.0, "paid": True},
    ]
    art["delivery"] = {
        "carrier": "Buckeye Freight",
        "route": "Columbus East 3",
        "driver": "Sam Whitaker",
        "window": "7:00-9:00",
        "instructions": "Back door, ring twice",
    }
    return art


def _order_text(p: dict[str, Any]) -> str:
    """The order as the user lists it at 50+: the first line in bags, each with its bag size,
    price and SKU."""
    parts = [
        f"{n} {'bags of ' if i == 0 else ''}{name} ({COFFEE[name][0]}, {dollars(price)}, {COFFEE[name][2]})"
        for i, (name, n, price) in enumerate(p["lines"])
    ]
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def shipping_conversation(p: dict[str, Any]) -> list[Turn]:
    size = p["size"]
    first, last = p["contact"]
    if size == 10:
        (_, guji, guji_price), (_, espresso, espresso_price) = p["lines"]
        return [
            (
                f"Wholesale invoice for Juniper Street Café ({first}'s shop), please. They took {count_word(guji)} "
                f"5 lb bags of Ethiopia Guji at {dollars(guji_price)} a bag and {count_word(espresso)} 5 lb bags "
                f"of House Espresso at {dollars(espresso_price)}. Show bags and a line total each.",
                ["/customer", "/lines/0", "/lines/1"],
            ),
            (
                "Add the coffee subtotal. Shipping is a flat $24, but it's free once the coffee subtotal reaches "
                "$300. The total is coffee plus shipping.",
                ["/coffee_subtotal", "/shipping", "/total"],
            ),
        ]
    n = len(COFFEE_BAGS[size])
    turns: list[Turn] = [
        (
            "New wholesale invoice: CPL-5520, ordered 2025-02-10, delivered 2025-02-13. From Copperline "
            "Roasters (wholesale@copperline.coffee, (614) 555-0193) to Juniper Street Café, 410 Juniper St, "
            f"Columbus, OH 43215, account JSC-0042, attention {first} {last} ({first.lower()}@juniperstreetcafe.com, "
            "(614) 555-0127). Our address is 88 Kiln Ave, Columbus, OH 43201 and we roast on Mondays.",
            [
                "/invoice_number",
                "/order_date",
                "/delivery_date",
                "/roaster/name",
                "/roaster/email",
                "/roaster/phone",
                "/customer/name",
                "/customer/contact",
                "/customer/address",
                "/customer/account_number",
                "/customer/email",
                "/customer/phone",
                "/roaster/address",
                "/roaster/roast_day",
            ],
        ),
    ]
    turns.append(
        (
            f"Her order: {_order_text(p)}. Line total = bags x price.",
            [f"/lines/{i}" for i in range(n)],
        )
    )
    rules = (
        "Our wholesale rules, on the coffee subtotal: shipping is a flat $24 unless the coffee subtotal "
        "is $300 or more, then it's free; and 5% off the coffee for orders of $1,000 or more. Add a "
        "one-line shipping note saying which shipping applies."
    )
    turns.append(
        (
            rules,
            [
                "/pricing/coffee_subtotal",
                "/pricing/volume_discount",
                "/pricing/shipping",
                "/shipping_note",
            ],
        )
    )
    if size == 50:
        turns.append(
            (
                "Total = coffee minus discount plus shipping. Terms are Net 15.",
                ["/pricing/total", "/payment_terms"],
            )
        )
        return turns
    turns += [
        (
            "She also had the February espresso machine lease, $85, a grinder burr replacement, $42, and a "
            "water filter cartridge, $36. "
            "Those are equipment: they don't count toward the coffee thresholds, they just add to the total.",
            ["/equipment", "/pricing/equipment"],
        ),
        (
            "Total = coffee minus discount plus shipping plus equipment. She has a $15 store credit to apply, "
            "so show the amount due after it. Net 15.",
            ["/pricing/total", "/pricing/store_credit", "/pricing/amount_due", "/payment_terms"],
        ),
        (
            "Perks: any order that ships free also gets a free sample pack; she earns one loyalty point per "
            "whole dollar of coffee subtotal (rounded down); coffee orders of $750 or more come with 2 hours "
            "of barista training.",
            ["/perks"],
        ),
        (
            "She's been a customer since 2023 and isn't tax exempt; this is on the Winter 2025 price list.",
            ["/customer/customer_since", "/customer/tax_exempt", "/price_list"],
        ),
        (
            "For reference, her last three orders, all paid: CPL-5391 with $318.50 of coffee (shipped free), "
            "CPL-5244 with $241 (paid $24 shipping) and CPL-5102 with $296.50 (paid $24 shipping). Delivery "
            "goes with Buckeye Freight on the Columbus East 3 route (driver Sam Whitaker), 7:00-9:00, back "
            "door, ring twice.",
            ["/previous_orders", "/delivery"],
        ),
    ]
    return turns


def _is_free(p: dict[str, Any]) -> bool:
    return _coffee_subtotal(p) >= FREE_SHIPPING_AT


def _note(p: dict[str, Any], q: dict[str, Any]) -> dict[str, Override]:
    """At 50+ the shipping note (the user's wording is free) is judged by a pattern when the
    shipping it names changes."""
    if p["size"] == 10 or _is_free(p) == _is_free(q):
        return {}
    return {"/shipping_note": regex(r"(?i)\bfree\b" if _is_free(q) else r"(?i)(flat|24)")}


def _set_bags(line: int, bags: int) -> Any:
    return lambda q: q["lines"][line].__setitem__(1, bags)


def shipping_revision(p: dict[str, Any]) -> Revision:
    size = p["size"]
    old = p["lines"][0][1]
    new_bags = old + (1 if size == 10 else 2)
    mutate = _set_bags(0, new_bags)
    return Revision(
        request=f"{p['contact'][0]} just called: she wants {count_word(new_bags)} bags of the Guji instead of "
        f"{count_word(old)}.",
        mutate=mutate,
        direct="/lines/0/bags",
        overrides=_note(p, _edited(p, mutate)),
    )


def shipping_followups(p: dict[str, Any]) -> list[Revision]:
    size = p["size"]
    first = p["lines"][0][1]
    flat: dict[str, Override] = {}
    free: dict[str, Override] = {}
    if size >= 50:
        flat["/shipping_note"] = regex(r"(?i)(flat|24)")
        free["/shipping_note"] = regex(r"(?i)\bfree\b")
    return [
        Revision(
            request="Our Guji price goes up to $48 a bag starting with this order; please reprice it.",
            mutate=lambda q: q["lines"][0].__setitem__(2, 48.0),
            direct="/lines/0/line_total" if size == 10 else "/lines/0/price_per_bag",
            theme="A higher price per bag on the revised Guji line raises the coffee subtotal, the "
            "total and what derives from it; shipping stays free",
            pattern="arithmetic",
        ),
        Revision(
            request=f"{p['contact'][0]} changed her mind again: back to {count_word(first)} bags of the Guji.",
            mutate=_set_bags(0, first),
            direct="/lines/0/bags",
            overrides=flat,
            theme="Fewer bags drop the coffee subtotal back under $300: the flat shipping and its "
            "note return and the free-shipping perk goes",
            pattern="threshold",
        ),
        Revision(
            request="Her second café is joining this order, so make it twenty bags of the Guji.",
            mutate=_set_bags(0, 20),
            direct="/lines/0/bags",
            overrides=free,
            theme="Twenty bags lift the coffee subtotal past $300 and $1,000: shipping is free again "
            "and the volume discount (and the training perk) start",
            pattern="threshold",
        ),
    ]


# moves of invoice-free-shipping: a line's bags change across the free-shipping line or
# within every threshold's side, a price per bag changes, a coffee is added or taken off.


def _thresholds(p: dict[str, Any]) -> tuple[bool, ...]:
    """Which side of each threshold the size states the coffee subtotal is on."""
    coffee = _coffee_subtotal(p)
    lines = (
        [FREE_SHIPPING_AT]
        + ([1000.0] if p["size"] >= 50 else [])
        + ([750.0] if p["size"] == 100 else [])
    )
    return tuple(coffee >= t for t in lines)


def _coffee_label(name: str) -> str:
    return "Guji" if name == "Ethiopia Guji" else name


def _bags_text(n: int) -> str:
    return f"{count_word(n)} bag" + ("" if n == 1 else "s")


def _rebag(p: dict[str, Any], d: Draw, cross: bool) -> Revision | None:
    """New bags for one line: crossing the free-shipping line when ``cross``, else on the
    same side of every threshold."""
    fits = []
    for line, (_, old, _) in enumerate(p["lines"]):
        for n in range(1, 13):
            q = _edited(p, _set_bags(line, n))
            if n != old and (
                _is_free(q) != _is_free(p) if cross else _thresholds(q) == _thresholds(p)
            ):
                fits.append((line, n))
    if not fits:
        return None
    line, n = d.pick(fits)
    name, old, _ = p["lines"][line]
    label = _coffee_label(name)
    mutate = _set_bags(line, n)
    return Revision(
        request=d.pick(
            [
                f"{p['contact'][0]} just called: she wants {_bags_text(n)} of the {label} instead of "
                f"{count_word(old)}.",
                f"Make it {_bags_text(n)} of the {label}, please.",
            ]
        ),
        mutate=mutate,
        direct=f"/lines/{line}/bags",
        overrides=_note(p, _edited(p, mutate)),
        theme=f"{_bags_text(n)} of the {label}: the line and the coffee subtotal follow"
        + (", crossing the free-shipping line" if cross else ""),
    )


def _coffee_reprice(p: dict[str, Any], d: Draw) -> Revision | None:
    fits = []
    for line, (_, _, old) in enumerate(p["lines"]):
        for step in (-2, -1, -0.5, 0.5, 1, 2):
            price = money(old + step)
            mutate = (lambda i, x: lambda q: q["lines"][i].__setitem__(2, x))(line, price)
            if price >= 5 and _thresholds(_edited(p, mutate)) == _thresholds(p):
                fits.append((line, price, mutate))
    if not fits:
        return None
    line, price, mutate = d.pick(fits)
    name, _, old = p["lines"][line]
    label = _coffee_label(name)
    return Revision(
        request=f"Our {label} price is {dollars(price)} a bag now, not {dollars(old)}; please "
        "reprice it on this order.",
        mutate=mutate,
        direct=f"/lines/{line}/" + ("line_total" if p["size"] == 10 else "price_per_bag"),
        theme=f"The {label} is re-priced: its line, the coffee subtotal and the total follow",
    )


def _coffee_add(p: dict[str, Any], d: Draw) -> Revision | None:
    have = {row[0] for row in p["lines"]}
    fits = [name for name in COFFEE if name not in have]
    if not fits:
        return None
    name = d.pick(fits)
    bag, price, sku = COFFEE[name]
    n = d.int(1, 4)

    def mutate(q: dict[str, Any]) -> None:
        q["lines"].append([name, n, price])

    request = (
        f"Add this to the invoice too: {name}, {bag}, {_bags_text(n)} at {dollars(price)} a bag."
        if p["size"] == 10
        else f"Add {n} {'bag' if n == 1 else 'bags'} of {name} ({bag}, {dollars(price)}, {sku}) as "
        "the last line."
    )
    return Revision(
        request=request,
        mutate=mutate,
        direct=f"/lines/{len(p['lines'])}",
        overrides=_note(p, _edited(p, mutate)),
        theme=f"{name} joins the order: the coffee subtotal and what hangs on it follow",
    )


def _coffee_remove(p: dict[str, Any], d: Draw) -> Revision | None:
    if len(p["lines"]) < 2:
        return None
    line = d.pick(range(len(p["lines"])))
    label = _coffee_label(p["lines"][line][0])

    def mutate(q: dict[str, Any]) -> None:
        del q["lines"][line]

    return Revision(
        request=f"{p['contact'][0]} dropped the {label} from this order; take that line off.",
        mutate=mutate,
        direct=f"/lines/{line}",
        overrides=_note(p, _edited(p, mutate)),
        theme=f"The {label} leaves the order: the coffee subtotal and what hangs on it follow",
    )


SHIPPING_MOVES = [
    Move("cross-free", "threshold", lambda p, d: _rebag(p, d, cross=True)),
    Move("rebag", "arithmetic", lambda p, d: _rebag(p, d, cross=False)),
    Move("reprice", "arithmetic", _coffee_reprice, opens=False),
    Move("add-line", "add_remove", _coffee_add),
    Move("remove-line", "add_remove", _coffee_remove),
]


# --------------------------------------------------------------------------- invoice-issue-date
# Temporal: the invoice date moves; the due date, discount deadline, reminder, late-fee start,
# installment dates and the scheduled send date follow; the wedding, album, deposit and
# gallery dates (tied to the event, not the invoice) stay. Fresh instances draw the couple, the
# wedding Saturday, the invoice date, the payment terms and the amounts; moves re-date the
# invoice, change the net days or the early-payment window, re-price, add or drop a line.

PHOTO_LINES: list[tuple[str, float]] = [
    ("Full-day wedding coverage (10 hours)", 2800.0),
    ("Second photographer", 650.0),
    ("Engagement session", 400.0),
    ("Heirloom album, 40 pages", 900.0),
    ("Travel to Lake Geneva, WI", 150.0),
]
# lines a move may add (size 50+), and how the user names every line
PHOTO_EXTRAS: list[tuple[str, float]] = [
    ("Rehearsal dinner coverage", 450.0),
    ("Extra hour of coverage", 300.0),
    ("Photo booth", 600.0),
    ("Day-after session", 375.0),
]
PHOTO_SPOKEN = {
    "Full-day wedding coverage (10 hours)": "full-day coverage (10 hours)",
    "Second photographer": "second photographer",
    "Engagement session": "engagement session",
    "Heirloom album, 40 pages": "40-page heirloom album",
    "Travel to Lake Geneva, WI": "travel to Lake Geneva",
    "Rehearsal dinner coverage": "rehearsal dinner coverage",
    "Extra hour of coverage": "extra hour of coverage",
    "Photo booth": "photo booth",
    "Day-after session": "day-after session",
}
PHOTO_COUPLES: list[tuple[str, str, str, str]] = [
    ("Sofia", "Chen", "Daniel", "Alvarez"),
    ("Maya", "Patel", "Lucas", "Berg"),
    ("Grace", "Kim", "Owen", "Murphy"),
    ("Elena", "Rossi", "Sam", "Carter"),
    ("Nadia", "Haddad", "Tom", "Fischer"),
]
PHOTO_VENDORS: list[tuple[str, str]] = [
    ("Planner", "Leah Brandt Events"),
    ("Florist", "Wildroot Floral"),
    ("DJ", "Northshore Sound"),
    ("Videographer", "Kettle Moraine Films"),
    ("Caterer", "The Abbey Resort"),
]
PHOTO_NET_DAYS = [21, 14, 30, 45]
PHOTO_WINDOWS = [7, 5, 10, 14]
PHOTO_DISCOUNTS = [3, 2, 4, 5]


def photo_inputs(size: int, d: Draw) -> dict[str, Any]:
    """The invoice's inputs: the couple, the wedding (a Saturday), the invoice date, the net
    days and early-payment window, the lines ``[description, amount]``, the deposit, and size
    10's single amount."""
    lines = [[desc, amount] for desc, amount in PHOTO_LINES]
    lines[0][1] = d.pick([2800.0, 2600.0, 3000.0, 3200.0])
    lines[1][1] = d.pick([650.0, 600.0, 700.0, 750.0])
    return {
        "size": size,
        "couple": list(d.pick(PHOTO_COUPLES)),
        "event": d.date("2025-05-03", "2025-05-31", shipped="2025-05-24", weekdays="5"),
        "issue": d.date("2025-06-02", "2025-06-13", shipped="2025-06-03", weekdays="01234"),
        "net": d.pick(PHOTO_NET_DAYS[:3]),
        "window": d.pick(PHOTO_WINDOWS[:3]),
        "discount": d.pick(PHOTO_DISCOUNTS[:2]),
        "amount": d.pick([3200.0, 2950.0, 3400.0, 3650.0]),
        "lines": lines,
        "deposit": d.pick([1000.0, 800.0, 1200.0]),
    }


def photo_params(size: int) -> dict[str, Any]:
    return photo_inputs(size, SHIPPED)


def _photo_due(p: dict[str, Any]) -> str:
    return add_days(p["issue"], p["net"])


def _photo_early(p: dict[str, Any]) -> str:
    return add_days(p["issue"], p["window"])


def _couple_names(p: dict[str, Any]) -> str:
    first1, last1, first2, last2 = p["couple"]
    return f"{first1} {last1} & {first2} {last2}"


def _couple_email(p: dict[str, Any]) -> str:
    return f"{p['couple'][0].lower()}.{p['couple'][1].lower()}@fastmail.com"


def photo_compute(p: dict[str, Any]) -> dict[str, Any]:
    size, issue, event = p["size"], p["issue"], p["event"]
    _, last1, _, last2 = p["couple"]
    due, early = _photo_due(p), _photo_early(p)
    if size == 10:
        return {
            "invoice_number": "MLP-0926",
            "client": _couple_names(p),
            "currency": "USD",
            "event_date": event,
            "issue_date": issue,
            "due_date": due,
            "early_payment_deadline": early,
            "early_payment_discount_percent": p["discount"],
            "amount": p["amount"],
            "album_delivery_date": "2025-07-15",
        }
    lines = [{"description": desc, "amount": amount} for desc, amount in p["lines"]]
    subtotal = money(sum(amount for _, amount in p["lines"]))
    deposit = p["deposit"]
    art: dict[str, Any] = {
        "invoice_number": "MLP-0926",
        "currency": "USD",
        "studio": {
            "name": "Mara Lind Photography",
            "email": "studio@maralind.photo",
            "phone": "(414) 555-0162",
            "address": "740 N Plankinton Ave, Milwaukee, WI 53203",
            "website": "maralind.photo",
        },
        "client": {
            "names": _couple_names(p),
            "email": _couple_email(p),
            "address": "1120 N Astor St, Milwaukee, WI 53202",
            "phone": "(414) 555-0388",
        },
        "contract": {"number": "C-2024-117", "signed_on": "2024-11-02"},
        "event": {
            "type": "Wedding",
            "date": event,
            "venue": "The Abbey Resort, Lake Geneva",
            "coordinator": "Leah Brandt",
            "guest_count": 140,
        },
        "issue_date": issue,
        "terms": {
            "net_days": p["net"],
            "early_payment_discount_percent": p["discount"],
            "early_payment_window_days": p["window"],
            "late_fee": 50.0,
        },
        "dates": {
            "due_date": due,
            "early_payment_deadline": early,
            "reminder_date": add_days(due, -3),
            "late_fee_from": add_days(due, 1),
        },
        "lines": lines,
        "totals": {
            "subtotal": subtotal,
            "deposit_paid": deposit,
            "balance_due": money(subtotal - deposit),
        },
        "deposit_paid_on": "2025-01-15",
        "gallery": {
            "link": f"https://maralind.pic-time.com/{last1.lower()}-{last2.lower()}",
            "expires_on": add_days(event, 90),
        },
        "album_delivery_date": "2025-07-15",
        "deliverables": {
            "edited_images": 650,
            "delivery_method": "online gallery",
            "usb_drive": True,
        },
        "payment_methods": ["bank transfer", "Zelle", "card (3% fee)"],
    }
    if size == 50:
        return art
    balance = art["totals"]["balance_due"]
    half = money(balance / 2)
    art["installments"] = [
        {"label": "First half of balance", "due_date": due, "amount": half},
        {
            "label": "Second half of balance",
            "due_date": add_days(due, 30),
            "amount": money(balance - half),
        },
    ]
    art["email"] = {
        "to": _couple_email(p),
        "send_on": issue,
        "subject": "Your wedding photography invoice (MLP-0926)",
    }
    art["payment_note"] = f"Please pay by {due}; take {p['discount']}% off if you pay by {early}."
    art["print_orders"] = [
        {"item": f"Parent album ({last1})", "ordered": "2025-06-05", "ship_by": "2025-07-01"},
        {"item": f"Parent album ({last2})", "ordered": "2025-06-05", "ship_by": "2025-07-01"},
        {"item": "16x24 canvas", "ordered": "2025-06-09", "ship_by": "2025-06-27"},
        {"item": "Thank-you cards (100)", "ordered": "2025-06-02", "ship_by": "2025-06-12"},
    ]
    art["wedding_day"] = [
        {"time": "13:00", "moment": "Getting ready"},
        {"time": "14:45", "moment": "First look"},
        {"time": "15:30", "moment": "Ceremony"},
        {"time": "17:00", "moment": "Family portraits"},
        {"time": "19:00", "moment": "Reception"},
        {"time": "22:30", "moment": "Sparkler exit"},
    ]
    art["vendors"] = [{"role": r, "name": n} for r, n in PHOTO_VENDORS]
    art["second_shooter"] = {"name": "Jonah Reyes", "hours": 8}
    art["studio"].update(tax_id="88-2094417", instagram="@maralindphoto")
    day = _dt.date.fromisoformat(event)
    art["gallery"]["password"] = f"{last1.lower()}{last2.lower()}{day.month}{day.day}"
    art["album_proofs_approved_on"] = "2025-06-08"
    return art


def _photo_line_text(p: dict[str, Any]) -> str:
    return ", ".join(f"{PHOTO_SPOKEN[desc]} {dollars(amount)}" for desc, amount in p["lines"])


def photo_conversation(p: dict[str, Any]) -> list[Turn]:
    size, issue, event, net, window = p["size"], p["issue"], p["event"], p["net"], p["window"]
    first1, last1, _, last2 = p["couple"]
    if size == 10:
        return [
            (
                f"I'm invoicing {_couple_names(p)} for their wedding on {event}: {dollars(p['amount'])}, "
                "invoice MLP-0926, in US dollars.",
                ["/invoice_number", "/client", "/currency", "/event_date", "/amount"],
            ),
            (
                f"The invoice date is {issue}. Payment is due {net} days after the invoice date, and they "
                f"get {p['discount']}% off if they pay within {window} days of the invoice date; put that deadline on too.",
                [
                    "/issue_date",
                    "/due_date",
                    "/early_payment_deadline",
                    "/early_payment_discount_percent",
                ],
            ),
            ("The album ships on 2025-07-15 no matter when they pay.", ["/album_delivery_date"]),
        ]
    turns: list[Turn] = [
        (
            f"Time to invoice the {last1}-{last2} wedding. Invoice MLP-0926 in USD from Mara Lind Photography "
            "(studio@maralind.photo, (414) 555-0162, 740 N Plankinton Ave, Milwaukee, WI 53203, "
            f"maralind.photo) to {_couple_names(p)}, {_couple_email(p)}, (414) 555-0388, "
            "1120 N Astor St, Milwaukee, WI 53202. Our contract was C-2024-117, signed 2024-11-02.",
            [
                "/invoice_number",
                "/currency",
                "/studio/name",
                "/studio/email",
                "/studio/phone",
                "/studio/address",
                "/studio/website",
                "/client",
                "/contract",
            ],
        ),
        (
            f"The wedding was on {event} at The Abbey Resort, Lake Geneva: 140 guests, coordinated by "
            "Leah Brandt.",
            ["/event"],
        ),
        (f"I'm dating the invoice {issue}.", ["/issue_date"]),
        (
            f"Terms: net {net} days from the invoice date; {p['discount']}% off if they pay within {window} days of the "
            "invoice date; a $50 late fee. Show the due date and the early-payment deadline, a reminder 3 "
            "days before the due date, and the late fee kicking in the day after the due date.",
            ["/terms", "/dates"],
        ),
        (f"Lines: {_photo_line_text(p)}.", ["/lines"]),
        (
            f"They paid a {dollars(p['deposit'])} deposit on 2025-01-15; show subtotal, deposit and balance.",
            ["/totals", "/deposit_paid_on"],
        ),
        (
            f"The online gallery (https://maralind.pic-time.com/{last1.lower()}-{last2.lower()}) stays up "
            "for 90 days after the wedding, and the album is delivered on 2025-07-15.",
            ["/gallery/link", "/gallery/expires_on", "/album_delivery_date"],
        ),
        (
            "Deliverables: 650 edited images through the online gallery, plus a USB drive. They can pay by "
            "bank transfer, Zelle, or card with a 3% fee.",
            ["/deliverables", "/payment_methods"],
        ),
    ]
    if size == 100:
        password = photo_compute(p)["gallery"]["password"]
        turns += [
            (
                "They asked to pay the balance in two halves: the first on the due date, the second 30 days "
                "after the due date.",
                ["/installments"],
            ),
            (
                f"Schedule the email to {first1} to go out on the invoice date, subject 'Your wedding "
                f"photography invoice (MLP-0926)', and add a payment note with the pay-by date and the "
                f"{p['discount']}% early deadline.",
                ["/email", "/payment_note"],
            ),
            (
                "Print orders: two parent albums ordered 2025-06-05, ship by 2025-07-01; a 16x24 canvas "
                "ordered 2025-06-09, ship by 2025-06-27; 100 thank-you cards ordered 2025-06-02, ship by "
                "2025-06-12. They approved the album proofs on 2025-06-08.",
                ["/print_orders", "/album_proofs_approved_on"],
            ),
            (
                "For the record, the day ran: getting ready 13:00, first look 14:45, ceremony 15:30, family "
                "portraits 17:00, reception 19:00, sparkler exit 22:30. Jonah Reyes second-shot for 8 hours. "
                "Add our tax ID 88-2094417 and Instagram @maralindphoto, and the gallery password "
                f"{password}.",
                [
                    "/wedding_day",
                    "/second_shooter",
                    "/studio/tax_id",
                    "/studio/instagram",
                    "/gallery/password",
                ],
            ),
            (
                "List the other vendors too: planner Leah Brandt Events, florist Wildroot Floral, DJ Northshore "
                "Sound, videographer Kettle Moraine Films, catering by The Abbey Resort.",
                ["/vendors"],
            ),
        ]
    return turns


def _spoken_day(iso: str, year: bool = True) -> str:
    """``2025-06-10`` as ``June 10, 2025`` (or ``June 10``)."""
    day = _dt.date.fromisoformat(iso)
    return f"{day:%B} {day.day}" + (f", {day.year}" if year else "")


def _payment_note(p: dict[str, Any], q: dict[str, Any]) -> dict[str, Override]:
    """At size 100 the payment note quotes the pay-by and early dates and the discount: a
    pattern of them, when they change."""
    keys = (_photo_due(p), _photo_early(p), p["discount"])
    if p["size"] != 100 or keys == (_photo_due(q), _photo_early(q), q["discount"]):
        return {}
    parts = [date_regex(_photo_due(q)), date_regex(_photo_early(q))]
    if q["discount"] != p["discount"]:
        parts.append(rf"\b{q['discount']} ?%")
    return {"/payment_note": regex(all_of_lazy(*parts))}


def _redate(p: dict[str, Any], issue: str, request: str, theme: str = "") -> Revision:
    return Revision(
        request=request,
        mutate=lambda q: q.update(issue=issue),
        direct="/issue_date",
        overrides=_payment_note(p, {**p, "issue": issue}),
        theme=theme,
        pattern="temporal" if theme else "",
    )


def photo_revision(p: dict[str, Any]) -> Revision:
    new = "2025-06-10"
    return _redate(
        p,
        new,
        f"I'm holding the invoice for a week. Date it {_spoken_day(new)} instead of "
        f"{_spoken_day(p['issue'], year=False)}.",
    )


def photo_followups(p: dict[str, Any]) -> list[Revision]:
    first = p["issue"]
    return [
        _redate(
            {**p, "issue": "2025-06-10"},
            "2025-06-17",
            "Their planner asked me to hold it one more week, so date it June 17, 2025.",
            "The invoice date moves again and every date counted from it follows again",
        ),
        _redate(
            {**p, "issue": "2025-06-17"},
            "2025-06-12",
            "The couple asked to have it before their honeymoon. Make the invoice date June 12, 2025.",
            "The invoice date moves back a few days; the due date, deadline and what follows move "
            "with it",
        ),
        _redate(
            {**p, "issue": "2025-06-12"},
            first,
            f"On second thought, let's go back to the original invoice date, {_spoken_day(first)}.",
            "Undoing every re-dating: the dates counted from the invoice date return to their first "
            "values",
        ),
    ]


# moves of invoice-issue-date: the invoice is re-dated, its net days or early-payment window
# change, and (size 50+) a line is re-priced, added or dropped (size 10: its one amount).


def _photo_redate(p: dict[str, Any], d: Draw) -> Revision:
    issue = d.pick([x for x in _weekdays("2025-06-02", "2025-06-27") if x != p["issue"]])
    later = issue > p["issue"]
    request = d.pick(
        [
            f"Date the invoice {_spoken_day(issue)} instead of {_spoken_day(p['issue'], year=False)}.",
            f"I'm holding the invoice until {_spoken_day(issue)}; make that its date."
            if later
            else f"Let's send it sooner: make the invoice date {_spoken_day(issue)}.",
        ]
    )
    return _redate(
        p, issue, request, f"The invoice is dated {issue}: every date counted from it follows"
    )


def _photo_net(p: dict[str, Any], d: Draw) -> Revision | None:
    net = d.pick([n for n in PHOTO_NET_DAYS if n != p["net"] and n > p["window"]])
    if p["size"] == 10:
        # size 10 keeps no terms: the new net days come with a new invoice date
        issue = d.pick([x for x in _weekdays("2025-06-02", "2025-06-27") if x != p["issue"]])
        return Revision(
            request=f"Re-date the invoice {_spoken_day(issue)}, and give them {net} days from the "
            f"invoice date to pay instead of {p['net']}.",
            mutate=lambda q: q.update(issue=issue, net=net),
            direct="/issue_date",
            theme=f"A new invoice date and net {net} days: the due date and early deadline follow",
        )
    q = {**p, "net": net}
    return Revision(
        request=f"Let's give them {net} days to pay instead of {p['net']}: the due date is {net} "
        "days after the invoice date now.",
        mutate=lambda q: q.update(net=net),
        direct="/terms/net_days",
        overrides=_payment_note(p, q),
        theme=f"Net {net} days: the due date and every date counted from it follow",
    )


def _photo_early_offer(p: dict[str, Any], d: Draw) -> Revision | None:
    """A new early-payment offer: another discount within another window."""
    fits = [n for n in PHOTO_WINDOWS if n != p["window"] and n < p["net"]]
    if not fits:
        return None
    window = d.pick(fits)
    discount = d.pick([n for n in PHOTO_DISCOUNTS if n != p["discount"]])
    q = {**p, "window": window, "discount": discount}
    small = p["size"] == 10
    return Revision(
        request=d.pick(
            [
                f"New early-payment offer: {discount}% off if they pay within {window} days of the "
                f"invoice date, instead of {p['discount']}% within {p['window']}.",
                f"Change the early-payment discount to {discount}%, for paying within {window} days "
                "of the invoice date.",
            ]
        ),
        mutate=lambda q: q.update(window=window, discount=discount),
        direct="/early_payment_discount_percent"
        if small
        else ["/terms/early_payment_discount_percent", "/terms/early_payment_window_days"],
        overrides=_payment_note(p, q),
        theme=f"{discount}% off within {window} days: the early-payment deadline moves",
    )


def _photo_reprice(p: dict[str, Any], d: Draw) -> Revision:
    line = d.pick(range(len(p["lines"])))
    desc, old = p["lines"][line]
    pool = {round(old * f / 50) * 50.0 for f in (0.8, 0.9, 1.1, 1.25)} | {old - 50, old + 50}
    amount = d.pick(sorted(x for x in pool if x >= 50 and x != old))
    spoken = PHOTO_SPOKEN[desc]
    return Revision(
        request=f"Make the {spoken} line {dollars(amount)} instead of {dollars(old)}.",
        mutate=lambda q: q["lines"][line].__setitem__(1, amount),
        direct=f"/lines/{line}/amount",
        theme=f"The {spoken} is re-priced: the subtotal and balance follow (and the installments)",
    )


def _photo_add(p: dict[str, Any], d: Draw) -> Revision | None:
    have = {desc for desc, _ in p["lines"]}
    fits = [row for row in PHOTO_EXTRAS + PHOTO_LINES if row[0] not in have]
    if not fits:
        return None
    desc, amount = d.pick(fits)
    again = dict(PHOTO_LINES).get(desc) is not None
    return Revision(
        request=f'Put the {PHOTO_SPOKEN[desc]} back on as the last line: "{desc}", {dollars(amount)}.'
        if again
        else f"Add a line at the end: {desc}, {dollars(amount)}.",
        mutate=lambda q: q["lines"].append([desc, amount]),
        direct=f"/lines/{len(p['lines'])}",
        theme=f"A new line ({desc}) raises the subtotal and balance (and the installments)",
    )


def _photo_drop(p: dict[str, Any], d: Draw) -> Revision | None:
    line = d.pick(range(1, len(p["lines"])))
    spoken = PHOTO_SPOKEN[p["lines"][line][0]]

    def drop(q: dict[str, Any]) -> None:
        del q["lines"][line]

    return Revision(
        request=d.pick(
            [f"Take the {spoken} off the invoice.", f"We're waiving the {spoken}; drop that line."]
        ),
        mutate=drop,
        direct=f"/lines/{line}",
        theme=f"The {spoken} line comes off: the subtotal and balance fall (and the installments)",
    )


PHOTO_MOVES = [
    Move("redate", "temporal", _photo_redate),
    Move("net-days", "temporal", _photo_net),
    Move("early-offer", "temporal", _photo_early_offer, opens=False),
    Move("reprice", "arithmetic", _photo_reprice, when=_sized(50)),
    Move("add-line", "add_remove", _photo_add, when=_sized(50)),
    Move(
        "drop-line",
        "add_remove",
        _photo_drop,
        when=lambda p: p["size"] >= 50 and len(p["lines"]) > 2,
    ),
]


# --------------------------------------------------------------------------- invoice-mark-paid
# Status flip: the invoice is marked paid; every value the payment status governs moves to
# its paid-state value together. Fresh instances draw the household, the due date, the
# boiler price, the labor hours, the deposit and (size 10) the total; moves pay and reverse,
# extend the due date and correct a line, the deposit or the total while it is unpaid.

PLUMB_LINES: list[tuple[str, float]] = [
    ("Combi boiler, Navien NCB-240E", 2650.0),
    ("Removal and disposal of old boiler", 280.0),
    ("Labor, 12 hours at $95", 1140.0),
    ("Venting kit and condensate pump", 410.0),
    ("Permit and inspection fee", 125.0),
    ("Thermostat, Honeywell T6 Pro", 145.0),
    ("System flush and inhibitor", 160.0),
]
LABOR_LINE = 2
LABOR_RATE = 95.0
# how the user names each line (the labor line is spoken from its hours)
PLUMB_SPOKEN = {
    "Combi boiler, Navien NCB-240E": "Navien NCB-240E combi boiler",
    "Removal and disposal of old boiler": "removal and disposal of the old boiler",
    "Venting kit and condensate pump": "venting kit and condensate pump",
    "Permit and inspection fee": "permit and inspection fee",
    "Thermostat, Honeywell T6 Pro": "Honeywell T6 Pro thermostat",
    "System flush and inhibitor": "system flush and inhibitor",
}
HOUSEHOLDS = ["Henderson", "Whitaker", "Lindqvist", "Okafor", "Brennan"]
PLUMB_DEPOSITS = [1500.0, 1000.0, 1200.0, 2000.0]
PLUMB_TOTALS_10 = [4850.0, 4390.0, 5120.0, 3975.0, 4660.0]
PLUMB_DUES = ["2025-02-28", "2025-02-21", "2025-02-24", "2025-03-03", "2025-03-07", "2025-03-14"]
PAID_FOOTER = "Paid in full. Thank you!"


def _unpaid_footer(due: str) -> str:
    return f"Payment due by {due}. Thank you for your business."


def paid_inputs(size: int, d: Draw) -> dict[str, Any]:
    """The invoice's inputs: the household, the due date, the lines ``[description, amount]``
    (the labor line from its hours), the deposit, size 10's total, and whether it is paid."""
    hours = d.int(9, 14, shipped=12)
    lines = [[desc, amount] for desc, amount in PLUMB_LINES]
    lines[0][1] = d.pick([2650.0, 2490.0, 2790.0, 2880.0])
    lines[LABOR_LINE] = [f"Labor, {hours} hours at $95", money(hours * LABOR_RATE)]
    return {
        "size": size,
        "paid": False,
        "due": d.pick(PLUMB_DUES[:5]),
        "family": d.pick(HOUSEHOLDS),
        "total": d.pick(PLUMB_TOTALS_10),
        "lines": lines,
        "deposit": d.pick(PLUMB_DEPOSITS),
    }


def paid_params(size: int) -> dict[str, Any]:
    return paid_inputs(size, SHIPPED)


def paid_compute(p: dict[str, Any]) -> dict[str, Any]:
    size, paid, due, family = p["size"], p["paid"], p["due"], p["family"]
    footer = PAID_FOOTER if paid else _unpaid_footer(due)
    next_reminder = None if paid else add_days(due, -7)
    if size == 10:
        total = p["total"]
        return {
            "invoice_number": "ORP-3318",
            "customer": f"{family} household",
            "total": total,
            "amount_paid": total if paid else 0.0,
            "balance_due": 0.0 if paid else total,
            "status": "paid" if paid else "sent",
            "due_date": due,
            "reminders_enabled": not paid,
            "next_reminder": next_reminder,
            "footer": footer,
        }
    deposit = p["deposit"]
    lines = [{"description": desc, "amount": amount} for desc, amount in p["lines"]]
    subtotal = money(sum(amount for _, amount in p["lines"]))
    tax = money(subtotal * 0.05)
    total = money(subtotal + tax)
    art: dict[str, Any] = {
        "invoice_number": "ORP-3318",
        "issue_date": "2025-01-29",
        "due_date": due,
        "status": "paid" if paid else "sent",
        "company": {
            "name": "Oakridge Plumbing & Heating",
            "license": "MP-44821",
            "phone": "(608) 555-0134",
            "address": "3301 Femrite Dr, Madison, WI 53718",
            "email": "office@oakridgeph.com",
        },
        "customer": {
            "name": f"{family} household",
            "address": "52 Birchwood Ln, Madison, WI 53711",
            "email": f"k.{family.lower()}@gmail.com",
            "phone": "(608) 555-0279",
        },
        "job": {
            "description": "Boiler replacement",
            "start_date": "2025-01-24",
            "completed_on": "2025-01-27",
            "technician": "Ray Ochoa",
            "technician_license": "WI-JP-20931",
        },
        "lines": lines,
        "totals": {
            "subtotal": subtotal,
            "tax_rate_percent": 5,
            "tax": tax,
            "total": total,
            "amount_paid": total if paid else deposit,
            "balance_due": 0.0 if paid else money(total - deposit),
        },
        "reminders": {
            "enabled": not paid,
            "interval_days": 7,
            "next_date": next_reminder,
        },
        "online_payment_link_active": not paid,
        "payment_methods": ["check", "card", "ACH"],
        "warranty": {"parts_years": 5, "labor_years": 1, "activated": paid},
        "footer": footer,
        "notes": "Old boiler taken to Dane County recycling.",
    }
    if size == 50:
        return art
    rest = money(total - deposit)
    second = money(rest / 2)
    art["payment_plan"] = [
        {"label": "Deposit", "due_date": "2025-01-20", "amount": deposit, "status": "paid"},
        {
            "label": "Second payment",
            "due_date": "2025-02-14",
            "amount": second,
            "status": "paid" if paid else "pending",
        },
        {
            "label": "Final payment",
            "due_date": due,
            "amount": money(rest - second),
            "status": "paid" if paid else "pending",
        },
    ]
    art["customer_portal"] = {
        "account_id": "OPH-77120",
        "show_pay_button": not paid,
        "receipt_email_queued": paid,
    }
    art["late_fee"] = {"amount": 35.0, "applies_after": due, "grace_days": 5}
    art["previous_invoice"] = {
        "number": "ORP-2950",
        "description": "Annual furnace service",
        "total": 189.0,
        "status": "paid",
    }
    art["job"].update(
        permit_number="BLD-25-00871",
        inspection_date="2025-01-31",
        inspector="L. Braun",
        inspection_result="passed",
    )
    art["equipment"] = {
        "model": "Navien NCB-240E",
        "serial": "NCB240E-2411-08834",
        "warranty_registration": "NV-REG-5530172",
        "location": "basement utility room",
        "fuel": "natural gas",
    }
    art["service_history"] = [
        {"date": "2022-10-11", "work": "Water heater flush", "invoice": "ORP-1688"},
        {"date": "2023-11-02", "work": "Annual furnace service", "invoice": "ORP-2214"},
        {"date": "2024-03-19", "work": "Kitchen faucet replacement", "invoice": "ORP-2541"},
        {"date": "2024-11-07", "work": "Annual furnace service", "invoice": "ORP-2950"},
    ]
    art["next_service_due"] = "2026-01-27"
    art["company"].update(website="oakridgeph.com", insurer="Badger Mutual")
    art["customer"]["preferred_contact"] = "email"
    art["photos"] = ["old-boiler.jpg", "new-boiler.jpg", "venting.jpg"]
    return art


def _plumb_line_text(p: dict[str, Any], i: int) -> str:
    desc, amount = p["lines"][i]
    if i == LABOR_LINE:
        hours = round(amount / LABOR_RATE)
        return f"labor {hours} hours at $95 ({dollars(amount)})"
    return f"{PLUMB_SPOKEN[desc]} {dollars(amount)}"


def paid_conversation(p: dict[str, Any]) -> list[Turn]:
    size, due, family = p["size"], p["due"], p["family"]
    reminder = add_days(due, -7)
    if size == 10:
        return [
            (
                f"Invoice ORP-3318 for the {family} household: {dollars(p['total'])} total, due {due}. It went out "
                "yesterday, so its status is sent, and nothing's been paid yet.",
                [
                    "/invoice_number",
                    "/customer",
                    "/total",
                    "/due_date",
                    "/status",
                    "/amount_paid",
                    "/balance_due",
                ],
            ),
            (
                f"While it's unpaid, keep payment reminders on; the next one goes out {reminder}.",
                ["/reminders_enabled", "/next_reminder"],
            ),
            (
                f"Footer for now: '{_unpaid_footer(due)}' Once it's paid, the amount paid becomes the full total, "
                "the balance zero, reminders go off and the next reminder date is emptied (set to null, not deleted), and the footer should say it's "
                "paid in full, with a thank-you.",
                ["/footer"],
            ),
        ]
    deposit = dollars(p["deposit"])
    lines_text = ", ".join(_plumb_line_text(p, i) for i in range(len(p["lines"])))
    turns: list[Turn] = [
        (
            f"New invoice ORP-3318, issued 2025-01-29, due {due}; I've sent it, so status sent. It's from "
            "Oakridge Plumbing & Heating (license MP-44821, (608) 555-0134, 3301 Femrite Dr, Madison, WI 53718, "
            f"office@oakridgeph.com) to the {family} household, 52 Birchwood Ln, Madison, WI 53711, "
            f"k.{family.lower()}@gmail.com, (608) 555-0279.",
            [
                "/invoice_number",
                "/issue_date",
                "/due_date",
                "/status",
                "/company/name",
                "/company/license",
                "/company/phone",
                "/company/address",
                "/company/email",
                "/customer/name",
                "/customer/address",
                "/customer/email",
                "/customer/phone",
            ],
        ),
        (
            "The job was a boiler replacement, started 2025-01-24 and completed 2025-01-27 by Ray Ochoa "
            "(license WI-JP-20931).",
            [
                "/job/description",
                "/job/start_date",
                "/job/completed_on",
                "/job/technician",
                "/job/technician_license",
            ],
        ),
        (f"Lines: {lines_text}.", ["/lines"]),
        (
            f"Subtotal, 5% tax, total. They paid a {deposit} deposit, so show amount paid and the balance due.",
            ["/totals"],
        ),
    ]
    if size == 100:
        turns.append(
            (
                f"They're on a payment plan: the {deposit} deposit (due 2025-01-20, already paid), then the rest "
                f"in two halves due 2025-02-14 and {due} (the first half rounded to the cent). Mark each "
                "payment pending until it's paid.",
                ["/payment_plan"],
            )
        )
    unpaid = (
        f"Until it's paid: payment reminders on every 7 days, next one {reminder}; the online payment "
        f"link stays active; the footer reads '{_unpaid_footer(due)}' We take check, card or ACH."
    )
    unpaid_ptrs = ["/reminders", "/online_payment_link_active", "/footer", "/payment_methods"]
    if size == 100:
        unpaid += (
            " Their customer portal account is OPH-77120: show the pay button there, and don't queue a "
            "receipt email yet."
        )
        unpaid_ptrs.append("/customer_portal")
    turns.append((unpaid, unpaid_ptrs))
    if size == 50:
        turns.append(
            (
                "Warranty: 5 years on parts, 1 on labor, and it only gets activated once the invoice is paid. When "
                "they pay in full: status paid, amount paid equals the total, balance zero, reminders off with an emptied (null, not deleted) "
                "next date, the payment link deactivated, the warranty activated, and the footer changes to a "
                "paid-in-full thank-you. Note that the old boiler went to Dane County recycling.",
                ["/warranty", "/notes"],
            )
        )
        return turns
    turns += [
        (
            "Warranty: 5 years on parts, 1 on labor, and it only gets activated once the invoice is paid. When "
            "they pay in full: status paid, every plan payment marked paid, amount paid equals the total, "
            "balance zero, reminders off with the next date emptied (null, not deleted), payment link and portal pay button gone, the "
            "receipt email queued, the warranty activated, and the footer changes to a paid-in-full thank-you. "
            f"Late fee is $35 if anything is still open after {due}, with a 5-day grace period.",
            ["/warranty", "/late_fee"],
        ),
        (
            "Permit BLD-25-00871, inspection passed 2025-01-31 with L. Braun. The boiler is in the basement "
            "utility room, natural gas, serial NCB240E-2411-08834, warranty registration NV-REG-5530172.",
            [
                "/job/permit_number",
                "/job/inspection_date",
                "/job/inspector",
                "/job/inspection_result",
                "/equipment",
            ],
        ),
        (
            "Their history with us: water heater flush 2022-10-11 (ORP-1688), furnace service 2023-11-02 "
            "(ORP-2214), kitchen faucet 2024-03-19 (ORP-2541) and furnace service 2024-11-07 (ORP-2950). That "
            "last invoice was $189 and is paid. Next service is due 2026-01-27.",
            ["/service_history", "/previous_invoice", "/next_service_due"],
        ),
        (
            "Add our website oakridgeph.com and insurer Badger Mutual; they prefer email. Attach the photos "
            "old-boiler.jpg, new-boiler.jpg and venting.jpg, and note the old boiler went to Dane County "
            "recycling.",
            [
                "/company/website",
                "/company/insurer",
                "/customer/preferred_contact",
                "/photos",
                "/notes",
            ],
        ),
    ]
    return turns


def _reminder_path(size: int) -> str:
    return "/next_reminder" if size == 10 else "/reminders/next_date"


def _paid_overrides(size: int) -> dict[str, Override]:
    return {"/footer": regex(r"(?i)paid in full"), _reminder_path(size): regex(CLEARED_OR_NONE)}


def paid_revision(p: dict[str, Any]) -> Revision:
    return Revision(
        request=f"The {p['family']}s just paid the whole thing. Please mark the invoice as paid.",
        mutate=lambda q: q.update(paid=True),
        direct="/status",
        overrides=_paid_overrides(p["size"]),
    )


def _extend_request(p: dict[str, Any], due: str) -> str:
    plan = " The final plan payment and the late-fee date move with it." if p["size"] == 100 else ""
    return (
        f"I've given them until {due} to pay. Move the due date and keep the next reminder a week "
        "before it." + plan
    )


def paid_followups(p: dict[str, Any]) -> list[Revision]:
    extended = "2025-03-14"
    return [
        Revision(
            request=f"Bad news: the {p['family']}s' bank reversed their payment, so it isn't paid after "
            "all. Put the invoice back to sent and unpaid.",
            mutate=lambda q: q.update(paid=False),
            direct="/status",
            theme="A reversed payment flips everything the paid status governs back to its unpaid "
            "values",
            pattern="status_flip",
        ),
        Revision(
            request=_extend_request(p, extended),
            mutate=lambda q: q.update(due=extended),
            direct="/due_date",
            overrides={"/footer": regex("(?i)" + date_regex(extended))},
            theme="A later due date moves the reminder and the footer's pay-by date (and the last "
            "plan payment and late-fee start)",
            pattern="temporal",
        ),
        Revision(
            request="They've now paid the whole balance by check. Mark the invoice paid.",
            mutate=lambda q: q.update(paid=True),
            direct="/status",
            overrides=_paid_overrides(p["size"]),
            theme="Paid for real this time: amounts, reminders, payment link, warranty and footer "
            "move to their paid values again",
            pattern="status_flip",
        ),
    ]


# moves of invoice-mark-paid: the invoice is paid or its payment reversed; while it is unpaid
# the due date moves and a line, the deposit (50+) or the total (10) is corrected.


def _pay(p: dict[str, Any], d: Draw) -> Revision:
    who = f"The {p['family']}s"
    return Revision(
        request=d.pick(
            [
                f"{who} just paid the whole thing. Please mark the invoice as paid.",
                f"{who} paid the full balance by check today. Mark the invoice paid.",
                f"Payment in full came in from the {p['family']} household; mark the invoice paid.",
            ]
        ),
        mutate=lambda q: q.update(paid=True),
        direct="/status",
        overrides=_paid_overrides(p["size"]),
        theme="Marked paid: amounts, reminders, payment link, warranty and footer move to their "
        "paid values",
    )


def _reverse(p: dict[str, Any], d: Draw) -> Revision:
    return Revision(
        request=d.pick(
            [
                f"Bad news: the {p['family']}s' bank reversed their payment, so it isn't paid after "
                "all. Put the invoice back to sent and unpaid.",
                f"The {p['family']}s' check bounced. The invoice isn't paid: set it back to sent and "
                "unpaid.",
            ]
        ),
        mutate=lambda q: q.update(paid=False),
        direct="/status",
        # the unpaid footer's wording was stated for the first due date only
        overrides={"/footer": regex("(?i)" + date_regex(p["due"]))},
        theme="A reversed payment flips everything the paid status governs back to its unpaid "
        "values",
    )


def _extend(p: dict[str, Any], d: Draw) -> Revision:
    due = d.pick([x for x in PLUMB_DUES if x != p["due"]])
    later = due > p["due"]
    return Revision(
        request=_extend_request(p, due)
        if later
        else f"Let's bring the due date forward to {due}, and keep the next reminder a week before it."
        + (" The final plan payment and the late-fee date move too." if p["size"] == 100 else ""),
        mutate=lambda q: q.update(due=due),
        direct="/due_date",
        overrides={"/footer": regex("(?i)" + date_regex(due))},
        theme=f"The due date moves to {due}: the reminder and the footer's pay-by date follow",
    )


def _plumb_total(p: dict[str, Any], d: Draw) -> Revision:
    total = d.pick([t for t in PLUMB_TOTALS_10 if t != p["total"]])
    return Revision(
        request=f"I mis-added the {p['family']} invoice: the total is {dollars(total)}, not "
        f"{dollars(p['total'])}.",
        mutate=lambda q: q.update(total=total),
        direct="/total",
        theme="A corrected total changes the balance due with it",
    )


def _plumb_reprice(p: dict[str, Any], d: Draw) -> Revision:
    line = d.pick([i for i in range(len(p["lines"])) if i != LABOR_LINE])
    desc, old = p["lines"][line]
    base = dict(PLUMB_LINES)[desc]
    amount = d.pick(sorted({round(base * f / 5) * 5.0 for f in (0.8, 0.9, 1.0, 1.1, 1.2)} - {old}))
    spoken = PLUMB_SPOKEN[desc]
    return Revision(
        request=d.pick(
            [
                f"The {spoken} should be {dollars(amount)}, not {dollars(old)}; please fix that line.",
                f"Correction on the {spoken}: bill {dollars(amount)} for it instead of {dollars(old)}.",
            ]
        ),
        mutate=lambda q: q["lines"][line].__setitem__(1, amount),
        direct=f"/lines/{line}/amount",
        theme=f"The {spoken} is re-priced: the subtotal, tax, total and balance follow",
    )


def _plumb_deposit(p: dict[str, Any], d: Draw) -> Revision:
    deposit = d.pick([x for x in PLUMB_DEPOSITS if x != p["deposit"]])
    plan = " (the plan's two later payments split what's left)" if p["size"] == 100 else ""
    return Revision(
        request=f"I got the deposit wrong: they paid {dollars(deposit)}, not {dollars(p['deposit'])}"
        f"{plan}.",
        mutate=lambda q: q.update(deposit=deposit),
        direct="/totals/amount_paid",
        theme="A different deposit changes the amount paid and the balance due (and the plan)",
    )


def _unpaid(p: dict[str, Any]) -> bool:
    return not p["paid"]


PAID_MOVES = [
    Move("pay", "status_flip", _pay, when=_unpaid),
    Move("reverse", "status_flip", _reverse, when=lambda p: p["paid"]),
    Move("extend-due", "temporal", _extend, when=_unpaid),
    Move("total", "arithmetic", _plumb_total, when=lambda p: _unpaid(p) and p["size"] == 10),
    Move("reprice", "arithmetic", _plumb_reprice, when=lambda p: _unpaid(p) and p["size"] >= 50),
    Move(
        "deposit",
        "arithmetic",
        _plumb_deposit,
        when=lambda p: _unpaid(p) and p["size"] >= 50,
        opens=False,
    ),
]


# --------------------------------------------------------------------------- registry

SCENARIOS = [
    Scenario(
        id="invoice-workshop-hours",
        domain=DOMAIN,
        pattern="arithmetic",
        theme="Billing more workshop hours recomputes the line, subtotal, discount, tax, total, balance and installments",
        params=hours_params,
        compute=hours_compute,
        conversation=hours_conversation,
        revision=hours_revision,
        followups=hours_followups,
        inputs=hours_inputs,
        moves=HOURS_MOVES,
        notes=(
            "Formula chain stated in the conversation: line amount = hours x rate, subtotal, tax on the "
            "(at 50+ discounted) subtotal and total; at 100 also pass-through expenses, the balance after "
            "the deposit, a half/remainder installment split and a memo quoting the balance."
        ),
    ),
    Scenario(
        id="invoice-bill-to-parent",
        domain=DOMAIN,
        pattern="substitution",
        theme="Re-billing the invoice to the parent company copies in its details and terms and moves the due date",
        params=bill_to_params,
        compute=bill_to_compute,
        conversation=bill_to_conversation,
        revision=bill_to_revision,
        followups=bill_to_followups,
        inputs=bill_to_inputs,
        moves=BILL_TO_MOVES,
        notes=(
            "Substitution of the billed company from reference data: its address, VAT number and payment "
            "terms are copied and the due date (issue + terms) moves; at 50+ also contact, emails, codes, "
            "PO and the reminder date; at 100 the email recipient, subject, cover note and late-interest "
            "start. The work site keeps the old company's address (distractor)."
        ),
    ),
    Scenario(
        id="invoice-drop-line-item",
        domain=DOMAIN,
        pattern="add_remove",
        theme="Removing a catering line updates the line count, category totals, service charge, tax, balance and setup schedule",
        params=catering_params,
        compute=catering_compute,
        conversation=catering_conversation,
        revision=catering_revision,
        followups=catering_followups,
        inputs=catering_inputs,
        moves=CATERING_MOVES,
        notes=(
            "Removal of one invoice line: line count, subtotal and total follow; at 50+ also the service "
            "charge (food and beverage only), tax, balance and per-guest cost; at 100 the beverage "
            "category total and the line's setup-schedule entry."
        ),
    ),
    Scenario(
        id="invoice-free-shipping",
        domain=DOMAIN,
        pattern="threshold",
        theme="Adding bags lifts the coffee subtotal past $300, so shipping becomes free and the gated perk turns on",
        params=shipping_params,
        compute=shipping_compute,
        conversation=shipping_conversation,
        revision=shipping_revision,
        followups=shipping_followups,
        inputs=shipping_inputs,
        moves=SHIPPING_MOVES,
        notes=(
            "Threshold crossing: the extra bags lift the coffee subtotal to $300 or more, so shipping "
            "drops to $0; at 50+ the shipping note changes while the 5% volume discount ($1,000) stays "
            "off; at 100 the sample-pack perk and loyalty points follow, and equipment does not count "
            "toward the threshold."
        ),
    ),
    Scenario(
        id="invoice-issue-date",
        domain=DOMAIN,
        pattern="temporal",
        theme="Re-dating the invoice shifts the due date, early-payment deadline, reminder, late-fee start and installments",
        params=photo_params,
        compute=photo_compute,
        conversation=photo_conversation,
        revision=photo_revision,
        followups=photo_followups,
        inputs=photo_inputs,
        moves=PHOTO_MOVES,
        notes=(
            "Offsets from the invoice date: due = issue + 21 days, early-payment deadline = issue + 7; at "
            "50+ reminder = due - 3 and late fee from due + 1; at 100 the installments (due, due + 30), "
            "the email send date and the payment note. Event-based (gallery) and absolute dates stay."
        ),
    ),
    Scenario(
        id="invoice-mark-paid",
        domain=DOMAIN,
        pattern="status_flip",
        theme="Marking the invoice paid moves amount paid, balance, reminders, payment link, warranty and footer together",
        params=paid_params,
        compute=paid_compute,
        conversation=paid_conversation,
        revision=paid_revision,
        followups=paid_followups,
        inputs=paid_inputs,
        moves=PAID_MOVES,
        notes=(
            "Status flip to paid: amount paid = total, balance 0, reminders off with the next date "
            "cleared, paid-in-full footer; at 50+ also the payment link and the warranty activation; at "
            "100 the pending plan payments, portal pay button and receipt email. The paid deposit, "
            "late-fee terms and history stay. Blind review: the cleared reminder date was first described "
            "as 'no next reminder date', which a reviewer fairly read as deleting the entry; the "
            "conversation now says it is emptied (null, not deleted)."
        ),
    ),
]
