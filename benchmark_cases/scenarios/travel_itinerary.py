"""travel_itinerary: people plan trips with an assistant that keeps the itinerary as JSON.

One scenario per propagation pattern. Every derived value (totals, dates, ticket counts,
deposits) is computed here from the inputs the user states, so the gold patch of each
revision is the difference between two computations of the same rules. Every scenario also
generates fresh instances: its ``*_inputs(size, d)`` declares the space its inputs are drawn
from (the shipped instance is the one of no seed) and its ``*_MOVES`` the edits a long chain
draws from.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Sequence
from typing import Any

from pytest_revprop.authoring.helpers import (
    CLEARED,
    add_days,
    all_of,
    count_word,
    dollars,
    each,
    members,
    money,
)
from pytest_revprop.authoring.scenario import (
    Draw,
    Move,
    Override,
    Revision,
    Scenario,
    Turn,
    regex,
    shipped_params,
)

DOMAIN = "travel_itinerary"


def euros(x: float) -> str:
    """An amount in euros as a traveler writes it: ``€540``, ``€27.50``."""
    return dollars(x).replace("$", "€")


_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August")


def spoken_date(iso: str, year: bool = False) -> str:
    """``2025-04-10 -> "10 April"`` (``year``: ``"10 April 2025"``)."""
    y, m, d = (int(x) for x in iso.split("-"))
    return f"{d} {_MONTHS[m - 1]}" + (f" {y}" if year else "")


def _restate(
    key: str,
    pool: Sequence[Any],
    request: Callable[[Any, Any], str | list[str]],
    direct: str | Callable[[dict[str, Any]], str],
    theme: str,
    fits: Callable[[dict[str, Any], Any], bool] = lambda p, x: True,
) -> Callable[[dict[str, Any], Draw], Revision | None]:
    """A move that sets input ``key`` to another member of ``pool`` (one that ``fits`` the
    current inputs); ``request(new, old)`` is its text (or texts to draw one from)."""

    def make(p: dict[str, Any], d: Draw) -> Revision | None:
        choices = [x for x in pool if x != p[key] and fits(p, x)]
        if not choices:
            return None
        new = d.pick(choices)
        text = request(new, p[key])
        return Revision(
            request=text if isinstance(text, str) else d.pick(text),
            mutate=lambda q: q.update({key: new}),
            direct=direct if isinstance(direct, str) else direct(p),
            theme=theme,
        )

    return make


def _replayed(p: dict[str, Any], *edits: Any) -> dict[str, Any]:
    """The inputs after ``edits`` (in-place mutations) applied one after another to a copy."""
    q = copy.deepcopy(p)
    for edit in edits:
        edit(q)
    return q


# --------------------------------------------------------------------------- travel-group-headcount
# Arithmetic: the number of travelers feeds every per-person cost, the totals and the bookings.

# (name, pricing, price, date)
HEADCOUNT_ACTIVITIES: list[tuple[str, str, int, str]] = [
    ("Fado dinner at Clube de Fado", "per person", 55, "2025-05-16"),
    ("Sintra and Cascais day trip", "per person", 39, "2025-05-17"),
    ("Private street-art walking tour", "per group", 150, "2025-05-18"),
]
HEADCOUNT_ACTIVITIES_100: list[tuple[str, str, int, str]] = [
    ("Gulbenkian Museum", "per person", 10, "2025-05-17"),
    ("Sunset sailboat on the Tagus", "per group", 240, "2025-05-17"),
    ("Oceanário de Lisboa", "per person", 25, "2025-05-18"),
]
# activities the group may add later (not in the shipped plan)
HEADCOUNT_EXTRAS: list[tuple[str, str, int, str]] = [
    ("Pastel de nata baking class", "per person", 45, "2025-05-18"),
    ("Tram 28 guided ride", "per person", 18, "2025-05-16"),
    ("Private sunset photo walk", "per group", 120, "2025-05-16"),
]
# how the group speaks of each activity mid-sentence
HEADCOUNT_SPOKEN = {
    "Fado dinner at Clube de Fado": "fado dinner",
    "Sintra and Cascais day trip": "Sintra and Cascais day trip",
    "Private street-art walking tour": "street-art walking tour",
    "Gulbenkian Museum": "Gulbenkian Museum visit",
    "Sunset sailboat on the Tagus": "sunset sailboat on the Tagus",
    "Oceanário de Lisboa": "Oceanário visit",
    "Pastel de nata baking class": "pastel de nata baking class",
    "Tram 28 guided ride": "Tram 28 guided ride",
    "Private sunset photo walk": "sunset photo walk",
}
# the activities the size-100 day plans name: never dropped there
HEADCOUNT_IN_DAY_PLANS = {a[0] for a in HEADCOUNT_ACTIVITIES}
HEADCOUNT_TABLES: list[tuple[str, str, str]] = [
    ("Taberna da Rua das Flores", "2025-05-16", "20:30"),
    ("Cervejaria Ramiro", "2025-05-17", "21:00"),
]
HEADCOUNT_TABLES_100: list[tuple[str, str, str]] = [
    ("A Cevicheria", "2025-05-18", "13:00"),
    ("Time Out Market", "2025-05-18", "19:30"),
]

HEADCOUNT_DAYS: list[tuple[str, str, str, str]] = [
    ("2025-05-16", "land 10:50, drop bags", "Alfama and the castle", "fado dinner"),
    ("2025-05-17", "Sintra palaces", "Cascais beach", "Cervejaria Ramiro"),
    ("2025-05-18", "street-art tour in Graça", "Belém pastries", "airport by 19:30"),
]
VAN_SEATS = 8
FARES = [128, 119, 134, 142, 109, 149, 97]
FOOD_RATES = [45, 40, 50, 55, 60, 35]
LOFT_PRICES = [540, 480, 590, 620, 660]


def headcount_inputs(size: int, d: Draw) -> dict[str, Any]:
    """The group's inputs: how many go, the fare, food rate, loft and taxi prices, the
    activities ``[name, pricing, price, date]`` (and those dropped or still to add), and the
    names the conversation states."""
    activities = [list(a) for a in HEADCOUNT_ACTIVITIES]
    activities[0][2] = d.pick([55, 49, 62, 45])
    activities[1][2] = d.pick([39, 35, 42, 48])
    activities[2][2] = d.pick([150, 130, 170, 180])
    if size == 100:
        activities += [list(a) for a in HEADCOUNT_ACTIVITIES_100]
    return {
        "size": size,
        "travelers": d.int(3, 6, shipped=4),
        "fare": d.pick(FARES),
        "food": d.pick(FOOD_RATES),
        "loft": d.pick(LOFT_PRICES),
        "deposit": d.pick([200, 150, 250]),
        "taxi": d.pick([35, 30, 40, 45]),
        "kitty": d.pick([60, 50, 80]),
        "host": d.pick(["Inês", "Rita", "Beatriz"]),
        "holder": d.pick(["Jonas", "Lena", "Felix", "Mia"]),
        "activities": activities,
        "extras": [list(a) for a in (HEADCOUNT_EXTRAS if size >= 50 else [])],
    }


headcount_params = shipped_params(headcount_inputs)


def _rides(n: int) -> int:
    """Taxi rides to and from the airport: one van per 8 people each way."""
    return 2 * -(-n // VAN_SEATS)


def headcount_compute(p: dict[str, Any]) -> dict[str, Any]:
    n, size, days = p["travelers"], p["size"], 3
    trip: dict[str, Any] = {"destination": "Lisbon", "travelers": n, "days": days}
    apartment: dict[str, Any] = {"name": "Alfama Rooftop Loft", "total_eur": p["loft"]}
    fare = p["fare"]
    flights: dict[str, Any] = {"fare_per_person_eur": fare, "total_eur": fare * n}
    food: dict[str, Any] = {"per_person_per_day_eur": p["food"], "total_eur": p["food"] * n * days}
    art: dict[str, Any] = {"trip": trip, "apartment": apartment, "flights": flights, "food": food}
    if size == 10:
        art["total_eur"] = apartment["total_eur"] + flights["total_eur"] + food["total_eur"]
        return art
    trip.update(start_date="2025-05-16", end_date="2025-05-18", home_city="Berlin")
    apartment.update(check_in="15:00", deposit_paid_eur=p["deposit"], host=p["host"])
    flights.update(
        airline="TAP Air Portugal",
        outbound="2025-05-16 07:05",
        return_flight="2025-05-18 21:40",
        booking_ref="TP8K2Q",
    )
    art["activities"] = [
        {
            "name": name,
            "date": date,
            "pricing": pricing,
            "price_eur": price,
            "cost_eur": price * n if pricing == "per person" else price,
        }
        for name, pricing, price, date in p["activities"]
    ]
    rides = _rides(n)
    art["airport_taxi"] = {
        "vehicle": "van, seats 8",
        "eur_per_ride": p["taxi"],
        "rides": rides,
        "total_eur": p["taxi"] * rides,
    }
    tables = HEADCOUNT_TABLES + (HEADCOUNT_TABLES_100 if size == 100 else [])
    art["restaurant_bookings"] = [
        {"restaurant": name, "date": date, "time": time, "party_size": n}
        for name, date, time in tables
    ]
    activities_total = sum(a["cost_eur"] for a in art["activities"])
    art["activities_total_eur"] = activities_total
    total = (
        apartment["total_eur"]
        + flights["total_eur"]
        + food["total_eur"]
        + activities_total
        + art["airport_taxi"]["total_eur"]
    )
    art["total_eur"] = total
    art["per_person_eur"] = money(total / n)
    art["summary"] = f"Long weekend in Lisbon for {n} friends from Berlin"
    if size == 100:
        apartment.update(
            address="Rua dos Remédios 41, 3rd floor", check_out="11:00", door_code="4417"
        )
        art["kitty"] = {
            "purpose": "tips, coffee and trams",
            "per_person_eur": p["kitty"],
            "total_eur": p["kitty"] * n,
            "held_by": p["holder"],
        }
        art["day_plans"] = [
            {"date": date, "morning": m, "afternoon": a, "evening": e}
            for date, m, a, e in HEADCOUNT_DAYS
        ]
        art["packing"] = [
            "comfortable shoes",
            "light rain jacket",
            "power adapter (type F)",
            "sunscreen",
            "swimwear for Cascais",
        ]
        art["emergency"] = {
            "number": "112",
            "embassy": "German Embassy Lisbon, +351 21 881 0210",
            "pharmacy": "Farmácia Estácio, Rossio",
        }
    return art


def headcount_conversation(p: dict[str, Any]) -> list[Turn]:
    size, n = p["size"], p["travelers"]
    loft, fare, food = euros(p["loft"]), euros(p["fare"]), euros(p["food"])
    if size == 10:
        return [
            (
                f"I'm organizing a long weekend in Lisbon with friends: {n} of us, 3 days.",
                ["/trip"],
            ),
            (
                f"We found a loft in Alfama for {loft} for the whole stay, however many of us sleep there.",
                ["/apartment"],
            ),
            (f"Return flights from Berlin are {fare} per person.", ["/flights"]),
            (f"For food, plan {food} per person per day.", ["/food"]),
            ("What does the whole weekend come to?", ["/total_eur"]),
        ]
    turns: list[Turn] = [
        (
            "I'm organizing a long weekend in Lisbon, 16 to 18 May 2025, three days. We're "
            f"{n} friends flying from Berlin.",
            ["/trip"],
        ),
        (
            f"Booked the Alfama Rooftop Loft: {loft} for the whole stay regardless of headcount, check-in "
            f"from 15:00, host is {p['host']}. We already paid her a {euros(p['deposit'])} deposit.",
            [
                "/apartment/name",
                "/apartment/total_eur",
                "/apartment/check_in",
                "/apartment/deposit_paid_eur",
                "/apartment/host",
            ],
        ),
        (
            f"Flights are with TAP, {fare} return per person: out 16 May at 07:05, back 18 May at 21:40, "
            "booking reference TP8K2Q.",
            ["/flights"],
        ),
        (f"Food budget: {food} per person per day.", ["/food"]),
    ]
    fado, sintra, walk = (euros(a[2]) for a in p["activities"][:3])
    activity_text = (
        f"Activities: the fado dinner at Clube de Fado on the 16th ({fado} a head), the Sintra and Cascais "
        f"day trip on the 17th ({sintra} a head), and a private street-art walking tour on the 18th, which is "
        f"a flat {walk} for the group."
    )
    pointers = ["/activities/0", "/activities/1", "/activities/2"]
    if size == 100:
        activity_text += (
            " Also the Gulbenkian Museum on the 17th (€10 each), a sunset sailboat on the Tagus that "
            "evening (€240 for the whole boat), and the Oceanário on the 18th (€25 each)."
        )
        pointers += ["/activities/3", "/activities/4", "/activities/5"]
    turns += [
        (activity_text, pointers),
        (
            f"We'll take a van taxi to and from the airport: it seats {VAN_SEATS} and costs "
            f"{euros(p['taxi'])} per ride, so {count_word(_rides(n))} rides.",
            ["/airport_taxi"],
        ),
    ]
    booking_text = (
        "Reserve tables for all of us at Taberna da Rua das Flores on the 16th at 20:30 and "
        "at Cervejaria Ramiro on the 17th at 21:00."
    )
    booking_ptrs = ["/restaurant_bookings/0", "/restaurant_bookings/1"]
    if size == 100:
        booking_text += (
            " Same for A Cevicheria on the 18th at 13:00 and Time Out Market that evening at 19:30."
        )
        booking_ptrs += ["/restaurant_bookings/2", "/restaurant_bookings/3"]
    turns += [
        (booking_text, booking_ptrs),
        (
            "Add up the activities, then the full budget: apartment, flights, food, activities and taxis. "
            "Also show what that is per person if we split it evenly, to the cent.",
            ["/activities_total_eur", "/total_eur", "/per_person_eur"],
        ),
    ]
    turns.append(
        ("Put a one-line summary in the plan, something like who's going where.", ["/summary"])
    )
    if size == 100:
        turns += [
            (
                f"{p['host']} sent the details: the loft is at Rua dos Remédios 41, 3rd floor, door code 4417, "
                "check-out by 11:00.",
                ["/apartment/address", "/apartment/check_out", "/apartment/door_code"],
            ),
            (
                f"On top of the budget, everyone puts {euros(p['kitty'])} into a kitty for tips, coffee and "
                f"trams; {p['holder']} holds it. Keep that outside the budget total.",
                ["/kitty"],
            ),
            (
                "Rough plan per day. Friday: land 10:50 and drop the bags, Alfama and the castle in the "
                "afternoon, fado dinner. Saturday: Sintra palaces, then Cascais beach, dinner at Ramiro. "
                "Sunday: street-art tour in Graça, pastries in Belém, at the airport by 19:30.",
                ["/day_plans"],
            ),
            (
                "Packing reminders: comfortable shoes, a light rain jacket, a type F power adapter, sunscreen "
                "and swimwear for Cascais. And note the emergency number 112, the German Embassy "
                "(+351 21 881 0210) and the nearest pharmacy, Farmácia Estácio on Rossio.",
                ["/packing", "/emergency"],
            ),
        ]
    return turns


def headcount_revision(p: dict[str, Any]) -> Revision:
    overrides = {}
    if p["size"] >= 50:
        overrides["/summary"] = regex(r"(?i)\b(5|five)\b")
    return Revision(
        request="Good news: Marta can come after all, so we'll be five.",
        mutate=lambda q: q.update(travelers=5),
        direct="/trip/travelers",
        overrides=overrides,
    )


def _headcount_summary(size: int, n: int, word: str) -> dict[str, Override]:
    return {"/summary": regex(rf"(?i)\b({n}|{word})\b")} if size >= 50 else {}


def headcount_followups(p: dict[str, Any]) -> list[Revision]:
    size = p["size"]

    def f1(q: dict[str, Any]) -> None:
        q.update(travelers=6)

    def f2(q: dict[str, Any]) -> None:
        q.update(travelers=9)

    def f3(q: dict[str, Any]) -> None:
        q.update(fare=149)

    def f4(q: dict[str, Any]) -> None:
        q.update(travelers=7)

    return [
        Revision(
            request="And Marta's bringing her sister Carla, so make that six of us.",
            mutate=f1,
            direct="/trip/travelers",
            overrides=_headcount_summary(size, 6, "six"),
            theme="The headcount rises again (5 to 6): every per-person cost, the totals, the split and the "
            "table bookings follow",
            pattern="arithmetic",
        ),
        Revision(
            request="Three people from my old team heard about it and are coming too: we're nine now.",
            mutate=f2,
            direct="/trip/travelers",
            overrides=_headcount_summary(size, 9, "nine"),
            theme="Nine travelers no longer fit one 8-seat van: the airport rides double on top of every "
            "per-person cost and total",
            pattern="threshold",
        ),
        Revision(
            request="TAP put the fare up: flights are €149 per person now.",
            mutate=f3,
            direct="/flights/fare_per_person_eur",
            theme="A higher fare raises the flights total, the trip total and the per-person share",
            pattern="arithmetic",
        ),
        Revision(
            request="Two of the nine dropped out, so we're seven after all.",
            mutate=f4,
            direct="/trip/travelers",
            overrides=_headcount_summary(size, 7, "seven"),
            theme="Back under eight people one van per ride will do again, and every per-person cost and total "
            "comes down",
            pattern="threshold",
        ),
    ]


# moves of travel-group-headcount: the headcount changes (on one side of the 8-seat van, or
# across it where the taxi is planned), the fare, food rate and loft price change, and (from
# size 50, where activities are listed) an activity is re-priced, dropped or added last


def _vans(n: int) -> int:
    return -(-n // VAN_SEATS)


def _regroup(p: dict[str, Any], d: Draw, cross: bool) -> Revision | None:
    old, size = p["travelers"], p["size"]
    pool = [
        n for n in range(2, 13) if n != old and (size == 10 or (_vans(n) != _vans(old)) == cross)
    ]
    if not pool:
        return None
    n = d.pick(pool)
    diff = abs(n - old)
    if n > old:
        who = "friend is" if diff == 1 else "friends are"
        request = d.pick(
            [
                f"{count_word(diff).capitalize()} more {who} coming along: we're {count_word(n)} now.",
                f"Make it {count_word(n)} of us: {count_word(diff)} more {who} joining.",
            ]
        )
    else:
        request = d.pick(
            [
                f"{count_word(diff).capitalize()} of us dropped out, so we're {count_word(n)} now.",
                f"We're down to {count_word(n)}: {count_word(diff)} can't make it after all.",
            ]
        )
    return Revision(
        request=request,
        mutate=lambda q: q.update(travelers=n),
        direct="/trip/travelers",
        overrides=_headcount_summary(size, n, count_word(n)),
        theme=f"The group goes from {old} to {n}"
        + (" (the airport vans change)" if cross else "")
        + ": every per-person cost and total follows",
    )


_refare = _restate(
    "fare",
    FARES,
    lambda new, old: [
        f"TAP changed the fare: flights are {euros(new)} per person now.",
        f"The return flights are {euros(new)} per person after all.",
    ],
    "/flights/fare_per_person_eur",
    "A new fare changes the flights total, the trip total and the split",
)
_refood = _restate(
    "food",
    FOOD_RATES,
    lambda new, old: f"Let's plan {euros(new)} per person per day for food instead.",
    "/food/per_person_per_day_eur",
    "A new food rate changes the food total, the trip total and the split",
)
_reloft = _restate(
    "loft",
    LOFT_PRICES,
    lambda new, old: f"The loft's price for the whole stay is {euros(new)}, not {euros(old)}.",
    "/apartment/total_eur",
    "A new loft price changes the trip total and the split",
)


def _priced(row: list[Any]) -> str:
    """An activity's price as the group states it."""
    return f"{euros(row[2])} " + ("a head" if row[1] == "per person" else "for the whole group")


