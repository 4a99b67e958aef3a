"""travel_itinerary: people plan trips with an assistant that keeps the itinerary as JSON.

One scenario per propagation pattern. Every derived value (totals, dates, ticket counts,
deposits) is computed here from the inputs the user states, so the gold patch of each
revision is the difference between two computations of the same rules.
"""

from __future__ import annotations

from typing import Any

from pytest_revprop.authoring import Revision, Scenario, Turn, add_days, money, regex

DOMAIN = "travel_itinerary"


def all_of(*words: str) -> str:
    """A case-insensitive regex requiring every one of ``words``, in any order."""
    return "(?is)^" + "".join(f"(?=.*{w})" for w in words)


# --------------------------------------------------------------------------- travel-group-headcount
# Arithmetic: the number of travelers feeds every per-person cost, the totals and the bookings.

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


def headcount_params(size: int) -> dict[str, Any]:
    return {"size": size, "travelers": 4}


def headcount_compute(p: dict[str, Any]) -> dict[str, Any]:
    n, size, days = p["travelers"], p["size"], 3
    trip: dict[str, Any] = {"destination": "Lisbon", "travelers": n, "days": days}
    apartment: dict[str, Any] = {"name": "Alfama Rooftop Loft", "total_eur": 540}
    flights: dict[str, Any] = {"fare_per_person_eur": 128, "total_eur": 128 * n}
    food: dict[str, Any] = {"per_person_per_day_eur": 45, "total_eur": 45 * n * days}
    art: dict[str, Any] = {"trip": trip, "apartment": apartment, "flights": flights, "food": food}
    if size == 10:
        art["total_eur"] = apartment["total_eur"] + flights["total_eur"] + food["total_eur"]
        return art
    trip.update(start_date="2025-05-16", end_date="2025-05-18", home_city="Berlin")
    apartment.update(check_in="15:00", deposit_paid_eur=200, host="Inês")
    flights.update(airline="TAP Air Portugal", outbound="2025-05-16 07:05", return_flight="2025-05-18 21:40",
                   booking_ref="TP8K2Q")
    activities = HEADCOUNT_ACTIVITIES + (HEADCOUNT_ACTIVITIES_100 if size == 100 else [])
    art["activities"] = [
        {"name": name, "date": date, "pricing": pricing, "price_eur": price,
         "cost_eur": price * n if pricing == "per person" else price}
        for name, pricing, price, date in activities
    ]
    art["airport_taxi"] = {"vehicle": "van, seats 8", "eur_per_ride": 35, "rides": 2, "total_eur": 70}
    tables = HEADCOUNT_TABLES + (HEADCOUNT_TABLES_100 if size == 100 else [])
    art["restaurant_bookings"] = [
        {"restaurant": name, "date": date, "time": time, "party_size": n} for name, date, time in tables
    ]
    activities_total = sum(a["cost_eur"] for a in art["activities"])
    art["activities_total_eur"] = activities_total
    total = apartment["total_eur"] + flights["total_eur"] + food["total_eur"] + activities_total + 70
    art["total_eur"] = total
    art["per_person_eur"] = money(total / n)
    art["summary"] = f"Long weekend in Lisbon for {n} friends from Berlin"
    if size == 100:
        apartment.update(address="Rua dos Remédios 41, 3rd floor", check_out="11:00", door_code="4417")
        art["kitty"] = {"purpose": "tips, coffee and trams", "per_person_eur": 60, "total_eur": 60 * n,
                        "held_by": "Jonas"}
        art["day_plans"] = [
            {"date": date, "morning": m, "afternoon": a, "evening": e} for date, m, a, e in HEADCOUNT_DAYS
        ]
        art["packing"] = ["comfortable shoes", "light rain jacket", "power adapter (type F)",
                          "sunscreen", "swimwear for Cascais"]
        art["emergency"] = {"number": "112", "embassy": "German Embassy Lisbon, +351 21 881 0210",
                            "pharmacy": "Farmácia Estácio, Rossio"}
    return art


