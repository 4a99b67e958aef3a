"""shopping_cart: shoppers build carts and orders with an assistant that keeps them as JSON.

Every total, tax, threshold flag and status is computed here from what the shopper states,
so each gold patch is the difference between two computations of the same rules.
"""

from __future__ import annotations

import datetime as dt
import math
from typing import Any

from pytest_revprop.authoring.helpers import CLEARED, add_days, each, members, money
from pytest_revprop.authoring.scenario import Revision, Scenario, Turn, regex

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
# reward points and a price alert follow.

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
COFFEE_TAX = 0.08
COFFEE_SHIPPING = 5.95


STOVETOP_KETTLE = ("HC-SK-090", "Stovetop whistling kettle", 34.99, 34.99, 1)


def drop_params(size: int) -> dict[str, Any]:
    return {"size": size, "kettle_price": 49.99, "pour_over_qty": 2, "stovetop_in_cart": False}


def drop_compute(p: dict[str, Any]) -> dict[str, Any]:
    size = p["size"]
    rows = [
        (*row[:4], p["pour_over_qty"]) if row[0] == "HC-PO-110" else row
        for row in COFFEE_ITEMS[: COFFEE_LINES_BY_SIZE[size]]
    ]
    if p["stovetop_in_cart"]:
        rows.append(STOVETOP_KETTLE)
    prices = [p["kettle_price"] if i == 0 else row[3] for i, row in enumerate(rows)]
    subtotal = money(sum(price * row[4] for price, row in zip(prices, rows, strict=True)))
    tax = money(subtotal * COFFEE_TAX)
    total = money(subtotal + tax + COFFEE_SHIPPING)
    if size == 10:
        items = [
            {"name": row[1], "price": price, "qty": row[4]}
            for price, row in zip(prices, rows, strict=True)
        ]
        return {
            "items": items,
            "subtotal": subtotal,
            "tax": tax,
            "shipping": COFFEE_SHIPPING,
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
        for (sku, name, list_price, _, qty), price in zip(rows, prices, strict=True)
    ]
    savings = money(sum((row[2] - price) * row[4] for price, row in zip(prices, rows, strict=True)))
    art: dict[str, Any] = {
        "store": "Hearth & Brew",
        "items": items,
        "summary": {
            "subtotal": subtotal,
            "you_save": savings,
            "tax": tax,
            "shipping": COFFEE_SHIPPING,
            "total": total,
        },
        "payment": {
            "gift_card": 25.00,
            "card": "Mastercard ending 8812",
            "amount_due": money(total - 25),
        },
        "rewards": {"points_this_order": math.floor(subtotal), "balance_before": 340},
        "price_alerts": [
            {
                "item": "Electric gooseneck kettle",
                "alert_below": 45.00,
                "triggered": p["kettle_price"] < 45,
            },
        ],
    }
    art["wishlist"] = [
        {"name": "Stovetop whistling kettle", "price": 34.99},
        {"name": "Cold brew tower", "price": 89.00},
        {"name": "Espresso tamper", "price": 19.50},
    ][1 if p["stovetop_in_cart"] else 0 :]
    if size == 100:
        art["order_id"] = "HB-30418"
        art["rewards"]["balance_after"] = 340 + math.floor(subtotal)
        art["price_alerts"] += [
            {"item": "Conical burr grinder", "alert_below": 110.00, "triggered": False},
            {"item": "Handheld milk frother", "alert_below": 25.00, "triggered": False},
        ]
        art["wishlist"].append({"name": "Glass carafe", "price": 27.00})
        art["delivery"] = {
            "to": "Jordan Lee, 88 Alder St, Portland, ME 04101",
            "window": "3-5 business days",
            "instructions": "Ring the bell twice",
        }
        art["budget"] = {
            "limit": 500,
            "left_after_order": money(500 - art["payment"]["amount_due"]),
        }
        elsewhere = {"BrewMart": 44.99, "KitchenHub": 47.50}
        offers = {"Hearth & Brew": p["kettle_price"], **elsewhere}
        art["kettle_comparison"] = {
            "elsewhere": [{"store": store, "price": price} for store, price in elsewhere.items()],
            "cheapest_at": min(offers, key=lambda store: offers[store]),
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
    size = p["size"]
    if size == 10:
        return [
            (
                "I'm getting a coffee setup: one electric gooseneck kettle at $49.99 and two ceramic pour-over "
                "sets at $27.50 each.",
                ["/items"],
            ),
            (
                "Sales tax is 8% of the subtotal, rounded to the cent, and shipping is a flat $5.95. Show the "
                "subtotal, tax, shipping and total.",
                ["/subtotal", "/tax", "/shipping", "/total"],
            ),
        ]
    turns: list[Turn] = [
        (
            "Building a coffee cart at Hearth & Brew. First the gooseneck kettle, HC-KT-220: on sale at $49.99, "
            "normally $59.99. Then two ceramic pour-over sets, HC-PO-110, $27.50 each, no discount.",
            ["/store", "/items/0", "/items/1"],
        ),
        (
            "Add the conical burr grinder HC-GR-340, $129 instead of $149, the coffee scale HC-SC-050 at $24.99, "
            "and three packs of paper filters, HC-FL-100, $6.49 each.",
            ["/items/2", "/items/3", "/items/4"],
        ),
    ]
    if size == 100:
        turns.append(
            (
                "A few more things: stoneware mugs HC-MG-012 ($38), the airtight canister HC-CN-020 ($18, down "
                "from $22), a milk frother HC-MF-075 ($29.99, was $34.99) and two packs of descaling tablets "
                "HC-CT-030 at $12.99.",
                ["/items/5", "/items/6", "/items/7", "/items/8"],
            )
        )
    turns += [
        (
            "Summarize: subtotal, how much I save against the regular prices, 8% sales tax on the subtotal "
            "(rounded to the cent), flat $5.95 shipping, and the total.",
            ["/summary"],
        ),
        (
            "I'll use my $25 gift card and put the rest on my Mastercard ending 8812; show what's left to pay.",
            ["/payment"],
        ),
        (
            "I earn a point per whole dollar of the subtotal; my balance is 340 points."
            + (" Show the balance after this order too." if size == 100 else ""),
            members(
                "/rewards",
                "points_this_order balance_before" + (" balance_after" if size == 100 else ""),
            ),
        ),
        (
            "Set a price alert for the kettle at $45: flag it as triggered once its price is below that.",
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
                "Add a glass carafe ($27) to the wishlist. Deliver to Jordan Lee, 88 Alder St, Portland, ME 04101; "
                "they quote 3-5 business days. Ask them to ring the bell twice.",
                ["/wishlist/3", "/delivery"],
            ),
            (
                "My budget for all this is $500. How much is left after what I still have to pay?",
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


def drop_revision(p: dict[str, Any]) -> Revision:
    overrides = {"/kettle_comparison/cheapest_at": regex(r"(?i)hearth")} if p["size"] == 100 else {}
    return Revision(
        request="The kettle just dropped to $39.99, please update my cart.",
        mutate=lambda q: q.update(kettle_price=39.99),
        direct="/items/0/price",
        overrides=overrides,
    )


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
            mutate=lambda q: q.update(pour_over_qty=3),
            direct="/items/1/qty",
            theme="A third pour-over set raises its line, the subtotal, tax, totals and points",
            pattern="arithmetic",
        ),
        Revision(
            request="The kettle sale is over, it's back up to $47.99. Update the cart.",
            mutate=lambda q: q.update(kettle_price=47.99),
            direct="/items/0/price",
            overrides=back_up,
            theme="The kettle goes back above the $45 alert the drop crossed: the alert clears, savings "
            "shrink, totals rise and another store becomes cheapest",
            pattern="threshold",
        ),
        Revision(
            request=stovetop,
            mutate=lambda q: q.update(stovetop_in_cart=True),
            direct=f"/items/{n}",
            theme="A wishlist kettle moves into the cart: a new line, the wishlist loses it, totals and "
            "points rise",
            pattern="add_remove",
        ),
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
PET_ORDER_DATE = "2025-06-02"
PET_PAST_ORDERS: list[tuple[str, str, float, float]] = [
    ("PP-40911", "2025-04-03", 81.20, 0.00),
    ("PP-41877", "2025-04-29", 38.45, 7.99),
    ("PP-42310", "2025-05-14", 64.10, 7.99),
    ("PP-42702", "2025-05-22", 12.99, 7.99),
]
FREE_SHIPPING_AT = 75.00
FREE_GIFT_AT = 150.00
PAID_SHIPPING = 7.99


FEATHER_WAND = ("PP-FW-01", "Feather wand toy", 8.99, 2)


def ship_params(size: int) -> dict[str, Any]:
    return {"size": size, "kibble_bags": 1, "feather_wands": False}


def ship_compute(p: dict[str, Any]) -> dict[str, Any]:
    size = p["size"]
    rows = [
        (sku, name, price, p["kibble_bags"] if i == 0 else qty)
        for i, (sku, name, price, qty) in enumerate(PET_ITEMS[: PET_LINES_BY_SIZE[size]])
    ]
    if p["feather_wands"]:
        rows[1] = FEATHER_WAND
    subtotal = money(sum(price * qty for _, _, price, qty in rows))
    free = subtotal >= FREE_SHIPPING_AT
    shipping = 0 if free else PAID_SHIPPING
    to_free = money(max(0.0, FREE_SHIPPING_AT - subtotal))
    total = money(subtotal + shipping)
    if size == 10:
        return {
            "items": [{"name": name, "price": price, "qty": qty} for _, name, price, qty in rows],
            "subtotal": subtotal,
            "shipping": shipping,
            "amount_to_free_shipping": to_free,
            "total": total,
        }
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
            {"name": "Miso", "species": "cat", "age_years": 4, "weight_lb": 11},
            {"name": "Tofu", "species": "cat", "age_years": 2, "weight_lb": 9},
        ],
        "rewards": {
            "points_per_dollar": 2,
            "points_this_order": 2 * math.floor(subtotal),
            "balance": 515,
        },
        "saved_for_later": [
            {"name": "Cat tree, 5 ft", "price": 119.00},
            {"name": "Self-cleaning litter box", "price": 329.00},
            {"name": "Salmon kibble, 24 lb bag", "price": 59.99},
        ],
        "autoship": {
            "item": "Clumping cat litter, 20 lb",
            "every_weeks": 4,
            "next_date": "2025-06-12",
        },
        "delivery_address": "Priya Raman, 2210 SE Ash St, Portland, OR 97214",
        "coupon": {"code": "SPRING5", "status": "expired", "note": "5% off ended 2025-04-30"},
        "store_pickup": {"available": False, "nearest": "Paws & Pantry Hawthorne"},
    }
    if size == 100:
        fastest, slowest = (5, 7) if free else (3, 5)
        art["order_date"] = PET_ORDER_DATE
        art["arrival_window"] = {
            "earliest": add_business_days(PET_ORDER_DATE, fastest),
            "latest": add_business_days(PET_ORDER_DATE, slowest),
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
        art["saved_for_later"] += [
            {"name": "Heated cat bed", "price": 45.00},
            {"name": "Water fountain", "price": 34.95},
        ]
        art["notes"] = ["Miso only eats the salmon recipe", "Tofu chews cables"]
        art["payment"] = {"card": "Visa ending 7731", "billing_zip": "97214"}
        art["delivery_instructions"] = "Leave at the side gate"
    return art


SHIP_RULES = (
    "Standard shipping is $7.99 and takes 3-5 business days. Once the merchandise subtotal reaches $75 "
    "it switches to Free Ground, which costs nothing but takes 5-7 business days."
)


def ship_conversation(p: dict[str, Any]) -> list[Turn]:
    size = p["size"]
    if size == 10:
        return [
            (
                "Pet supplies order: one 12 lb bag of salmon kibble at $32.99 and two 3-packs of catnip mice "
                "at $6.50 each.",
                ["/items"],
            ),
            (
                "Shipping is $7.99, but it's free once the subtotal reaches $75. No sales tax here in Oregon. "
                "Show the subtotal, shipping, how far I am from free shipping, and the total.",
                ["/subtotal", "/shipping", "/amount_to_free_shipping", "/total"],
            ),
        ]
    n = PET_LINES_BY_SIZE[size]
    item_text = (
        "Ordering from Paws & Pantry for our cats: one 12 lb bag of salmon kibble (PP-KB-12, $32.99), "
        "two 3-packs of catnip mice (PP-CM-03, $6.50 each) and a 20 lb tub of clumping litter "
        "(PP-LT-20, $17.49)"
    )
    item_text += (
        ", plus a 30-count bag of dental chews (PP-DC-30, $8.99). They add a free sample of "
        "freeze-dried chicken treats (PP-SM-01, $0)."
        if size == 100
        else "."
    )
    turns: list[Turn] = [
        (
            "The cats are Miso, 4 years and 11 lb, and Tofu, 2 years and 9 lb.",
            each("/pets", 2, "name species age_years weight_lb"),
        ),
        (item_text, ["/store", *[f"/items/{i}" for i in range(n)]]),
        (
            SHIP_RULES
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
        ("Rewards: 2 points per whole dollar of the subtotal; my balance is 515.", ["/rewards"]),
        (
            "Saved for later, not in this order: a 5 ft cat tree ($119), a self-cleaning litter box ($329) and "
            "the 24 lb kibble bag ($59.99).",
            ["/saved_for_later/0", "/saved_for_later/1", "/saved_for_later/2"],
        ),
        (
            "The litter is also on autoship every 4 weeks, next one 2025-06-12. Deliver to Priya Raman, "
            "2210 SE Ash St, Portland, OR 97214.",
            ["/autoship", "/delivery_address"],
        ),
        (
            "My SPRING5 coupon (5% off) expired on 2025-04-30, so note it as expired. Store pickup isn't "
            "available; the nearest store is Paws & Pantry Hawthorne.",
            ["/coupon", "/store_pickup"],
        ),
    ]
    if size == 100:
        turns += [
            (
                "I'm placing the order today, 2 June 2025 (a Monday). Business days are Monday to Friday: give me "
                "the earliest and latest arrival dates for the shipping we have.",
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
                "Also save a heated cat bed ($45) and a water fountain ($34.95) for later. Notes: Miso only eats the "
                "salmon recipe; Tofu chews cables.",
                ["/saved_for_later/3", "/saved_for_later/4", "/notes"],
            ),
            (
                "Pay with the Visa ending 7731, billing ZIP 97214, and ask them to leave it at the side gate.",
                ["/payment", "/delivery_instructions"],
            ),
        ]
    return turns


def ship_revision(p: dict[str, Any]) -> Revision:
    overrides = {}
    if p["size"] >= 50:
        overrides = {
            "/shipping/service": regex(r"(?i)free ground"),
            "/shipping/delivery_estimate": regex(r"5\s*(-|–|to)\s*7"),
        }
    return Revision(
        request="Actually make it two bags of the salmon kibble.",
        mutate=lambda q: q.update(kibble_bags=2),
        direct="/items/0/qty",
        overrides=overrides,
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
    return [
        Revision(
            request="The cats go through it fast; make it four bags of the salmon kibble.",
            mutate=lambda q: q.update(kibble_bags=4),
            direct="/items/0/qty",
            theme="Four bags instead of two raise the subtotal past the $150 free-gift mark; shipping "
            "stays free",
            pattern="threshold",
        ),
        Revision(
            request="Hmm, we're moving next month. Just one bag of the kibble after all.",
            mutate=lambda q: q.update(kibble_bags=1),
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
            mutate=lambda q: q.update(feather_wands=True),
            direct="/items/1/name",
            overrides={**free, "/items/1/name": regex(r"(?i)^feather wand toys?$")},
            theme="A pricier toy replaces the mice: the line is re-priced, and the subtotal, gaps, "
            "points and total follow (in the big cart it crosses $75 again)",
            pattern="substitution",
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
GADGET_TAX = 0.0725
PLAN_RATE = 0.10


def swap_params(size: int) -> dict[str, Any]:
    return {"size": size, "model": "Sony WH-1000XM5", "plan_rate": PLAN_RATE, "charger": True}


def swap_compute(p: dict[str, Any]) -> dict[str, Any]:
    size, model = p["size"], p["model"]
    hp = HEADPHONES[model]
    plan_price = money(hp["price"] * p["plan_rate"])
    if size == 10:
        charger: list[dict[str, Any]] = (
            [{"name": "Anker 65W USB-C charger", "price": 29.99}] if p["charger"] else []
        )
        subtotal = money(hp["price"] + sum(c["price"] for c in charger) + plan_price)
        tax = money(subtotal * GADGET_TAX)
        return {
            "items": [{"sku": hp["sku"], "name": model, "price": hp["price"]}, *charger],
            "protection_plan": {"covers": model, "price": plan_price},
            "subtotal": subtotal,
            "tax": tax,
            "total": money(subtotal + tax),
        }
    extras = [
        row
        for row in GADGET_EXTRAS[: 2 if size == 50 else 6]
        if p["charger"] or row[0] != "ANK-65W-C"
    ]
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
    art: dict[str, Any] = {
        "store": "Circuit Yard",
        "items": items,
        "protection_plan": {"covers": model, "term_years": 2, "price": plan_price},
        "totals": {"subtotal": subtotal, "tax": tax, "shipping": 0, "total": money(subtotal + tax)},
        "package_weight_g": hp["weight_g"] + sum(w * qty for _, _, _, qty, w in extras),
        "gift": {
            "wrap": True,
            "message": f"Happy birthday, Dad! Enjoy the new {model}.",
            "recipient": "Raymond Ortiz",
        },
        "compared": [
            {"name": "Apple AirPods Max", "price": 549.00, "battery_hours": 20},
            {"name": "Sennheiser Momentum 4", "price": 349.95, "battery_hours": 60},
        ],
    }
    art["gift"]["hide_prices"] = True
    art["compared"].append({"name": "Sony WH-1000XM4", "price": 279.99, "battery_hours": 30})
    art["delivery"] = {
        "address": "Raymond Ortiz, 41 Quarry Rd, Sacramento, CA 95819",
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
        art["payment"]["name_on_card"] = "Lucia Ortiz"
        art["compared"] += [
            {"name": "Bowers & Wilkins Px7 S2e", "price": 399.00, "battery_hours": 30},
            {"name": "Anker Soundcore Space Q45", "price": 149.99, "battery_hours": 50},
        ]
        art["delivery"]["instructions"] = "Side door, he works nights"
        art["notes"] += ["He wears glasses", "He uses an iPhone"]
        art["budget"] = {"limit": 650, "left": money(650 - art["totals"]["total"])}
        art["card_cashback"] = money(art["totals"]["total"] * 0.02)
        art["wishlist"] = [
            {"name": "Portable DAC", "price": 129.00},
            {"name": "Headphone stand", "price": 24.99},
            {"name": "Travel case", "price": 19.99},
        ]
        art["reviews_read"] = ["RTINGS", "The Verge", "Wirecutter"]
    return art


def swap_conversation(p: dict[str, Any]) -> list[Turn]:
    size = p["size"]
    if size == 10:
        return [
            (
                "Birthday present for my dad: the Sony WH-1000XM5 headphones, SNY-WH1000XM5-B, $399.99, and an "
                "Anker 65W USB-C charger for $29.99.",
                ["/items"],
            ),
            (
                "Add the 2-year protection plan for the headphones; it costs 10% of the headphones' price.",
                ["/protection_plan"],
            ),
            (
                "California sales tax is 7.25% on everything, rounded to the cent. Subtotal, tax and total please.",
                ["/subtotal", "/tax", "/total"],
            ),
        ]
    turns: list[Turn] = [
        (
            "Shopping at Circuit Yard for my dad's birthday. Main item: Sony WH-1000XM5 headphones, SKU "
            "SNY-WH1000XM5-B, black, $399.99. Note the specs: 30 hours of battery, 250 g, Bluetooth 5.2, "
            "doesn't fold.",
            [
                "/store",
                *members("/items/0", "sku name brand color price qty line_total"),
                *members("/items/0/specs", "battery_hours weight_g bluetooth foldable"),
            ],
        ),
        (
            "Add an Anker 65W USB-C charger (ANK-65W-C, $29.99) and a 2-pack of USB-C cables (ANK-CBL-2P, $15.99)."
            + (
                " And two 128 GB microSD cards (SD-128-EX, $18.49 each), a screen cleaning kit (CLN-KIT-01, $9.99), "
                "a birthday card (CARD-BDAY, $4.99) and a USB-C to 3.5 mm adapter (ADP-35-C, $8.99)."
                if size == 100
                else ""
            ),
            [f"/items/{i}" for i in range(1, 3 if size == 50 else 7)],
        ),
        (
            "Add the 2-year protection plan for the headphones; it always costs 10% of the headphones' price.",
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
            "Gift-wrap it for Raymond Ortiz with the message: Happy birthday, Dad! Enjoy the new "
            "Sony WH-1000XM5. And hide the prices on the slip.",
            members("/gift", "wrap message recipient hide_prices"),
        ),
        (
            "For reference, what I compared: Apple AirPods Max at $549 with 20 hours of battery, Sennheiser "
            "Momentum 4 at $349.95 with 60 hours, and the older Sony WH-1000XM4 at $279.99 with 30 hours.",
            ["/compared/0", "/compared/1", "/compared/2"],
        ),
        (
            "Ship it straight to him: Raymond Ortiz, 41 Quarry Rd, Sacramento, CA 95819, free 2-day, arriving "
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
                "A few more headphone details for my records: rated 4.6 stars, released in 2022, 1-year warranty, "
                "noise cancelling.",
                [
                    *members("/items/0", "rating release_year"),
                    *members("/items/0/specs", "warranty_years noise_cancelling"),
                ],
            ),
            (
                "Two more I looked at: Bowers & Wilkins Px7 S2e, $399, 30 hours; Anker Soundcore Space Q45, $149.99, "
                "50 hours. The gift is from me, Lucia, for his 60th birthday (the card is in my name, Lucia Ortiz), "
                "and the courier should use the side door, he works nights.",
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
                "My budget is $650; what's left after the total? My card gives 2% cash back on the total, to the "
                "cent.",
                ["/budget", "/card_cashback"],
            ),
            (
                "Wishlist for myself: a portable DAC ($129), a headphone stand ($24.99), a travel case ($19.99). "
                "Reviews I read: RTINGS, The Verge, Wirecutter.",
                ["/wishlist", "/reviews_read"],
            ),
        ]
    return turns


def swap_revision(p: dict[str, Any]) -> Revision:
    size = p["size"]
    new = HEADPHONES["Bose QuietComfort Ultra"]
    reference: dict[str, Any] = {
        "name": "Bose QuietComfort Ultra",
        "sku": new["sku"],
        "price": new["price"],
    }
    overrides = {}
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
        overrides["/gift/message"] = regex(r"(?i)quietcomfort ultra")
    return Revision(
        request="Change of mind: swap the Sony headphones for the Bose QuietComfort Ultra. Product details below.",
        mutate=lambda q: q.update(model="Bose QuietComfort Ultra"),
        direct="/items/0/name",
        overrides=overrides,
        reference=reference,
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


# --------------------------------------------------------------------------- cart-remove-item
# Add/remove: one line leaves the cart; counts, totals, gift wrapping and the ship date
# (set by the slowest item) follow.

ORDER_DATE = "2025-03-10"
TRANSIT_DAYS = 2
WRAP_PRICE = 4.00
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


CLIP_LAMP = ("OF-LP-150", "Clip-on LED lamp", 29.00, 1, 6, True)


def remove_params(size: int) -> dict[str, Any]:
    return {
        "size": size,
        "skus": [row[0] for row in OFFICE_ITEMS[: OFFICE_LINES_BY_SIZE[size]]],
        "qty": {},
        "clip_lamp": False,
    }


def _office_rows(p: dict[str, Any]) -> list[tuple[str, str, float, int, int, bool]]:
    """The cart's lines in catalog order: the chosen skus, quantities as changed, and the
    clip-on lamp in the desk lamp's place once the shopper swaps them."""
    rows = []
    for row in OFFICE_ITEMS:
        if row[0] not in p["skus"]:
            continue
        sku, name, price, qty, days, wrapped = (
            CLIP_LAMP if row[0] == "OF-LP-210" and p["clip_lamp"] else row
        )
        rows.append((sku, name, price, p["qty"].get(sku, qty), days, wrapped))
    return rows


def remove_compute(p: dict[str, Any]) -> dict[str, Any]:
    size = p["size"]
    rows = _office_rows(p)
    subtotal = money(sum(price * qty for _, _, price, qty, _, _ in rows))
    units = sum(row[3] for row in rows)
    if size == 10:
        return {
            "items": [
                {"name": name, "price": price, "qty": qty} for _, name, price, qty, _, _ in rows
            ],
            "item_count": units,
            "subtotal": subtotal,
            "delivery": 9.99,
            "total": money(subtotal + 9.99),
        }
    wrapped = [row[0] for row in rows if row[5]]
    wrap_cost = money(WRAP_PRICE * len(wrapped))
    tax = money(subtotal * OFFICE_TAX)
    ships_on = add_days(ORDER_DATE, max(row[4] for row in rows))
    art: dict[str, Any] = {
        "store": "Deskwise",
        "order_date": ORDER_DATE,
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
            "delivery": 9.99,
            "total": money(subtotal + wrap_cost + tax + 9.99),
        },
        "shipping": {"ships_on": ships_on, "arrives_by": add_days(ships_on, TRANSIT_DAYS)},
    }
    art["saved_for_later"] = [
        {"name": "Standing desk frame", "price": 399.00},
        {"name": "Acoustic panel set", "price": 89.00},
    ]
    art["address"] = "Lena Fischer, 19 Wharf St, Pittsburgh, PA 15222"
    art["payment"] = {"card": "Amex ending 3005", "billing_zip": "15222"}
    if size == 100:
        art["order_id"] = "DW-77120"
        art["assembly"] = {
            "item": "Ergonomic mesh chair",
            "booked": True,
            "price": 39.00,
            "date": "2025-03-20",
            "paid_separately": True,
        }
        art["rewards"] = {"points_this_order": math.floor(subtotal), "balance": 610}
        art["budget"] = {"limit": 750, "left_after_order": money(750 - art["totals"]["total"])}
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
        art["gift_note"] = {"to": "Mara Fischer", "message": "Happy birthday and happy new desk!"}
        art["warranties"] = [
            {"item": "Ergonomic mesh chair", "years": 12},
            {"item": "Monitor arm", "years": 5},
        ]
    return art


def remove_conversation(p: dict[str, Any]) -> list[Turn]:
    size = p["size"]
    if size == 10:
        return [
            (
                "Home office order: one ergonomic mesh chair at $289 and an LED desk lamp at $45.50.",
                ["/items"],
            ),
            (
                "Keep a count of how many things I'm buying, the subtotal, the flat $9.99 delivery, and the total.",
                ["/item_count", "/subtotal", "/delivery", "/total"],
            ),
        ]
    n = OFFICE_LINES_BY_SIZE[size]
    item_text = (
        "Setting up my home office from Deskwise, ordering today, 10 March 2025. Items: ergonomic mesh "
        "chair OF-CH-900, $289, ships in 3 days; LED desk lamp OF-LP-210, $45.50, ships in 14 days; "
        "monitor arm OF-MA-330, $79, 5 days; two under-desk cable trays OF-CT-040 at $18.99, 3 days; "
        "felt desk mat OF-DM-120, $24, 5 days"
    )
    if size == 100:
        item_text += (
            "; adjustable footrest OF-FR-015, $36, 4 days; small whiteboard OF-WB-060, $29.95, "
            "2 days; aluminum laptop stand OF-LS-070, $42, 3 days; wireless charging pad OF-WC-025, $25, "
            "2 days"
        )
    turns: list[Turn] = [
        (item_text + ".", ["/store", "/order_date", *[f"/items/{i}" for i in range(n)]]),
        ("How many things is that in total?", ["/item_count"]),
        (
            "The lamp and the desk mat are gifts for my sister; gift-wrap those two at $4 each.",
            ["/gift_wrap"],
        ),
        (
            "Totals: subtotal, gift wrap, Pennsylvania's 6% sales tax on the merchandise subtotal (rounded "
            "to the cent), $9.99 flat delivery, and the grand total.",
            ["/totals"],
        ),
        (
            "Everything ships together once the slowest item is ready, then it's 2 days in transit (calendar "
            "days throughout). When does it ship and when should it arrive?",
            ["/shipping"],
        ),
    ]
    turns.append(
        (
            "Saved for later: a standing desk frame at $399 and an acoustic panel set at $89. Deliver to "
            "Lena Fischer, 19 Wharf St, Pittsburgh, PA 15222, and charge my Amex ending 3005 (billing ZIP 15222).",
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
                "I earn a point per whole dollar of the merchandise subtotal; balance 610.",
                ["/rewards"],
            ),
            (
                "I allowed $750 for this order. What's left of that after the grand total?",
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
                "The gifts are for my sister Mara Fischer; the card says: Happy birthday and happy new desk! Also "
                "record the warranties: 12 years on the chair, 5 on the monitor arm.",
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
        q["skus"].append("OF-LP-210")

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


# The order's state (what the shopper reports) -> order, payment and shipment statuses.
CAMP_STATES: dict[str, tuple[str, str, str]] = {
    "processing": ("processing", "authorized", "label created"),
    "cancelled": ("cancelled", "voided", "cancelled"),
    "shipped": ("shipped", "captured", "in transit"),
    "delivered": ("delivered", "captured", "delivered"),
}


def cancel_params(size: int) -> dict[str, Any]:
    return {"size": size, "state": "processing"}


def cancel_compute(p: dict[str, Any]) -> dict[str, Any]:
    size, state = p["size"], p["state"]
    cancelled = state == "cancelled"
    rows = CAMP_LINES[: CAMP_LINES_BY_SIZE[size]]
    order_status, payment_status, shipment_status = CAMP_STATES[state]
    order: dict[str, Any] = {"number": "TR-58213", "status": order_status}
    payment: dict[str, Any] = {"method": "Visa ending 4417", "status": payment_status}
    shipment: dict[str, Any] = {
        "status": shipment_status,
        "estimated_delivery": None if cancelled else "2025-05-07",
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
    order.update(placed="2025-05-02", store="Trailhead Outfitters", total=total)
    payment["amount"] = total
    shipment.update(carrier="UPS", tracking="1Z 84F 29A 03 1187 5520", service="UPS Ground")
    art: dict[str, Any] = {
        "order": order,
        "lines": lines,
        "payment": payment,
        "shipment": shipment,
        "rewards": {
            "pending_points": 0 if state in ("cancelled", "delivered") else math.floor(total),
            "balance": 1240 + (math.floor(total) if state == "delivered" else 0),
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
        "address": "Dev Patel, 740 Cedar Ave, Boulder, CO 80304",
        "notifications": {"email": "dev.patel@example.com", "sms": False},
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
        art["customer"] = {"name": "Dev Patel", "member_since": "2021-08-14", "tier": "Summit"}
        art["trip"] = {"name": "Rocky Mountain NP", "starts": "2025-05-16"}
        art["return_policy"] = {"window_days": 60, "free_returns": True}
    return art


def cancel_rules(size: int) -> str:
    backorder = (
        " Same for the backorder: cancelled, expected ship date cleared." if size == 100 else ""
    )
    return (
        "If I end up cancelling before it ships, here's how it works: the order and every item line become "
        "cancelled, the card authorization becomes voided, and the shipment becomes cancelled and loses its "
        "delivery date (clear it)." + backorder
    )


def cancel_conversation(p: dict[str, Any]) -> list[Turn]:
    size = p["size"]
    if size == 10:
        return [
            (
                "Track my camping gear order TR-58213 for me. It's processing: a two-person backpacking tent and "
                "a down sleeping bag, both processing.",
                ["/order", "/lines"],
            ),
            (
                "My Visa ending 4417 is authorized and UPS has created the label, delivery estimated for 2025-05-07. "
                + cancel_rules(size),
                ["/payment", "/shipment"],
            ),
        ]
    n = CAMP_LINES_BY_SIZE[size]
    lines_text = (
        "My Trailhead Outfitters order TR-58213 went in on 2 May 2025 and is processing. Lines, "
        + ("all " if size == 50 else "")
        + "processing: one two-person backpacking tent (TR-TNT-2P, $249), two 20F down sleeping bags "
        "(TR-SB-20F, $189 each), two insulated sleeping pads (TR-PAD-RG, $89.95 each), one canister "
        "stove (TR-STV-01, $54.50)"
    )
    if size == 100:
        lines_text += (
            "; then two lines that are backordered: two rechargeable headlamps (TR-LMP-02, $34 each) "
            "and a squeeze water filter (TR-FLT-01, $39.99); and, processing again, two titanium sporks "
            "(TR-SPK-TI, $11.95 each) and a 20 L dry bag (TR-DRY-20, $29). I placed it on the web at "
            "14:32"
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
            "Payment: my Visa ending 4417 is authorized for the total, not charged yet. UPS has created the "
            "label, tracking 1Z 84F 29A 03 1187 5520, going UPS Ground, delivery estimated for 2025-05-07.",
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
            "balance is 1240.",
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
            "Shipping address is Dev Patel, 740 Cedar Ave, Boulder, CO 80304; email updates to "
            "dev.patel@example.com, no texts.",
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


def cancel_revision(p: dict[str, Any]) -> Revision:
    overrides = {"/shipment/estimated_delivery": regex(CLEARED)}
    if p["size"] == 100:
        overrides["/backorder/expected_ship"] = regex(CLEARED)
    return Revision(
        request="I just cancelled order TR-58213 on the website; please mark it cancelled.",
        mutate=lambda q: q.update(state="cancelled"),
        direct="/order/status",
        overrides=overrides,
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
        notes="Status-governed set stated in the conversation; prices, totals and tracking stay for the record, "
        "and the previous delivered order is a distractor.",
    ),
]