def _activity_price(p: dict[str, Any], d: Draw) -> Revision | None:
    i = d.pick(range(len(p["activities"])))
    row = p["activities"][i]
    price = d.pick([x for x in range(row[2] - 15, row[2] + 25, 5) if x > 5 and x != row[2]])
    spoken = HEADCOUNT_SPOKEN[row[0]]
    new = [row[0], row[1], price, row[3]]
    return Revision(
        request=f"The {spoken} costs {_priced(new)} now.",
        mutate=lambda q: q["activities"][i].__setitem__(2, price),
        direct=f"/activities/{i}/price_eur",
        theme=f"The {spoken} is re-priced: its cost, the activities total, the trip total and the split follow",
    )


def _drop_activity(p: dict[str, Any], d: Draw) -> Revision | None:
    keep = HEADCOUNT_IN_DAY_PLANS if p["size"] == 100 else set()
    choices = [i for i, row in enumerate(p["activities"]) if row[0] not in keep]
    if not choices or len(p["activities"]) < 2:
        return None
    i = d.pick(choices)
    spoken = HEADCOUNT_SPOKEN[p["activities"][i][0]]

    def drop(q: dict[str, Any]) -> None:
        q["extras"].append(q["activities"].pop(i))

    return Revision(
        request=d.pick([f"Let's skip the {spoken}.", f"Take the {spoken} out of the plan."]),
        mutate=drop,
        direct=f"/activities/{i}",
        theme=f"The {spoken} leaves the plan: the activities total, the trip total and the split fall",
    )


def _add_activity(p: dict[str, Any], d: Draw) -> Revision | None:
    if not p["extras"]:
        return None
    row = d.pick(p["extras"])
    day = int(row[3][-2:])

    def add(q: dict[str, Any]) -> None:
        q["extras"].remove(row)
        q["activities"].append(row)

    return Revision(
        request=f"Add this to the activities, as the last one: {row[0]} on the {day}th, {_priced(row)}.",
        mutate=add,
        direct=f"/activities/{len(p['activities'])}",
        theme=f"The {HEADCOUNT_SPOKEN[row[0]]} joins the plan: the activities total, the trip total and the split rise",
    )


def _from_50(p: dict[str, Any]) -> bool:
    return p["size"] >= 50  # type: ignore[no-any-return]


HEADCOUNT_MOVES = [
    Move("headcount", "arithmetic", lambda p, d: _regroup(p, d, cross=False)),
    Move("cross-van", "threshold", lambda p, d: _regroup(p, d, cross=True), when=_from_50),
    Move("fare", "arithmetic", _refare, opens=False),
    Move("food-rate", "arithmetic", _refood, opens=False),
    Move("loft-price", "arithmetic", _reloft, opens=False),
    Move("activity-price", "arithmetic", _activity_price, when=_from_50),
    Move("drop-activity", "add_remove", _drop_activity, when=_from_50),
    Move("add-activity", "add_remove", _add_activity, when=_from_50),
]


# --------------------------------------------------------------------------- travel-hotel-swap
# Substitution: the Kyoto hotel is swapped; its attributes, the costs it drives and every
# place that names it follow. The Osaka hotel is a distractor.

KYOTO_HOTELS: dict[str, dict[str, Any]] = {
    "Hotel Kamogawa Riverside": {
        "neighborhood": "Pontocho",
        "nightly_rate_usd": 180,
        "breakfast_included": False,
        "check_in_time": "15:00",
        "address": "145 Nabeya-cho, Nakagyo-ku, Kyoto",
        "phone": "+81 75-221-0145",
        "free_cancellation_days": 3,
    },
    "Gion Garden Inn": {
        "neighborhood": "Gion",
        "nightly_rate_usd": 205,
        "breakfast_included": True,
        "check_in_time": "14:00",
        "address": "570 Gionmachi Minamigawa, Higashiyama-ku, Kyoto",
        "phone": "+81 75-561-0570",
        "free_cancellation_days": 7,
    },
    "Higashiyama Lantern House": {
        "neighborhood": "Higashiyama",
        "nightly_rate_usd": 160,
        "breakfast_included": True,
        "check_in_time": "16:00",
        "address": "463 Kiyomizu 2-chome, Higashiyama-ku, Kyoto",
        "phone": "+81 75-531-0463",
        "free_cancellation_days": 5,
    },
    "Okazaki Canal Hotel": {
        "neighborhood": "Okazaki",
        "nightly_rate_usd": 240,
        "breakfast_included": False,
        "check_in_time": "15:00",
        "address": "38 Okazaki Tennocho, Sakyo-ku, Kyoto",
        "phone": "+81 75-771-0038",
        "free_cancellation_days": 2,
    },
}
# the nightly rates fresh instances draw from, per hotel (first: the shipped one)
KYOTO_RATES: dict[str, list[int]] = {
    "Hotel Kamogawa Riverside": [180, 165, 195, 210],
    "Gion Garden Inn": [205, 190, 220, 235],
    "Higashiyama Lantern House": [160, 150, 175, 185],
    "Okazaki Canal Hotel": [240, 225, 255, 270],
}
OSAKA_HOTEL: dict[str, Any] = {
    "hotel": "Hotel Dotonbori Crest",
    "neighborhood": "Namba",
    "nightly_rate_usd": 140,
    "breakfast_included": False,
    "check_in_time": "15:00",
    "address": "2-8-14 Dotonbori, Chuo-ku, Osaka",
    "phone": "+81 6-6211-0814",
    "free_cancellation_days": 1,
}
SWAP_ARRIVE = "2025-10-14"


def swap_inputs(size: int, d: Draw) -> dict[str, Any]:
    """The Kyoto hotel chosen, every candidate hotel's terms (``hotels``, with drawn rates; a
    move changes them there), the nights in Kyoto and the amounts the conversation states."""
    hotels = {name: dict(info) for name, info in KYOTO_HOTELS.items()}
    for name, info in hotels.items():
        info["nightly_rate_usd"] = d.pick(KYOTO_RATES[name])
    inputs: dict[str, Any] = {
        "size": size,
        "travelers": 2,
        "kyoto_hotel": d.pick(list(KYOTO_HOTELS)),
        "hotels": hotels,
        "kyoto_nights": 4,
        "breakfast": d.pick([15, 12, 18, 20]),
        "shuttle": d.pick([70, 60, 80]),
        "forwarding": d.pick([30, 25, 35]),
        "names": d.pick(["Ana and Tom", "Mei and Jonas", "Sara and Luis"]),
    }
    if size == 10:  # only size 10 has no dates that follow the nights in Kyoto
        inputs["kyoto_nights"] = d.pick([4, 3, 5])
    return inputs


swap_params = shipped_params(swap_inputs)


def _stay(
    city: str, hotel: str, info: dict[str, Any], nights: int, check_in: str, size: int
) -> dict[str, Any]:
    stay: dict[str, Any] = {
        "city": city,
        "nights": nights,
        "hotel": hotel,
        "neighborhood": info["neighborhood"],
        "nightly_rate_usd": info["nightly_rate_usd"],
        "breakfast_included": info["breakfast_included"],
    }
    if size >= 50:
        stay.update(
            check_in_date=check_in,
            check_out_date=add_days(check_in, nights),
            check_in_time=info["check_in_time"],
            address=info["address"],
            lodging_usd=info["nightly_rate_usd"] * nights,
        )
    if size == 100:
        stay.update(
            phone=info["phone"],
            free_cancellation_until=add_days(check_in, -info["free_cancellation_days"]),
        )
    return stay


def _kyoto_info(p: dict[str, Any]) -> dict[str, Any]:
    """The Kyoto hotel's terms, as the user's changes left them."""
    return p["hotels"][p["kyoto_hotel"]]  # type: ignore[no-any-return]


def swap_compute(p: dict[str, Any]) -> dict[str, Any]:
    size, n = p["size"], p["travelers"]
    kyoto = _stay("Kyoto", p["kyoto_hotel"], _kyoto_info(p), p["kyoto_nights"], SWAP_ARRIVE, size)
    stays = [kyoto]
    if size >= 50:
        stays.append(
            _stay("Osaka", OSAKA_HOTEL["hotel"], OSAKA_HOTEL, 2, add_days(SWAP_ARRIVE, 4), size)
        )
    lodging = sum(s["nightly_rate_usd"] * s["nights"] for s in stays)
    breakfast = sum(p["breakfast"] * n * s["nights"] for s in stays if not s["breakfast_included"])
    costs: dict[str, Any] = {"lodging_usd": lodging, "breakfast_usd": breakfast}
    art: dict[str, Any] = {"trip": {"travelers": n}, "stays": stays, "costs": costs}
    if size == 10:
        costs["total_usd"] = lodging + breakfast
        return art
    art["trip"].update(
        title="Kansai in autumn",
        arrive=SWAP_ARRIVE,
        depart=add_days(SWAP_ARRIVE, 6),
        flights="Zipair NRT-KIX connection, booked separately",
    )
    hotel = p["kyoto_hotel"]
    art["transfers"] = [
        {
            "from": "Kansai Airport",
            "to": hotel,
            "date": SWAP_ARRIVE,
            "service": "MK Skygate Shuttle",
            "price_usd": p["shuttle"],
        },
        {
            "from": hotel,
            "to": OSAKA_HOTEL["hotel"],
            "date": add_days(SWAP_ARRIVE, 4),
            "service": "luggage forwarding",
            "price_usd": p["forwarding"],
        },
    ]
    transfers = p["shuttle"] + p["forwarding"]
    costs["transfers_usd"] = transfers
    costs["total_usd"] = lodging + breakfast + transfers
    costs["per_person_usd"] = money(costs["total_usd"] / n)
    art["notes"] = ["JR Pass not worth it for this route", "Carry cash for temples"]
    if size == 100:
        art["notes"] += ["Most temples close around 17:00", "Tax-free shopping needs the passport"]
    info = _kyoto_info(p)
    plans = [
        f"Land at KIX 11:40, shuttle to {hotel}, check in from {info['check_in_time']}",
        "Fushimi Inari at dawn, Nishiki Market for lunch",
        "Arashiyama bamboo grove, tea ceremony at 15:00",
    ]
    if size == 100:
        plans += [
            "Day trip to Nara, back for dinner in Kyoto",
            "Bags go ahead by courier, train to Osaka, check in at Hotel Dotonbori Crest from 15:00",
            "Osaka Castle, Kuromon Market, Dotonbori at night",
        ]
        art["reservations"] = [
            {
                "what": "Tea ceremony, Camellia Garden",
                "date": "2025-10-16",
                "time": "15:00",
                "paid": True,
            },
            {"what": "Kikunoi dinner", "date": "2025-10-17", "time": "19:00", "paid": False},
            {
                "what": "Universal Studios tickets",
                "date": "2025-10-19",
                "time": "09:00",
                "paid": True,
            },
        ]
    art["days"] = [{"date": add_days(SWAP_ARRIVE, i), "plan": plan} for i, plan in enumerate(plans)]
    if size == 100:
        for i, day in enumerate(art["days"]):
            day["overnight"] = hotel if i < 4 else OSAKA_HOTEL["hotel"]
        art["trip"]["travelers_names"] = p["names"]
        art["shortlist"] = [
            {"hotel": "Kyoto Machiya Stay", "nightly_rate_usd": 230, "breakfast_included": True},
            {"hotel": "Sanjo Station Hotel", "nightly_rate_usd": 150, "breakfast_included": False},
        ]
        art["packing"] = ["slip-on shoes for temples", "coin purse", "umbrella", "portable charger"]
        art["reservations"].append(
            {"what": "Pocket wifi pickup", "date": SWAP_ARRIVE, "time": "11:40", "paid": True}
        )
        art["rail"] = {
            "route": "Kyoto to Osaka, JR Special Rapid",
            "date": add_days(SWAP_ARRIVE, 4),
            "fare_usd_per_person": 4,
        }
        art["emergency"] = {"police": "110", "ambulance_fire": "119"}
    return art