def headcount_conversation(p: dict[str, Any]) -> list[Turn]:
    size = p["size"]
    if size == 10:
        return [
            ("I'm organizing a long weekend in Lisbon with friends: 4 of us, 3 days.", ["/trip"]),
            ("We found a loft in Alfama for €540 for the whole stay, however many of us sleep there.",
             ["/apartment"]),
            ("Return flights from Berlin are €128 per person.", ["/flights"]),
            ("For food, plan €45 per person per day.", ["/food"]),
            ("What does the whole weekend come to?", ["/total_eur"]),
        ]
    turns: list[Turn] = [
        ("I'm organizing a long weekend in Lisbon, 16 to 18 May 2025, three days. We're 4 friends "
         "flying from Berlin.", ["/trip"]),
        ("Booked the Alfama Rooftop Loft: €540 for the whole stay regardless of headcount, check-in "
         "from 15:00, host is Inês. We already paid her a €200 deposit.",
         ["/apartment/name", "/apartment/total_eur", "/apartment/check_in", "/apartment/deposit_paid_eur",
          "/apartment/host"]),
        ("Flights are with TAP, €128 return per person: out 16 May at 07:05, back 18 May at 21:40, "
         "booking reference TP8K2Q.",
         ["/flights"]),
        ("Food budget: €45 per person per day.", ["/food"]),
    ]
    activity_text = (
        "Activities: the fado dinner at Clube de Fado on the 16th (€55 a head), the Sintra and Cascais "
        "day trip on the 17th (€39 a head), and a private street-art walking tour on the 18th, which is "
        "a flat €150 for the group."
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
        ("We'll take a van taxi to and from the airport: it seats 8 and costs €35 per ride, so two rides.",
         ["/airport_taxi"]),
    ]
    booking_text = ("Reserve tables for all of us at Taberna da Rua das Flores on the 16th at 20:30 and "
                    "at Cervejaria Ramiro on the 17th at 21:00.")
    booking_ptrs = ["/restaurant_bookings/0", "/restaurant_bookings/1"]
    if size == 100:
        booking_text += " Same for A Cevicheria on the 18th at 13:00 and Time Out Market that evening at 19:30."
        booking_ptrs += ["/restaurant_bookings/2", "/restaurant_bookings/3"]
    turns += [
        (booking_text, booking_ptrs),
        ("Add up the activities, then the full budget: apartment, flights, food, activities and taxis. "
         "Also show what that is per person if we split it evenly, to the cent.",
         ["/activities_total_eur", "/total_eur", "/per_person_eur"]),
    ]
    turns.append(("Put a one-line summary in the plan, something like who's going where.", ["/summary"]))
    if size == 100:
        turns += [
            ("Inês sent the details: the loft is at Rua dos Remédios 41, 3rd floor, door code 4417, "
             "check-out by 11:00.",
             ["/apartment/address", "/apartment/check_out", "/apartment/door_code"]),
            ("On top of the budget, everyone puts €60 into a kitty for tips, coffee and trams; Jonas "
             "holds it. Keep that outside the budget total.", ["/kitty"]),
            ("Rough plan per day. Friday: land 10:50 and drop the bags, Alfama and the castle in the "
             "afternoon, fado dinner. Saturday: Sintra palaces, then Cascais beach, dinner at Ramiro. "
             "Sunday: street-art tour in Graça, pastries in Belém, at the airport by 19:30.",
             ["/day_plans"]),
            ("Packing reminders: comfortable shoes, a light rain jacket, a type F power adapter, sunscreen "
             "and swimwear for Cascais. And note the emergency number 112, the German Embassy "
             "(+351 21 881 0210) and the nearest pharmacy, Farmácia Estácio on Rossio.",
             ["/packing", "/emergency"]),
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


# --------------------------------------------------------------------------- travel-hotel-swap
# Substitution: the Kyoto hotel is swapped; its attributes, the costs it drives and every
# place that names it follow. The Osaka hotel is a distractor.

KYOTO_HOTELS: dict[str, dict[str, Any]] = {
    "Hotel Kamogawa Riverside": {
        "neighborhood": "Pontocho", "nightly_rate_usd": 180, "breakfast_included": False,
        "check_in_time": "15:00", "address": "145 Nabeya-cho, Nakagyo-ku, Kyoto",
        "phone": "+81 75-221-0145", "free_cancellation_days": 3,
    },
    "Gion Garden Inn": {
        "neighborhood": "Gion", "nightly_rate_usd": 205, "breakfast_included": True,
        "check_in_time": "14:00", "address": "570 Gionmachi Minamigawa, Higashiyama-ku, Kyoto",
        "phone": "+81 75-561-0570", "free_cancellation_days": 7,
    },
}
OSAKA_HOTEL: dict[str, Any] = {
    "hotel": "Hotel Dotonbori Crest", "neighborhood": "Namba", "nightly_rate_usd": 140,
    "breakfast_included": False, "check_in_time": "15:00", "address": "2-8-14 Dotonbori, Chuo-ku, Osaka",
    "phone": "+81 6-6211-0814", "free_cancellation_days": 1,
}
SWAP_ARRIVE = "2025-10-14"
BREAKFAST_USD = 15


def swap_params(size: int) -> dict[str, Any]:
    return {"size": size, "travelers": 2, "kyoto_hotel": "Hotel Kamogawa Riverside"}


def _stay(city: str, hotel: str, info: dict[str, Any], nights: int, check_in: str, size: int) -> dict[str, Any]:
    stay: dict[str, Any] = {
        "city": city, "nights": nights, "hotel": hotel, "neighborhood": info["neighborhood"],
        "nightly_rate_usd": info["nightly_rate_usd"], "breakfast_included": info["breakfast_included"],
    }
    if size >= 50:
        stay.update(check_in_date=check_in, check_out_date=add_days(check_in, nights),
                    check_in_time=info["check_in_time"], address=info["address"],
                    lodging_usd=info["nightly_rate_usd"] * nights)
    if size == 100:
        stay.update(phone=info["phone"],
                    free_cancellation_until=add_days(check_in, -info["free_cancellation_days"]))
    return stay


def swap_compute(p: dict[str, Any]) -> dict[str, Any]:
    size, n = p["size"], p["travelers"]
    kyoto = _stay("Kyoto", p["kyoto_hotel"], KYOTO_HOTELS[p["kyoto_hotel"]], 4, SWAP_ARRIVE, size)
    stays = [kyoto]
    if size >= 50:
        stays.append(_stay("Osaka", OSAKA_HOTEL["hotel"], OSAKA_HOTEL, 2, add_days(SWAP_ARRIVE, 4), size))
    lodging = sum(s["nightly_rate_usd"] * s["nights"] for s in stays)
    breakfast = sum(BREAKFAST_USD * n * s["nights"] for s in stays if not s["breakfast_included"])
    costs: dict[str, Any] = {"lodging_usd": lodging, "breakfast_usd": breakfast}
    art: dict[str, Any] = {"trip": {"travelers": n}, "stays": stays, "costs": costs}
    if size == 10:
        costs["total_usd"] = lodging + breakfast
        return art
    art["trip"].update(title="Kansai in autumn", arrive=SWAP_ARRIVE, depart=add_days(SWAP_ARRIVE, 6),
                       flights="Zipair NRT-KIX connection, booked separately")
    hotel = p["kyoto_hotel"]
    art["transfers"] = [
        {"from": "Kansai Airport", "to": hotel, "date": SWAP_ARRIVE, "service": "MK Skygate Shuttle",
         "price_usd": 70},
        {"from": hotel, "to": OSAKA_HOTEL["hotel"], "date": add_days(SWAP_ARRIVE, 4),
         "service": "luggage forwarding", "price_usd": 30},
    ]
    costs["transfers_usd"] = 100
    costs["total_usd"] = lodging + breakfast + 100
    costs["per_person_usd"] = money(costs["total_usd"] / n)
    art["notes"] = ["JR Pass not worth it for this route", "Carry cash for temples"]
    if size == 100:
        art["notes"] += ["Most temples close around 17:00", "Tax-free shopping needs the passport"]
    info = KYOTO_HOTELS[hotel]
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
            {"what": "Tea ceremony, Camellia Garden", "date": "2025-10-16", "time": "15:00", "paid": True},
            {"what": "Kikunoi dinner", "date": "2025-10-17", "time": "19:00", "paid": False},
            {"what": "Universal Studios tickets", "date": "2025-10-19", "time": "09:00", "paid": True},
        ]
    art["days"] = [{"date": add_days(SWAP_ARRIVE, i), "plan": plan} for i, plan in enumerate(plans)]
    if size == 100:
        for i, day in enumerate(art["days"]):
            day["overnight"] = hotel if i < 4 else OSAKA_HOTEL["hotel"]
        art["trip"]["travelers_names"] = "Ana and Tom"
        art["shortlist"] = [
            {"hotel": "Kyoto Machiya Stay", "nightly_rate_usd": 230, "breakfast_included": True},
            {"hotel": "Sanjo Station Hotel", "nightly_rate_usd": 150, "breakfast_included": False},
        ]
        art["packing"] = ["slip-on shoes for temples", "coin purse", "umbrella", "portable charger"]
        art["reservations"].append(
            {"what": "Pocket wifi pickup", "date": SWAP_ARRIVE, "time": "11:40", "paid": True})
        art["rail"] = {"route": "Kyoto to Osaka, JR Special Rapid", "date": add_days(SWAP_ARRIVE, 4),
                       "fare_usd_per_person": 4}
        art["emergency"] = {"police": "110", "ambulance_fire": "119"}
    return art


