"""shopping_cart: shoppers build carts and orders with an assistant that keeps them as JSON.

Every total, tax, threshold flag and status is computed here from what the shopper states,
so each gold patch is the difference between two computations of the same rules.
"""

from __future__ import annotations

import copy
import datetime as dt
import math
import re
from typing import Any

from pytest_revprop.authoring.helpers import (
    CLEARED,
    add_days,
    count_word,
    dollars,
    each,
    members,
    money,
    percent,
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

DOMAIN = "shopping_cart"


def line_total(price: float, qty: int) -> float:
    return money(price * qty)


def add_business_days(iso_date: str, days: int) -> str:
    """The date ``days`` business days (Monday to Friday) after ``iso_date``."""
    day = dt.date.fromisoformat(iso_date)
    while days > 0:
        day += dt.timedelta(days=1)
        if day.weekday() < 5:
            days -= 1
    return day.isoformat()


# --------------------------------------------------------------------------- cart-price-drop
# Arithmetic: one unit price drops; line total, subtotal, savings, tax, total, amount due,
# reward points and a price alert follow. The worked example of fresh instances: its inputs
# are drawn (prices, quantities, rates, the store, the shopper), and its moves re-price,
# re-count, add and remove lines, cross a price alert and change the tax rate or gift card.

# (sku, name, list price, price, qty)
COFFEE_ITEMS: list[tuple[str, str, float, float, int]] = [
    ("HC-KT-220", "Electric gooseneck kettle", 59.99, 49.99, 1),
    ("HC-PO-110", "Ceramic pour-over set", 27.50, 27.50, 2),
    ("HC-GR-340", "Conical burr grinder", 149.00, 129.00, 1),
    ("HC-SC-050", "Coffee scale with timer", 24.99, 24.99, 1),
    ("HC-FL-100", "Paper filters, 100 pack", 6.49, 6.49, 3),
    ("HC-MG-012", "Stoneware mugs, set of 4", 38.00, 38.00, 1),
    ("HC-CN-020", "Airtight coffee canister", 22.00, 18.00, 1),
    ("HC-MF-075", "Handheld milk frother", 34.99, 29.99, 1),
    ("HC-CT-030", "Descaling tablets, 30 pack", 12.99, 12.99, 2),
]
COFFEE_LINES_BY_SIZE = {10: 2, 50: 5, 100: 9}
# (sku, name, price): the wishlist, its last entry only in the size-100 cart
COFFEE_WISHLIST: list[tuple[str, str, float]] = [
    ("HC-SK-090", "Stovetop whistling kettle", 34.99),
    ("HC-CB-400", "Cold brew tower", 89.00),
    ("HC-ET-058", "Espresso tamper", 19.50),
    ("HC-GC-027", "Glass carafe", 27.00),
]
KETTLE = "HC-KT-220"
# the price alerts of the size-100 cart beside the kettle's: (sku, item, alert below)
OTHER_ALERTS = [
    ("HC-GR-340", "Conical burr grinder", 110.00),
    ("HC-MF-075", "Handheld milk frother", 25.00),
]
KETTLE_ELSEWHERE = {"BrewMart": 44.99, "KitchenHub": 47.50}
# the pools fresh instances draw from; the first member of each is the shipped value
KETTLE_PRICES = [49.99, 39.99, 41.99, 43.99, 46.99, 48.99, 52.99, 54.99]  # no tie with elsewhere
COFFEE_STORES = ["Hearth & Brew", "Copper Kettle Co.", "Bean & Burr", "Morning Ritual Supply"]
SHOPPERS = ["Jordan Lee", "Priya Shah", "Marcus Webb", "Elena Novak", "Sam Okafor"]
CARDS = ["Mastercard", "Visa", "Amex"]
TAX_RATES = [0.08, 0.06, 0.07, 0.09]
COFFEE_SHIPPING = [5.95, 4.99, 6.50, 7.95]
GIFT_CARDS = [25.00, 15.00, 20.00, 30.00, 40.00]


def drop_inputs(size: int, d: Draw) -> dict[str, Any]:
    """The cart's inputs: its lines ``[sku, name, list price, price, qty]``, the wishlist
    ``[sku, name, price]``, lines taken out (``removed``), and the rates and amounts the
    conversation states."""
    lines = [list(row) for row in COFFEE_ITEMS[: COFFEE_LINES_BY_SIZE[size]]]
    lines[0][3] = d.pick(KETTLE_PRICES)
    lines[1][3] = d.pick([27.50, 24.00, 29.50, 32.00])
    for row in lines[1:]:
        if row[4] > 1:
            row[4] = d.int(2, 4, shipped=row[4])
    if size >= 50:
        lines[2][3] = d.pick([129.00, 119.00, 135.00, 139.00])
    return {
        "size": size,
        "lines": lines,
        "wishlist": [list(row) for row in COFFEE_WISHLIST[: 4 if size == 100 else 3]],
        "removed": [],
        "store": d.pick(COFFEE_STORES),
        "tax_rate": d.pick(TAX_RATES),
        "shipping": d.pick(COFFEE_SHIPPING),
        "gift_card": d.pick(GIFT_CARDS),
        "card": [d.pick(CARDS), d.int(1000, 9999, shipped=8812)],
        "points": d.int(100, 900, shipped=340),
        "alert_below": d.pick([45.00, 40.00, 50.00]),
        "shopper": d.pick(SHOPPERS),
        "budget": d.pick([500, 450, 600, 750]),
    }


def drop_params(size: int) -> dict[str, Any]:
    return drop_inputs(size, SHIPPED)


BRANDS = {"Anker"}
"""Names that keep their capital mid-sentence."""


def _label(name: str) -> str:
    """An item's name as a shopper writes it mid-sentence: ``paper filters`` for "Paper
    filters, 100 pack" (the part before a comma names one line of the catalog)."""
    head = name.split(",")[0]
    if head[:2].isupper() or head.split()[0] in BRANDS:
        return head
    return head[0].lower() + head[1:]


def _kettle_price(p: dict[str, Any]) -> float:
    return next(row[3] for row in p["lines"] if row[0] == KETTLE)  # type: ignore[no-any-return]


def _alerts(p: dict[str, Any]) -> dict[str, float]:
    """The alerted items of the cart's size (sku -> alert below): the kettle's, and at size 100
    the grinder's and the frother's."""
    alerts = {KETTLE: p["alert_below"]}
    if p["size"] == 100:
        alerts.update((sku, below) for sku, _, below in OTHER_ALERTS)
    return alerts


def _cheapest(p: dict[str, Any]) -> str:
    offers = {p["store"]: _kettle_price(p), **KETTLE_ELSEWHERE}
    return min(offers, key=lambda store: offers[store])


def drop_compute(p: dict[str, Any]) -> dict[str, Any]:
    size, rows = p["size"], p["lines"]
    subtotal = money(sum(row[3] * row[4] for row in rows))
    tax = money(subtotal * p["tax_rate"])
    total = money(subtotal + tax + p["shipping"])
    if size == 10:
        return {
            "items": [{"name": row[1], "price": row[3], "qty": row[4]} for row in rows],
            "subtotal": subtotal,
            "tax": tax,
            "shipping": p["shipping"],
            "total": total,
        }
    items = [
        {
            "sku": sku,
            "name": name,
            "list_price": list_price,
            "price": price,
            "qty": qty,
            "line_total": line_total(price, qty),
        }
        for sku, name, list_price, price, qty in rows
    ]
    savings = money(sum((row[2] - row[3]) * row[4] for row in rows))
    kettle = _kettle_price(p)
    art: dict[str, Any] = {
        "store": p["store"],
        "items": items,
        "summary": {
            "subtotal": subtotal,
            "you_save": savings,
            "tax": tax,
            "shipping": p["shipping"],
            "total": total,
        },
        "payment": {
            "gift_card": p["gift_card"],
            "card": f"{p['card'][0]} ending {p['card'][1]}",
            "amount_due": money(total - p["gift_card"]),
        },
        "rewards": {"points_this_order": math.floor(subtotal), "balance_before": p["points"]},
        "price_alerts": [
            {
                "item": "Electric gooseneck kettle",
                "alert_below": p["alert_below"],
                "triggered": kettle < p["alert_below"],
            },
        ],
    }
    art["wishlist"] = [{"name": name, "price": price} for _, name, price in p["wishlist"]]
    if size == 100:
        art["order_id"] = "HB-30418"
        art["rewards"]["balance_after"] = p["points"] + math.floor(subtotal)
        prices = {row[0]: row[3] for row in rows}
        art["price_alerts"] += [
            {"item": item, "alert_below": below, "triggered": prices[sku] < below}
            for sku, item, below in OTHER_ALERTS
        ]
        art["delivery"] = {
            "to": f"{p['shopper']}, 88 Alder St, Portland, ME 04101",
            "window": "3-5 business days",
            "instructions": "Ring the bell twice",
        }
        art["budget"] = {
            "limit": p["budget"],
            "left_after_order": money(p["budget"] - art["payment"]["amount_due"]),
        }
        art["kettle_comparison"] = {
            "elsewhere": [
                {"store": store, "price": price} for store, price in KETTLE_ELSEWHERE.items()
            ],
            "cheapest_at": _cheapest(p),
        }
        art["bean_subscription"] = {
            "beans": "Ethiopia Guji",
            "bags": 2,
            "every_weeks": 2,
            "price_per_bag": 18.00,
        }
        art["notes"] = ["Kettle is 120 V", "Ask about replacement burrs for the grinder"]
    return art


def drop_conversation(p: dict[str, Any]) -> list[Turn]:
    size, rows = p["size"], p["lines"]
    kettle, pour_over = rows[0], rows[1]
    rules = (
        f"Sales tax is {percent(p['tax_rate'])} of the subtotal, rounded to the cent, and shipping is"
        f" a flat {dollars(p['shipping'])}."
    )
    if size == 10:
        return [
            (
                f"I'm getting a coffee setup: one electric gooseneck kettle at {dollars(kettle[3])} and"
                f" {count_word(pour_over[4])} ceramic pour-over sets at {dollars(pour_over[3])} each.",
                ["/items"],
            ),
            (
                rules + " Show the subtotal, tax, shipping and total.",
                ["/subtotal", "/tax", "/shipping", "/total"],
            ),
        ]
    grinder, scale, filters = rows[2], rows[3], rows[4]
    turns: list[Turn] = [
        (
            f"Building a coffee cart at {p['store']}. First the gooseneck kettle, HC-KT-220: on sale at"
            f" {dollars(kettle[3])}, normally {dollars(kettle[2])}. Then {count_word(pour_over[4])}"
            f" ceramic pour-over sets, HC-PO-110, {dollars(pour_over[3])} each, no discount.",
            ["/store", "/items/0", "/items/1"],
        ),
        (
            f"Add the conical burr grinder HC-GR-340, {dollars(grinder[3])} instead of"
            f" {dollars(grinder[2])}, the coffee scale HC-SC-050 at {dollars(scale[3])}, and"
            f" {count_word(filters[4])} packs of paper filters, HC-FL-100, {dollars(filters[3])} each.",
            ["/items/2", "/items/3", "/items/4"],
        ),
    ]
    if size == 100:
        descaler = rows[8]
        turns.append(
            (
                "A few more things: stoneware mugs HC-MG-012 ($38), the airtight canister HC-CN-020 ($18, down "
                "from $22), a milk frother HC-MF-075 ($29.99, was $34.99) and"
                f" {count_word(descaler[4])} packs of descaling tablets HC-CT-030 at {dollars(descaler[3])}.",
                ["/items/5", "/items/6", "/items/7", "/items/8"],
            )
        )
    card, number = p["card"]
    turns += [
        (
            "Summarize: subtotal, how much I save against the regular prices,"
            f" {percent(p['tax_rate'])} sales tax on the subtotal (rounded to the cent), flat"
            f" {dollars(p['shipping'])} shipping, and the total.",
            ["/summary"],
        ),
        (
            f"I'll use my {dollars(p['gift_card'])} gift card and put the rest on my {card} ending"
            f" {number}; show what's left to pay.",
            ["/payment"],
        ),
        (
            f"I earn a point per whole dollar of the subtotal; my balance is {p['points']} points."
            + (" Show the balance after this order too." if size == 100 else ""),
            members(
                "/rewards",
                "points_this_order balance_before" + (" balance_after" if size == 100 else ""),
            ),
        ),
        (
            f"Set a price alert for the kettle at {dollars(p['alert_below'])}: flag it as triggered once"
            " its price is below that.",
            ["/price_alerts/0"],
        ),
        (
            "On my wishlist, not in the cart: a stovetop whistling kettle at $34.99, a cold brew tower at $89 "
            "and an espresso tamper at $19.50.",
            ["/wishlist/0", "/wishlist/1", "/wishlist/2"],
        ),
    ]
    if size == 100:
        turns += [
            (
                "Same kind of alert for the grinder below $110, and for the frother below $25.",
                ["/price_alerts/1", "/price_alerts/2"],
            ),
            (
                f"Add a glass carafe ($27) to the wishlist. Deliver to {p['shopper']}, 88 Alder St, Portland,"
                " ME 04101; they quote 3-5 business days. Ask them to ring the bell twice.",
                ["/wishlist/3", "/delivery"],
            ),
            (
                f"My budget for all this is {dollars(p['budget'])}. How much is left after what I still"
                " have to pay?",
                ["/budget"],
            ),
            (
                "I checked the kettle elsewhere: BrewMart has it for $44.99 and KitchenHub for $47.50. Note those "
                "and which store is cheapest for it, counting this one.",
                ["/kettle_comparison"],
            ),
            (
                "Separately I have a bean subscription: Ethiopia Guji, 2 bags every 2 weeks at $18 a bag. And two "
                "notes: the kettle is 120 V, and ask about replacement burrs for the grinder. The cart's order "
                "id is HB-30418.",
                ["/bean_subscription", "/notes", "/order_id"],
            ),
        ]
    return turns


def _cheapest_override(p: dict[str, Any], q: dict[str, Any]) -> dict[str, Override]:
    """At size 100 a new kettle price may change the cheapest store: its name, which the user
    did not spell, is judged by a pattern."""
    if p["size"] != 100 or _cheapest(p) == _cheapest(q):
        return {}
    word = re.escape(_cheapest(q).split()[0].lower())
    return {"/kettle_comparison/cheapest_at": regex(f"(?i){word}")}


def drop_revision(p: dict[str, Any]) -> Revision:
    overrides = {"/kettle_comparison/cheapest_at": regex(r"(?i)hearth")} if p["size"] == 100 else {}
    return Revision(
        request="The kettle just dropped to $39.99, please update my cart.",
        mutate=lambda q: _set_price(q, 0, 39.99),
        direct="/items/0/price",
        overrides=overrides,
    )


def _set_price(q: dict[str, Any], line: int, price: float) -> None:
    q["lines"][line][3] = price


def _set_qty(q: dict[str, Any], line: int, qty: int) -> None:
    q["lines"][line][4] = qty


def _to_cart(q: dict[str, Any], sku: str) -> None:
    """Move a wishlist item (or a line taken out earlier) into the cart, as its last line."""
    for row in q["wishlist"]:
        if row[0] == sku:
            q["wishlist"].remove(row)
            q["lines"].append([sku, row[1], row[2], row[2], 1])
            return
    row = next(r for r in q["removed"] if r[0] == sku)
    q["removed"].remove(row)
    q["lines"].append([*row[:4], 1])


def drop_followups(p: dict[str, Any]) -> list[Revision]:
    size = p["size"]
    n = COFFEE_LINES_BY_SIZE[size]
    back_up = {"/kettle_comparison/cheapest_at": regex(r"(?i)brewmart")} if size == 100 else {}
    stovetop = (
        "Add one more item, Stovetop whistling kettle: one at $34.99."
        if size == 10
        else "Move the stovetop whistling kettle from my wishlist into the cart: one, SKU HC-SK-090, "
        "$34.99, not on sale."
    )
    return [
        Revision(
            request="Make it three of the ceramic pour-over sets, one is for my sister.",
            mutate=lambda q: _set_qty(q, 1, 3),
            direct="/items/1/qty",
            theme="A third pour-over set raises its line, the subtotal, tax, totals and points",
            pattern="arithmetic",
        ),
        Revision(
            request="The kettle sale is over, it's back up to $47.99. Update the cart.",
            mutate=lambda q: _set_price(q, 0, 47.99),
            direct="/items/0/price",
            overrides=back_up,
            theme="The kettle goes back above the $45 alert the drop crossed: the alert clears, savings "
            "shrink, totals rise and another store becomes cheapest",
            pattern="threshold",
        ),
        Revision(
            request=stovetop,
            mutate=lambda q: _to_cart(q, "HC-SK-090"),
            direct=f"/items/{n}",
            theme="A wishlist kettle moves into the cart: a new line, the wishlist loses it, totals and "
            "points rise",
            pattern="add_remove",
        ),
    ]


# moves of cart-price-drop: each request names only what its size's cart holds (no SKUs, list
# prices, alerts, wishlist or gift card at size 10)


def _crosses(p: dict[str, Any], line: int, price: float) -> bool:
    """Whether re-pricing ``line`` to ``price`` crosses that item's price alert."""
    sku, _, _, old, _ = p["lines"][line]
    below = _alerts(p).get(sku) if p["size"] >= 50 else None
    return below is not None and (old < below) != (price < below)


def _new_price(p: dict[str, Any], line: int, d: Draw, cross: bool) -> float | None:
    """A new price for ``line``: at most its list price, not its current one, crossing its alert
    exactly when ``cross``; for the kettle one of the pool (no tie with another store)."""
    sku, _, list_price, old, _ = p["lines"][line]
    pool = (
        KETTLE_PRICES
        if sku == KETTLE
        else sorted(
            {
                money(round(list_price * f) - 0.01) if f < 1 else list_price
                for f in (1, 0.9, 0.8, 0.7, 0.6)
            }
        )
    )
    fits = [x for x in pool if x != old and x <= list_price and _crosses(p, line, x) == cross]
    return d.pick(fits) if fits else None


def _reprice(p: dict[str, Any], d: Draw, cross: bool) -> Revision | None:
    lines = [i for i in range(len(p["lines"])) if not cross or p["lines"][i][0] in _alerts(p)]
    line = d.pick(lines)
    price = _new_price(p, line, d, cross)
    if price is None:
        return None
    label = _label(p["lines"][line][1])
    old = p["lines"][line][3]
    q = copy.deepcopy(p)
    _set_price(q, line, price)
    request = d.pick(
        [
            f"The {label} just dropped to {dollars(price)}, please update my cart.",
            f"Good news, the price of the {label} is down to {dollars(price)} now.",
        ]
        if price < old
        else [
            f"The {label} went up to {dollars(price)}. Update the cart.",
            f"Price change: the {label} costs {dollars(price)} now.",
        ]
    )
    crossing = "crosses its price alert" if cross else "stays on its side of any alert"
    return Revision(
        request=request,
        mutate=lambda q: _set_price(q, line, price),
        direct=f"/items/{line}/price",
        overrides=_cheapest_override(p, q),
        theme=f"The {label} is re-priced ({crossing}): its line, the totals and points follow",
    )


def _requantity(p: dict[str, Any], d: Draw) -> Revision | None:
    line = d.pick(range(len(p["lines"])))
    old = p["lines"][line][4]
    qty = d.pick([q for q in range(1, 6) if q != old])
    label = _label(p["lines"][line][1])
    return Revision(
        request=d.pick(
            [
                f"I need {count_word(qty)} of the {label} now, not {count_word(old)}.",
                f"Change the quantity of the {label} to {qty}, please.",
            ]
        ),
        mutate=lambda q: _set_qty(q, line, qty),
        direct=f"/items/{line}/qty",
        theme=f"The {label} goes from {old} to {qty}: its line, the totals and points follow",
    )


def _add_line(p: dict[str, Any], d: Draw) -> Revision | None:
    """Move a wishlist item, or a line taken out earlier, into the cart."""
    choices = [("wishlist", row) for row in p["wishlist"]] + [
        ("removed", row) for row in p["removed"]
    ]
    if not choices:
        return None
    where, row = d.pick(choices)
    sku, name = row[0], row[1]
    label = _label(name)
    if p["size"] == 10:
        price = row[2] if where == "wishlist" else row[3]
        request = f"Add this to the cart too: {name}, one at {dollars(price)}."
    elif where == "wishlist":
        request = f"Move the {label} from my wishlist into the cart: one, SKU {sku}, {dollars(row[2])}, not on sale."
    else:
        sale = "not on sale" if row[3] == row[2] else f"normally {dollars(row[2])}"
        request = f"Put the {label} back in the cart after all: one, SKU {sku}, {dollars(row[3])}, {sale}."
    return Revision(
        request=request,
        mutate=lambda q: _to_cart(q, sku),
        direct=f"/items/{len(p['lines'])}",
        theme=f"The {label} joins the cart as a new line: the totals and points rise",
    )


def _remove_line(p: dict[str, Any], d: Draw) -> Revision | None:
    """Take out a line that no price alert watches (the cart keeps at least one line)."""
    alerts = _alerts(p) if p["size"] >= 50 else {KETTLE: 0.0}
    lines = [i for i, row in enumerate(p["lines"]) if row[0] not in alerts]
    if not lines:
        return None
    line = d.pick(lines)
    label = _label(p["lines"][line][1])

    def take_out(q: dict[str, Any]) -> None:
        q["removed"].append(q["lines"].pop(line))

    return Revision(
        request=d.pick(
            [f"Take the {label} out of my cart.", f"Remove the {label}, I don't need it after all."]
        ),
        mutate=take_out,
        direct=f"/items/{line}",
        theme=f"The {label} leaves the cart: the totals and points fall",
    )


def _retax(p: dict[str, Any], d: Draw) -> Revision | None:
    rate = d.pick([r for r in TAX_RATES if r != p["tax_rate"]])
    return Revision(
        request=f"I got the sales tax wrong: it's {percent(rate)} here, not {percent(p['tax_rate'])}.",
        mutate=lambda q: q.update(tax_rate=rate),
        direct="/tax" if p["size"] == 10 else "/summary/tax",
        theme="A new tax rate changes the tax and the total",
    )


def _regift(p: dict[str, Any], d: Draw) -> Revision | None:
    amount = d.pick([g for g in GIFT_CARDS if g != p["gift_card"]])
    return Revision(
        request=f"My gift card only has {dollars(amount)} on it, not {dollars(p['gift_card'])}.",
        mutate=lambda q: q.update(gift_card=amount),
        direct="/payment/gift_card",
        theme="Another gift card amount changes what is left to pay",
    )


DROP_MOVES = [
    Move("reprice", "arithmetic", lambda p, d: _reprice(p, d, cross=False)),
    Move("requantity", "arithmetic", _requantity),
    Move(
        "cross-alert",
        "threshold",
        lambda p, d: _reprice(p, d, cross=True),
        when=lambda p: p["size"] >= 50,
    ),
    Move("add-line", "add_remove", _add_line),
    Move("remove-line", "add_remove", _remove_line, when=lambda p: len(p["lines"]) > 1),
    Move("tax-rate", "arithmetic", _retax, opens=False),
    Move("gift-card", "arithmetic", _regift, when=lambda p: p["size"] >= 50, opens=False),
]

# --------------------------------------------------------------------------- cart-free-shipping
# Threshold: one more bag of food lifts the subtotal over $75, so shipping becomes free
# (and slower); the free-gift threshold at $150 is not reached.

# (sku, name, price, qty)
PET_ITEMS: list[tuple[str, str, float, int]] = [
    ("PP-KB-12", "Salmon kibble, 12 lb bag", 32.99, 1),
    ("PP-CM-03", "Catnip mice, 3-pack", 6.50, 2),
    ("PP-LT-20", "Clumping cat litter, 20 lb", 17.49, 1),
    ("PP-DC-30", "Dental chews, 30 count", 8.99, 1),
    ("PP-SM-01", "Free sample: freeze-dried chicken treats", 0.00, 1),
]
PET_LINES_BY_SIZE = {10: 2, 50: 3, 100: 5}
PET_PAST_ORDERS: list[tuple[str, str, float, float]] = [
    ("PP-40911", "2025-04-03", 81.20, 0.00),
    ("PP-41877", "2025-04-29", 38.45, 7.99),
    ("PP-42310", "2025-05-14", 64.10, 7.99),
    ("PP-42702", "2025-05-22", 12.99, 7.99),
]
FREE_GIFT_AT = 150.00
# (sku, name, price): saved for later, the last two only in the size-100 cart
PET_SAVED: list[tuple[str, str, float]] = [
    ("PP-CT-05", "Cat tree, 5 ft", 119.00),
    ("PP-LB-SC", "Self-cleaning litter box", 329.00),
    ("PP-KB-24", "Salmon kibble, 24 lb bag", 59.99),
    ("PP-HB-01", "Heated cat bed", 45.00),
    ("PP-WF-01", "Water fountain", 34.95),
]
FEATHER_WAND = ("PP-FW-01", "Feather wand toy", 8.99, 2)
# how the owner names each item in a request (the listed names alone leave the two kibble
# bags alike)
PET_SPOKEN = {
    "PP-KB-12": "12 lb bag of salmon kibble",
    "PP-CM-03": "catnip mice",
    "PP-LT-20": "clumping litter",
    "PP-DC-30": "dental chews",
    "PP-FW-01": "feather wand toys",
    "PP-CT-05": "5 ft cat tree",
    "PP-LB-SC": "self-cleaning litter box",
    "PP-KB-24": "24 lb bag of salmon kibble",
    "PP-HB-01": "heated cat bed",
    "PP-WF-01": "water fountain",
}
CATS = [("Miso", "Tofu"), ("Pepper", "Juniper"), ("Biscuit", "Nori"), ("Olive", "Mochi")]
PET_OWNERS = ["Priya Raman", "Grace Obi", "Leo Martins", "Nadia Haddad"]


def ship_inputs(size: int, d: Draw) -> dict[str, Any]:
    """The cart's inputs: its lines ``[sku, name, price, qty]``, the saved-for-later list, the
    shipping rules, and the cats, owner and dates the conversation states."""
    lines = [list(row) for row in PET_ITEMS[: PET_LINES_BY_SIZE[size]]]
    lines[1][3] = d.int(2, 3, shipped=2)
    first, second = d.pick(CATS)
    return {
        "size": size,
        "lines": lines,
        "saved": [list(row) for row in PET_SAVED[: 5 if size == 100 else 3]],
        "free_at": d.pick([75.00, 80.00, 85.00]),
        "paid": d.pick([7.99, 6.99, 8.49]),
        "cats": [
            [first, d.int(2, 9, shipped=4), d.int(8, 14, shipped=11)],
            [second, d.int(1, 8, shipped=2), d.int(7, 13, shipped=9)],
        ],
        "owner": d.pick(PET_OWNERS),
        "balance": d.int(100, 900, shipped=515),
        "order_date": d.date("2025-06-02", "2025-06-13", shipped="2025-06-02", weekdays="01234"),
    }


def ship_params(size: int) -> dict[str, Any]:
    return ship_inputs(size, SHIPPED)


def _pet_subtotal(p: dict[str, Any]) -> float:
    return money(sum(price * qty for _, _, price, qty in p["lines"]))


def ship_compute(p: dict[str, Any]) -> dict[str, Any]:
    size, rows = p["size"], p["lines"]
    subtotal = _pet_subtotal(p)
    free = subtotal >= p["free_at"]
    shipping = 0 if free else p["paid"]
    to_free = money(max(0.0, p["free_at"] - subtotal))
    total = money(subtotal + shipping)
    if size == 10:
        return {
            "items": [{"name": name, "price": price, "qty": qty} for _, name, price, qty in rows],
            "subtotal": subtotal,
            "shipping": shipping,
            "amount_to_free_shipping": to_free,
            "total": total,
        }
    (cat1, age1, weight1), (cat2, age2, weight2) = p["cats"]
    art: dict[str, Any] = {
        "store": "Paws & Pantry",
        "items": [
            {
                "sku": sku,
                "name": name,
                "price": price,
                "qty": qty,
                "line_total": line_total(price, qty),
            }
            for sku, name, price, qty in rows
        ],
        "subtotal": subtotal,
        "shipping": {
            "service": "Free Ground" if free else "Standard",
            "delivery_estimate": "5-7 business days" if free else "3-5 business days",
            "cost": shipping,
        },
        "free_shipping": free,
        "amount_to_free_shipping": to_free,
        "amount_to_free_gift": money(max(0.0, FREE_GIFT_AT - subtotal)),
        "total": total,
        "pets": [
            {"name": cat1, "species": "cat", "age_years": age1, "weight_lb": weight1},
            {"name": cat2, "species": "cat", "age_years": age2, "weight_lb": weight2},
        ],
        "rewards": {
            "points_per_dollar": 2,
            "points_this_order": 2 * math.floor(subtotal),
            "balance": p["balance"],
        },
        "saved_for_later": [{"name": name, "price": price} for _, name, price in p["saved"]],
        "autoship": {
            "item": "Clumping cat litter, 20 lb",
            "every_weeks": 4,
            "next_date": "2025-06-12",
        },
        "delivery_address": f"{p['owner']}, 2210 SE Ash St, Portland, OR 97214",
        "coupon": {"code": "SPRING5", "status": "expired", "note": "5% off ended 2025-04-30"},
        "store_pickup": {"available": False, "nearest": "Paws & Pantry Hawthorne"},
    }
    if size == 100:
        fastest, slowest = (5, 7) if free else (3, 5)
        art["order_date"] = p["order_date"]
        art["arrival_window"] = {
            "earliest": add_business_days(p["order_date"], fastest),
            "latest": add_business_days(p["order_date"], slowest),
        }
        art["pet_budget"] = {
            "monthly_usd": 150,
            "spent_this_month": 22.50,
            "left_after_order": money(150 - 22.50 - total),
        }
        art["past_orders"] = [
            {"number": n, "date": d, "subtotal": sub, "shipping": sh, "total": money(sub + sh)}
            for n, d, sub, sh in PET_PAST_ORDERS
        ]
        art["vet"] = {
            "clinic": "Hawthorne Vet",
            "phone": "(503) 555-0142",
            "next_checkup": "2025-07-15",
        }
        for pet in art["pets"]:
            pet["food"] = "salmon kibble"
        art["notes"] = [f"{cat1} only eats the salmon recipe", f"{cat2} chews cables"]
        art["payment"] = {"card": "Visa ending 7731", "billing_zip": "97214"}
        art["delivery_instructions"] = "Leave at the side gate"
    return art


def ship_rules(p: dict[str, Any]) -> str:
    return (
        f"Standard shipping is {dollars(p['paid'])} and takes 3-5 business days. Once the merchandise"
        f" subtotal reaches {dollars(p['free_at'])} it switches to Free Ground, which costs nothing"
        " but takes 5-7 business days."
    )


def ship_conversation(p: dict[str, Any]) -> list[Turn]:
    size = p["size"]
    mice = count_word(p["lines"][1][3])
    if size == 10:
        return [
            (
                "Pet supplies order: one 12 lb bag of salmon kibble at $32.99 and"
                f" {mice} 3-packs of catnip mice at $6.50 each.",
                ["/items"],
            ),
            (
                f"Shipping is {dollars(p['paid'])}, but it's free once the subtotal reaches"
                f" {dollars(p['free_at'])}. No sales tax here in Oregon. Show the subtotal, shipping,"
                " how far I am from free shipping, and the total.",
                ["/subtotal", "/shipping", "/amount_to_free_shipping", "/total"],
            ),
        ]
    n = PET_LINES_BY_SIZE[size]
    item_text = (
        "Ordering from Paws & Pantry for our cats: one 12 lb bag of salmon kibble (PP-KB-12, $32.99), "
        f"{mice} 3-packs of catnip mice (PP-CM-03, $6.50 each) and a 20 lb tub of clumping litter "
        "(PP-LT-20, $17.49)"
    )
    item_text += (
        ", plus a 30-count bag of dental chews (PP-DC-30, $8.99). They add a free sample of "
        "freeze-dried chicken treats (PP-SM-01, $0)."
        if size == 100
        else "."
    )
    (cat1, age1, weight1), (cat2, age2, weight2) = p["cats"]
    turns: list[Turn] = [
        (
            f"The cats are {cat1}, {age1} years and {weight1} lb, and {cat2}, {age2} years and"
            f" {weight2} lb.",
            each("/pets", 2, "name species age_years weight_lb"),
        ),
        (item_text, ["/store", *[f"/items/{i}" for i in range(n)]]),
        (
            ship_rules(p)
            + " There's no sales tax in Oregon. Show the subtotal, the shipping, whether it's "
            "free, how much more I'd need for free shipping, and the total.",
            ["/subtotal", "/shipping", "/free_shipping", "/amount_to_free_shipping", "/total"],
        ),
        (
            "They also throw in a free toy once the subtotal hits $150; track how far off that is.",
            ["/amount_to_free_gift"],
        ),
    ]
    turns += [
        (
            f"Rewards: 2 points per whole dollar of the subtotal; my balance is {p['balance']}.",
            ["/rewards"],
        ),
        (
            "Saved for later, not in this order: a 5 ft cat tree ($119), a self-cleaning litter box ($329) and "
            "the 24 lb kibble bag ($59.99).",
            ["/saved_for_later/0", "/saved_for_later/1", "/saved_for_later/2"],
        ),
        (
            "The litter is also on autoship every 4 weeks, next one 2025-06-12. Deliver to "
            f"{p['owner']}, 2210 SE Ash St, Portland, OR 97214.",
            ["/autoship", "/delivery_address"],
        ),
        (
            "My SPRING5 coupon (5% off) expired on 2025-04-30, so note it as expired. Store pickup isn't "
            "available; the nearest store is Paws & Pantry Hawthorne.",
            ["/coupon", "/store_pickup"],
        ),
    ]
    if size == 100:
        day = dt.date.fromisoformat(p["order_date"])
        turns += [
            (
                f"I'm placing the order today, {_spoken_date(p['order_date'])} (a {day:%A}). Business"
                " days are Monday to Friday: give me the earliest and latest arrival dates for the"
                " shipping we have.",
                ["/order_date", "/arrival_window"],
            ),
            (
                "Our monthly pet budget is $150 and I've spent $22.50 so far this month. What's left after this order?",
                ["/pet_budget"],
            ),
            (
                "For reference, my recent orders: PP-40911 on 2025-04-03, $81.20 with free shipping; PP-41877 on "
                "2025-04-29, $38.45 plus $7.99 shipping; PP-42310 on 2025-05-14, $64.10 plus $7.99; PP-42702 on "
                "2025-05-22, $12.99 plus $7.99. Show each with its total.",
                ["/past_orders"],
            ),
            (
                "Vet is Hawthorne Vet, (503) 555-0142, next checkup 2025-07-15. Both cats eat the salmon kibble.",
                ["/vet", "/pets/0/food", "/pets/1/food"],
            ),
            (
                "Also save a heated cat bed ($45) and a water fountain ($34.95) for later. Notes:"
                f" {cat1} only eats the salmon recipe; {cat2} chews cables.",
                ["/saved_for_later/3", "/saved_for_later/4", "/notes"],
            ),
            (
                "Pay with the Visa ending 7731, billing ZIP 97214, and ask them to leave it at the side gate.",
                ["/payment", "/delivery_instructions"],
            ),
        ]
    return turns


def _service(p: dict[str, Any], q: dict[str, Any]) -> dict[str, Override]:
    """The shipping service's words when the edit crosses the free-shipping line (sizes 50, 100)."""
    before, after = _pet_subtotal(p) >= p["free_at"], _pet_subtotal(q) >= q["free_at"]
    if p["size"] == 10 or before == after:
        return {}
    if after:
        return {
            "/shipping/service": regex(r"(?i)free ground"),
            "/shipping/delivery_estimate": regex(r"5\s*(-|–|to)\s*7"),
        }
    return {
        "/shipping/service": regex(r"(?i)standard"),
        "/shipping/delivery_estimate": regex(r"3\s*(-|–|to)\s*5"),
    }


def _bags(q: dict[str, Any], n: int) -> None:
    q["lines"][0][3] = n


def ship_revision(p: dict[str, Any]) -> Revision:
    q = copy.deepcopy(p)
    _bags(q, 2)
    return Revision(
        request="Actually make it two bags of the salmon kibble.",
        mutate=lambda q: _bags(q, 2),
        direct="/items/0/qty",
        overrides=_service(p, q),
    )


def ship_followups(p: dict[str, Any]) -> list[Revision]:
    size = p["size"]
    paid: dict[str, Any] = {}
    free: dict[str, Any] = {}
    if size >= 50:
        paid = {
            "/shipping/service": regex(r"(?i)standard"),
            "/shipping/delivery_estimate": regex(r"3\s*(-|–|to)\s*5"),
        }
    if size == 100:
        free = {
            "/shipping/service": regex(r"(?i)free ground"),
            "/shipping/delivery_estimate": regex(r"5\s*(-|–|to)\s*7"),
        }

    def feather_wands(q: dict[str, Any]) -> None:
        q["lines"][1] = list(FEATHER_WAND)

    return [
        Revision(
            request="The cats go through it fast; make it four bags of the salmon kibble.",
            mutate=lambda q: _bags(q, 4),
            direct="/items/0/qty",
            theme="Four bags instead of two raise the subtotal past the $150 free-gift mark; shipping "
            "stays free",
            pattern="threshold",
        ),
        Revision(
            request="Hmm, we're moving next month. Just one bag of the kibble after all.",
            mutate=lambda q: _bags(q, 1),
            direct="/items/0/qty",
            overrides=paid,
            theme="Back to one bag drops the subtotal under $75 again: paid, faster shipping returns "
            "and both gaps reopen",
            pattern="threshold",
        ),
        Revision(
            # size 10 items hold no SKU: the request there gives none
            request="Swap the catnip mice for two feather wand toys"
            + (", $8.99 each." if size == 10 else " (PP-FW-01), $8.99 each."),
            mutate=feather_wands,
            direct="/items/1/name",
            overrides={**free, "/items/1/name": regex(r"(?i)^feather wand toys?$")},
            theme="A pricier toy replaces the mice: the line is re-priced, and the subtotal, gaps, "
            "points and total follow (in the big cart it crosses $75 again)",
            pattern="substitution",
        ),
    ]


# moves of cart-free-shipping: quantities that cross the free-shipping (and, in the larger
# carts, the free-gift) line or stay clear of it, items in and out, the toy swapped, the fee


def _sides(p: dict[str, Any]) -> tuple[bool, ...]:
    """Which side of each line the subtotal is on: free shipping, and the free gift where the
    size tracks it."""
    subtotal = _pet_subtotal(p)
    return (subtotal >= p["free_at"],) + ((subtotal >= FREE_GIFT_AT,) if p["size"] >= 50 else ())


def _pet_quantity(p: dict[str, Any], d: Draw, cross: bool) -> Revision | None:
    """A new quantity for a priced line, crossing a line exactly when ``cross``."""
    options = []
    for line, row in enumerate(p["lines"]):
        for qty in range(1, 7):
            if row[2] == 0 or qty == row[3]:
                continue
            q = copy.deepcopy(p)
            q["lines"][line][3] = qty
            if (_sides(p) != _sides(q)) == cross:
                options.append((line, qty))
    if not options:
        return None
    line, qty = d.pick(options)
    label = PET_SPOKEN[p["lines"][line][0]]
    old = p["lines"][line][3]
    q = copy.deepcopy(p)
    q["lines"][line][3] = qty
    return Revision(
        request=d.pick(
            [
                f"Change the quantity of the {label} to {qty}, not {old}.",
                f"I'd like {qty} of the {label} instead of {old}.",
            ]
        ),
        mutate=lambda q: q["lines"][line].__setitem__(3, qty),
        direct=f"/items/{line}/qty",
        overrides=_service(p, q),
        theme=f"The {label} goes from {old} to {qty}"
        + (": the subtotal crosses a line" if cross else ": the subtotal moves, no line crossed"),
    )


def _pet_add(p: dict[str, Any], d: Draw) -> Revision | None:
    """At sizes 50 and 100 an item saved for later moves into the cart; at size 10 a catalog
    item not in the cart is added with its price."""
    if p["size"] == 10:
        skus = {row[0] for row in p["lines"]}
        pool = [row for row in PET_ITEMS[:4] if row[0] not in skus]
        if not pool:
            return None
        sku, name, price, _ = d.pick(pool)
        request = f"Add this too: {name}, one at {dollars(price)}."

        def mutate(q: dict[str, Any]) -> None:
            q["lines"].append([sku, name, price, 1])

    else:
        if not p["saved"]:
            return None
        sku, name, price = d.pick(p["saved"])
        request = (
            f"Move the {PET_SPOKEN[sku]} from saved for later into the cart: one, SKU {sku},"
            f" {dollars(price)}."
        )

        def mutate(q: dict[str, Any]) -> None:
            q["saved"] = [row for row in q["saved"] if row[0] != sku]
            q["lines"].append([sku, name, price, 1])

    q = copy.deepcopy(p)
    mutate(q)
    return Revision(
        request=request,
        mutate=mutate,
        direct=f"/items/{len(p['lines'])}",
        overrides=_service(p, q),
        theme=f"The {PET_SPOKEN[sku]} join the cart: the subtotal, gaps, points and total follow",
    )


def _pet_remove(p: dict[str, Any], d: Draw) -> Revision | None:
    lines = [i for i, row in enumerate(p["lines"]) if row[2] > 0]
    if len(lines) < 2:
        return None
    line = d.pick(lines)
    label = PET_SPOKEN[p["lines"][line][0]]

    def mutate(q: dict[str, Any]) -> None:
        del q["lines"][line]

    q = copy.deepcopy(p)
    mutate(q)
    return Revision(
        request=f"Take the {label} out of the cart.",
        mutate=mutate,
        direct=f"/items/{line}",
        overrides=_service(p, q),
        theme=f"The {label} leaves the cart: the subtotal, gaps, points and total follow",
    )


_TOY_NAMES = {
    "PP-FW-01": r"(?i)^feather wand toys?$",
    "PP-CM-03": r"(?i)^catnip mice(, 3-pack)?$",
}


def _pet_toy(p: dict[str, Any], d: Draw) -> Revision | None:
    """Swap the catnip mice for feather wands or back (the line stays where it is)."""
    line = next(i for i, row in enumerate(p["lines"]) if row[0] in ("PP-CM-03", "PP-FW-01"))
    to_wand = p["lines"][line][0] == "PP-CM-03"
    sku, name, price, _ = FEATHER_WAND if to_wand else PET_ITEMS[1]
    qty = d.int(1, 3)
    unit = "feather wand toy" if to_wand else "3-pack of catnip mice"
    label = unit if qty == 1 else unit.replace("toy", "toys").replace("3-pack ", "3-packs ")
    old = "catnip mice" if to_wand else "feather wands"
    sku_text = f" ({sku})" if p["size"] >= 50 else ""
    q = copy.deepcopy(p)
    q["lines"][line] = [sku, name, price, qty]
    return Revision(
        request=f"Swap the {old} for {count_word(qty)} {label}{sku_text}, {dollars(price)} each.",
        mutate=lambda q: q["lines"].__setitem__(line, [sku, name, price, qty]),
        direct=f"/items/{line}/name",
        # the request spells the name in lower case (and maybe plural): the gold takes either
        overrides={**_service(p, q), f"/items/{line}/name": regex(_TOY_NAMES[sku])},
        theme=f"The {old} give way to another toy: the line, subtotal, gaps and total follow",
    )


def _pet_fee(p: dict[str, Any], d: Draw) -> Revision | None:
    fee = d.pick([f for f in (6.99, 7.99, 8.49, 8.99, 9.49) if f != p["paid"]])
    return Revision(
        request=f"Paws & Pantry raised standard shipping to {dollars(fee)}."
        if fee > p["paid"]
        else f"Paws & Pantry lowered standard shipping to {dollars(fee)}.",
        mutate=lambda q: q.update(paid=fee),
        direct="/shipping" if p["size"] == 10 else "/shipping/cost",
        theme="A new standard shipping fee changes the total of a cart that pays shipping",
    )


SHIP_MOVES = [
    Move("cross-line", "threshold", lambda p, d: _pet_quantity(p, d, cross=True)),
    Move("requantity", "arithmetic", lambda p, d: _pet_quantity(p, d, cross=False)),
    Move("add-line", "add_remove", _pet_add),
    Move("remove-line", "add_remove", _pet_remove),
    Move(
        "swap-toy",
        "substitution",
        _pet_toy,
        when=lambda p: any(row[0] in ("PP-CM-03", "PP-FW-01") for row in p["lines"]),
    ),
    Move(
        "shipping-fee",
        "arithmetic",
        _pet_fee,
        when=lambda p: _pet_subtotal(p) < p["free_at"],
        opens=False,
    ),
]


# --------------------------------------------------------------------------- cart-swap-headphones
# Substitution: the headphones are swapped for another model; the product's attributes, the
# protection plan priced from it, the totals, the package weight and the gift message follow.

HEADPHONES: dict[str, dict[str, Any]] = {
    "Sony WH-1000XM5": {
        "sku": "SNY-WH1000XM5-B",
        "brand": "Sony",
        "color": "Black",
        "price": 399.99,
        "battery_hours": 30,
        "weight_g": 250,
        "bluetooth": "5.2",
        "foldable": False,
        "rating": 4.6,
        "release_year": 2022,
    },
    "Bose QuietComfort Ultra": {
        "sku": "BOSE-QCU-BLK",
        "brand": "Bose",
        "color": "Black",
        "price": 429.00,
        "battery_hours": 24,
        "weight_g": 254,
        "bluetooth": "5.3",
        "foldable": True,
        "rating": 4.4,
        "release_year": 2023,
    },
    "Sennheiser Accentum Plus": {
        "sku": "SEN-ACCP-WHT",
        "brand": "Sennheiser",
        "color": "White",
        "price": 229.95,
        "battery_hours": 50,
        "weight_g": 227,
        "bluetooth": "5.2",
        "foldable": False,
        "rating": 4.3,
        "release_year": 2024,
    },
    "JBL Tour One M2": {
        "sku": "JBL-T1M2-CHP",
        "brand": "JBL",
        "color": "Champagne",
        "price": 299.95,
        "battery_hours": 50,
        "weight_g": 268,
        "bluetooth": "5.3",
        "foldable": True,
        "rating": 4.2,
        "release_year": 2023,
    },
    "Shure Aonic 50 Gen 2": {
        "sku": "SHR-AON50G2-BLK",
        "brand": "Shure",
        "color": "Black",
        "price": 349.00,
        "battery_hours": 45,
        "weight_g": 340,
        "bluetooth": "5.0",
        "foldable": True,
        "rating": 4.5,
        "release_year": 2023,
    },
}
# (sku, name, price, qty, weight in g)
GADGET_EXTRAS: list[tuple[str, str, float, int, int]] = [
    ("ANK-65W-C", "Anker 65W USB-C charger", 29.99, 1, 112),
    ("ANK-CBL-2P", "USB-C cable, 2-pack", 15.99, 1, 90),
    ("SD-128-EX", "128 GB microSD card", 18.49, 2, 5),
    ("CLN-KIT-01", "Screen cleaning kit", 9.99, 1, 60),
    ("CARD-BDAY", "Birthday card", 4.99, 1, 30),
    ("ADP-35-C", "USB-C to 3.5 mm adapter", 8.99, 1, 8),
]
GADGET_EXTRAS_BY_SIZE = {10: 1, 50: 2, 100: 6}
GADGET_TAX = 0.0725
PLAN_RATE = 0.10
PLAN_RATES = [PLAN_RATE, 0.08, 0.12, 0.15]
FAMILY = ["Ortiz", "Haddad", "Novak", "Brennan", "Sato"]


def swap_inputs(size: int, d: Draw) -> dict[str, Any]:
    """The cart's inputs: the headphone model, the plan rate, the extras in the cart (``extras``,
    changed quantities in ``qty``), and the family and budget the conversation states."""
    qty = {}
    if size == 100:
        cards = d.int(2, 3, shipped=2)
        if cards != 2:
            qty["SD-128-EX"] = cards
    return {
        "size": size,
        "model": d.pick(list(HEADPHONES)[:1] + list(HEADPHONES)[2:]),
        "plan_rate": d.pick(PLAN_RATES),
        "charger": True,
        "extras": [row[0] for row in GADGET_EXTRAS[: GADGET_EXTRAS_BY_SIZE[size]]],
        "qty": qty,
        "family": d.pick(FAMILY),
        "budget": d.pick([650, 600, 700, 800]),
    }


def swap_params(size: int) -> dict[str, Any]:
    return swap_inputs(size, SHIPPED)


def _gadget_extras(p: dict[str, Any]) -> list[tuple[str, str, float, int, int]]:
    """The extras in the cart, in the order of ``extras``, with their quantities as changed."""
    catalog = {row[0]: row for row in GADGET_EXTRAS}
    return [
        (sku, catalog[sku][1], catalog[sku][2], p["qty"].get(sku, catalog[sku][3]), catalog[sku][4])
        for sku in p["extras"]
        if p["charger"] or sku != "ANK-65W-C"
    ]


def swap_compute(p: dict[str, Any]) -> dict[str, Any]:
    size, model = p["size"], p["model"]
    hp = HEADPHONES[model]
    plan_price = money(hp["price"] * p["plan_rate"])
    extras = _gadget_extras(p)
    if size == 10:
        charger: list[dict[str, Any]] = [
            {"name": name, "price": price} for _, name, price, _, _ in extras
        ]
        subtotal = money(hp["price"] + sum(c["price"] for c in charger) + plan_price)
        tax = money(subtotal * GADGET_TAX)
        return {
            "items": [{"sku": hp["sku"], "name": model, "price": hp["price"]}, *charger],
            "protection_plan": {"covers": model, "price": plan_price},
            "subtotal": subtotal,
            "tax": tax,
            "total": money(subtotal + tax),
        }
    items: list[dict[str, Any]] = [
        {
            "sku": hp["sku"],
            "name": model,
            "brand": hp["brand"],
            "color": hp["color"],
            "price": hp["price"],
            "qty": 1,
            "line_total": hp["price"],
            "specs": {
                "battery_hours": hp["battery_hours"],
                "weight_g": hp["weight_g"],
                "bluetooth": hp["bluetooth"],
                "foldable": hp["foldable"],
            },
        }
    ]
    items += [
        {"sku": sku, "name": name, "price": price, "qty": qty, "line_total": line_total(price, qty)}
        for sku, name, price, qty, _ in extras
    ]
    subtotal = money(sum(i["line_total"] for i in items) + plan_price)
    tax = money(subtotal * GADGET_TAX)
    dad = f"Raymond {p['family']}"
    art: dict[str, Any] = {
        "store": "Circuit Yard",
        "items": items,
        "protection_plan": {"covers": model, "term_years": 2, "price": plan_price},
        "totals": {"subtotal": subtotal, "tax": tax, "shipping": 0, "total": money(subtotal + tax)},
        "package_weight_g": hp["weight_g"] + sum(w * qty for _, _, _, qty, w in extras),
        "gift": {
            "wrap": True,
            "message": f"Happy birthday, Dad! Enjoy the new {model}.",
            "recipient": dad,
        },
        "compared": [
            {"name": "Apple AirPods Max", "price": 549.00, "battery_hours": 20},
            {"name": "Sennheiser Momentum 4", "price": 349.95, "battery_hours": 60},
        ],
    }
    art["gift"]["hide_prices"] = True
    art["compared"].append({"name": "Sony WH-1000XM4", "price": 279.99, "battery_hours": 30})
    art["delivery"] = {
        "address": f"{dad}, 41 Quarry Rd, Sacramento, CA 95819",
        "method": "Free 2-day",
        "arrive_by": "2025-06-13",
    }
    art["payment"] = {"card": "Visa ending 2290", "billing_zip": "95819"}
    art["notes"] = ["Birthday is June 14", "Check the return window: 30 days"]
    if size == 100:
        items[0].update(rating=hp["rating"], release_year=hp["release_year"])
        items[0]["specs"].update(warranty_years=1, noise_cancelling=True)
        art["order_id"] = "CY-204417"
        art["created"] = "2025-06-05"
        art["gift"].update({"from": "Lucia", "occasion": "60th birthday"})
        art["payment"]["name_on_card"] = f"Lucia {p['family']}"
        art["compared"] += [
            {"name": "Bowers & Wilkins Px7 S2e", "price": 399.00, "battery_hours": 30},
            {"name": "Anker Soundcore Space Q45", "price": 149.99, "battery_hours": 50},
        ]
        art["delivery"]["instructions"] = "Side door, he works nights"
        art["notes"] += ["He wears glasses", "He uses an iPhone"]
        art["budget"] = {"limit": p["budget"], "left": money(p["budget"] - art["totals"]["total"])}
        art["card_cashback"] = money(art["totals"]["total"] * 0.02)
        art["wishlist"] = [
            {"name": "Portable DAC", "price": 129.00},
            {"name": "Headphone stand", "price": 24.99},
            {"name": "Travel case", "price": 19.99},
        ]
        art["reviews_read"] = ["RTINGS", "The Verge", "Wirecutter"]
    return art


def _specs_text(hp: dict[str, Any]) -> str:
    fold = "folds" if hp["foldable"] else "doesn't fold"
    return (
        f"{hp['battery_hours']} hours of battery, {hp['weight_g']} g, Bluetooth {hp['bluetooth']},"
        f" {fold}"
    )


def _extra_text(row: tuple[str, str, float, int, int]) -> str:
    sku, _, price, qty, _ = row
    texts = {
        "ANK-65W-C": f"an Anker 65W USB-C charger ({sku}, {dollars(price)})",
        "ANK-CBL-2P": f"a 2-pack of USB-C cables ({sku}, {dollars(price)})",
        "SD-128-EX": f"{count_word(qty)} 128 GB microSD cards ({sku}, {dollars(price)} each)",
        "CLN-KIT-01": f"a screen cleaning kit ({sku}, {dollars(price)})",
        "CARD-BDAY": f"a birthday card ({sku}, {dollars(price)})",
        "ADP-35-C": f"a USB-C to 3.5 mm adapter ({sku}, {dollars(price)})",
    }
    return texts[sku]


def swap_conversation(p: dict[str, Any]) -> list[Turn]:
    size, model = p["size"], p["model"]
    hp = HEADPHONES[model]
    plan = percent(p["plan_rate"])
    if size == 10:
        return [
            (
                f"Birthday present for my dad: the {model} headphones, {hp['sku']},"
                f" {dollars(hp['price'])}, and an Anker 65W USB-C charger for $29.99.",
                ["/items"],
            ),
            (
                f"Add the 2-year protection plan for the headphones; it costs {plan} of the"
                " headphones' price.",
                ["/protection_plan"],
            ),
            (
                "California sales tax is 7.25% on everything, rounded to the cent. Subtotal, tax and total please.",
                ["/subtotal", "/tax", "/total"],
            ),
        ]
    extras = _gadget_extras(p)
    more = ""
    if size == 100:
        more = (
            f" And {_extra_text(extras[2])}, {_extra_text(extras[3])}, {_extra_text(extras[4])} and"
            f" {_extra_text(extras[5])}."
        )
    dad, family = f"Raymond {p['family']}", p["family"]
    turns: list[Turn] = [
        (
            f"Shopping at Circuit Yard for my dad's birthday. Main item: {model} headphones, SKU "
            f"{hp['sku']}, {hp['color'].lower()}, {dollars(hp['price'])}. Note the specs:"
            f" {_specs_text(hp)}.",
            [
                "/store",
                *members("/items/0", "sku name brand color price qty line_total"),
                *members("/items/0/specs", "battery_hours weight_g bluetooth foldable"),
            ],
        ),
        (
            f"Add {_extra_text(extras[0])} and {_extra_text(extras[1])}." + more,
            [f"/items/{i}" for i in range(1, 3 if size == 50 else 7)],
        ),
        (
            f"Add the 2-year protection plan for the headphones; it always costs {plan} of the"
            " headphones' price.",
            ["/protection_plan"],
        ),
        (
            "Shipping is free. California tax of 7.25% applies to everything including the plan, rounded to "
            "the cent. Give me the totals.",
            ["/totals"],
        ),
        (
            "For the shipping label, what does the package weigh? The charger is 112 g and the cables 90 g"
            + (
                ", each microSD card 5 g, the cleaning kit 60 g, the card 30 g and the adapter 8 g"
                if size == 100
                else ""
            )
            + "; the headphones as noted.",
            ["/package_weight_g"],
        ),
        (
            f"Gift-wrap it for {dad} with the message: Happy birthday, Dad! Enjoy the new "
            f"{model}. And hide the prices on the slip.",
            members("/gift", "wrap message recipient hide_prices"),
        ),
        (
            "For reference, what I compared: Apple AirPods Max at $549 with 20 hours of battery, Sennheiser "
            "Momentum 4 at $349.95 with 60 hours, and the older Sony WH-1000XM4 at $279.99 with 30 hours.",
            ["/compared/0", "/compared/1", "/compared/2"],
        ),
        (
            f"Ship it straight to him: {dad}, 41 Quarry Rd, Sacramento, CA 95819, free 2-day, arriving "
            "by June 13. Pay with my Visa ending 2290, billing ZIP 95819.",
            [
                *members("/delivery", "address method arrive_by"),
                *members("/payment", "card billing_zip"),
            ],
        ),
        (
            "Notes: his birthday is June 14, and check the 30-day return window.",
            ["/notes/0", "/notes/1"],
        ),
    ]
    if size == 100:
        turns += [
            (
                f"A few more headphone details for my records: rated {hp['rating']} stars, released in"
                f" {hp['release_year']}, 1-year warranty, noise cancelling.",
                [
                    *members("/items/0", "rating release_year"),
                    *members("/items/0/specs", "warranty_years noise_cancelling"),
                ],
            ),
            (
                "Two more I looked at: Bowers & Wilkins Px7 S2e, $399, 30 hours; Anker Soundcore Space Q45, $149.99, "
                "50 hours. The gift is from me, Lucia, for his 60th birthday (the card is in my name,"
                f" Lucia {family}), and the courier should use the side door, he works nights.",
                [
                    "/compared/3",
                    "/compared/4",
                    "/gift/from",
                    "/gift/occasion",
                    "/payment/name_on_card",
                    "/delivery/instructions",
                ],
            ),
            (
                "More notes: he wears glasses and uses an iPhone. The order id is CY-204417, created 2025-06-05.",
                ["/notes/2", "/notes/3", "/order_id", "/created"],
            ),
            (
                f"My budget is {dollars(p['budget'])}; what's left after the total? My card gives 2%"
                " cash back on the total, to the cent.",
                ["/budget", "/card_cashback"],
            ),
            (
                "Wishlist for myself: a portable DAC ($129), a headphone stand ($24.99), a travel case ($19.99). "
                "Reviews I read: RTINGS, The Verge, Wirecutter.",
                ["/wishlist", "/reviews_read"],
            ),
        ]
    return turns


def _model_reference(size: int, name: str) -> dict[str, Any]:
    """The new model's data the shopper hands over, as much as the size's cart records."""
    new = HEADPHONES[name]
    reference: dict[str, Any] = {"name": name, "sku": new["sku"], "price": new["price"]}
    if size >= 50:
        reference.update(
            brand=new["brand"],
            color=new["color"],
            battery_hours=new["battery_hours"],
            weight_g=new["weight_g"],
            bluetooth=new["bluetooth"],
            foldable=new["foldable"],
        )
    if size == 100:
        reference.update(
            rating=new["rating"],
            release_year=new["release_year"],
            warranty_years=1,
            noise_cancelling=True,
        )
    return reference


def swap_revision(p: dict[str, Any]) -> Revision:
    size = p["size"]
    overrides = {}
    if size == 100:
        overrides["/gift/message"] = regex(r"(?i)quietcomfort ultra")
    return Revision(
        request="Change of mind: swap the Sony headphones for the Bose QuietComfort Ultra. Product details below.",
        mutate=lambda q: q.update(model="Bose QuietComfort Ultra"),
        direct="/items/0/name",
        overrides=overrides,
        reference=_model_reference(size, "Bose QuietComfort Ultra"),
    )


def swap_followups(p: dict[str, Any]) -> list[Revision]:
    size = p["size"]
    back = {"/gift/message": regex(r"(?i)wh-1000xm5")} if size == 100 else {}
    return [
        Revision(
            request="Dad tried the Bose in a store and still prefers the Sony WH-1000XM5. Switch back "
            "to the Sony, please.",
            mutate=lambda q: q.update(model="Sony WH-1000XM5"),
            direct="/items/0/name",
            overrides=back,
            theme="Swapping back to the first model restores its data, the plan price, totals and the "
            "gift message",
            pattern="substitution",
        ),
        Revision(
            request="Take the Anker charger out, he already has one.",
            mutate=lambda q: q.update(charger=False),
            direct="/items/1",
            theme="Removing the charger lowers the subtotal, tax and total (and the package weight)",
            pattern="add_remove",
        ),
        Revision(
            request="Circuit Yard raised the protection plan: it's 12% of the headphones' price now.",
            mutate=lambda q: q.update(plan_rate=0.12),
            direct="/protection_plan/price",
            theme="A higher plan rate reprices the plan, and the taxed subtotal and total follow",
            pattern="arithmetic",
        ),
    ]


# moves of cart-swap-headphones


def _swap_model(p: dict[str, Any], d: Draw) -> Revision | None:
    name = d.pick([m for m in HEADPHONES if m != p["model"]])
    old = p["model"]
    overrides = {}
    if p["size"] >= 50:
        overrides["/gift/message"] = regex("(?i)" + re.escape(name.split(" ", 1)[1].lower()))
    return Revision(
        request=d.pick(
            [
                f"Change of mind: swap the {old} for the {name}. Product details below.",
                f"Dad would rather have the {name} than the {old}; please switch. Details below.",
            ]
        ),
        mutate=lambda q: q.update(model=name),
        direct="/items/0/name",
        overrides=overrides,
        reference=_model_reference(p["size"], name),
        theme=f"The {name} replaces the {old}: its data, the plan, totals"
        + (", weight and gift message follow" if p["size"] >= 50 else " follow"),
    )


def _plan_rate(p: dict[str, Any], d: Draw) -> Revision | None:
    rate = d.pick([r for r in PLAN_RATES if r != p["plan_rate"]])
    verb = "raised" if rate > p["plan_rate"] else "lowered"
    return Revision(
        request=f"Circuit Yard {verb} the protection plan: it's {percent(rate)} of the headphones'"
        " price now.",
        mutate=lambda q: q.update(plan_rate=rate),
        direct="/protection_plan/price",
        theme="Another plan rate reprices the plan; the taxed subtotal and total follow",
    )


def _extra_out(p: dict[str, Any], d: Draw) -> Revision | None:
    extras = _gadget_extras(p)
    if not extras:
        return None
    line = d.pick(range(len(extras)))
    sku, name = extras[line][:2]

    def mutate(q: dict[str, Any]) -> None:
        q["extras"].remove(sku)
        q["qty"].pop(sku, None)

    return Revision(
        request=d.pick(
            [f"Take the {_label(name)} out of the cart.", f"Drop the {_label(name)}, please."]
        ),
        mutate=mutate,
        direct=f"/items/{line + 1}",
        theme=f"The {_label(name)} leaves the cart: subtotal, tax, total"
        + (" and the package weight follow" if p["size"] >= 50 else " follow"),
    )


def _extra_in(p: dict[str, Any], d: Draw) -> Revision | None:
    catalog = GADGET_EXTRAS[: GADGET_EXTRAS_BY_SIZE[p["size"]]]
    gone = [row for row in catalog if row[0] not in p["extras"]]
    if not gone:
        return None
    sku, name, price, qty, weight = d.pick(gone)
    if p["size"] == 10:
        request = f"Add the {_label(name)} back, {dollars(price)}."
    else:
        request = (
            f"Add the {_label(name)} back at the end of the cart: {sku}, {qty} at"
            f" {dollars(price)}, {weight} g each."
        )
    return Revision(
        request=request,
        mutate=lambda q: q["extras"].append(sku),
        direct=f"/items/{len(_gadget_extras(p)) + 1}",
        theme=f"The {_label(name)} comes back: subtotal, tax and total rise",
    )


def _extra_quantity(p: dict[str, Any], d: Draw) -> Revision | None:
    extras = _gadget_extras(p)
    if not extras:
        return None
    line = d.pick(range(len(extras)))
    sku, name, _, old, _ = extras[line]
    qty = d.pick([n for n in range(1, 5) if n != old])
    return Revision(
        request=f"Make it {qty} of the {_label(name)} instead of {old}.",
        mutate=lambda q: q["qty"].update({sku: qty}),
        direct=f"/items/{line + 1}/qty",
        theme=f"The {_label(name)} goes from {old} to {qty}: its line, totals and weight follow",
    )


SWAP_MOVES = [
    Move("swap-model", "substitution", _swap_model),
    Move("plan-rate", "arithmetic", _plan_rate),
    Move("extra-out", "add_remove", _extra_out),
    Move("extra-in", "add_remove", _extra_in),
    Move("extra-quantity", "arithmetic", _extra_quantity, when=lambda p: p["size"] >= 50),
]


# --------------------------------------------------------------------------- cart-remove-item
# Add/remove: one line leaves the cart; counts, totals, gift wrapping and the ship date
# (set by the slowest item) follow.

TRANSIT_DAYS = 2
# (sku, name, price, qty, ships in days, gift-wrapped)
OFFICE_ITEMS: list[tuple[str, str, float, int, int, bool]] = [
    ("OF-CH-900", "Ergonomic mesh chair", 289.00, 1, 3, False),
    ("OF-LP-210", "LED desk lamp", 45.50, 1, 14, True),
    ("OF-MA-330", "Monitor arm", 79.00, 1, 5, False),
    ("OF-CT-040", "Under-desk cable tray", 18.99, 2, 3, False),
    ("OF-DM-120", "Felt desk mat", 24.00, 1, 5, True),
    ("OF-FR-015", "Adjustable footrest", 36.00, 1, 4, False),
    ("OF-WB-060", "Small whiteboard", 29.95, 1, 2, False),
    ("OF-LS-070", "Aluminum laptop stand", 42.00, 1, 3, False),
    ("OF-WC-025", "Wireless charging pad", 25.00, 1, 2, False),
]
OFFICE_LINES_BY_SIZE = {10: 2, 50: 5, 100: 9}
OFFICE_TAX = 0.06
DESK_LAMP = "OF-LP-210"
CLIP_LAMP = ("OF-LP-150", "Clip-on LED lamp", 29.00, 1, 6, True)
SURNAMES = ["Fischer", "Moreau", "Tanaka", "Okoye", "Lindqvist"]
FIRST_NAMES = ["Lena", "Ines", "Hana", "Kofi", "Tomas"]


def remove_inputs(size: int, d: Draw) -> dict[str, Any]:
    """The order's inputs: the catalog lines in it (``skus``), changed quantities (``qty``),
    whether the clip-on lamp took the desk lamp's place, and the dates, fees and people."""
    qty = {}
    if size >= 50:
        trays = d.int(2, 4, shipped=2)
        if trays != 2:
            qty["OF-CT-040"] = trays
    return {
        "size": size,
        "skus": [row[0] for row in OFFICE_ITEMS[: OFFICE_LINES_BY_SIZE[size]]],
        "qty": qty,
        "clip_lamp": False,
        "order_date": d.date("2025-03-03", "2025-03-14", shipped="2025-03-10", weekdays="01234"),
        "transit": d.pick([TRANSIT_DAYS, 3, 4]),
        "wrap": d.pick([4.00, 3.00, 5.00, 3.50]),
        "delivery": d.pick([9.99, 7.99, 12.50, 14.99]),
        "name": d.pick(FIRST_NAMES),
        "surname": d.pick(SURNAMES),
        "card": d.int(1000, 9999, shipped=3005),
        "budget": d.pick([750, 700, 800, 900]),
        "balance": d.int(100, 900, shipped=610),
    }


def remove_params(size: int) -> dict[str, Any]:
    return remove_inputs(size, SHIPPED)


def _office_rows(p: dict[str, Any]) -> list[tuple[str, str, float, int, int, bool]]:
    """The cart's lines in the order of ``skus``: quantities as changed, and the clip-on lamp
    in the desk lamp's place once the shopper swaps them."""
    catalog = {row[0]: row for row in OFFICE_ITEMS}
    rows = []
    for chosen in p["skus"]:
        sku, name, price, qty, days, wrapped = (
            CLIP_LAMP if chosen == DESK_LAMP and p["clip_lamp"] else catalog[chosen]
        )
        rows.append((sku, name, price, p["qty"].get(sku, qty), days, wrapped))
    return rows


def remove_compute(p: dict[str, Any]) -> dict[str, Any]:
    size = p["size"]
    rows = _office_rows(p)
    subtotal = money(sum(price * qty for _, _, price, qty, _, _ in rows))
    units = sum(row[3] for row in rows)
    delivery = p["delivery"]
    if size == 10:
        return {
            "items": [
                {"name": name, "price": price, "qty": qty} for _, name, price, qty, _, _ in rows
            ],
            "item_count": units,
            "subtotal": subtotal,
            "delivery": delivery,
            "total": money(subtotal + delivery),
        }
    wrapped = [row[0] for row in rows if row[5]]
    wrap_cost = money(p["wrap"] * len(wrapped))
    tax = money(subtotal * OFFICE_TAX)
    ships_on = add_days(p["order_date"], max(row[4] for row in rows))
    art: dict[str, Any] = {
        "store": "Deskwise",
        "order_date": p["order_date"],
        "items": [
            {
                "sku": sku,
                "name": name,
                "price": price,
                "qty": qty,
                "line_total": line_total(price, qty),
                "ships_in_days": days,
            }
            for sku, name, price, qty, days, _ in rows
        ],
        "item_count": units,
        "gift_wrap": {"skus": wrapped, "cost": wrap_cost},
        "totals": {
            "subtotal": subtotal,
            "gift_wrap": wrap_cost,
            "tax": tax,
            "delivery": delivery,
            "total": money(subtotal + wrap_cost + tax + delivery),
        },
        "shipping": {"ships_on": ships_on, "arrives_by": add_days(ships_on, p["transit"])},
    }
    art["saved_for_later"] = [
        {"name": "Standing desk frame", "price": 399.00},
        {"name": "Acoustic panel set", "price": 89.00},
    ]
    art["address"] = f"{p['name']} {p['surname']}, 19 Wharf St, Pittsburgh, PA 15222"
    art["payment"] = {"card": f"Amex ending {p['card']}", "billing_zip": "15222"}
    if size == 100:
        art["order_id"] = "DW-77120"
        art["assembly"] = {
            "item": "Ergonomic mesh chair",
            "booked": True,
            "price": 39.00,
            "date": "2025-03-20",
            "paid_separately": True,
        }
        art["rewards"] = {"points_this_order": math.floor(subtotal), "balance": p["balance"]}
        art["budget"] = {
            "limit": p["budget"],
            "left_after_order": money(p["budget"] - art["totals"]["total"]),
        }
        art["saved_for_later"] += [
            {"name": "Under-desk treadmill", "price": 549.00},
            {"name": "Plant stand", "price": 32.00},
        ]
        art["room"] = {"desk_width_in": 55, "desk_depth_in": 27}
        art["notes"] = [
            "Chair seat height must reach 21 in",
            "Keep the boxes for 30 days",
            "Mara's birthday is March 22",
        ]
        art["delivery_instructions"] = "Building has a loading dock on Wharf St"
        art["gift_note"] = {
            "to": f"Mara {p['surname']}",
            "message": "Happy birthday and happy new desk!",
        }
        art["warranties"] = [
            {"item": "Ergonomic mesh chair", "years": 12},
            {"item": "Monitor arm", "years": 5},
        ]
    return art


def _spoken_date(iso: str) -> str:
    """``2025-03-10 -> "10 March 2025"``."""
    day = dt.date.fromisoformat(iso)
    return f"{day.day} {day:%B} {day.year}"


def _office_item(row: tuple[str, str, float, int, int, bool], first: bool) -> str:
    """One line of the order as the shopper lists it."""
    sku, name, price, qty, days, _ = row
    ships = f"ships in {days} days" if first else f"{days} days"
    if qty > 1:
        plural = _label(name) + "s"
        return f"{count_word(qty)} {plural} {sku} at {dollars(price)}, {ships}"
    return f"{_label(name)} {sku}, {dollars(price)}, {ships}"


def remove_conversation(p: dict[str, Any]) -> list[Turn]:
    size = p["size"]
    if size == 10:
        return [
            (
                "Home office order: one ergonomic mesh chair at $289 and an LED desk lamp at $45.50.",
                ["/items"],
            ),
            (
                "Keep a count of how many things I'm buying, the subtotal, the flat"
                f" {dollars(p['delivery'])} delivery, and the total.",
                ["/item_count", "/subtotal", "/delivery", "/total"],
            ),
        ]
    n = OFFICE_LINES_BY_SIZE[size]
    rows = _office_rows(p)
    item_text = (
        "Setting up my home office from Deskwise, ordering today,"
        f" {_spoken_date(p['order_date'])}. Items: "
        + "; ".join(_office_item(row, i < 2) for i, row in enumerate(rows[:5]))
    )
    if size == 100:
        item_text += "; " + "; ".join(_office_item(row, False) for row in rows[5:])
    turns: list[Turn] = [
        (item_text + ".", ["/store", "/order_date", *[f"/items/{i}" for i in range(n)]]),
        ("How many things is that in total?", ["/item_count"]),
        (
            "The lamp and the desk mat are gifts for my sister; gift-wrap those two at"
            f" {dollars(p['wrap'])} each.",
            ["/gift_wrap"],
        ),
        (
            "Totals: subtotal, gift wrap, Pennsylvania's 6% sales tax on the merchandise subtotal (rounded "
            f"to the cent), {dollars(p['delivery'])} flat delivery, and the grand total.",
            ["/totals"],
        ),
        (
            "Everything ships together once the slowest item is ready, then it's"
            f" {p['transit']} days in transit (calendar days throughout). When does it ship and when"
            " should it arrive?",
            ["/shipping"],
        ),
    ]
    turns.append(
        (
            "Saved for later: a standing desk frame at $399 and an acoustic panel set at $89. Deliver to "
            f"{p['name']} {p['surname']}, 19 Wharf St, Pittsburgh, PA 15222, and charge my Amex ending"
            f" {p['card']} (billing ZIP 15222).",
            ["/saved_for_later/0", "/saved_for_later/1", "/address", "/payment"],
        )
    )
    if size == 100:
        turns += [
            (
                "I booked chair assembly for March 20, $39, paid separately to the fitter. The order id is DW-77120.",
                ["/assembly", "/order_id"],
            ),
            (
                "I earn a point per whole dollar of the merchandise subtotal; balance"
                f" {p['balance']}.",
                ["/rewards"],
            ),
            (
                f"I allowed {dollars(p['budget'])} for this order. What's left of that after the grand"
                " total?",
                ["/budget"],
            ),
            (
                "Also save an under-desk treadmill ($549) and a plant stand ($32) for later. My desk is 55 by 27 "
                "inches.",
                ["/saved_for_later/2", "/saved_for_later/3", "/room"],
            ),
            (
                "Notes: the chair seat must reach 21 in, keep the boxes for 30 days, and Mara's birthday is March 22. "
                "Tell the courier there's a loading dock on Wharf St.",
                ["/notes", "/delivery_instructions"],
            ),
            (
                f"The gifts are for my sister Mara {p['surname']}; the card says: Happy birthday and"
                " happy new desk! Also record the warranties: 12 years on the chair, 5 on the monitor"
                " arm.",
                ["/gift_note", "/warranties"],
            ),
        ]
    return turns


def remove_revision(p: dict[str, Any]) -> Revision:
    return Revision(
        request="Take the desk lamp out of the order, I found one at a local shop.",
        mutate=lambda q: q["skus"].remove("OF-LP-210"),
        direct="/items/1",
    )


def remove_followups(p: dict[str, Any]) -> list[Revision]:
    gift = p["size"] >= 50

    def put_lamp_back(q: dict[str, Any]) -> None:
        q["skus"].insert(1, "OF-LP-210")  # where it stood

    return [
        Revision(
            request="Make it two of the ergonomic mesh chairs, my partner wants one too.",
            mutate=lambda q: q["qty"].update({"OF-CH-900": 2}),
            direct="/items/0/qty",
            theme="A second chair raises the item count, the line, tax and totals",
            pattern="arithmetic",
        ),
        Revision(
            request="The local shop sold out before I got there. Put the LED desk lamp back in the "
            "order, in its old place" + (", still as a gift for my sister." if gift else "."),
            mutate=put_lamp_back,
            direct="/items/1",
            theme="The removed lamp comes back: count, totals, its gift wrapping and the 14-day ship "
            "date return",
            pattern="add_remove",
        ),
        Revision(
            request="Swap that lamp for the clip-on LED lamp instead: "
            + ("OF-LP-150, $29, ships in 6 days. Still a gift." if gift else "$29."),
            mutate=lambda q: q.update(clip_lamp=True),
            direct="/items/1/name",
            overrides={"/items/1/name": regex(r"(?i)^clip-on led lamp$")},
            theme="A cheaper, faster lamp replaces the one just put back: its line, the wrap list, "
            "totals and the ship and arrival dates follow",
            pattern="substitution",
        ),
    ]


# moves of cart-remove-item


def _office_index(p: dict[str, Any], sku: str) -> int:
    """Where the line of catalog ``sku`` (the desk lamp's slot for the clip-on lamp) stands."""
    return p["skus"].index(sku)  # type: ignore[no-any-return]


def _office_row(p: dict[str, Any], sku: str) -> tuple[str, str, float, int, int, bool]:
    return _office_rows(p)[_office_index(p, sku)]


def _take_out(p: dict[str, Any], d: Draw) -> Revision | None:
    sku = d.pick(p["skus"])
    row = _office_row(p, sku)

    def mutate(q: dict[str, Any]) -> None:
        q["skus"].remove(sku)
        q["qty"].pop(row[0], None)
        if sku == DESK_LAMP:
            q["clip_lamp"] = False

    label = _label(row[1])
    return Revision(
        request=d.pick(
            [
                f"Take the {label} out of the order, I don't need it after all.",
                f"Remove the {label} from the order, please.",
            ]
        ),
        mutate=mutate,
        direct=f"/items/{_office_index(p, sku)}",
        theme=f"The {label} leaves the order: count, totals"
        + (", the ship date and gift wrapping follow" if p["size"] >= 50 else " follow"),
    )


def _put_back(p: dict[str, Any], d: Draw) -> Revision | None:
    catalog = [row for row in OFFICE_ITEMS[: OFFICE_LINES_BY_SIZE[p["size"]]]]
    gone = [row for row in catalog if row[0] not in p["skus"]]
    if not gone:
        return None
    sku, name, price, qty, days, wrapped = d.pick(gone)
    label = _label(name)
    if p["size"] == 10:
        detail = f"{qty} at {dollars(price)}"
    else:
        gift = ", gift-wrapped for my sister as before" if wrapped else ""
        detail = f"{sku}, {qty} at {dollars(price)}, ships in {days} days{gift}"
    return Revision(
        request=f"Put the {label} back in the order after all, as the last line: {detail}.",
        mutate=lambda q: q["skus"].append(sku),
        direct=f"/items/{len(p['skus'])}",
        theme=f"The {label} comes back into the order: count and totals rise",
    )


def _office_quantity(p: dict[str, Any], d: Draw) -> Revision | None:
    """A new quantity for a line; not for a gift-wrapped one in the sizes that wrap (the
    conversation prices wrapping per item wrapped, not per unit)."""
    skus = [s for s in p["skus"] if p["size"] == 10 or not _office_row(p, s)[5]]
    sku = d.pick(skus)
    row = _office_row(p, sku)
    qty = d.pick([q for q in range(1, 5) if q != row[3]])
    label = _label(row[1])
    return Revision(
        request=f"Make it {qty} of the {label}"
        + (", please." if qty > row[3] else " instead of " + str(row[3]) + "."),
        mutate=lambda q: q["qty"].update({row[0]: qty}),
        direct=f"/items/{_office_index(p, sku)}/qty",
        theme=f"The {label} goes from {row[3]} to {qty}: the count, its line and the totals follow",
    )


def _swap_lamp(p: dict[str, Any], d: Draw) -> Revision | None:
    to_clip = not p["clip_lamp"]
    sku, name, price, _, days, _ = CLIP_LAMP if to_clip else OFFICE_ITEMS[1]
    old = _label(_office_row(p, DESK_LAMP)[1])
    detail = (
        f"{dollars(price)}"
        if p["size"] == 10
        else f"{sku}, {dollars(price)}, ships in {days} days. Still a gift"
    )
    return Revision(
        request=f"Swap the {old} for the {_label(name)}: {detail}.",
        mutate=lambda q: q.update(clip_lamp=to_clip),
        direct=f"/items/{_office_index(p, DESK_LAMP)}/name",
        # the request spells the name in lower case: the gold takes any case
        overrides={f"/items/{_office_index(p, DESK_LAMP)}/name": regex(f"(?i)^{re.escape(name)}$")},
        theme=f"The {_label(name)} replaces the {old}: its line and the totals follow"
        + (", and the ship and arrival dates" if p["size"] >= 50 else ""),
    )


def _order_date(p: dict[str, Any], d: Draw) -> Revision | None:
    day = d.pick([n for n in range(-4, 8) if n])
    new = add_days(p["order_date"], day)
    return Revision(
        request=f"I'm placing the order on {_spoken_date(new)} instead.",
        mutate=lambda q: q.update(order_date=new),
        direct="/order_date",
        theme="Another order date moves the ship and arrival dates with it",
    )


def _delivery_fee(p: dict[str, Any], d: Draw) -> Revision | None:
    fee = d.pick([f for f in (9.99, 7.99, 12.50, 14.99, 5.99) if f != p["delivery"]])
    return Revision(
        request=f"Deskwise changed the flat delivery charge to {dollars(fee)}.",
        mutate=lambda q: q.update(delivery=fee),
        direct="/delivery" if p["size"] == 10 else "/totals/delivery",
        theme="A new delivery charge changes the total",
    )


REMOVE_MOVES = [
    Move("take-out", "add_remove", _take_out, when=lambda p: len(p["skus"]) > 1),
    Move("put-back", "add_remove", _put_back),
    Move("requantity", "arithmetic", _office_quantity),
    Move("swap-lamp", "substitution", _swap_lamp, when=lambda p: DESK_LAMP in p["skus"]),
    Move("order-date", "temporal", _order_date, when=lambda p: p["size"] >= 50),
    Move("delivery-fee", "arithmetic", _delivery_fee, opens=False),
]


# --------------------------------------------------------------------------- cart-order-cancelled
# Status flip: the order is cancelled before it ships; every line, the card authorization,
# the shipment and the pending points move to their cancelled values; the last order stays.

# (sku, name, qty, price, backordered)
CAMP_LINES: list[tuple[str, str, int, float, bool]] = [
    ("TR-TNT-2P", "Two-person backpacking tent", 1, 249.00, False),
    ("TR-SB-20F", "Down sleeping bag, 20F", 2, 189.00, False),
    ("TR-PAD-RG", "Insulated sleeping pad", 2, 89.95, False),
    ("TR-STV-01", "Canister stove", 1, 54.50, False),
    ("TR-LMP-02", "Rechargeable headlamp", 2, 34.00, True),
    ("TR-FLT-01", "Squeeze water filter", 1, 39.99, True),
    ("TR-SPK-TI", "Titanium spork", 2, 11.95, False),
    ("TR-DRY-20", "Dry bag, 20 L", 1, 29.00, False),
]
CAMP_LINES_BY_SIZE = {10: 2, 50: 4, 100: 8}
CAMPERS = ["Dev Patel", "Ana Lima", "Joel Brandt", "Mei Chen", "Ruth Adeyemi"]


# The order's state (what the shopper reports) -> order, payment and shipment statuses.
CAMP_STATES: dict[str, tuple[str, str, str]] = {
    "processing": ("processing", "authorized", "label created"),
    "cancelled": ("cancelled", "voided", "cancelled"),
    "shipped": ("shipped", "captured", "in transit"),
    "delivered": ("delivered", "captured", "delivered"),
}


def cancel_inputs(size: int, d: Draw) -> dict[str, Any]:
    """The order's inputs: its lines (``skus``, changed quantities in ``qty``), its state, and
    the number, dates, card and customer the conversation states."""
    skus = [row[0] for row in CAMP_LINES[: CAMP_LINES_BY_SIZE[size]]]
    qty = {}
    for sku, _, n, _, _ in CAMP_LINES[: CAMP_LINES_BY_SIZE[size]]:
        if n > 1 and size >= 50:
            drawn = d.int(2, 3, shipped=n)
            if drawn != n:
                qty[sku] = drawn
    placed = d.date("2025-04-28", "2025-05-06", shipped="2025-05-02")
    return {
        "size": size,
        "state": "processing",
        "skus": skus,
        "qty": qty,
        "number": f"TR-{d.int(50000, 59999, shipped=58213)}",
        "card": d.int(1000, 9999, shipped=4417),
        "placed": placed,
        "eta": add_days(placed, d.int(4, 7, shipped=5)),
        "customer": d.pick(CAMPERS),
        "balance": d.int(200, 2000, shipped=1240),
    }


def cancel_params(size: int) -> dict[str, Any]:
    return cancel_inputs(size, SHIPPED)


def _camp_rows(p: dict[str, Any]) -> list[tuple[str, str, int, float, bool]]:
    """The order's lines in the order of ``skus``, with their quantities as changed."""
    catalog = {row[0]: row for row in CAMP_LINES}
    return [
        (sku, catalog[sku][1], p["qty"].get(sku, catalog[sku][2]), *catalog[sku][3:])
        for sku in p["skus"]
    ]


def cancel_compute(p: dict[str, Any]) -> dict[str, Any]:
    size, state = p["size"], p["state"]
    cancelled = state == "cancelled"
    rows = _camp_rows(p)
    order_status, payment_status, shipment_status = CAMP_STATES[state]
    order: dict[str, Any] = {"number": p["number"], "status": order_status}
    payment: dict[str, Any] = {"method": f"Visa ending {p['card']}", "status": payment_status}
    shipment: dict[str, Any] = {
        "status": shipment_status,
        "estimated_delivery": None if cancelled else p["eta"],
    }

    def status(backordered: bool) -> str:
        if state != "processing":
            return order_status
        return "backordered" if backordered else "processing"

    if size == 10:
        return {
            "order": order,
            "lines": [{"name": row[1], "status": status(row[4])} for row in rows],
            "payment": payment,
            "shipment": shipment,
        }
    lines: list[dict[str, Any]] = [
        {
            "sku": sku,
            "name": name,
            "qty": qty,
            "price": price,
            "line_total": line_total(price, qty),
            "status": status(back),
        }
        for sku, name, qty, price, back in rows
    ]
    total = money(sum(line["line_total"] for line in lines))
    order.update(placed=p["placed"], store="Trailhead Outfitters", total=total)
    payment["amount"] = total
    shipment.update(carrier="UPS", tracking="1Z 84F 29A 03 1187 5520", service="UPS Ground")
    name = p["customer"]
    art: dict[str, Any] = {
        "order": order,
        "lines": lines,
        "payment": payment,
        "shipment": shipment,
        "rewards": {
            "pending_points": 0 if state in ("cancelled", "delivered") else math.floor(total),
            "balance": p["balance"] + (math.floor(total) if state == "delivered" else 0),
        },
        "previous_order": {
            "number": "TR-55170",
            "status": "delivered",
            "delivered_on": "2025-03-28",
            "payment": "captured",
        },
        "wishlist": [
            {"name": "Ultralight bear canister", "price": 94.95},
            {"name": "Camp chair", "price": 109.00},
        ],
        "address": f"{name}, 740 Cedar Ave, Boulder, CO 80304",
        "notifications": {"email": _email(name), "sms": False},
    }
    if size == 100:
        order.update(channel="web", placed_time="14:32")
        payment["billing_zip"] = "80304"
        shipment["ship_from"] = "Denver DC"
        art["backorder"] = {
            "status": "backordered" if state == "processing" else order_status,
            "expected_ship": None if cancelled else "2025-05-20",
            "items": [row[1] for row in rows if row[4]],
        }
        art["previous_order"].update(items="Trekking poles, rain shell", total=212.40)
        art["older_orders"] = [
            {"number": "TR-51022", "status": "returned", "total": 64.00},
            {"number": "TR-49310", "status": "delivered", "total": 139.50},
        ]
        art["wishlist"].append({"name": "Satellite messenger", "price": 299.99})
        art["notifications"]["push"] = True
        art["customer"] = {"name": name, "member_since": "2021-08-14", "tier": "Summit"}
        art["trip"] = {"name": "Rocky Mountain NP", "starts": "2025-05-16"}
        art["return_policy"] = {"window_days": 60, "free_returns": True}
    return art


def _email(name: str) -> str:
    return name.lower().replace(" ", ".") + "@example.com"


def cancel_rules(size: int) -> str:
    backorder = (
        " Same for the backorder: cancelled, expected ship date cleared." if size == 100 else ""
    )
    return (
        "If I end up cancelling before it ships, here's how it works: the order and every item line become "
        "cancelled, the card authorization becomes voided, and the shipment becomes cancelled and loses its "
        "delivery date (clear it)." + backorder
    )


def _camp_line(row: tuple[str, str, int, float, bool]) -> str:
    """A line as the shopper lists it: ``two insulated sleeping pads (TR-PAD-RG, $89.95 each)``."""
    sku, name, qty, price, _ = row
    label = _label(name)
    if name.startswith("Down sleeping bag"):
        label = "20F down sleeping bag"
    if name.startswith("Dry bag"):
        label = "20 L dry bag"
    if qty == 1:
        article = "a" if name.startswith(("Squeeze", "Dry")) else "one"
        return f"{article} {label} ({sku}, {dollars(price)})"
    return f"{count_word(qty)} {label}s ({sku}, {dollars(price)} each)"


def cancel_conversation(p: dict[str, Any]) -> list[Turn]:
    size = p["size"]
    if size == 10:
        return [
            (
                f"Track my camping gear order {p['number']} for me. It's processing: a two-person"
                " backpacking tent and a down sleeping bag, both processing.",
                ["/order", "/lines"],
            ),
            (
                f"My Visa ending {p['card']} is authorized and UPS has created the label, delivery"
                f" estimated for {p['eta']}. " + cancel_rules(size),
                ["/payment", "/shipment"],
            ),
        ]
    n = CAMP_LINES_BY_SIZE[size]
    rows = _camp_rows(p)
    lines_text = (
        f"My Trailhead Outfitters order {p['number']} went in on {_spoken_date(p['placed'])} and is"
        " processing. Lines, "
        + ("all " if size == 50 else "")
        + "processing: "
        + ", ".join(_camp_line(row) for row in rows[:4])
    )
    if size == 100:
        lines_text += (
            "; then two lines that are backordered: "
            + " and ".join(_camp_line(row) for row in rows[4:6])
            + "; and, processing again, "
            + " and ".join(_camp_line(row) for row in rows[6:])
            + ". I placed it on the web at 14:32"
        )
    turns: list[Turn] = [
        (
            lines_text + ".",
            [
                *members(
                    "/order",
                    "number status placed store" + (" channel placed_time" if size == 100 else ""),
                ),
                *[f"/lines/{i}" for i in range(n)],
            ],
        ),
        ("Add the order total.", ["/order/total"]),
        (
            f"Payment: my Visa ending {p['card']} is authorized for the total, not charged yet. UPS"
            " has created the label, tracking 1Z 84F 29A 03 1187 5520, going UPS Ground, delivery"
            f" estimated for {p['eta']}.",
            [
                *members("/payment", "method status amount"),
                *members("/shipment", "status estimated_delivery carrier tracking service"),
            ],
        ),
    ]
    if size == 100:
        turns.append(
            (
                "The backordered headlamps and filter are expected to ship on 2025-05-20; track that "
                "backorder separately.",
                ["/backorder"],
            )
        )
    turns += [
        (
            "I get a point per whole dollar of the order total; they sit as pending until delivery, and my "
            f"balance is {p['balance']}.",
            ["/rewards"],
        ),
        (
            cancel_rules(size)
            + " Pending points from a cancelled order drop to 0. Prices, totals and the "
            "tracking number stay for the record. For comparison, my last order TR-55170 was delivered on "
            "2025-03-28 and its payment was captured."
            + (" That one was trekking poles and a rain shell, $212.40." if size == 100 else ""),
            ["/previous_order"],
        ),
        (
            "Wishlist for later: an ultralight bear canister ($94.95) and a camp chair ($109).",
            ["/wishlist/0", "/wishlist/1"],
        ),
        (
            f"Shipping address is {p['customer']}, 740 Cedar Ave, Boulder, CO 80304; email updates to "
            f"{_email(p['customer'])}, no texts.",
            ["/address", "/notifications/email", "/notifications/sms"],
        ),
    ]
    if size == 100:
        turns += [
            (
                "Older orders: TR-51022 was returned ($64) and TR-49310 delivered ($139.50). Add a satellite "
                "messenger ($299.99) to the wishlist, and turn on push notifications.",
                ["/older_orders", "/wishlist/2", "/notifications/push"],
            ),
            (
                "I'm a Summit-tier member since 2021-08-14. The gear is for Rocky Mountain NP starting 2025-05-16. "
                "They allow free returns within 60 days. It ships from the Denver DC; billing ZIP 80304.",
                [
                    "/customer",
                    "/trip",
                    "/return_policy",
                    "/shipment/ship_from",
                    "/payment/billing_zip",
                ],
            ),
        ]
    return turns


def _cleared(size: int) -> dict[str, Override]:
    overrides = {"/shipment/estimated_delivery": regex(CLEARED)}
    if size == 100:
        overrides["/backorder/expected_ship"] = regex(CLEARED)
    return overrides


def cancel_revision(p: dict[str, Any]) -> Revision:
    return Revision(
        request="I just cancelled order TR-58213 on the website; please mark it cancelled.",
        mutate=lambda q: q.update(state="cancelled"),
        direct="/order/status",
        overrides=_cleared(p["size"]),
    )


def _reinstated(p: dict[str, Any]) -> str:
    """How the open order looks again, in the shopper's words."""
    back = [_label(row[1]) for row in _camp_rows(p) if row[4]] if p["size"] == 100 else []
    if not back:
        return "processing"
    return f"processing, with the {' and '.join(back)} backordered again"


def _shipped_backorder(p: dict[str, Any]) -> str:
    if p["size"] != 100:
        return ""
    back = [_label(row[1]) for row in _camp_rows(p) if row[4]]
    if not back:
        return " Mark the backorder shipped too."
    return (
        f" The backordered {' and '.join(back)} came in early and went in the same box, so the"
        " backorder shipped too."
    )


def cancel_followups(p: dict[str, Any]) -> list[Revision]:
    size = p["size"]
    backorder = (
        " The backordered headlamps and filter came in early and went in the same box, so the "
        "backorder shipped too."
        if size == 100
        else ""
    )
    restored = (
        "processing, with the headlamps and filter backordered again"
        if size == 100
        else ("processing")
    )
    return [
        Revision(
            request="I called Trailhead and they reinstated TR-58213 before anything happened. Put it "
            f"back the way it was before I cancelled: {restored}, the card authorized again, the "
            "label and the delivery estimate back.",
            mutate=lambda q: q.update(state="processing"),
            direct="/order/status",
            theme="Reinstating the cancelled order moves the lines, payment, shipment and points back "
            "to their open values",
            pattern="status_flip",
        ),
        Revision(
            request="It shipped today. Mark the order and every line shipped; the card charge is "
            "captured now and the shipment is in transit, still due 2025-05-07." + backorder,
            mutate=lambda q: q.update(state="shipped"),
            direct="/order/status",
            theme="Shipping the order moves every line, the payment and the shipment to their shipped "
            "values",
            pattern="status_flip",
        ),
        Revision(
            # no size's conversation says what delivery does to the lines and the shipment
            request="It arrived this afternoon. Mark the order, every line and the shipment "
            "delivered" + (", the backorder too." if size == 100 else "."),
            mutate=lambda q: q.update(state="delivered"),
            direct="/order/status",
            theme="Delivery marks every line and the shipment delivered and releases the pending points "
            "into the balance",
            pattern="status_flip",
        ),
    ]


# moves of cart-order-cancelled: the order's state moves along processing -> cancelled ->
# processing, processing -> shipped <-> delivered; while it is processing its lines can change.
# Shipping ends the open phase, so a chain ships only after SHIP_AFTER edits of the open order.

SHIP_AFTER = 12


def _edit(q: dict[str, Any]) -> None:
    """Count an edit of the order (not part of the artifact)."""
    q["edits"] = q.get("edits", 0) + 1


def _to_state(state: str, request: Any, theme: str) -> Any:
    def make(p: dict[str, Any], d: Draw) -> Revision:
        def mutate(q: dict[str, Any]) -> None:
            q["state"] = state
            _edit(q)

        return Revision(
            request=request(p),
            mutate=mutate,
            direct="/order/status",
            overrides=_cleared(p["size"]) if state == "cancelled" else {},
            theme=theme,
        )

    return make


def _cancel_request(p: dict[str, Any]) -> str:
    return f"I just cancelled order {p['number']} on the website; please mark it cancelled."


def _reinstate_request(p: dict[str, Any]) -> str:
    return (
        f"I called Trailhead and they reinstated {p['number']} before anything happened. Put it"
        f" back the way it was before I cancelled: {_reinstated(p)}, the card authorized again, the"
        " label and the delivery estimate back."
    )


def _ship_request(p: dict[str, Any]) -> str:
    return (
        "It shipped today. Mark the order and every line shipped; the card charge is captured now"
        f" and the shipment is in transit, still due {p['eta']}." + _shipped_backorder(p)
    )


def _deliver_request(p: dict[str, Any]) -> str:
    parts = "the order, every line" + (", the backorder" if p["size"] == 100 else "")
    points = "; the pending points go into my balance" if p["size"] >= 50 else ""
    return f"It arrived this afternoon. Mark {parts} and the shipment delivered{points}."


def _undeliver_request(p: dict[str, Any]) -> str:
    points = " and the points pending again" if p["size"] >= 50 else ""
    return (
        "Sorry, I marked it delivered too early: that was a neighbour's parcel, mine is still in"
        f" transit. Put it back to shipped: the order and every line shipped, the shipment in"
        f" transit{points}."
    )


def _camp_quantity(p: dict[str, Any], d: Draw) -> Revision | None:
    rows = _camp_rows(p)
    line = d.pick(range(len(rows)))
    sku, name, old, _, _ = rows[line]
    qty = d.pick([q for q in range(1, 5) if q != old])
    label = _label(name)
    return Revision(
        request=f"Before it ships: make it {qty} of the {label} instead of {old}.",
        mutate=lambda q: _edit(q) or q["qty"].update({sku: qty}),
        direct=f"/lines/{line}/qty",
        theme=f"The {label} goes from {old} to {qty}: its line, the total, payment and points follow",
    )


def _camp_drop(p: dict[str, Any], d: Draw) -> Revision | None:
    rows = _camp_rows(p)
    line = d.pick(range(len(rows)))
    label = _label(rows[line][1])

    def mutate(q: dict[str, Any]) -> None:
        q["qty"].pop(q["skus"].pop(line), None)
        _edit(q)

    return Revision(
        request=f"Drop the {label} from the order before it ships.",
        mutate=mutate,
        direct=f"/lines/{line}",
        theme=f"The {label} leaves the open order: the total, payment and points follow",
    )


def _camp_add(p: dict[str, Any], d: Draw) -> Revision | None:
    catalog = CAMP_LINES[: CAMP_LINES_BY_SIZE[p["size"]]]
    gone = [row for row in catalog if row[0] not in p["skus"]]
    if not gone:
        return None
    sku, name, qty, price, back = d.pick(gone)
    label = _label(name)
    status = "backordered" if back else "processing"
    return Revision(
        request=f"Add the {label} back to the order as its last line: {sku}, {qty} at"
        f" {dollars(price)} each, {status}.",
        mutate=lambda q: _edit(q) or q["skus"].append(sku),
        direct=f"/lines/{len(p['skus'])}",
        theme=f"The {label} joins the open order again: the total, payment and points follow",
    )


def _is(state: str) -> Any:
    return lambda p: p["state"] == state


def _open_order(p: dict[str, Any]) -> bool:
    return p["size"] >= 50 and p["state"] == "processing"  # type: ignore[no-any-return]


CANCEL_MOVES = [
    Move(
        "cancel",
        "status_flip",
        _to_state(
            "cancelled",
            _cancel_request,
            "Cancelling moves the lines, payment, shipment and points to cancelled values",
        ),
        when=_is("processing"),
    ),
    Move(
        "reinstate",
        "status_flip",
        _to_state(
            "processing",
            _reinstate_request,
            "Reinstating the cancelled order restores its open values",
        ),
        when=_is("cancelled"),
    ),
    Move(
        "ship",
        "status_flip",
        _to_state(
            "shipped",
            _ship_request,
            "Shipping moves every line, the payment and the shipment to shipped values",
        ),
        when=lambda p: p["state"] == "processing" and p.get("edits", 0) >= SHIP_AFTER,
    ),
    Move(
        "deliver",
        "status_flip",
        _to_state(
            "delivered",
            _deliver_request,
            "Delivery marks every line and the shipment delivered and releases the points",
        ),
        when=_is("shipped"),
    ),
    Move(
        "undeliver",
        "status_flip",
        _to_state(
            "shipped", _undeliver_request, "A delivery marked too early goes back to shipped"
        ),
        when=_is("delivered"),
        opens=False,
    ),
    Move("requantity", "arithmetic", _camp_quantity, when=_open_order),
    Move(
        "drop-line", "add_remove", _camp_drop, when=lambda p: _open_order(p) and len(p["skus"]) > 1
    ),
    Move("add-line", "add_remove", _camp_add, when=_open_order),
]


SCENARIOS = [
    Scenario(
        id="cart-price-drop",
        domain=DOMAIN,
        pattern="arithmetic",
        theme="A price drop on one item recomputes the line, savings, tax, totals, points and its price alert",
        params=drop_params,
        compute=drop_compute,
        conversation=drop_conversation,
        revision=drop_revision,
        followups=drop_followups,
        inputs=drop_inputs,
        moves=DROP_MOVES,
        notes="Unit price feeds line total, subtotal, savings, 8% tax, total, amount due and points; the "
        "kettle's alert triggers below $45. Wishlist prices and the grinder alert are distractors.",
    ),
    Scenario(
        id="cart-free-shipping",
        domain=DOMAIN,
        pattern="threshold",
        theme="One more bag lifts the subtotal past $75: shipping turns free and slower, the gift gap shrinks",
        params=ship_params,
        compute=ship_compute,
        conversation=ship_conversation,
        revision=ship_revision,
        followups=ship_followups,
        inputs=ship_inputs,
        moves=SHIP_MOVES,
        notes="Crossing the $75 free-shipping threshold switches service, estimate and cost; the $150 free-gift "
        "threshold is not reached (only the remaining gap changes).",
    ),
    Scenario(
        id="cart-swap-headphones",
        domain=DOMAIN,
        pattern="substitution",
        theme="Swapping headphone models copies the new product's data and reprices the plan, tax and totals",
        params=swap_params,
        compute=swap_compute,
        conversation=swap_conversation,
        revision=swap_revision,
        followups=swap_followups,
        inputs=swap_inputs,
        moves=SWAP_MOVES,
        notes="The new model comes as reference; the protection plan is 10% of the headphones' price, tax "
        "7.25% on everything, the package weight sums item weights. The color stays (same value).",
    ),
    Scenario(
        id="cart-remove-item",
        domain=DOMAIN,
        pattern="add_remove",
        theme="Removing a line lowers the counts and totals, unwraps it and moves the ship date to the next-slowest item",
        params=remove_params,
        compute=remove_compute,
        conversation=remove_conversation,
        revision=remove_revision,
        followups=remove_followups,
        inputs=remove_inputs,
        moves=REMOVE_MOVES,
        notes="Removed item was gift-wrapped and the slowest to ship: wrap list and cost, tax, totals, ship and "
        "arrival dates all follow. Assembly is paid separately (distractor).",
    ),
    Scenario(
        id="cart-order-cancelled",
        domain=DOMAIN,
        pattern="status_flip",
        theme="Cancelling an order moves every line, the payment, the shipment and pending points to cancelled values",
        params=cancel_params,
        compute=cancel_compute,
        conversation=cancel_conversation,
        revision=cancel_revision,
        followups=cancel_followups,
        inputs=cancel_inputs,
        moves=CANCEL_MOVES,
        notes="Status-governed set stated in the conversation; prices, totals and tracking stay for the record, "
        "and the previous delivered order is a distractor.",
    ),
]