def _breakfast_words(included: bool) -> str:
    return "breakfast included" if included else "breakfast not included"


def _cancel_words(days: int) -> str:
    return "the day before arrival" if days == 1 else f"{days} days before arrival"


def swap_conversation(p: dict[str, Any]) -> list[Turn]:
    size, hotel = p["size"], p["kyoto_hotel"]
    kyoto = _kyoto_info(p)
    room = f"{dollars(kyoto['nightly_rate_usd'])} a night for the room"
    morning = dollars(p["breakfast"])
    if size == 10:
        return [
            (
                f"My partner and I are planning {p['kyoto_nights']} nights in Kyoto. Just the two of us.",
                ["/trip", "/stays/0/city", "/stays/0/nights"],
            ),
            (
                f"We're looking at {hotel} in {kyoto['neighborhood']}: {room}, "
                f"{_breakfast_words(kyoto['breakfast_included'])}.",
                [
                    "/stays/0/hotel",
                    "/stays/0/neighborhood",
                    "/stays/0/nightly_rate_usd",
                    "/stays/0/breakfast_included",
                ],
            ),
            (
                "Work out the room cost for the stay. And if breakfast isn't included, budget "
                f"{morning} per person for every morning, one morning per night we stay. Then give me "
                "the total of the two.",
                ["/costs"],
            ),
        ]
    stay_ptrs = [
        "hotel",
        "neighborhood",
        "nightly_rate_usd",
        "breakfast_included",
        "check_in_date",
        "check_out_date",
        "check_in_time",
        "address",
        "lodging_usd",
    ]
    if size == 100:
        stay_ptrs += ["phone", "free_cancellation_until"]
    kyoto_text = (
        f"For Kyoto we like {hotel} in {kyoto['neighborhood']}, {kyoto['address']}: {room}, "
        f"{_breakfast_words(kyoto['breakfast_included'])}, check-in from {kyoto['check_in_time']}."
    )
    osaka_text = (
        "For Osaka, Hotel Dotonbori Crest in Namba, 2-8-14 Dotonbori, Chuo-ku: $140 a night, "
        "no breakfast, check-in 15:00."
    )
    if size == 100:
        kyoto_text += (
            f" Phone {kyoto['phone']}; free cancellation until "
            f"{_cancel_words(kyoto['free_cancellation_days'])}."
        )
        osaka_text += " Phone +81 6-6211-0814; free cancellation until the day before arrival."
    turns: list[Turn] = [
        (
            "Planning Kansai in autumn for my partner and me: arriving in Kyoto on 14 October 2025 for "
            "4 nights, then 2 nights in Osaka, flying out on the 20th. Flights are a Zipair connection "
            "we booked separately.",
            [
                "/trip/travelers",
                "/trip/title",
                "/trip/arrive",
                "/trip/depart",
                "/trip/flights",
                "/stays/0/city",
                "/stays/0/nights",
                "/stays/1/city",
                "/stays/1/nights",
            ],
        ),
        (
            kyoto_text + " Put the room cost for the stay next to it.",
            [f"/stays/0/{k}" for k in stay_ptrs],
        ),
        (osaka_text, [f"/stays/1/{k}" for k in stay_ptrs]),
        (
            "Costs so far: all the rooms together, plus breakfast where the hotel doesn't include it, "
            f"at {morning} per person per morning, one morning per night.",
            ["/costs/lodging_usd", "/costs/breakfast_usd"],
        ),
        (
            "Transfers: the MK Skygate Shuttle from Kansai Airport to our Kyoto hotel on arrival day "
            f"({dollars(p['shuttle'])}), and luggage forwarding from the Kyoto hotel to the Osaka one "
            f"on the 18th ({dollars(p['forwarding'])}).",
            ["/transfers", "/costs/transfers_usd"],
        ),
        (
            "Total it up: rooms, breakfasts and transfers, and what that is for each of us.",
            ["/costs/total_usd", "/costs/per_person_usd"],
        ),
        (
            "Notes to self: the JR Pass isn't worth it for this route, and carry cash for temples."
            + (
                " Also: most temples close around 17:00, and tax-free shopping needs the passport."
                if size == 100
                else ""
            ),
            ["/notes"],
        ),
    ]
    plan_text = (
        "Day by day: on arrival we land at KIX at 11:40 and take the shuttle to the hotel to check "
        "in; then Fushimi Inari at dawn with lunch at Nishiki Market; then the Arashiyama bamboo "
        "grove and a 15:00 tea ceremony."
    )
    if size == 50:
        return [*turns, (plan_text, ["/days"])]
    return [
        *turns,
        (
            plan_text
            + " After that a day trip to Nara; on the 18th the bags go ahead by courier and we "
            "train to Osaka; last day Osaka Castle, Kuromon Market and Dotonbori at night.",
            [f"/days/{i}/{k}" for i in range(6) for k in ("date", "plan")],
        ),
        (
            "For each day, also note which hotel we sleep at that night.",
            [f"/days/{i}/overnight" for i in range(6)],
        ),
        (
            "Reservations I've made: the tea ceremony at Camellia Garden on the 16th at 15:00 (paid), "
            "Kikunoi dinner on the 17th at 19:00 (pay there), Universal Studios on the 19th from 09:00 (paid), "
            "and the pocket wifi pickup at KIX when we land at 11:40 (paid).",
            ["/reservations"],
        ),
        (
            f"It's {p['names']} travelling, by the way. Keep the other two Kyoto places we looked at for "
            "reference: Kyoto Machiya Stay ($230, breakfast included) and Sanjo Station Hotel ($150, no "
            "breakfast).",
            ["/trip/travelers_names", "/shortlist"],
        ),
        (
            "On the 18th we take the JR Special Rapid from Kyoto to Osaka, $4 each. Packing: slip-on shoes "
            "for temples, a coin purse, an umbrella and a portable charger. Emergency numbers: police 110, "
            "ambulance and fire 119.",
            ["/rail", "/packing", "/emergency"],
        ),
    ]


def _hotel_reference(p: dict[str, Any], name: str) -> dict[str, Any]:
    """Hotel ``name``'s details as the user hands them over, as much as the size records."""
    new = p["hotels"][name]
    reference: dict[str, Any] = {
        "hotel": name,
        "neighborhood": new["neighborhood"],
        "nightly_rate_usd": new["nightly_rate_usd"],
        "breakfast_included": new["breakfast_included"],
    }
    if p["size"] >= 50:
        reference.update(check_in_time=new["check_in_time"], address=new["address"])
    if p["size"] == 100:
        reference.update(
            phone=new["phone"],
            free_cancellation=f"until {_cancel_words(new['free_cancellation_days'])}",
        )
    return reference


def _first_day(p: dict[str, Any], name: str, words: str = "") -> dict[str, Override]:
    """From size 50 the first day's plan names the Kyoto hotel and its check-in time (words
    the user did not spell): a pattern, on the hotel's name (``words``: the part of it that
    must appear; the names hold no regex characters)."""
    if p["size"] < 50:
        return {}
    time = p["hotels"][name]["check_in_time"]
    return {"/days/0/plan": regex(all_of(words or name.lower(), time))}


def swap_revision(p: dict[str, Any]) -> Revision:
    return Revision(
        request="Let's switch Kyoto to the Gion Garden Inn instead. Its details are below.",
        mutate=lambda q: q.update(kyoto_hotel="Gion Garden Inn"),
        direct="/stays/0/hotel",
        overrides=_first_day(p, "Gion Garden Inn"),
        reference=_hotel_reference(p, "Gion Garden Inn"),
    )


def _hotel_term(name: str, key: str, value: Any) -> Any:
    def mutate(q: dict[str, Any]) -> None:
        q["hotels"][name][key] = value

    return mutate


def swap_followups(p: dict[str, Any]) -> list[Revision]:
    return [
        Revision(
            request="Gion Garden Inn matched a lower price when I emailed them: $190 a night.",
            mutate=_hotel_term("Gion Garden Inn", "nightly_rate_usd", 190),
            direct="/stays/0/nightly_rate_usd",
            theme="The new hotel's nightly rate drops; the Kyoto room cost, lodging, total and per-person share "
            "follow",
            pattern="arithmetic",
        ),
        Revision(
            request="Small catch: at that price breakfast isn't included at the Gion Garden Inn.",
            mutate=_hotel_term("Gion Garden Inn", "breakfast_included", False),
            direct="/stays/0/breakfast_included",
            theme="Breakfast stops being included at the Kyoto hotel, so four mornings of breakfast join the "
            "budget and the totals rise",
            pattern="status_flip",
        ),
        Revision(
            request="Gion Garden Inn lost our reservation, so we're going back to Hotel Kamogawa Riverside. Its "
            "details are below.",
            mutate=lambda q: q.update(kyoto_hotel="Hotel Kamogawa Riverside"),
            direct="/stays/0/hotel",
            overrides=_first_day(p, "Hotel Kamogawa Riverside", "kamogawa riverside"),
            reference=_hotel_reference(p, "Hotel Kamogawa Riverside"),
            theme="The swap is undone: the first hotel's terms come back and every place that names the Kyoto "
            "hotel or depends on its rate follows",
            pattern="substitution",
        ),
    ]


# moves of travel-hotel-swap: the Kyoto hotel is swapped for another (its details handed over),
# its nightly rate changes, its breakfast becomes included or not, the breakfast budget per
# morning changes, and (size 10) the nights in Kyoto, (from size 50) the shuttle price


def _the(name: str) -> str:
    """A hotel's name mid-sentence: "the Gion Garden Inn", but "Hotel Kamogawa Riverside"."""
    return name if name.startswith("Hotel ") else f"the {name}"


def _swap_hotel(p: dict[str, Any], d: Draw) -> Revision | None:
    old = p["kyoto_hotel"]
    name = d.pick([h for h in p["hotels"] if h != old])
    return Revision(
        request=d.pick(
            [
                f"Let's switch Kyoto to {_the(name)} instead. Its details are below.",
                f"{old} is off: we're booking {_the(name)} for Kyoto. Details below.",
            ]
        ),
        mutate=lambda q: q.update(kyoto_hotel=name),
        direct="/stays/0/hotel",
        overrides=_first_day(p, name),
        reference=_hotel_reference(p, name),
        theme=f"{name} replaces {old}: its terms, the costs they drive and every place that "
        "names the Kyoto hotel follow",
    )


def _hotel_rate(p: dict[str, Any], d: Draw) -> Revision | None:
    name = p["kyoto_hotel"]
    old = p["hotels"][name]["nightly_rate_usd"]
    rate = d.pick([x for x in range(old - 30, old + 35, 5) if x != old and x > 100])
    return Revision(
        request=d.pick(
            [
                f"{_the(name)[0].upper()}{_the(name)[1:]} changed its rate for our dates: {dollars(rate)} a night.",
                f"{name} quoted us {dollars(rate)} a night now, not {dollars(old)}.",
            ]
        ),
        mutate=_hotel_term(name, "nightly_rate_usd", rate),
        direct="/stays/0/nightly_rate_usd",
        theme="The Kyoto hotel's rate changes: the room cost, lodging, total and per-person share follow",
    )


def _hotel_breakfast(p: dict[str, Any], d: Draw) -> Revision | None:
    name = p["kyoto_hotel"]
    now = not p["hotels"][name]["breakfast_included"]
    request = (
        f"Good news: {_the(name)} includes breakfast in our rate now."
        if now
        else f"Small catch: breakfast isn't included at {_the(name)} any more."
    )
    return Revision(
        request=request,
        mutate=_hotel_term(name, "breakfast_included", now),
        direct="/stays/0/breakfast_included",
        theme="Breakfast at the Kyoto hotel "
        + (
            "becomes included: its mornings leave"
            if now
            else "stops being included: its mornings join"
        )
        + " the breakfast budget and the totals follow",
    )


_breakfast_budget = _restate(
    "breakfast",
    [12, 15, 18, 20, 25],
    lambda new, old: f"Let's budget {dollars(new)} per person per morning for breakfast instead.",
    "/costs/breakfast_usd",
    "A new breakfast rate changes the breakfast budget and the totals",
)


def _kyoto_nights(p: dict[str, Any], d: Draw) -> Revision | None:
    old = p["kyoto_nights"]
    n = d.pick([x for x in range(2, 8) if x != old])
    return Revision(
        request=f"Make it {count_word(n)} nights in Kyoto instead of {count_word(old)}.",
        mutate=lambda q: q.update(kyoto_nights=n),
        direct="/stays/0/nights",
        theme="The nights in Kyoto change: the room cost, breakfast and total follow",
    )


_shuttle = _restate(
    "shuttle",
    [55, 60, 70, 75, 80, 90],
    lambda new, old: f"The airport shuttle costs {dollars(new)}, not {dollars(old)}.",
    "/transfers/0/price_usd",
    "A new shuttle price changes the transfer costs and the totals",
)


def _breakfast_budgeted(p: dict[str, Any]) -> bool:
    """Whether some stay of the size budgets breakfast (at size 10 only the Kyoto hotel)."""
    return p["size"] >= 50 or not _kyoto_info(p)["breakfast_included"]


SWAP_MOVES = [
    Move("swap-hotel", "substitution", _swap_hotel),
    Move("hotel-rate", "arithmetic", _hotel_rate),
    Move("breakfast-flip", "status_flip", _hotel_breakfast),
    Move(
        "breakfast-budget", "arithmetic", _breakfast_budget, when=_breakfast_budgeted, opens=False
    ),
    Move("kyoto-nights", "arithmetic", _kyoto_nights, when=lambda p: p["size"] == 10),
    Move("shuttle-price", "arithmetic", _shuttle, when=_from_50, opens=False),
]