def swap_conversation(p: dict[str, Any]) -> list[Turn]:
    size = p["size"]
    kyoto = KYOTO_HOTELS["Hotel Kamogawa Riverside"]
    if size == 10:
        return [
            ("My partner and I are planning 4 nights in Kyoto. Just the two of us.",
             ["/trip", "/stays/0/city", "/stays/0/nights"]),
            ("We're looking at Hotel Kamogawa Riverside in Pontocho: $180 a night for the room, "
             "breakfast not included.",
             ["/stays/0/hotel", "/stays/0/neighborhood", "/stays/0/nightly_rate_usd",
              "/stays/0/breakfast_included"]),
            ("Work out the room cost for the stay. And if breakfast isn't included, budget $15 per person "
             "for every morning, one morning per night we stay. Then give me the total of the two.",
             ["/costs"]),
        ]
    stay_ptrs = ["hotel", "neighborhood", "nightly_rate_usd", "breakfast_included", "check_in_date",
                 "check_out_date", "check_in_time", "address", "lodging_usd"]
    if size == 100:
        stay_ptrs += ["phone", "free_cancellation_until"]
    kyoto_text = (
        f"For Kyoto we like Hotel Kamogawa Riverside in Pontocho, {kyoto['address']}: $180 a night for "
        "the room, breakfast not included, check-in from 15:00."
    )
    osaka_text = ("For Osaka, Hotel Dotonbori Crest in Namba, 2-8-14 Dotonbori, Chuo-ku: $140 a night, "
                  "no breakfast, check-in 15:00.")
    if size == 100:
        kyoto_text += " Phone +81 75-221-0145; free cancellation until 3 days before arrival."
        osaka_text += " Phone +81 6-6211-0814; free cancellation until the day before arrival."
    turns: list[Turn] = [
        ("Planning Kansai in autumn for my partner and me: arriving in Kyoto on 14 October 2025 for "
         "4 nights, then 2 nights in Osaka, flying out on the 20th. Flights are a Zipair connection "
         "we booked separately.",
         ["/trip/travelers", "/trip/title", "/trip/arrive", "/trip/depart", "/trip/flights", "/stays/0/city", "/stays/0/nights", "/stays/1/city", "/stays/1/nights"]),
        (kyoto_text + " Put the room cost for the stay next to it.",
         [f"/stays/0/{k}" for k in stay_ptrs]),
        (osaka_text, [f"/stays/1/{k}" for k in stay_ptrs]),
        ("Costs so far: all the rooms together, plus breakfast where the hotel doesn't include it, "
         "at $15 per person per morning, one morning per night.",
         ["/costs/lodging_usd", "/costs/breakfast_usd"]),
        ("Transfers: the MK Skygate Shuttle from Kansai Airport to our Kyoto hotel on arrival day "
         "($70), and luggage forwarding from the Kyoto hotel to the Osaka one on the 18th ($30).",
         ["/transfers", "/costs/transfers_usd"]),
        ("Total it up: rooms, breakfasts and transfers, and what that is for each of us.",
         ["/costs/total_usd", "/costs/per_person_usd"]),
        ("Notes to self: the JR Pass isn't worth it for this route, and carry cash for temples."
         + (" Also: most temples close around 17:00, and tax-free shopping needs the passport."
            if size == 100 else ""),
         ["/notes"]),
    ]
    plan_text = ("Day by day: on arrival we land at KIX at 11:40 and take the shuttle to the hotel to check "
                 "in; then Fushimi Inari at dawn with lunch at Nishiki Market; then the Arashiyama bamboo "
                 "grove and a 15:00 tea ceremony.")
    if size == 50:
        return [*turns, (plan_text, ["/days"])]
    return [
        *turns,
        (plan_text + " After that a day trip to Nara; on the 18th the bags go ahead by courier and we "
         "train to Osaka; last day Osaka Castle, Kuromon Market and Dotonbori at night.",
         [f"/days/{i}/{k}" for i in range(6) for k in ("date", "plan")]),
        ("For each day, also note which hotel we sleep at that night.",
         [f"/days/{i}/overnight" for i in range(6)]),
        ("Reservations I've made: the tea ceremony at Camellia Garden on the 16th at 15:00 (paid), "
         "Kikunoi dinner on the 17th at 19:00 (pay there), Universal Studios on the 19th from 09:00 (paid), "
         "and the pocket wifi pickup at KIX when we land at 11:40 (paid).",
         ["/reservations"]),
        ("It's Ana and Tom travelling, by the way. Keep the other two Kyoto places we looked at for "
         "reference: Kyoto Machiya Stay ($230, breakfast included) and Sanjo Station Hotel ($150, no "
         "breakfast).",
         ["/trip/travelers_names", "/shortlist"]),
        ("On the 18th we take the JR Special Rapid from Kyoto to Osaka, $4 each. Packing: slip-on shoes "
         "for temples, a coin purse, an umbrella and a portable charger. Emergency numbers: police 110, "
         "ambulance and fire 119.",
         ["/rail", "/packing", "/emergency"]),
    ]


def swap_revision(p: dict[str, Any]) -> Revision:
    size = p["size"]
    new = KYOTO_HOTELS["Gion Garden Inn"]
    reference: dict[str, Any] = {
        "hotel": "Gion Garden Inn", "neighborhood": new["neighborhood"],
        "nightly_rate_usd": new["nightly_rate_usd"], "breakfast_included": new["breakfast_included"],
    }
    overrides = {}
    if size >= 50:
        reference.update(check_in_time=new["check_in_time"], address=new["address"])
        overrides["/days/0/plan"] = regex(all_of("gion garden inn", "14:00"))
    if size == 100:
        reference.update(phone=new["phone"], free_cancellation="until 7 days before arrival")
    return Revision(
        request="Let's switch Kyoto to the Gion Garden Inn instead. Its details are below.",
        mutate=lambda q: q.update(kyoto_hotel="Gion Garden Inn"),
        direct="/stays/0/hotel",
        overrides=overrides,
        reference=reference,
    )


# --------------------------------------------------------------------------- travel-drop-excursion
# Add/remove: one booked tour is dropped; the day that listed it, the tour totals and the
# summary follow.

RING_START = "2025-06-09"
RING_TOURS: list[tuple[str, str, int, int]] = [
    ("golden-circle", "Golden Circle small-group tour", 2, 89),
    ("glacier-hike", "Sólheimajökull glacier hike", 3, 125),
    ("zodiac", "Jökulsárlón zodiac boat tour", 4, 95),
    ("whale-watching", "Húsavík whale watching", 6, 110),
    ("nature-baths", "Mývatn Nature Baths", 6, 55),
    ("lava-tunnel", "Raufarhólshellir lava tunnel", 8, 60),
]
RING_TOURS_BY_SIZE: dict[int, tuple[str, ...]] = {
    10: ("golden-circle", "whale-watching"),
    50: ("golden-circle", "glacier-hike", "whale-watching", "nature-baths"),
    100: tuple(t[0] for t in RING_TOURS),
}
RING_OVERNIGHTS = ["Reykjavík", "Hella", "Vík", "Höfn", "Egilsstaðir", "Mývatn", "Borgarnes", "flight home"]
RING_STAYS: list[tuple[str, int, int]] = [
    ("Reykjavík, Hotel Frón", 1, 160), ("Hella, Stracta guesthouse", 1, 140), ("Vík, Puffin Hostel", 1, 120),
    ("Höfn, Milk Factory", 1, 150), ("Egilsstaðir, Lake Hotel", 1, 145), ("Mývatn, Vogafjós farm stay", 1, 170),
    ("Borgarnes, Hotel Hafnarfjall", 1, 130),
]