# --------------------------------------------------------------------------- travel-drop-excursion
# Add/remove: one booked tour is dropped; the day that listed it, the tour totals and the
# summary follow.

RING_START = "2025-06-09"
# (id, name, day, price per person): the catalog, in day order
RING_TOURS: list[tuple[str, str, int, int]] = [
    ("golden-circle", "Golden Circle small-group tour", 2, 89),
    ("glacier-hike", "Sólheimajökull glacier hike", 3, 125),
    ("zodiac", "Jökulsárlón zodiac boat tour", 4, 95),
    ("horse-riding", "Icelandic horse riding", 5, 85),
    ("whale-watching", "Húsavík whale watching", 6, 110),
    ("nature-baths", "Mývatn Nature Baths", 6, 55),
    ("krauma", "Krauma geothermal baths", 7, 45),
    ("lava-tunnel", "Raufarhólshellir lava tunnel", 8, 60),
]
RING_TOURS_BY_SIZE: dict[int, tuple[str, ...]] = {
    10: ("golden-circle", "whale-watching"),
    50: ("golden-circle", "glacier-hike", "whale-watching", "nature-baths"),
    100: (
        "golden-circle",
        "glacier-hike",
        "zodiac",
        "whale-watching",
        "nature-baths",
        "lava-tunnel",
    ),
}
# the per-person prices fresh instances draw from (first: the shipped one)
RING_PRICES: dict[str, list[int]] = {
    "golden-circle": [89, 79, 95, 99],
    "glacier-hike": [125, 115, 135, 149],
    "zodiac": [95, 85, 105],
    "horse-riding": [85, 79, 99],
    "whale-watching": [110, 99, 120, 129],
    "nature-baths": [55, 49, 62, 69],
    "krauma": [45, 39, 52],
    "lava-tunnel": [60, 55, 69],
}
# how the two of them speak of each tour mid-sentence
RING_SPOKEN = {
    "golden-circle": "Golden Circle tour",
    "glacier-hike": "glacier hike",
    "zodiac": "zodiac boat tour",
    "horse-riding": "horse riding",
    "whale-watching": "whale watching",
    "nature-baths": "Nature Baths",
    "krauma": "Krauma baths",
    "lava-tunnel": "lava tunnel tour",
}
RING_OVERNIGHTS = [
    "Reykjavík",
    "Hella",
    "Vík",
    "Höfn",
    "Egilsstaðir",
    "Mývatn",
    "Borgarnes",
    "flight home",
]
RING_STAYS: list[tuple[str, int, int]] = [
    ("Reykjavík, Hotel Frón", 1, 160),
    ("Hella, Stracta guesthouse", 1, 140),
    ("Vík, Puffin Hostel", 1, 120),
    ("Höfn, Milk Factory", 1, 150),
    ("Egilsstaðir, Lake Hotel", 1, 145),
    ("Mývatn, Vogafjós farm stay", 1, 170),
    ("Borgarnes, Hotel Hafnarfjall", 1, 130),
]
CAR_PRICES = [640, 590, 700, 760]
FUEL = [380, 340, 420, 450]


def ring_inputs(size: int, d: Draw) -> dict[str, Any]:
    """The tours booked (ids, in day order), every tour's price per person, and the car,
    fuel and budget amounts the conversation states."""
    return {
        "size": size,
        "tours": list(RING_TOURS_BY_SIZE[size]),
        "prices": {tid: d.pick(pool) for tid, pool in RING_PRICES.items()},
        "car": d.pick(CAR_PRICES),
        "fuel": d.pick(FUEL),
        "ceiling": d.pick([3500, 3800, 4000, 3200]),
    }


ring_params = shipped_params(ring_inputs)


def _ring_tours(p: dict[str, Any]) -> list[tuple[str, str, int, int]]:
    """The booked tours in day order (catalog order within a day), at their current prices."""
    return [(i, nm, d, p["prices"][i]) for i, nm, d, _ in RING_TOURS if i in p["tours"]]


def ring_compute(p: dict[str, Any]) -> dict[str, Any]:
    size, n = p["size"], 2
    tours = _ring_tours(p)
    car = p["car"]
    trip: dict[str, Any] = {"route": "Iceland ring road", "travelers": n, "nights": 7}
    activities_usd = sum(price * n for _, _, _, price in tours)
    if size == 10:
        activities = [{"name": name, "price_per_person_usd": price} for _, name, _, price in tours]
        return {
            "trip": trip,
            "activities": activities,
            "activities_total_usd": activities_usd,
            "car_rental_usd": car,
            "total_usd": activities_usd + car,
        }
    trip.update(start_date=RING_START, end_date=add_days(RING_START, 7))
    activities = [
        {
            "id": tid,
            "name": name,
            "date": add_days(RING_START, day - 1),
            "price_per_person_usd": price,
            "cost_usd": price * n,
        }
        for tid, name, day, price in tours
    ]
    days: list[dict[str, Any]] = []
    for i, overnight in enumerate(RING_OVERNIGHTS):
        todays = [t for t in tours if t[2] == i + 1]
        day: dict[str, Any] = {
            "date": add_days(RING_START, i),
            "overnight": overnight,
            "tours": [t[0] for t in todays],
        }
        if size == 100:
            day["tour_spend_usd"] = sum(t[3] * n for t in todays)
        days.append(day)
    costs: dict[str, Any] = {
        "activities_usd": activities_usd,
        "car_rental_usd": car,
        "fuel_usd": p["fuel"],
    }
    art: dict[str, Any] = {"trip": trip, "activities": activities, "days": days, "costs": costs}
    if size == 100:
        trip["summary"] = f"8 days, 7 nights, {len(tours)} tours"
        costs["lodging_usd"] = sum(price for _, _, price in RING_STAYS)
        art["stays"] = [
            {"place": place, "nights": nights, "price_usd": price}
            for place, nights, price in RING_STAYS
        ]
        art["car"] = {
            "company": "Blue Car Rental",
            "model": "Dacia Duster 4x4",
            "return": add_days(RING_START, 7),
        }
        art["packing"] = ["swimsuits", "eye mask for the midnight sun"]
    total = sum(v for v in costs.values())
    costs["total_usd"] = total
    costs["per_person_usd"] = money(total / n)
    if size == 100:
        costs["budget_ceiling_usd"] = p["ceiling"]
        costs["left_of_budget_usd"] = p["ceiling"] - total
    return art


def ring_conversation(p: dict[str, Any]) -> list[Turn]:
    size, price = p["size"], p["prices"]
    car = dollars(p["car"])
    if size == 10:
        return [
            ("We're two people doing the Iceland ring road, 7 nights.", ["/trip"]),
            (
                f"Tours so far: a Golden Circle small-group tour at {dollars(price['golden-circle'])} "
                f"each and whale watching out of Húsavík at {dollars(price['whale-watching'])} each.",
                ["/activities/0", "/activities/1"],
            ),
            (
                f"Add up the tours for both of us. The rental car is {car} for the week; then give me "
                "the grand total of tours and car.",
                ["/activities_total_usd", "/car_rental_usd", "/total_usd"],
            ),
        ]
    trip_ptrs = [
        "/trip/route",
        "/trip/travelers",
        "/trip/nights",
        "/trip/start_date",
        "/trip/end_date",
    ]
    turns: list[Turn] = [
        (
            "We're two people doing the Iceland ring road: landing 9 June 2025, 7 nights, flying home "
            "late on the 16th.",
            trip_ptrs,
        ),
        (
            "The overnight stops, in order: Reykjavík, Hella, Vík, Höfn, Egilsstaðir, Mývatn, Borgarnes; "
            "the last day ends with the flight home. One entry per day please.",
            [f"/days/{i}/{k}" for i in range(8) for k in ("date", "overnight")],
        ),
    ]
    tour_text = (
        "Tours we booked, prices per person: Golden Circle small-group tour on day 2 "
        f"({dollars(price['golden-circle'])}), Sólheimajökull glacier hike on day 3 "
        f"({dollars(price['glacier-hike'])}), "
    )
    if size == 100:
        tour_text += f"Jökulsárlón zodiac boat tour on day 4 ({dollars(price['zodiac'])}), "
    tour_text += (
        f"Húsavík whale watching on day 6 ({dollars(price['whale-watching'])}) and the Mývatn "
        f"Nature Baths the same evening ({dollars(price['nature-baths'])})"
    )
    tour_text += (
        f", and the Raufarhólshellir lava tunnel on the last morning ({dollars(price['lava-tunnel'])})."
        if size == 100
        else "."
    )
    ids = RING_TOURS_BY_SIZE[size]
    tour_ptrs = [f"/activities/{i}" for i in range(len(ids))]
    turns.append((tour_text + " Show what each costs for the two of us.", tour_ptrs))
    link_ptrs = [f"/days/{i}/tours" for i in range(8)]
    link_text = "Under each day, list the tours of that day (an empty list on days without one)."
    if size == 100:
        link_text += " And per day, what we spend on tours that day."
        link_ptrs += [f"/days/{i}/tour_spend_usd" for i in range(8)]
    turns.append((link_text, link_ptrs))
    cost_text = (
        f"Costs: all the tours together, the car at {car} for the week and about "
        f"{dollars(p['fuel'])} of fuel"
    )
    cost_ptrs = ["/costs/activities_usd", "/costs/car_rental_usd", "/costs/fuel_usd"]
    if size == 100:
        turns.append(
            (
                "Where we sleep: Hotel Frón in Reykjavík $160, Stracta guesthouse in Hella $140, Puffin Hostel "
                "in Vík $120, the Milk Factory in Höfn $150, Lake Hotel in Egilsstaðir $145, the Vogafjós farm "
                "stay at Mývatn $170 and Hotel Hafnarfjall in Borgarnes $130, one night each, per room.",
                ["/stays"],
            )
        )
        cost_text += ", plus all the rooms"
        cost_ptrs.append("/costs/lodging_usd")
    turns.append(
        (
            cost_text + ". Then the total, and half of it for each of us.",
            [*cost_ptrs, "/costs/total_usd", "/costs/per_person_usd"],
        )
    )
    if size == 100:
        turns += [
            (
                "Give the trip a short summary line: days, nights and how many tours.",
                ["/trip/summary"],
            ),
            (
                f"Our ceiling for all of this is {dollars(p['ceiling'])}. How much room is left?",
                ["/costs/budget_ceiling_usd", "/costs/left_of_budget_usd"],
            ),
            (
                "Car: Blue Car Rental, a Dacia Duster 4x4, back at the airport on the 16th.",
                ["/car"],
            ),
            ("Packing reminders: swimsuits, and an eye mask for the midnight sun.", ["/packing"]),
        ]
    return turns


def ring_revision(p: dict[str, Any]) -> Revision:
    size = p["size"]
    index = RING_TOURS_BY_SIZE[size].index("whale-watching")
    overrides = {}
    if size == 100:
        overrides["/trip/summary"] = regex(r"(?i)\b(5|five) tours\b")
    return Revision(
        request="Let's skip the whale watching after all; we'll see enough from the coast.",
        mutate=lambda q: q["tours"].remove("whale-watching"),
        direct=f"/activities/{index}",
        overrides=overrides,
    )


def _tour_summary(size: int, n: int) -> dict[str, Override]:
    return {"/trip/summary": regex(rf"(?i)\b({n}|{count_word(n)}) tours\b")} if size == 100 else {}


def ring_followups(p: dict[str, Any]) -> list[Revision]:
    size = p["size"]
    ids = RING_TOURS_BY_SIZE[size]

    def f1(q: dict[str, Any]) -> None:
        q["tours"].append("whale-watching")

    def f2(q: dict[str, Any]) -> None:
        q["prices"]["golden-circle"] = 99

    def f3(q: dict[str, Any]) -> None:
        q["tours"].remove("golden-circle")

    return [
        Revision(
            request="We changed our minds: Húsavík still has two spots, so book the whale watching again, "
            "in its old place in the list.",
            mutate=f1,
            direct=f"/activities/{ids.index('whale-watching')}",
            overrides=_tour_summary(size, 6),
            theme="The dropped tour is booked again: it returns to its day and the tour, trip and per-person "
            "totals go back up",
            pattern="add_remove",
        ),
        Revision(
            request="The Golden Circle tour went up to $99 per person.",
            mutate=f2,
            direct="/activities/0/price_per_person_usd",
            theme="One tour's price rises; its cost for two, its day's spend and every total follow",
            pattern="arithmetic",
        ),
        Revision(
            request="Actually, let's drop the Golden Circle tour; we'll drive that loop ourselves in the rental "
            "car.",
            mutate=f3,
            direct="/activities/0",
            overrides=_tour_summary(size, 5),
            theme="The tour just re-priced is removed: it leaves its day and the totals drop by its new price",
            pattern="add_remove",
        ),
    ]


# moves of travel-drop-excursion: a booked tour is dropped, a tour is booked (its day and id
# stated from size 50, its place in the list always), a tour is re-priced, and the car (and,
# from size 50, the fuel estimate) changes


def _drop_tour(p: dict[str, Any], d: Draw) -> Revision | None:
    if len(p["tours"]) < 2:
        return None
    booked = [t[0] for t in _ring_tours(p)]
    tid = d.pick(booked)
    spoken = RING_SPOKEN[tid]
    return Revision(
        request=d.pick(
            [
                f"Let's skip the {spoken} after all.",
                f"Cancel the {spoken}; we'd rather have the time to ourselves.",
            ]
        ),
        mutate=lambda q: q["tours"].remove(tid),
        direct=f"/activities/{booked.index(tid)}",
        overrides=_tour_summary(p["size"], len(booked) - 1),
        theme=f"The {spoken} is dropped: its day loses it and the tour and trip totals fall",
    )


def _book_tour(p: dict[str, Any], d: Draw) -> Revision | None:
    size = p["size"]
    catalog = [t for t in RING_TOURS if t[0] not in p["tours"]]
    if not catalog:
        return None
    tid, name, day, _ = d.pick(catalog)
    price = p["prices"][tid]
    q = _replayed(p, lambda q: q["tours"].append(tid))
    booked = [t[0] for t in _ring_tours(q)]
    at = booked.index(tid)
    where = "first" if at == 0 else f"right after the {RING_SPOKEN[booked[at - 1]]}"
    if size == 10:
        request = f"Book one more tour: {name}, {dollars(price)} per person, listed {where}."
    else:
        request = (
            f"Book one more tour: {name} on day {day}, {dollars(price)} per person, id {tid}, "
            f"listed {where}."
        )
    return Revision(
        request=request,
        mutate=lambda q: q["tours"].append(tid),
        direct=f"/activities/{at}",
        overrides=_tour_summary(size, len(booked)),
        theme=f"The {RING_SPOKEN[tid]} is booked: it joins its day and the tour and trip totals rise",
    )


def _tour_price(p: dict[str, Any], d: Draw) -> Revision | None:
    tours = _ring_tours(p)
    at = d.pick(range(len(tours)))
    tid, _, _, old = tours[at]
    price = d.pick([x for x in range(old - 20, old + 25, 5) if x > 20 and x != old])
    up = "went up" if price > old else "came down"
    return Revision(
        request=f"The {RING_SPOKEN[tid]} {up} to {dollars(price)} per person.",
        mutate=lambda q: q["prices"].__setitem__(tid, price),
        direct=f"/activities/{at}/price_per_person_usd",
        theme=f"The {RING_SPOKEN[tid]} is re-priced: its cost for two and every total follow",
    )


_car_price = _restate(
    "car",
    CAR_PRICES,
    lambda new, old: f"The rental car comes to {dollars(new)} for the week, not {dollars(old)}.",
    lambda p: "/car_rental_usd" if p["size"] == 10 else "/costs/car_rental_usd",
    "A new car price changes the totals",
)
_fuel = _restate(
    "fuel",
    FUEL,
    lambda new, old: f"Let's budget {dollars(new)} for fuel instead.",
    "/costs/fuel_usd",
    "A new fuel estimate changes the totals",
)


RING_MOVES = [
    Move("drop-tour", "add_remove", _drop_tour),
    Move("book-tour", "add_remove", _book_tour),
    Move("tour-price", "arithmetic", _tour_price),
    Move("car-price", "arithmetic", _car_price, opens=False),
    Move("fuel", "arithmetic", _fuel, when=_from_50, opens=False),
]


# --------------------------------------------------------------------------- travel-child-fares
# Threshold: a child's age crosses 12, so every booking whose child rate is "under 12" now
# counts them as an adult; bookings with other age limits (under 18, 6-17, 12 and under) stay.

ROME_START = "2025-04-18"
# (name, date offset, adult price, child price, child rule: max age still counted as a child, min age)
ROME_BOOKINGS: list[tuple[str, int, int, int, int, int]] = [
    ("Colosseum and Forum", 1, 18, 0, 17, 0),
    ("Vatican Museums", 2, 20, 8, 17, 6),
    ("Pizza-making class", 2, 45, 25, 11, 0),
    ("Hop-on hop-off bus, 24 h", 3, 30, 15, 12, 0),
    ("Gelato workshop", 3, 35, 20, 11, 0),
    ("Borghese Gallery", 4, 15, 0, 17, 0),
    ("Trastevere food tour", 4, 65, 40, 11, 0),
]
ROME_BOOKINGS_BY_SIZE: dict[int, int] = {10: 0, 50: 3, 100: 7}


FIRST_KIDS = ["Leo", "Luca", "Noah", "Finn", "Jonah"]
SECOND_KIDS = ["Sofia", "Mia", "Clara", "Ella", "Nora"]
# children who may join later (a cousin, a niece or nephew)
JOINING_KIDS = [("niece", "Emma"), ("nephew", "Paul"), ("niece", "Lina"), ("nephew", "Tim")]
ADULT_FARES = [210, 190, 230, 245, 199]
CHILD_FARES = [160, 140, 150, 175, 120]


def fares_inputs(size: int, d: Draw) -> dict[str, Any]:
    """The children (name to age, in the order given), the fares, hotel and breakfast rate."""
    first, second = d.pick(FIRST_KIDS), d.pick(SECOND_KIDS)
    return {
        "size": size,
        "ages": {first: d.pick([11, 12, 10, 13]), second: d.pick([8, 7, 9, 14, 6])},
        "adult_fare": d.pick(ADULT_FARES),
        "child_fare": d.pick(CHILD_FARES),
        "hotel": d.pick([950, 880, 1020, 1100]),
        "breakfast": d.pick([14, 12, 16, 18]),
    }


fares_params = shipped_params(fares_inputs)


def _tickets(ages: list[int], adults: int, max_child: int, min_child: int = 0) -> tuple[int, int]:
    """(adult tickets, child tickets): kids outside the child band pay the adult price.

    A kid below ``min_child`` would be free and ticketless; the trip has no such kid."""
    children = sum(1 for a in ages if min_child <= a <= max_child)
    return adults + sum(1 for a in ages if a > max_child), children


def fares_compute(p: dict[str, Any]) -> dict[str, Any]:
    size = p["size"]
    ages = list(p["ages"].values())
    travelers = {"adults": 2, "children": [{"name": k, "age": v} for k, v in p["ages"].items()]}
    adult_t, child_t = _tickets(ages, 2, 11)
    fare, child_fare, hotel = p["adult_fare"], p["child_fare"], p["hotel"]
    flights: dict[str, Any] = {
        "adult_fare_eur": fare,
        "child_fare_eur": child_fare,
        "adult_tickets": adult_t,
        "child_tickets": child_t,
        "total_eur": fare * adult_t + child_fare * child_t,
    }
    art: dict[str, Any] = {"travelers": travelers, "flights": flights}
    if size == 10:
        return art
    travelers["parents"] = "Giulia and Mark"
    flights.update(airline="ITA Airways", outbound=ROME_START, return_date=add_days(ROME_START, 5))
    art["hotel"] = {
        "name": "Hotel Santa Prassede",
        "area": "Monti",
        "room": "family room",
        "nights": 5,
        "room_total_eur": hotel,
        "check_in": "14:00",
    }
    paying = _tickets(ages, 2, 11)[0]
    art["breakfast"] = {
        "adult_rate_eur": p["breakfast"],
        "mornings": 5,
        "paying_guests": paying,
        "total_eur": p["breakfast"] * 5 * paying,
    }
    bookings: list[dict[str, Any]] = []
    for name, offset, adult, child, max_child, min_child in ROME_BOOKINGS[
        : ROME_BOOKINGS_BY_SIZE[size]
    ]:
        a, c = _tickets(ages, 2, max_child, min_child)
        bookings.append(
            {
                "name": name,
                "date": add_days(ROME_START, offset),
                "adult_price_eur": adult,
                "child_price_eur": child,
                "adult_tickets": a,
                "child_tickets": c,
                "total_eur": adult * a + child * c,
            }
        )
    art["bookings"] = bookings
    activities = sum(b["total_eur"] for b in bookings)
    art["budget"] = {
        "flights_eur": flights["total_eur"],
        "hotel_eur": hotel,
        "breakfast_eur": art["breakfast"]["total_eur"],
        "activities_eur": activities,
        "total_eur": flights["total_eur"] + hotel + art["breakfast"]["total_eur"] + activities,
    }
    if size == 100:
        art["hotel"]["phone"] = "+39 06 481 4850"
        art["transfers"] = {
            "airport_to_hotel": "Leonardo Express + taxi",
            "return": "private van at 06:30",
        }
        art["packing"] = [
            "refillable water bottles",
            "covered shoulders for the Vatican",
            "kids' tablets",
            "sun hats",
            "plug adapters (type L)",
        ]
        art["contacts"] = {"pediatrician_at_home": "Dr. Weiss +49 30 555 0192", "emergency": "112"}
        art["restaurants"] = [
            {"name": "Trattoria Monti", "date": add_days(ROME_START, 1), "time": "19:30"},
            {"name": "Pizzeria da Remo", "date": add_days(ROME_START, 3), "time": "20:00"},
            {"name": "Roscioli", "date": add_days(ROME_START, 2), "time": "13:00"},
            {"name": "Da Enzo al 29", "date": add_days(ROME_START, 4), "time": "12:30"},
        ]
    return art


def fares_conversation(p: dict[str, Any]) -> list[Turn]:
    size = p["size"]
    (first, first_age), (second, second_age) = p["ages"].items()
    adult, child = euros(p["adult_fare"]), euros(p["child_fare"])
    if size == 10:
        return [
            (
                f"Family trip to Rome: the two of us plus our kids {first}, who's {first_age}, and "
                f"{second}, who's {second_age}.",
                ["/travelers"],
            ),
            (
                f"Flights are {adult} per adult. Children under 12 fly on the {child} child fare; anyone "
                "12 or older pays the adult fare. Work out the tickets and the total.",
                ["/flights"],
            ),
        ]
    n = ROME_BOOKINGS_BY_SIZE[size]
    turns: list[Turn] = [
        (
            f"Family trip to Rome over Easter: Giulia and me (Mark), plus {first}, {first_age}, and "
            f"{second}, {second_age}.",
            ["/travelers/adults", "/travelers/children", "/travelers/parents"],
        ),
        (
            f"We fly ITA Airways on 18 April and back on the 23rd. Adults pay {adult}; kids under 12 get "
            f"the {child} child fare, from 12 up it's the adult fare. Tickets and total, please.",
            ["/flights"],
        ),
        (
            "Hotel Santa Prassede in Monti, a family room for 5 nights, "
            f"{euros(p['hotel'])} in total, check-in from 14:00.",
            [
                "/hotel/name",
                "/hotel/area",
                "/hotel/room",
                "/hotel/nights",
                "/hotel/room_total_eur",
                "/hotel/check_in",
            ],
        ),
        (
            f"Breakfast isn't included: it's {euros(p['breakfast'])} per person each morning, but kids "
            "under 12 eat free. Five mornings.",
            ["/breakfast"],
        ),
    ]
    booking_text = (
        "Bookings, each with its own kids' rule. Colosseum and Forum on the 19th: €18 adults, free for "
        "everyone under 18. Vatican Museums on the 20th: €20 adults, €8 reduced for ages 6 to 17. "
        "Pizza-making class the same evening: €45 adults, €25 for kids under 12."
    )
    if n == 7:
        booking_text += (
            " Hop-on hop-off bus pass on the 21st: €30 adults, €15 for children aged 12 and under. Gelato "
            "workshop that afternoon: €35 adults, €20 for kids under 12. Borghese Gallery on the 22nd: "
            "€15 adults, free under 18. Trastevere food tour that evening: €65 adults, €40 for kids "
            "under 12."
        )
    turns += [
        (
            booking_text + " Count adult and child tickets for each and total them.",
            [f"/bookings/{i}" for i in range(n)],
        ),
        (
            "Now the overall budget: flights, hotel, breakfasts and bookings, and the grand total.",
            ["/budget"],
        ),
    ]
    if size == 100:
        turns += [
            ("The hotel's number is +39 06 481 4850.", ["/hotel/phone"]),
            (
                "Getting around: Leonardo Express plus a taxi from the airport, and a private van at 06:30 "
                "for the flight home.",
                ["/transfers"],
            ),
            (
                "Tables booked at Trattoria Monti on the 19th at 19:30, Pizzeria da Remo on the 21st at 20:00, "
                "Roscioli for lunch on the 20th at 13:00 and Da Enzo al 29 on the 22nd at 12:30.",
                ["/restaurants"],
            ),
            (
                "Packing: refillable water bottles, something covering the shoulders for the Vatican, the "
                "kids' tablets, sun hats and type L plug adapters. Contacts: our pediatrician Dr. Weiss, +49 30 555 0192, and 112 for emergencies.",
                ["/packing", "/contacts"],
            ),
        ]
    return turns


def fares_revision(p: dict[str, Any]) -> Revision:
    return Revision(
        request="Correction: Leo turns 12 the week before we leave, so he'll be 12 on this trip.",
        mutate=lambda q: q["ages"].update(Leo=12),
        direct="/travelers/children/0/age",
    )


def fares_followups(p: dict[str, Any]) -> list[Revision]:
    def f1(q: dict[str, Any]) -> None:
        q.update(adult_fare=230)

    def f2(q: dict[str, Any]) -> None:
        q["ages"]["Emma"] = 9

    def f3(q: dict[str, Any]) -> None:
        q["ages"]["Emma"] = 12

    return [
        Revision(
            request="ITA raised the adult fare to €230.",
            mutate=f1,
            direct="/flights/adult_fare_eur",
            theme="A higher adult fare raises the flight total (Leo now pays it too) and the budget",
            pattern="arithmetic",
        ),
        Revision(
            request="Our niece Emma, who's 9, is coming with us.",
            mutate=f2,
            direct="/travelers/children/2",
            theme="A third child joins: she gets a child ticket wherever she is in the child band, and the "
            "flight, booking and budget totals grow",
            pattern="add_remove",
        ),
        Revision(
            request="Correction on Emma: she's 12, not 9.",
            mutate=f3,
            direct="/travelers/children/2/age",
            theme="The child just added is over the under-12 line: her flight, breakfast and under-12 bookings "
            "move to adult rates, the other age rules keep her as a child",
            pattern="threshold",
        ),
    ]


# moves of travel-child-fares: a child's age crosses the under-12 line (at size 100 also the
# "12 and under" line of the bus), the adult or child fare changes, a child joins or stays
# home, and (from size 50) the breakfast rate changes


def _age_lines(size: int) -> list[int]:
    """The ages where a rule the size's conversation states changes a ticket."""
    return [12, 13] if size == 100 else [12]


def _cross_age(p: dict[str, Any], d: Draw) -> Revision | None:
    name = d.pick(list(p["ages"]))
    old = p["ages"][name]
    line = d.pick(_age_lines(p["size"]))
    new = d.pick([line, line + 1] if old < line else [line - 1, line - 2])
    if new == old + 1:
        request = (
            f"{name} turns {new} the week before we leave, so {name} will be {new} on this trip."
        )
    else:
        request = d.pick(
            [
                f"Correction: {name} is {new}, not {old}.",
                f"I had {name}'s age wrong: {new}, not {old}.",
            ]
        )
    return Revision(
        request=request,
        mutate=lambda q: q["ages"].__setitem__(name, new),
        direct=f"/travelers/children/{list(p['ages']).index(name)}/age",
        theme=f"{name} goes from {old} to {new}, across the {line}-year line: the tickets whose "
        "child rate stops there follow, the others stay",
    )


def _child_tickets(p: dict[str, Any]) -> int:
    return _tickets(list(p["ages"].values()), 2, 11)[1]


_adult_fare = _restate(
    "adult_fare",
    ADULT_FARES,
    lambda new, old: f"ITA changed the adult fare: it's {euros(new)} now.",
    "/flights/adult_fare_eur",
    "A new adult fare changes the flight total and the totals it feeds",
    fits=lambda p, fare: fare > p["child_fare"],
)
_child_fare = _restate(
    "child_fare",
    CHILD_FARES,
    lambda new, old: f"The child fare is {euros(new)}, not {euros(old)}.",
    "/flights/child_fare_eur",
    "A new child fare changes the flight total and the totals it feeds",
    fits=lambda p, fare: fare < p["adult_fare"],
)


def _kid_joins(p: dict[str, Any], d: Draw) -> Revision | None:
    choices = [(rel, name) for rel, name in JOINING_KIDS if name not in p["ages"]]
    if not choices:
        return None
    rel, name = d.pick(choices)
    age = d.pick(range(6, 16))
    return Revision(
        request=d.pick(
            [
                f"Our {rel} {name}, who's {age}, is coming with us.",
                f"Add one more child: our {rel} {name}, {age}, joins the trip.",
            ]
        ),
        mutate=lambda q: q["ages"].__setitem__(name, age),
        direct=f"/travelers/children/{len(p['ages'])}",
        theme=f"{name} ({age}) joins: a ticket at the rate of {name}'s age on every booking, and the totals grow",
    )