def ring_params(size: int) -> dict[str, Any]:
    return {"size": size, "tours": list(RING_TOURS_BY_SIZE[size])}


def ring_compute(p: dict[str, Any]) -> dict[str, Any]:
    size, n = p["size"], 2
    tours = [t for t in RING_TOURS if t[0] in p["tours"]]
    trip: dict[str, Any] = {"route": "Iceland ring road", "travelers": n, "nights": 7}
    activities_usd = sum(price * n for _, _, _, price in tours)
    if size == 10:
        activities = [{"name": name, "price_per_person_usd": price} for _, name, _, price in tours]
        return {"trip": trip, "activities": activities, "activities_total_usd": activities_usd,
                "car_rental_usd": 640, "total_usd": activities_usd + 640}
    trip.update(start_date=RING_START, end_date=add_days(RING_START, 7))
    activities = [
        {"id": tid, "name": name, "date": add_days(RING_START, day - 1), "price_per_person_usd": price,
         "cost_usd": price * n}
        for tid, name, day, price in tours
    ]
    days: list[dict[str, Any]] = []
    for i, overnight in enumerate(RING_OVERNIGHTS):
        todays = [t for t in tours if t[2] == i + 1]
        day: dict[str, Any] = {"date": add_days(RING_START, i), "overnight": overnight,
                               "tours": [t[0] for t in todays]}
        if size == 100:
            day["tour_spend_usd"] = sum(t[3] * n for t in todays)
        days.append(day)
    costs: dict[str, Any] = {"activities_usd": activities_usd, "car_rental_usd": 640, "fuel_usd": 380}
    art: dict[str, Any] = {"trip": trip, "activities": activities, "days": days, "costs": costs}
    if size == 100:
        trip["summary"] = f"8 days, 7 nights, {len(tours)} tours"
        costs["lodging_usd"] = sum(price for _, _, price in RING_STAYS)
        art["stays"] = [{"place": place, "nights": nights, "price_usd": price} for place, nights, price in RING_STAYS]
        art["car"] = {"company": "Blue Car Rental", "model": "Dacia Duster 4x4", "pickup": "KEF airport",
                      "gravel_insurance": True, "return": add_days(RING_START, 7)}
        art["packing"] = ["crampons provided by guide", "swimsuits", "eye mask for the midnight sun",
                          "waterproof trousers"]
        art["emergency"] = {"number": "112", "road_conditions": "umferdin.is"}
    total = sum(v for v in costs.values())
    costs["total_usd"] = total
    costs["per_person_usd"] = money(total / n)
    return art