def _kid_stays(p: dict[str, Any], d: Draw) -> Revision | None:
    if len(p["ages"]) < 2:
        return None
    name = d.pick(list(p["ages"]))

    def stay_home(q: dict[str, Any]) -> None:
        del q["ages"][name]

    return Revision(
        request=f"{name} will stay with the grandparents instead of coming along.",
        mutate=stay_home,
        direct=f"/travelers/children/{list(p['ages']).index(name)}",
        theme=f"{name} stays home: {name}'s tickets leave every booking and the totals fall",
    )


_breakfast_rate = _restate(
    "breakfast",
    [14, 12, 16, 18, 15],
    lambda new, old: (
        f"Breakfast at the hotel is {euros(new)} per person each morning, not {euros(old)}."
    ),
    "/breakfast/adult_rate_eur",
    "A new breakfast rate changes the breakfast total and the budget",
)


FARES_MOVES = [
    Move("cross-age", "threshold", _cross_age),
    Move("adult-fare", "arithmetic", _adult_fare),
    Move("child-fare", "arithmetic", _child_fare, when=lambda p: _child_tickets(p) > 0),
    Move("kid-joins", "add_remove", _kid_joins),
    Move("kid-stays", "add_remove", _kid_stays),
    Move("breakfast-rate", "arithmetic", _breakfast_rate, when=_from_50, opens=False),
]


# --------------------------------------------------------------------------- travel-shift-departure
# Temporal: the departure date moves by one day; every date stated relative to it (stays,
# car, deadlines, day plan) shifts, while the Tattoo, the birthday dinner and the insurance
# deadline were given as calendar dates and stay.

# (place, name, nights, booking ref), in the order they are slept in
HIGHLAND_STAYS: list[tuple[str, str, int, str]] = [
    ("Edinburgh", "The Dunstane Houses", 3, "DUN-55812"),
    ("Pitlochry", "Craigatin House", 1, "CGH-2291"),
    ("Isle of Skye", "Glendale cottage", 2, "SKY-7740"),
]
PLACE, STAY_NAME, STAY_NIGHTS, REF = range(4)
# one-night stops the pair may add on the way to Skye (size 50)
HIGHLAND_STOPS: list[tuple[str, str, int, str]] = [
    ("Glencoe", "Clachaig Inn", 1, "CLA-3307"),
    ("Fort William", "Lime Tree hotel", 1, "LTF-1142"),
    ("Aviemore", "Ravenscraig guesthouse", 1, "RVG-2218"),
]
# other Pitlochry guesthouses (size 100 swaps Craigatin House for one)
PITLOCHRY_HOTELS: list[tuple[str, str]] = [
    ("Dunalastair Hotel Suites", "DHS-4410"),
    ("Fonab Castle Hotel", "FCH-0907"),
    ("Knockendarroch Hotel", "KND-5126"),
]
# the size-100 day plan: (plan, drive hours); each stay's extra nights add a free day there
EDINBURGH_DAYS = [("Land 10:15, Old Town walk", 0), ("Arthur's Seat and the Royal Mile", 0)]
EDINBURGH_FREE_DAY = "Free day in Edinburgh"
PITLOCHRY_DAY = ("Pick up the car, Stirling Castle, on to Pitlochry", 2.5)
SKYE_DAYS = [
    ("Glencoe, then over the bridge to Skye", 5),
    ("Quiraing loop and the Old Man of Storr", 1.5),
]
SKYE_FREE_DAY = "Free day on Skye"
LAST_DAY = ("Drive to Inverness, fly home 17:20", 2.5)
TATTOO = {"date": "2025-08-06", "time": "21:00", "seats": 2, "stand": "South Stand, row K"}
HIGHLAND_PAIRS = [("Hannah", "Sam"), ("Isla", "Ben"), ("Ruth", "Tom"), ("Aoife", "Dan")]


def shift_inputs(size: int, d: Draw) -> dict[str, Any]:
    """The trip's start, its stays ``[place, name, nights, ref]``, and the names and rate the
    conversation states."""
    pair = d.pick(HIGHLAND_PAIRS)
    return {
        "size": size,
        "start": d.date("2025-07-31", "2025-08-05", shipped="2025-08-04"),
        "stays": [list(s) for s in HIGHLAND_STAYS],
        "pair": list(pair),
        "friend": d.pick(["Fiona", "Mhairi", "Catriona"]),
        "sitter": d.pick(["Morag", "Kirsty", "Eilidh"]),
        "sitter_rate": d.pick([25, 20, 30, 28]),
        "balance_days": d.pick([30, 21, 28, 45]),  # the size-10 apartment's
    }


shift_params = shipped_params(shift_inputs)


def _offsets(p: dict[str, Any]) -> list[int]:
    """Each stay's check-in, in days after the start."""
    out, at = [], 0
    for row in p["stays"]:
        out.append(at)
        at += row[STAY_NIGHTS]
    return out


def _stay_at(p: dict[str, Any], place: str) -> int:
    """The check-in offset of the stay at ``place``."""
    return next(o for o, row in zip(_offsets(p), p["stays"], strict=True) if row[PLACE] == place)


def _highland_days(p: dict[str, Any]) -> list[tuple[str, float]]:
    """The size-100 plan per day: the fixed days, plus a free day per extra night of a stay."""
    edinburgh, skye = p["stays"][0][STAY_NIGHTS], p["stays"][-1][STAY_NIGHTS]
    return [
        *EDINBURGH_DAYS[:edinburgh],
        *[(EDINBURGH_FREE_DAY, 0)] * (edinburgh - 2),
        PITLOCHRY_DAY,
        *SKYE_DAYS[:skye],
        *[(SKYE_FREE_DAY, 0)] * (skye - 2),
        LAST_DAY,
    ]


def shift_compute(p: dict[str, Any]) -> dict[str, Any]:
    size, start, stays = p["size"], p["start"], p["stays"]
    offsets = _offsets(p)
    nights = sum(row[STAY_NIGHTS] for row in stays)
    end = add_days(start, nights)
    trip: dict[str, Any] = {
        "destination": "Scottish Highlands",
        "start_date": start,
        "end_date": end,
        "nights": nights,
    }
    car: dict[str, Any] = {
        "company": "Arnold Clark",
        "pickup_date": add_days(start, stays[0][STAY_NIGHTS]),
        "return_date": end,
    }
    tattoo: dict[str, Any] = {"date": TATTOO["date"], "seats": TATTOO["seats"]}
    art: dict[str, Any] = {"trip": trip, "car": car, "tattoo": tattoo}
    if size == 10:
        art["apartment_balance_due"] = add_days(start, -p["balance_days"])
        return art
    trip.update(travelers=" and ".join(p["pair"]), flights="EZY 6931 out, EZY 6942 home")
    car.update(pickup_place="Edinburgh Waverley", return_place="Inverness Airport")
    tattoo.update(time=TATTOO["time"], stand=TATTOO["stand"])
    art["stays"] = [
        {
            "place": place,
            "name": name,
            "check_in": add_days(start, off),
            "check_out": add_days(start, off + n),
            "nights": n,
        }
        for (place, name, n, _), off in zip(stays, offsets, strict=True)
    ]
    skye_in = add_days(start, _stay_at(p, "Isle of Skye"))
    art["deadlines"] = [
        {"what": "Travel insurance bought", "date": "2025-07-01"},
        {"what": "Skye cottage balance", "date": add_days(skye_in, -14)},
        {"what": "Online check-in opens", "date": add_days(start, -30)},
    ]
    art["dinner"] = {
        "what": f"{p['friend']}'s birthday dinner",
        "place": "The Witchery",
        "date": "2025-08-05",
        "time": "19:30",
    }
    if size == 100:
        pitlochry = _stay_at(p, "Pitlochry")
        art["deadlines"].append(
            {
                "what": f"Free cancellation at {stays[1][STAY_NAME]} ends",
                "date": add_days(start, pitlochry - 2),
            }
        )
        for stay, row in zip(art["stays"], stays, strict=True):
            stay["booking_ref"] = row[REF]
        base = [row[PLACE] for row in stays for _ in range(row[STAY_NIGHTS])]
        art["days"] = [
            {
                "date": add_days(start, i),
                "base": base[i] if i < len(base) else "home",
                "plan": plan,
                "drive_hours": hours,
            }
            for i, (plan, hours) in enumerate(_highland_days(p))
        ]
        art["reservations"] = [
            {
                "what": "Edradour distillery tour",
                "date": add_days(start, pitlochry),
                "time": "16:00",
                "people": 2,
            },
            {"what": "Fringe comedy matinee", "date": "2025-08-05", "time": "14:00", "people": 2},
            {
                "what": "Boat trip to Loch Coruisk",
                "date": add_days(skye_in, 1),
                "time": "10:00",
                "people": 2,
            },
        ]
        trip["home_airport"] = "Bristol"
        car["category"] = "compact SUV"
        tattoo["collect_at"] = "box office"
    art["pet_sitter"] = {
        "name": p["sitter"],
        "from": add_days(start, -1),
        "to": add_days(end, 1),
        "rate_gbp_per_day": p["sitter_rate"],
    }
    art["budget_gbp"] = {"stays": 1460, "car": 310, "tattoo": 190, "fuel": 120}
    art["packing"] = ["midge repellent", "hiking boots"]
    if size == 100:
        art["packing"] += ["rain shells", "binoculars for Skye"]
    return art


def shift_conversation(p: dict[str, Any]) -> list[Turn]:
    size = p["size"]
    leaving = spoken_date(p["start"], year=True)
    if size == 10:
        return [
            (
                f"We're doing the Scottish Highlands for 6 nights, leaving on {leaving}.",
                ["/trip"],
            ),
            (
                "We rent from Arnold Clark: pick the car up three days after we arrive and hand it back on "
                "our last day.",
                ["/car"],
            ),
            ("We already have 2 tickets for the Edinburgh Tattoo on 6 August.", ["/tattoo"]),
            (
                f"Our Edinburgh apartment wants the rest of the payment {p['balance_days']} days before "
                "we arrive; note that date.",
                ["/apartment_balance_due"],
            ),
        ]
    partner, me = p["pair"]
    turns: list[Turn] = [
        (
            f"{partner} and I ({me}) are doing the Scottish Highlands: 6 nights, leaving on {leaving} "
            "with EZY 6931 and flying home on EZY 6942 on the last day.",
            members("/trip", "destination start_date end_date nights travelers flights"),
        ),
        (
            "Stays, counted from the day we arrive: 3 nights at The Dunstane Houses in Edinburgh, then 1 "
            "night at Craigatin House in Pitlochry, then 2 nights at a cottage in Glendale on Skye.",
            each("/stays", 3, "place name check_in check_out nights"),
        ),
        (
            "Car from Arnold Clark: we collect it at Edinburgh Waverley the morning we leave Edinburgh and "
            "drop it at Inverness Airport the day we fly home.",
            [
                "/car/company",
                "/car/pickup_date",
                "/car/return_date",
                "/car/pickup_place",
                "/car/return_place",
            ],
        ),
        (
            "We already bought 2 Tattoo tickets for 6 August at 21:00, South Stand, row K.",
            members("/tattoo", "date seats time stand"),
        ),
        (
            f"And {p['friend']}'s birthday dinner is fixed: The Witchery, 5 August at 19:30.",
            ["/dinner"],
        ),
    ]
    deadline_text = (
        "Deadlines: travel insurance by 1 July 2025; the Skye cottage balance is due 14 days "
        "before we check in there; online check-in opens 30 days before the outbound flight."
    )
    deadline_ptrs = ["/deadlines/0", "/deadlines/1", "/deadlines/2"]
    if size == 100:
        deadline_text += (
            " Also, free cancellation at Craigatin House ends 2 days before our night there."
        )
        deadline_ptrs.append("/deadlines/3")
    turns.append((deadline_text, deadline_ptrs))
    turns += [
        (
            f"{p['sitter']} looks after the dog from the evening before we leave until the day after "
            f"we're back, £{p['sitter_rate']} a day.",
            ["/pet_sitter"],
        ),
        ("Rough budget in pounds: stays 1460, car 310, Tattoo 190, fuel 120.", ["/budget_gbp"]),
        (
            "Packing: midge repellent, hiking boots"
            + (", rain shells and binoculars for Skye." if size == 100 else "."),
            ["/packing"],
        ),
    ]
    if size == 100:
        turns += [
            (
                "Lay out the days with where we are each day. Day 1: land 10:15, Old Town walk. Day 2: Arthur's "
                "Seat and the Royal Mile. Day 3: free in Edinburgh. Day 4: pick up the car, Stirling Castle, on "
                "to Pitlochry. Day 5: Glencoe, then over the bridge to Skye. Day 6: Quiraing loop and the Old "
                "Man of Storr. Day 7: drive to Inverness and fly home at 17:20.",
                each("/days", 7, "date base plan"),
            ),
            (
                "Add the rough driving hours per day: nothing the first three days, then 2.5, 5, 1.5 and 2.5.",
                each("/days", 7, "drive_hours"),
            ),
            (
                "Booked extras: the Edradour distillery tour at 16:00 on our Pitlochry day, a Fringe comedy "
                "matinee on 5 August at 14:00, and the Loch Coruisk boat trip at 10:00 on our second Skye day. "
                "Two people each.",
                ["/reservations"],
            ),
            (
                "Booking references: Dunstane DUN-55812, Craigatin CGH-2291, Skye cottage SKY-7740. We fly from "
                "Bristol, the car is a compact SUV, and the Tattoo tickets are collected at the box office.",
                [
                    "/stays/0/booking_ref",
                    "/stays/1/booking_ref",
                    "/stays/2/booking_ref",
                    "/trip/home_airport",
                    "/car/category",
                    "/tattoo/collect_at",
                ],
            ),
        ]
    return turns


def shift_revision(p: dict[str, Any]) -> Revision:
    return Revision(
        request="We can't get the 4th off work after all, so we'll leave on 5 August instead, same six nights.",
        mutate=lambda q: q.update(start="2025-08-05"),
        direct="/trip/start_date",
    )


def _skye_nights(n: int) -> Any:
    def mutate(q: dict[str, Any]) -> None:
        q["stays"][-1][STAY_NIGHTS] = n

    return mutate


def shift_followups(p: dict[str, Any]) -> list[Revision]:
    size = p["size"]
    nights = "/trip/nights" if size == 10 else "/stays/2/nights"
    f1 = _skye_nights(3)

    def f2(q: dict[str, Any]) -> None:
        q.update(start="2025-08-04")

    f3 = _skye_nights(2)

    free_day = {}
    if size == 100:
        day = shift_compute(_replayed(p, lambda q: q.update(start="2025-08-05"), f1))["days"][6]
        free_day["/days/6"] = regex(
            all_of(
                rf'"date":\s*"{day["date"]}"',
                r'"base":\s*"Isle of Skye"',
                r'"plan":\s*"[^"]*free[^"]*skye',
                r'"drive_hours":\s*0(\.0)?\s*[,}]',
            )
        )
    return [
        Revision(
            request="Let's add a night on Skye, so three nights there and we fly home a day later; the extra day "
            "is a free day on Skye, no driving.",
            mutate=f1,
            direct=nights,
            overrides=free_day,
            theme="One more night at the last stop: the trip's nights, the end date, the car return, the pet "
            "sitter and the day plan stretch by a day",
            pattern="temporal",
        ),
        Revision(
            request="Work gave us the 4th off after all, so we leave on 4 August again. Keep the extra night on "
            "Skye.",
            mutate=f2,
            direct="/trip/start_date",
            theme="The departure moves back a day (undoing the first change): every departure-relative date, "
            "including the ones the extra night moved, shifts back",
            pattern="temporal",
        ),
        Revision(
            request="Sam's conference moved, so we need to be home a day earlier: back to two nights on Skye.",
            mutate=f3,
            direct=nights,
            theme="The added night is taken back: the free day goes, and the end date, car return and pet "
            "sitter move a day earlier",
            pattern="temporal",
        ),
    ]


# moves of travel-shift-departure: the start moves (same nights); the trip gets longer or
# shorter (size 10: in nights, by the day home, or leaving earlier or later for the same day
# home; from size 50: nights on Skye or in Edinburgh, a free day each at size 100); at size 50
# a one-night stop is added on the way to Skye or dropped; at size 100 the Pitlochry
# guesthouse is swapped


def _days(n: int) -> str:
    return f"{count_word(abs(n))} day" + ("s" if abs(n) > 1 else "")


def _later(n: int) -> str:
    return f"{_days(n)} {'later' if n > 0 else 'earlier'}"


def _nights_word(n: int) -> str:
    return f"{count_word(n)} night" + ("s" if n != 1 else "")


def _shift_start(p: dict[str, Any], d: Draw) -> Revision | None:
    k = d.pick([-3, -2, -1, 1, 2, 3])
    start = add_days(p["start"], k)
    total = sum(row[STAY_NIGHTS] for row in p["stays"])
    return Revision(
        request=d.pick(
            [
                f"We'll leave on {spoken_date(start)} instead, same {_nights_word(total)}.",
                f"Work moved our holiday: we now leave {_later(k)}, on {spoken_date(start)}, "
                f"still {_nights_word(total)}.",
            ]
        ),
        mutate=lambda q: q.update(start=start),
        direct="/trip/start_date",
        theme=f"The departure moves {_later(k)}: every date set relative to it follows; calendar "
        "dates stay",
    )


def _trip_end(p: dict[str, Any], d: Draw, by_date: bool) -> Revision | None:
    """Size 10: the trip gets longer or shorter at its end (the last stay absorbs it)."""
    skye = p["stays"][-1][STAY_NIGHTS]
    total = sum(row[STAY_NIGHTS] for row in p["stays"])
    k = d.pick([n for n in (-2, -1, 1, 2) if 1 <= skye + n <= 5])
    end = add_days(p["start"], total + k)
    if by_date:
        request = f"We'll fly home on {spoken_date(end)} instead; we still leave on the same day."
        direct = "/trip/end_date"
    else:
        request = f"Make it {_nights_word(total + k)} in total: we fly home {_later(k)}."
        direct = "/trip/nights"
    return Revision(
        request=request,
        mutate=_skye_nights(skye + k),
        direct=direct,
        theme=f"The trip ends {_later(k)}: its nights, end date and car return follow",
    )


def _keep_return(p: dict[str, Any], d: Draw) -> Revision | None:
    """Size 10: leave earlier or later but fly home on the same day."""
    skye = p["stays"][-1][STAY_NIGHTS]
    total = sum(row[STAY_NIGHTS] for row in p["stays"])
    k = d.pick([n for n in (-2, -1, 1, 2) if 1 <= skye - n <= 5])
    start = add_days(p["start"], k)
    end = add_days(p["start"], total)

    def mutate(q: dict[str, Any]) -> None:
        q["start"] = start
        q["stays"][-1][STAY_NIGHTS] = skye - k

    return Revision(
        request=f"We'll leave on {spoken_date(start)} instead but still fly home on {spoken_date(end)}.",
        mutate=mutate,
        direct="/trip/start_date",
        theme=f"The departure moves {_later(k)} with the day home fixed: the nights, car pickup and "
        "balance date follow",
    )


def _stay_nights(p: dict[str, Any], d: Draw, at: int) -> Revision | None:
    """From size 50: nights in Edinburgh (``at`` 0) or on Skye (``at`` -1), 2 to 4."""
    row = p["stays"][at]
    old = row[STAY_NIGHTS]
    n = d.pick([x for x in (2, 3, 4) if x != old])
    place = "in Edinburgh" if at == 0 else "on Skye"
    k = n - old
    request = f"Let's do {_nights_word(n)} {place} instead of {count_word(old)}"
    if at == 0:
        request += f": the car pickup and everything after it move {_later(k)}"
    request += f", and we fly home {_later(k)}."
    free = EDINBURGH_FREE_DAY if at == 0 else SKYE_FREE_DAY
    if p["size"] == 100 and k > 0:
        request += f' Each extra day there is a "{free}" in the plan, with no driving.'
    elif p["size"] == 100:
        gone = "day" if k == -1 else "days"
        request += f' In the day plan, drop {count_word(-k)} "{free}" {gone}.'

    def mutate(q: dict[str, Any]) -> None:
        q["stays"][at][STAY_NIGHTS] = n

    return Revision(
        request=request,
        mutate=mutate,
        direct=f"/stays/{at % len(p['stays'])}/nights",
        theme=f"{count_word(n).capitalize()} nights {place}: the dates after it, the end date, car "
        "return and pet sitter follow",
    )


def _add_stop(p: dict[str, Any], d: Draw) -> Revision | None:
    """Size 50: a one-night stop before Skye."""
    places = {row[PLACE] for row in p["stays"]}
    choices = [s for s in HIGHLAND_STOPS if s[0] not in places]
    if not choices:
        return None
    stop = d.pick(choices)
    at = len(p["stays"]) - 1

    def mutate(q: dict[str, Any]) -> None:
        q["stays"].insert(at, list(stop))

    return Revision(
        request=f"Add one night at the {stop[1]} in {stop[0]} on the way to Skye, right before the "
        "cottage: Skye and everything after it move a day later, and we fly home a day later.",
        mutate=mutate,
        direct=f"/stays/{at}",
        theme=f"A night in {stop[0]} joins before Skye: Skye's dates, the end date, car return and "
        "pet sitter move a day later",
    )


def _drop_stop(p: dict[str, Any], d: Draw) -> Revision | None:
    """Size 50: the one-night stop right before Skye is dropped (an earlier one would pair
    ambiguously with the stop that takes its dates)."""
    i = len(p["stays"]) - 2
    if i < 1:
        return None
    place, name = p["stays"][i][PLACE], p["stays"][i][STAY_NAME]

    def mutate(q: dict[str, Any]) -> None:
        del q["stays"][i]

    return Revision(
        request=f"Let's skip {place}: drop the night at {name}. Everything after it moves a day "
        "earlier, and we fly home a day earlier.",
        mutate=mutate,
        direct=f"/stays/{i}",
        theme=f"The night in {place} is dropped: the later stays, the end date, car return and pet "
        "sitter move a day earlier",
    )


def _swap_pitlochry(p: dict[str, Any], d: Draw) -> Revision | None:
    """Size 100: another guesthouse in Pitlochry, same night and cancellation terms."""
    old = p["stays"][1][STAY_NAME]
    name, ref = d.pick(
        [h for h in [*PITLOCHRY_HOTELS, ("Craigatin House", "CGH-2291")] if h[0] != old]
    )

    def mutate(q: dict[str, Any]) -> None:
        q["stays"][1][STAY_NAME] = name
        q["stays"][1][REF] = ref

    return Revision(
        request=f"{old} can't have us after all; we're booked at {name} in Pitlochry instead, same "
        f"night, booking reference {ref}. Its free cancellation also ends 2 days before our night there.",
        mutate=mutate,
        direct="/stays/1/name",
        overrides={"/deadlines/3/what": regex(f"(?i){re.escape(name)}")},
        theme=f"{name} replaces {old}: its booking reference and the cancellation deadline that named it follow",
    )


def _size(*sizes: int) -> Any:
    return lambda p: p["size"] in sizes


SHIFT_MOVES = [
    Move("shift-start", "temporal", _shift_start),
    Move("trip-nights", "temporal", lambda p, d: _trip_end(p, d, by_date=False), when=_size(10)),
    Move("fly-home", "temporal", lambda p, d: _trip_end(p, d, by_date=True), when=_size(10)),
    Move("keep-return", "temporal", _keep_return, when=_size(10)),
    # the stays are stated after the trip's end date: a change of nights cannot open a case
    Move(
        "skye-nights",
        "temporal",
        lambda p, d: _stay_nights(p, d, -1),
        when=_size(50, 100),
        opens=False,
    ),
    Move(
        "edinburgh-nights",
        "temporal",
        lambda p, d: _stay_nights(p, d, 0),
        when=_size(50, 100),
        opens=False,
    ),
    Move("add-stop", "add_remove", _add_stop, when=_size(50), opens=False),
    Move("drop-stop", "add_remove", _drop_stop, when=_size(50), opens=False),
    Move("swap-guesthouse", "substitution", _swap_pitlochry, when=_size(100)),
]


# --------------------------------------------------------------------------- travel-riad-confirmed
# Status flip: a booking on hold is confirmed; its deposit, balance, hold date and free
# cancellation date move together, and the payment summary and checklist follow.

# (name, city, check-in, nights, total in EUR, status, hold expiry while on hold)
MOROCCO_STAYS: list[tuple[str, str, str, int, int, str, str]] = [
    ("Riad Dar Anika", "Marrakech", "2025-04-05", 3, 780, "confirmed", "2025-03-10"),
    ("Erg Chebbi Luxury Camp", "Merzouga", "2025-04-08", 2, 460, "on hold", "2025-03-20"),
    ("Riad Yasmine", "Fes", "2025-04-10", 3, 900, "on hold", "2025-03-15"),
    ("Casa Perleta", "Chefchaouen", "2025-04-13", 2, 320, "on hold", "2025-03-25"),
]
MOROCCO_STAYS_BY_SIZE: dict[int, tuple[str, ...]] = {
    10: ("Riad Yasmine",),
    50: ("Riad Dar Anika", "Erg Chebbi Luxury Camp", "Riad Yasmine"),
    100: tuple(s[0] for s in MOROCCO_STAYS),
}
# the totals fresh instances draw from, per stay (first: the shipped one)
MOROCCO_TOTALS: dict[str, list[int]] = {
    "Riad Dar Anika": [780, 720, 840, 690],
    "Erg Chebbi Luxury Camp": [460, 420, 500, 540],
    "Riad Yasmine": [900, 860, 960, 810],
    "Casa Perleta": [320, 290, 360, 340],
}
NAME, CITY, CHECK_IN, NIGHTS, TOTAL, STATUS, HOLD = range(7)
FLIGHTS_PAID = [412, 389, 455, 436]
MOROCCO_DAYS: list[str] = [
    "Land in Marrakech, Jemaa el-Fnaa at dusk",
    "Bahia Palace and the souks",
    "Jardin Majorelle, hammam in the evening",
    "Drive over the Atlas to the dunes",
    "Sunrise camel trek, afternoon in the camp",
    "Drive to Fes",
    "Fes medina with Khadija",
    "Tanneries and the Bou Inania madrasa",
    "CTM bus to Chefchaouen",
    "Blue city walk, sunset at the Spanish mosque",
]


def riad_inputs(size: int, d: Draw) -> dict[str, Any]:
    """The trip's stays ``[name, city, check-in, nights, total, status, hold until]`` (the
    size's), their drawn totals and hold dates, and the flights already paid."""
    stays = [list(s) for s in MOROCCO_STAYS if s[0] in MOROCCO_STAYS_BY_SIZE[size]]
    for row in stays:
        row[TOTAL] = d.pick(MOROCCO_TOTALS[row[NAME]])
        shipped = row[HOLD]
        row[HOLD] = d.date(add_days(shipped, -4), add_days(shipped, 4), shipped=shipped)
    return {"size": size, "stays": stays, "flights_paid": d.pick(FLIGHTS_PAID)}


riad_params = shipped_params(riad_inputs)


def _booking(row: list[Any], size: int) -> dict[str, Any]:
    name, city, check_in, nights, total, status, hold = row
    confirmed = status == "confirmed"
    deposit = money(total * 0.3) if confirmed else 0
    booking: dict[str, Any] = {"name": name, "city": city, "check_in": check_in}
    if size >= 50:
        booking["nights"] = nights
    booking.update(
        total_eur=total,
        status=status,
        deposit_paid_eur=deposit,
        balance_due_eur=money(total - deposit),
        hold_expires=None if confirmed else hold,
        free_cancellation_until=add_days(check_in, -7) if confirmed else None,
    )
    return booking


def _riad_row(q: dict[str, Any], name: str) -> list[Any]:
    return next(row for row in q["stays"] if row[NAME] == name)  # type: ignore[no-any-return]


def _set_status(name: str, status: str) -> Any:
    return lambda q: _riad_row(q, name).__setitem__(STATUS, status)


def riad_compute(p: dict[str, Any]) -> dict[str, Any]:
    size, stays = p["size"], p["stays"]
    bookings = [_booking(s, size) for s in stays]
    if size == 10:
        return {"travelers": 2, "booking": bookings[0]}
    art: dict[str, Any] = {
        "trip": {
            "travelers": 2,
            "route": " - ".join(b["city"] for b in bookings),
            "arrive": "2025-04-05",
            "fly_home": add_days(stays[-1][CHECK_IN], stays[-1][NIGHTS]),
        },
        "bookings": bookings,
    }
    deposits = sum(b["deposit_paid_eur"] for b in bookings)
    art["payments"] = {
        "flights_paid_eur": p["flights_paid"],
        "deposits_paid_eur": money(deposits),
        "paid_so_far_eur": money(p["flights_paid"] + deposits),
        "due_at_check_ins_eur": money(sum(b["balance_due_eur"] for b in bookings)),
    }
    art["checklist"] = [
        {"task": f"Get {b['name']} confirmed", "done": b["status"] == "confirmed"} for b in bookings
    ]
    art["transport"] = [
        {"leg": "Marrakech to Merzouga", "how": "private driver over the Atlas", "cost_eur": 380},
        {"leg": "Merzouga to Fes", "how": "same driver", "cost_eur": 220},
    ]
    if size == 100:
        art["checklist"] += [
            {"task": "Book the Fes medina guide", "done": True},
            {"task": "Order dirhams from the bank", "done": False},
        ]
        confirmed = [b for b in bookings if b["status"] == "confirmed"]
        art["trip"]["status_line"] = f"{len(confirmed)} of {len(bookings)} stays confirmed"
        art["trip"]["nights_locked_in"] = sum(b["nights"] for b in confirmed)
        art["transport"].append({"leg": "Fes to Chefchaouen", "how": "CTM bus", "cost_eur": 24})
        art["contacts"] = {
            "driver": "Youssef, +212 661 204 318",
            "fes_guide": "Khadija, +212 662 118 090",
            "atlas_stays": "help@atlasstays.example",
        }
        art["packing"] = [
            "scarf for the desert",
            "headlamp",
            "modest layers for the medinas",
            "cash belt",
            "sunscreen",
            "motion-sickness tablets",
        ]
        art["days"] = [
            {"date": add_days("2025-04-05", i), "plan": plan} for i, plan in enumerate(MOROCCO_DAYS)
        ]
    return art