def ring_conversation(p: dict[str, Any]) -> list[Turn]:
    size = p["size"]
    if size == 10:
        return [
            ("We're two people doing the Iceland ring road, 7 nights.", ["/trip"]),
            ("Tours so far: a Golden Circle small-group tour at $89 each and whale watching out of "
             "Húsavík at $110 each.", ["/activities/0", "/activities/1"]),
            ("Add up the tours for both of us. The rental car is $640 for the week; then give me the "
             "grand total of tours and car.",
             ["/activities_total_usd", "/car_rental_usd", "/total_usd"]),
        ]
    trip_ptrs = ["/trip/route", "/trip/travelers", "/trip/nights", "/trip/start_date", "/trip/end_date"]
    turns: list[Turn] = [
        ("We're two people doing the Iceland ring road: landing 9 June 2025, 7 nights, flying home "
         "late on the 16th.", trip_ptrs),
        ("The overnight stops, in order: Reykjavík, Hella, Vík, Höfn, Egilsstaðir, Mývatn, Borgarnes; "
         "the last day ends with the flight home. One entry per day please.",
         [f"/days/{i}/{k}" for i in range(8) for k in ("date", "overnight")]),
    ]
    tour_text = ("Tours we booked, prices per person: Golden Circle small-group tour on day 2 ($89), "
                 "Sólheimajökull glacier hike on day 3 ($125), ")
    if size == 100:
        tour_text += "Jökulsárlón zodiac boat tour on day 4 ($95), "
    tour_text += "Húsavík whale watching on day 6 ($110) and the Mývatn Nature Baths the same evening ($55)"
    tour_text += ", and the Raufarhólshellir lava tunnel on the last morning ($60)." if size == 100 else "."
    ids = RING_TOURS_BY_SIZE[size]
    tour_ptrs = [f"/activities/{i}" for i in range(len(ids))]
    turns.append((tour_text + " Show what each costs for the two of us.", tour_ptrs))
    link_ptrs = [f"/days/{i}/tours" for i in range(8)]
    link_text = "Under each day, list the tours of that day (an empty list on days without one)."
    if size == 100:
        link_text += " And per day, what we spend on tours that day."
        link_ptrs += [f"/days/{i}/tour_spend_usd" for i in range(8)]
    turns.append((link_text, link_ptrs))
    cost_text = ("Costs: all the tours together, the car at $640 for the week and about $380 of fuel")
    cost_ptrs = ["/costs/activities_usd", "/costs/car_rental_usd", "/costs/fuel_usd"]
    if size == 100:
        turns.append((
            "Where we sleep: Hotel Frón in Reykjavík $160, Stracta guesthouse in Hella $140, Puffin Hostel "
            "in Vík $120, the Milk Factory in Höfn $150, Lake Hotel in Egilsstaðir $145, the Vogafjós farm "
            "stay at Mývatn $170 and Hotel Hafnarfjall in Borgarnes $130, one night each, per room.",
            ["/stays"]))
        cost_text += ", plus all the rooms"
        cost_ptrs.append("/costs/lodging_usd")
    turns.append((cost_text + ". Then the total, and half of it for each of us.",
                   [*cost_ptrs, "/costs/total_usd", "/costs/per_person_usd"]))
    if size == 100:
        turns += [
            ("Give the trip a short summary line: days, nights and how many tours.", ["/trip/summary"]),
            ("Car: Blue Car Rental, a Dacia Duster 4x4 from KEF airport with gravel insurance, back on "
             "the 16th.", ["/car"]),
            ("Packing: the guide provides crampons, but bring swimsuits, an eye mask for the midnight sun "
             "and waterproof trousers. Emergency number is 112; road conditions on umferdin.is.",
             ["/packing", "/emergency"]),
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
        notes="Removing one activity: the day's tour list loses its id, the per-day spend and the totals drop; "
              "the other tour booked the same day stays.",
    ),
]