RIAD_RULE = (
    "Everything goes through Atlas Stays. While a booking is on hold nothing is charged and the hold "
    "lapses on its expiry date. Once a place confirms, they charge 30% of the total as a deposit right "
    "away, the rest is due at check-in, the hold date no longer applies (clear it), and we can cancel "
    "for free until 7 days before check-in."
)


def _on_hold_text(row: list[Any], nights: bool = True) -> str:
    stay = f", {row[NIGHTS]} nights from {spoken_date(row[CHECK_IN])}" if nights else ""
    return f"{row[NAME]} in {row[CITY]}{stay}, {euros(row[TOTAL])}, hold until {spoken_date(row[HOLD])}"


def riad_conversation(p: dict[str, Any]) -> list[Turn]:
    size, stays = p["size"], p["stays"]
    booking_ptrs = "name city check_in total_eur status deposit_paid_eur balance_due_eur hold_expires free_cancellation_until"
    if size == 10:
        row = stays[0]
        return [
            ("Two of us are going to Fes. " + RIAD_RULE, ["/travelers"]),
            (
                f"We've put {row[NAME]} on hold from {spoken_date(row[CHECK_IN], year=True)}: "
                f"{euros(row[TOTAL])} in total, hold until {spoken_date(row[HOLD])}. "
                f"Nothing is charged yet, so the whole {euros(row[TOTAL])} is still due.",
                members("/booking", booking_ptrs),
            ),
        ]
    anika = stays[0]
    turns: list[Turn] = [
        (
            "Morocco for two in April, arriving in Marrakech on 5 April 2025. " + RIAD_RULE,
            members("/trip", "travelers arrive"),
        ),
        (
            f"{anika[NAME]} in Marrakech is already confirmed: {anika[NIGHTS]} nights from "
            f"{spoken_date(anika[CHECK_IN])}, {euros(anika[TOTAL])} in total.",
            ["/bookings/0"],
        ),
        (
            f"On hold: {_on_hold_text(stays[1])}; and {_on_hold_text(stays[2])}.",
            ["/bookings/1", "/bookings/2"],
        ),
    ]
    if size == 100:
        turns.append((f"Also on hold: {_on_hold_text(stays[3])}.", ["/bookings/3"]))
    turns += [
        ("Put our route and the day we fly home at the top.", members("/trip", "route fly_home")),
        (
            f"Payments: flights are paid, {euros(p['flights_paid'])}. Track the deposits paid, what "
            "we've paid so far in total, and what's still due at the check-ins.",
            ["/payments"],
        ),
        (
            "Keep a checklist with one 'get it confirmed' item per stay; tick an item off when that place "
            "confirms."
            + (
                " Also: the Fes medina guide is booked, and we still need to order dirhams."
                if size == 100
                else ""
            ),
            [f"/checklist/{i}" for i in range(len(stays) + (2 if size == 100 else 0))],
        ),
        (
            "Transport: a private driver from Marrakech to Merzouga, one long day over the Atlas (€380), "
            "then the same driver on to Fes (€220)."
            + (" From Fes to Chefchaouen we take the CTM bus, €24." if size == 100 else ""),
            ["/transport"],
        ),
    ]
    if size == 100:
        turns += [
            (
                "Add a status line like '1 of 4 stays confirmed', and how many of our nights are locked in "
                "by confirmed bookings.",
                members("/trip", "status_line nights_locked_in"),
            ),
            (
                "Contacts: our driver Youssef, +212 661 204 318, Khadija, the Fes guide, +212 662 118 090, and "
                "Atlas Stays support at help@atlasstays.example. Packing: a scarf for the desert, a headlamp, "
                "modest layers for the medinas, a cash belt, sunscreen and motion-sickness tablets.",
                ["/contacts", "/packing"],
            ),
            (
                "Day by day: land in Marrakech and Jemaa el-Fnaa at dusk; Bahia Palace and the souks; Jardin "
                "Majorelle and a hammam in the evening; the drive over the Atlas to the dunes; a sunrise camel "
                "trek and an afternoon in camp; the drive to Fes; the medina with Khadija; the tanneries and the "
                "Bou Inania madrasa; the CTM bus to Chefchaouen; and a blue city walk with sunset at the Spanish "
                "mosque.",
                ["/days"],
            ),
        ]
    return turns


def riad_revision(p: dict[str, Any]) -> Revision:
    size = p["size"]
    direct = "/booking/status" if size == 10 else "/bookings/2/status"
    overrides = {direct.replace("status", "hold_expires"): regex(CLEARED)}
    if size == 100:
        overrides["/trip/status_line"] = regex(r"(?i)\b(2|two) of (4|four)\b")
    return Revision(
        request="Riad Yasmine just emailed: our booking is confirmed!",
        mutate=_set_status("Riad Yasmine", "confirmed"),
        direct=direct,
        overrides=overrides,
    )


def riad_followups(p: dict[str, Any]) -> list[Revision]:
    size = p["size"]
    booking = "/booking" if size == 10 else "/bookings/2"

    def line(n: int, word: str) -> dict[str, Override]:
        return (
            {"/trip/status_line": regex(rf"(?i)\b({n}|{word}) of (4|four)\b")}
            if size == 100
            else {}
        )

    def f2(q: dict[str, Any]) -> None:
        _riad_row(q, "Riad Yasmine")[TOTAL] = 840

    return [
        Revision(
            request="Scratch that, the email was about another guest's booking: Riad Yasmine is still on hold "
            "until 15 March.",
            mutate=_set_status("Riad Yasmine", "on hold"),
            direct=f"{booking}/status",
            overrides={f"{booking}/free_cancellation_until": regex(CLEARED), **line(1, "one")},
            theme="The confirmation is taken back: the deposit is undone, the hold date returns, the cancellation "
            "date clears and the payment totals and checklist follow",
            pattern="status_flip",
        ),
        Revision(
            request="Riad Yasmine dropped the price for our dates: €840 in total.",
            mutate=f2,
            direct=f"{booking}/total_eur",
            theme="A lower total on a booking still on hold lowers what is due at check-in; nothing is charged yet",
            pattern="arithmetic",
        ),
        Revision(
            request="Now it's real: Riad Yasmine has confirmed our booking.",
            mutate=_set_status("Riad Yasmine", "confirmed"),
            direct=f"{booking}/status",
            overrides={f"{booking}/hold_expires": regex(CLEARED), **line(2, "two")},
            theme="The booking confirms at its new price: the deposit is 30% of the lowered total, the hold "
            "clears, cancellation opens and the totals follow",
            pattern="status_flip",
        ),
    ]


# moves of travel-riad-confirmed: a stay on hold confirms, a confirmed one goes back on hold
# (its hold date stated), a stay is re-priced (the deposit rule restated when it is
# confirmed), and (sizes 10 and 50, which plan no days) the last stay moves


def _riad_pointer(p: dict[str, Any], i: int) -> str:
    return "/booking" if p["size"] == 10 else f"/bookings/{i}"


def _status_line(p: dict[str, Any], q: dict[str, Any]) -> dict[str, Override]:
    """At size 100 the status line counts the confirmed stays: a pattern when the count moves."""
    if p["size"] != 100:
        return {}
    k = sum(row[STATUS] == "confirmed" for row in q["stays"])
    n = len(q["stays"])
    return {"/trip/status_line": regex(rf"(?i)\b({k}|{count_word(k)}) of ({n}|{count_word(n)})\b")}


def _flip(p: dict[str, Any], d: Draw, to: str) -> Revision | None:
    choices = [i for i, row in enumerate(p["stays"]) if row[STATUS] != to]
    if not choices:
        return None
    i = d.pick(choices)
    row = p["stays"][i]
    name, at = row[NAME], _riad_pointer(p, i)
    q = _replayed(p, _set_status(name, to))
    if to == "confirmed":
        request = d.pick(
            [
                f"{name} just emailed: our booking is confirmed!",
                f"Good news: {name} has confirmed our stay.",
            ]
        )
        cleared = f"{at}/hold_expires"
        theme = (
            f"{name} confirms: its deposit is charged, the hold clears and free cancellation opens"
        )
    else:
        request = d.pick(
            [
                f"{name} sent that confirmation by mistake: we're back on hold until "
                f"{spoken_date(row[HOLD])}, and they refunded the deposit.",
                f"{name} had to undo our confirmation; the booking is on hold again until "
                f"{spoken_date(row[HOLD])} and the deposit came back to us.",
            ]
        )
        cleared = f"{at}/free_cancellation_until"
        theme = f"{name} goes back on hold: the deposit is undone and the hold date returns"
    return Revision(
        request=request,
        mutate=_set_status(name, to),
        direct=f"{at}/status",
        overrides={cleared: regex(CLEARED), **_status_line(p, q)},
        theme=theme,
    )


def _riad_reprice(p: dict[str, Any], d: Draw) -> Revision | None:
    i = d.pick(range(len(p["stays"])))
    row = p["stays"][i]
    total = d.pick([x for x in range(row[TOTAL] - 120, row[TOTAL] + 130, 20) if x != row[TOTAL]])
    request = f"{row[NAME]} changed the price for our dates: {euros(total)} in total."
    if row[STATUS] == "confirmed":
        request += " The deposit they hold is adjusted to 30% of the new total."
    return Revision(
        request=request,
        mutate=lambda q: q["stays"][i].__setitem__(TOTAL, total),
        direct=f"{_riad_pointer(p, i)}/total_eur",
        theme=f"{row[NAME]} is re-priced: its balance (and deposit, when confirmed) and the payments follow",
    )


def _move_last_stay(p: dict[str, Any], d: Draw) -> Revision | None:
    row = p["stays"][-1]
    shipped = next(s for s in MOROCCO_STAYS if s[0] == row[NAME])[CHECK_IN]
    pool = [add_days(shipped, n) for n in range(0, 3)]
    new = d.pick([x for x in pool if x != row[CHECK_IN]])
    request = f"{row[NAME]} moved our booking: we check in on {spoken_date(new)} now"
    if p["size"] == 10:
        request += "."
    else:
        request += (
            f", still {count_word(row[NIGHTS])} nights, and we fly home the day we check out."
        )
    return Revision(
        request=request,
        mutate=lambda q: q["stays"][-1].__setitem__(CHECK_IN, new),
        direct=f"{_riad_pointer(p, len(p['stays']) - 1)}/check_in",
        theme=f"{row[NAME]} starts on {new}: its free-cancellation date (when confirmed) and the flight "
        "home follow",
    )


def _stay_moves(p: dict[str, Any]) -> bool:
    """The last stay can move where a date follows it: the flight home (size 50), or its
    free-cancellation date once confirmed (size 10); size 100 plans its days, so no stay moves."""
    return p["size"] == 50 or (p["size"] == 10 and p["stays"][0][STATUS] == "confirmed")


RIAD_MOVES = [
    Move("confirm", "status_flip", lambda p, d: _flip(p, d, "confirmed")),
    Move("unconfirm", "status_flip", lambda p, d: _flip(p, d, "on hold")),
    Move("reprice", "arithmetic", _riad_reprice),
    Move("move-stay", "temporal", _move_last_stay, when=_stay_moves),
]


SCENARIOS = [
    Scenario(
        id="travel-group-headcount",
        domain=DOMAIN,
        pattern="arithmetic",
        theme="One more traveler raises every per-person cost, the totals, the split and the table bookings",
        params=headcount_params,
        compute=headcount_compute,
        conversation=headcount_conversation,
        revision=headcount_revision,
        followups=headcount_followups,
        inputs=headcount_inputs,
        moves=HEADCOUNT_MOVES,
        notes="Per-person prices multiply by the headcount; the apartment, taxi and group tours are flat "
        "prices and stay (distractors).",
    ),
    Scenario(
        id="travel-hotel-swap",
        domain=DOMAIN,
        pattern="substitution",
        theme="Swapping the Kyoto hotel copies its attributes in and updates room, breakfast and transfer references",
        params=swap_params,
        compute=swap_compute,
        conversation=swap_conversation,
        revision=swap_revision,
        followups=swap_followups,
        inputs=swap_inputs,
        moves=SWAP_MOVES,
        notes="The new hotel's data comes as reference; room cost is rate x nights and the breakfast budget "
        "depends on whether breakfast is included. The Osaka hotel is a distractor.",
    ),
    Scenario(
        id="travel-drop-excursion",
        domain=DOMAIN,
        pattern="add_remove",
        theme="Dropping a booked tour removes it from its day and lowers the tour, trip and per-person totals",
        params=ring_params,
        compute=ring_compute,
        conversation=ring_conversation,
        revision=ring_revision,
        followups=ring_followups,
        inputs=ring_inputs,
        moves=RING_MOVES,
        notes="Removing one activity: the day's tour list loses its id, the per-day spend and the totals drop; "
        "the other tour booked the same day stays.",
    ),
    Scenario(
        id="travel-child-fares",
        domain=DOMAIN,
        pattern="threshold",
        theme="A child turning 12 moves them to adult fares wherever the child rate stops at 11, not elsewhere",
        params=fares_params,
        compute=fares_compute,
        conversation=fares_conversation,
        revision=fares_revision,
        followups=fares_followups,
        inputs=fares_inputs,
        moves=FARES_MOVES,
        notes="Age threshold: 'under 12' rates (flights, breakfast, pizza class, gelato) flip to adult; "
        "'under 18', '6 to 17' and '12 and under' rates are distractors that do not change.",
    ),
    Scenario(
        id="travel-shift-departure",
        domain=DOMAIN,
        pattern="temporal",
        theme="Leaving a day later shifts every date set relative to departure; calendar-fixed events stay",
        params=shift_params,
        compute=shift_compute,
        conversation=shift_conversation,
        revision=shift_revision,
        followups=shift_followups,
        inputs=shift_inputs,
        moves=SHIFT_MOVES,
        notes="Stays, car, deadlines, day plan and pet sitter are offsets from the departure date; the Tattoo, "
        "the birthday dinner and the insurance deadline are absolute dates and stay.",
    ),
    Scenario(
        id="travel-riad-confirmed",
        domain=DOMAIN,
        pattern="status_flip",
        theme="A riad confirming the booking charges the deposit, clears the hold and sets the free-cancellation date",
        params=riad_params,
        compute=riad_compute,
        conversation=riad_conversation,
        revision=riad_revision,
        followups=riad_followups,
        inputs=riad_inputs,
        moves=RIAD_MOVES,
        notes="On hold -> confirmed moves deposit, balance, hold date and cancellation date together, plus the "
        "payment totals and the checklist; the other bookings still on hold are distractors.",
    ),
]
