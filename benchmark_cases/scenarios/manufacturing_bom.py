"""manufacturing_bom: product and operations engineers keep bills of materials with an assistant.

One scenario per pattern except substitution. Costs roll up from quantities and unit prices,
supplier price breaks gate unit prices, the pilot-run schedule hangs off the production
start, and a BOM's release status governs purchasing and document control. The rules are
stated in the conversation and computed here, so each gold patch is right by construction.

Every scenario also generates fresh instances and long chains: its inputs (people, prices,
counts, the build or batch, dates) are drawn from pools that keep its rules meaningful, and its
moves (re-quantify or re-price a part, add, drop or put back a part, cross a price break, move
the start or switch the line, switch a supplier or the glass body, release, pull back, obsolete
or reinstate) are written for the size they run at.
"""

from __future__ import annotations

import copy
import datetime as _dt
from collections.abc import Sequence
from typing import Any

from pytest_revprop.authoring.helpers import add_days, count_word, dollars, money
from pytest_revprop.authoring.scenario import SHIPPED, Draw, Move, Revision, Scenario, Turn, regex

DOMAIN = "manufacturing_bom"


# --------------------------------------------------------------------------- shared by the moves
# The lamp, the sensor board and the kettle keep their BOM lines as ``parts`` rows (part number
# first) and the lines a move dropped as ``removed``; these three helpers add and drop lines.


def _addable(p: dict[str, Any], pool: Sequence[Sequence[Any]]) -> list[tuple[bool, list[Any]]]:
    """The rows a move may add, each with whether it was dropped earlier: the ``pool`` parts
    never in the BOM, then the rows dropped earlier (as they were)."""
    held = {r[0] for r in p["parts"]} | {r[0] for r in p["removed"]}
    return [(False, list(r)) for r in pool if r[0] not in held] + [
        (True, list(r)) for r in p["removed"]
    ]


def _join(q: dict[str, Any], row: list[Any], **updates: Any) -> None:
    """Add ``row`` as the BOM's last line (no longer dropped), and apply ``updates``."""
    q["removed"] = [r for r in q["removed"] if r[0] != row[0]]
    q["parts"].append(row)
    q.update(updates)


def _leave(q: dict[str, Any], i: int, **updates: Any) -> None:
    """Drop the BOM's line ``i`` (kept for a later return), and apply ``updates``."""
    q["removed"].append(q["parts"].pop(i))
    q.update(updates)


# --------------------------------------------------------------------------- bom-hinge-screws
# Arithmetic: a component's quantity per unit feeds its extended cost, the material cost,
# overhead, unit cost, batch costs, prices and the open quote.

# (part number, description, qty per lamp, unit cost); the hinge screw is the edited line
LAMP_PARTS_50: list[tuple[str, str, int, float]] = [
    ("LA-101", "Aluminum arm set", 1, 7.80),
    ("LA-114", "Weighted base", 1, 5.40),
    ("LA-120", "LED module 8W", 1, 4.20),
    ("LA-133", "Dimmer switch", 1, 1.95),
    ("LA-140", "Power adapter 12V", 1, 3.10),
    ("LA-152", "M3 hinge screw", 4, 0.06),
]
LAMP_PARTS_100: list[tuple[str, str, int, float]] = [
    ("LA-160", "Fabric cord, 1.5 m", 1, 1.25),
    ("LA-171", "Cord clip", 3, 0.08),
    ("LA-180", "Rubber foot", 4, 0.05),
    ("LA-191", "Diffuser lens", 1, 0.90),
]
LAMP_SMALL = ("LA-120", "LA-152")  # the size-10 BOM: the LED module and the hinge screws
LAMP_SCREW = "LA-152"
# parts a user may add later: (part number, description, qty per lamp, unit cost)
LAMP_NEW_PARTS: list[tuple[str, str, int, float]] = [
    ("LA-195", "Felt base pad", 1, 0.12),
    ("LA-196", "Cable strain relief", 1, 0.15),
    ("LA-198", "Shade ring", 1, 0.65),
    ("LA-199", "Wall bracket", 1, 0.85),
    ("LA-204", "Serial number label", 1, 0.03),
]
# catalog parts a move may drop (the dimmer stays: the size-100 test plan names it)
LAMP_OPTIONAL = ("LA-171", "LA-180", "LA-191")
LAMP_COUNTED = ("LA-152", "LA-171", "LA-180", "LA-195", "LA-196")  # parts a lamp takes several of
LAMP_DESIGNERS = ["Ana Ruiz", "Leah Morgan", "Kwame Asante", "Sofia Lindgren"]
LAMP_CUSTOMERS = ["Halden Interiors", "Brightwater Hotels", "Norrvik Office Supply", "Casa Lumen"]


def lamp_inputs(size: int, d: Draw) -> dict[str, Any]:
    """The lamp's inputs: its BOM lines ``[part number, description, qty, unit cost]`` (lines
    dropped go to ``removed``), the batch, labor rate, designer and the quote's customer."""
    rows = LAMP_PARTS_50 + (LAMP_PARTS_100 if size == 100 else [])
    parts = [list(r) for r in rows if size > 10 or r[0] in LAMP_SMALL]
    drawn = {
        LAMP_SCREW: lambda r: r.__setitem__(2, d.int(3, 5, shipped=4)),
        "LA-120": lambda r: r.__setitem__(3, d.pick([4.20, 3.85, 4.55, 4.90])),
        "LA-101": lambda r: r.__setitem__(3, d.pick([7.80, 6.95, 8.40, 9.10])),
        "LA-114": lambda r: r.__setitem__(3, d.pick([5.40, 4.80, 5.95, 6.30])),
    }
    for row in parts:
        if row[0] in drawn:
            drawn[row[0]](row)
    return {
        "size": size,
        "parts": parts,
        "removed": [],
        "batch": d.pick([250, 200, 300, 500]),
        "labor": d.pick([6.5, 5.75, 7.25, 8.0]),
        "designer": d.pick(LAMP_DESIGNERS),
        "customer": d.pick(LAMP_CUSTOMERS),
        "quote_qty": d.pick([400, 300, 500, 600]),
    }


def lamp_params(size: int) -> dict[str, Any]:
    return lamp_inputs(size, SHIPPED)


def _lamp_part(p: dict[str, Any], pn: str) -> list[Any]:
    return next(r for r in p["parts"] if r[0] == pn)  # type: ignore[no-any-return]


def lamp_compute(p: dict[str, Any]) -> dict[str, Any]:
    size, batch = p["size"], p["batch"]
    if size == 10:
        parts = [{"part": d, "qty_per_lamp": q, "unit_cost": c} for _, d, q, c in p["parts"]]
        material = money(sum(c["qty_per_lamp"] * c["unit_cost"] for c in parts))
        return {
            "product": "Arc desk lamp",
            "batch_size": batch,
            "components": parts,
            "material_cost_per_lamp": material,
            "batch_material_cost": money(material * batch),
        }
    parts = [
        {
            "part_number": pn,
            "description": desc,
            "qty_per_lamp": qty,
            "unit_cost": cost,
            "extended_cost": money(qty * cost),
        }
        for pn, desc, qty, cost in p["parts"]
    ]
    material = money(sum(c["extended_cost"] for c in parts))
    overhead = money(material * 0.15)
    unit_cost = money(material + p["labor"] + overhead)
    art: dict[str, Any] = {
        "product": {"name": "Arc desk lamp", "model": "AL-2", "revision": "C"},
        "batch_size": batch,
        "components": parts,
        "costs": {
            "material_per_lamp": material,
            "labor_per_lamp": p["labor"],
            "overhead_percent": 15,
            "overhead_per_lamp": overhead,
            "unit_cost": unit_cost,
            "batch_cost": money(unit_cost * batch),
        },
        "pricing": {"wholesale_markup": 2, "wholesale_price": money(unit_cost * 2)},
        "designer": p["designer"],
        "factory": {"name": "Lumio Works Plant 2", "city": "Dayton, OH"},
        "target_ship_date": "2025-10-20",
        "packaging": {"box": "Kraft mailer 60x20x15 cm", "insert": "Molded pulp tray"},
        "compliance": ["UL 153", "FCC Part 15"],
    }
    if size == 50:
        return art
    art["costs"]["batch_material_cost"] = money(material * batch)
    wholesale = art["pricing"]["wholesale_price"]
    art["pricing"].update(retail_markup=1.8, retail_price=money(wholesale * 1.8))
    art["quote"] = {
        "customer": p["customer"],
        "quantity": p["quote_qty"],
        "price_each": wholesale,
        "total": money(wholesale * p["quote_qty"]),
    }
    art["previous_revision"] = {"revision": "B", "unit_cost": 31.85, "retired_on": "2025-06-30"}
    art["factory"]["contact"] = "Dale Whitcomb"
    art["packaging"]["manual"] = "Quick start card, 4 languages"
    art["compliance"].append("CE")
    art["schedule"] = {"pilot_run": "2025-09-15", "mass_production": "2025-10-06"}
    art["test_plan"] = [
        {"test": "Hinge cycle test, 20,000 cycles", "samples": 5},
        {"test": "Drop test, 1 m", "samples": 3},
        {"test": "Thermal soak, 8 h at 40 C", "samples": 3},
        {"test": "Dimmer endurance, 10,000 turns", "samples": 3},
    ]
    art["factory"]["assembly_cell"] = "Cell 4"
    art["warranty_years"] = 2
    art["colors"] = ["Graphite", "Sand", "Sage"]
    art["weights"] = {"lamp_kg": 1.9, "boxed_kg": 2.6}
    return art


def lamp_conversation(p: dict[str, Any]) -> list[Turn]:
    size = p["size"]
    screws = count_word(_lamp_part(p, LAMP_SCREW)[2])
    led = dollars(_lamp_part(p, "LA-120")[3])
    if size == 10:
        return [
            (
                f"Starting the BOM for the Arc desk lamp. We're building a batch of {p['batch']}.",
                ["/product", "/batch_size"],
            ),
            (
                f"Each lamp takes one LED module 8W at {led} and {screws} M3 hinge screws at 6 cents apiece.",
                ["/components/0", "/components/1"],
            ),
            (
                "Material cost per lamp is quantity times unit cost summed over the parts; the batch material "
                "cost is that times the batch size.",
                ["/material_cost_per_lamp", "/batch_material_cost"],
            ),
        ]
    arm, base = dollars(_lamp_part(p, "LA-101")[3]), dollars(_lamp_part(p, "LA-114")[3])
    turns: list[Turn] = [
        (
            f"Let's set up the BOM for the Arc desk lamp, model AL-2, revision C, designed by {p['designer']}. "
            f"First batch is {p['batch']} lamps at Lumio Works Plant 2 in Dayton, OH.",
            ["/product", "/batch_size", "/designer", "/factory/name", "/factory/city"],
        ),
        (
            f"Parts per lamp: LA-101 aluminum arm set {arm}, LA-114 weighted base {base}, LA-120 LED module 8W "
            f"{led}, LA-133 dimmer switch $1.95, LA-140 12V power adapter $3.10 (one each), and {screws} LA-152 "
            "M3 hinge screws at $0.06. Extended cost = quantity x unit cost.",
            [f"/components/{i}" for i in range(6)],
        ),
    ]
    if size == 100:
        turns.append(
            (
                "I forgot a few: one LA-160 fabric cord (1.5 m) at $1.25, three LA-171 cord clips at $0.08, "
                "four LA-180 rubber feet at $0.05 and one LA-191 diffuser lens at $0.90.",
                [f"/components/{i}" for i in range(6, 10)],
            )
        )
    costs = (
        f"Costing: material per lamp is the sum of the extended costs. Labor is {dollars(p['labor'])} a lamp, "
        "overhead 15% of material (to the cent), and unit cost = material + labor + overhead. Batch cost is "
        "unit cost times the batch size."
    )
    cost_ptrs = [
        "/costs/material_per_lamp",
        "/costs/labor_per_lamp",
        "/costs/overhead_percent",
        "/costs/overhead_per_lamp",
        "/costs/unit_cost",
        "/costs/batch_cost",
    ]
    if size == 100:
        costs += " Also show the batch material cost (material per lamp times batch size)."
        cost_ptrs.append("/costs/batch_material_cost")
    turns += [
        (costs, cost_ptrs),
        (
            "Wholesale price is twice the unit cost.",
            ["/pricing/wholesale_markup", "/pricing/wholesale_price"],
        ),
        (
            "Packaging is a kraft mailer 60x20x15 cm with a molded pulp tray. It needs UL 153 and FCC Part 15, "
            "and we're targeting shipping on 2025-10-20.",
            [
                "/packaging/box",
                "/packaging/insert",
                "/compliance/0",
                "/compliance/1",
                "/target_ship_date",
            ],
        ),
    ]
    if size == 50:
        return turns
    turns += [
        (
            f"Retail is 1.8 times wholesale, rounded to the cent. {p['customer']} wants a quote for "
            f"{p['quote_qty']} lamps at our wholesale price; show the price each and the quote total.",
            ["/pricing/retail_markup", "/pricing/retail_price", "/quote"],
        ),
        (
            "For comparison, revision B cost $31.85 a unit and was retired on 2025-06-30.",
            ["/previous_revision"],
        ),
        (
            "Dale Whitcomb is our contact at the plant. Add a 4-language quick start card to the packaging and "
            "CE marking to the compliance list.",
            ["/factory/contact", "/packaging/manual", "/compliance/2"],
        ),
        (
            "Pilot run on 2025-09-15, mass production from 2025-10-06 in assembly cell 4. Tests: hinge cycle "
            "20,000 cycles on 5 samples, 1 m drop on 3, thermal soak 8 h at 40 C on 3, dimmer endurance 10,000 "
            "turns on 3. Warranty is 2 years.",
            ["/schedule", "/factory/assembly_cell", "/test_plan", "/warranty_years"],
        ),
        (
            "Colors: Graphite, Sand and Sage. The lamp weighs 1.9 kg, 2.6 kg boxed.",
            ["/colors", "/weights"],
        ),
    ]
    return turns


def _lamp_index(p: dict[str, Any], pn: str) -> int:
    return next(i for i, r in enumerate(p["parts"]) if r[0] == pn)


def _set_lamp_qty(q: dict[str, Any], pn: str, qty: int) -> None:
    _lamp_part(q, pn)[2] = qty


def lamp_revision(p: dict[str, Any]) -> Revision:
    return Revision(
        request="The hinge tested loose with four screws. Make it six M3 hinge screws per lamp.",
        mutate=lambda q: _set_lamp_qty(q, LAMP_SCREW, 6),
        direct=f"/components/{_lamp_index(p, LAMP_SCREW)}/qty_per_lamp",
    )


def lamp_followups(p: dict[str, Any]) -> list[Revision]:
    size = p["size"]
    screw = _lamp_index(p, LAMP_SCREW)
    end = len(p["parts"])  # the index a part added at the end takes
    return [
        Revision(
            request="The retest passed with five screws, so make it five M3 hinge screws per lamp, not six.",
            mutate=lambda q: _set_lamp_qty(q, LAMP_SCREW, 5),
            direct=f"/components/{screw}/qty_per_lamp",
            theme="The screw count is revised again, down by one: the extended cost and every roll-up and "
            "price follow",
            pattern="arithmetic",
        ),
        Revision(
            request="Make the first batch 400 lamps instead of 250.",
            mutate=lambda q: q.update(batch=400),
            direct="/batch_size",
            theme="A bigger batch scales the batch costs; per-lamp costs, prices and the 400-lamp quote stay",
            pattern="arithmetic",
        ),
        Revision(
            # size 10 records no part numbers: naming one there invites a place the gold lacks; the
            # request spells the part's name as the gold holds it
            request="Add a new part, Felt base pad: one per lamp at $0.12."
            if size == 10
            else "Add a new part, LA-195 Felt base pad: one per lamp at $0.12.",
            mutate=lambda q: q["parts"].append(list(LAMP_NEW_PARTS[0])),
            direct=f"/components/{end}",
            theme="A new component line adds its cost to material, overhead, unit and batch costs and the "
            "prices",
            pattern="add_remove",
        ),
    ]


# moves of bom-hinge-screws: size 10 records no part numbers, so its requests name parts by
# their description only; labor is in the document from size 50


def _lamp_ref(p: dict[str, Any], row: Sequence[Any]) -> str:
    """A part as the user names it: its description at size 10, with its part number beyond."""
    desc = row[1] if row[1][:2].isupper() else row[1][0].lower() + row[1][1:]
    return f"the {desc}" if p["size"] == 10 else f"the {row[0]} {desc}"


def _lamp_quantity(p: dict[str, Any], d: Draw) -> Revision | None:
    """Another count of a part a lamp takes several of (screws, clips, feet, pads)."""
    lines = [i for i, r in enumerate(p["parts"]) if r[0] in LAMP_COUNTED]
    if not lines:
        return None
    i = d.pick(lines)
    row = p["parts"][i]
    qty = d.pick([n for n in range(2, 9) if n != row[2]])
    ref = _lamp_ref(p, row)
    return Revision(
        request=d.pick(
            [
                f"Change the quantity of {ref} to {qty} per lamp; it's {row[2]} now.",
                f"Engineering wants {ref} at {qty} per lamp instead of {row[2]}.",
            ]
        ),
        mutate=lambda q: _set_lamp_qty(q, row[0], qty),
        direct=f"/components/{i}/qty_per_lamp",
        theme=f"{row[1]} goes from {row[2]} to {qty} per lamp: its cost and every roll-up follow",
    )


def _lamp_reprice(p: dict[str, Any], d: Draw) -> Revision | None:
    i = d.pick(range(len(p["parts"])))
    row = p["parts"][i]
    costs = {money(row[3] * f) for f in (0.75, 0.85, 0.9, 1.1, 1.2, 1.35)}
    cost = d.pick(sorted(c for c in costs if c != row[3] and c > 0))
    ref = _lamp_ref(p, row)

    def mutate(q: dict[str, Any]) -> None:
        _lamp_part(q, row[0])[3] = cost

    return Revision(
        request=d.pick(
            [
                f"The supplier re-quoted {ref}: {dollars(cost)} each now.",
                f"New unit cost for {ref}: {dollars(cost)}, not {dollars(row[3])}.",
            ]
        ),
        mutate=mutate,
        direct=f"/components/{i}/unit_cost",
        theme=f"{row[1]} is re-priced: its cost and every roll-up follow",
    )


def _lamp_batch(p: dict[str, Any], d: Draw) -> Revision | None:
    batch = d.pick([n for n in (150, 200, 250, 300, 400, 500, 600) if n != p["batch"]])
    return Revision(
        request=f"Make the first batch {batch} lamps instead of {p['batch']}.",
        mutate=lambda q: q.update(batch=batch),
        direct="/batch_size",
        theme="Another batch size scales the batch costs; per-lamp costs and prices stay",
    )


def _lamp_add(p: dict[str, Any], d: Draw) -> Revision | None:
    """A new part, or one dropped earlier, joins the BOM as its last line."""
    choices = _addable(p, LAMP_NEW_PARTS)
    if not choices:
        return None
    again, row = d.pick(choices)
    pn, desc, qty, cost = row
    name = desc if p["size"] == 10 else f"{pn} {desc}"
    what = f"{count_word(qty)} per lamp at {dollars(cost)}"
    request = (
        f"Put {_lamp_ref(p, row)} back in the BOM, as the last line: {what}."
        if again
        else f"Add a new part, {name}: {what}."
    )
    return Revision(
        request=request,
        mutate=lambda q: _join(q, row),
        direct=f"/components/{len(p['parts'])}",
        theme=f"{desc} joins the BOM: its cost adds to every roll-up and price",
    )


def _lamp_remove(p: dict[str, Any], d: Draw) -> Revision | None:
    """Drop a part the lamp can do without: clips, feet, the lens or a part added later."""
    optional = set(LAMP_OPTIONAL) | {r[0] for r in LAMP_NEW_PARTS}
    lines = [i for i, r in enumerate(p["parts"]) if r[0] in optional]
    if not lines:
        return None
    i = d.pick(lines)
    row = p["parts"][i]
    ref = _lamp_ref(p, row)
    return Revision(
        request=d.pick([f"Drop {ref} from the BOM.", f"We no longer use {ref}; take it out."]),
        mutate=lambda q: _leave(q, i),
        direct=f"/components/{i}",
        theme=f"{row[1]} leaves the BOM: its cost leaves every roll-up and price",
    )


def _lamp_labor(p: dict[str, Any], d: Draw) -> Revision | None:
    labor = d.pick([x for x in (5.75, 6.0, 6.5, 7.25, 8.0) if x != p["labor"]])
    return Revision(
        request=f"The plant's labor rate changed: labor is {dollars(labor)} a lamp now.",
        mutate=lambda q: q.update(labor=labor),
        direct="/costs/labor_per_lamp",
        theme="A new labor cost moves the unit cost, batch cost and prices",
    )


LAMP_MOVES = [
    Move("requantity", "arithmetic", _lamp_quantity),
    Move("reprice", "arithmetic", _lamp_reprice),
    Move("batch", "arithmetic", _lamp_batch, opens=False),
    Move("add-part", "add_remove", _lamp_add),
    Move("remove-part", "add_remove", _lamp_remove),
    Move("labor", "arithmetic", _lamp_labor, when=lambda p: p["size"] >= 50, opens=False),
]


# --------------------------------------------------------------------------- bom-connector-price-break
# Threshold: a second connector per board doubles the connector order, which crosses its
# price break; only that part's tier and price change. Parts just below their own break
# (resistors, switches) and parts already past it (capacitors) stay.

# (part number, description, per board, supplier, base price, break quantity, break price)
BOARD_PARTS: list[tuple[str, str, int, str, float, int, float]] = [
    ("NE-201", "JST 4-pin connector", 1, "DigiKey", 0.42, 500, 0.35),
    ("NE-202", "TMP117 temperature sensor", 1, "Mouser", 1.85, 1000, 1.70),
    ("NE-203", "10k resistor 0603", 6, "DigiKey", 0.012, 2500, 0.009),
    ("NE-204", "100nF capacitor 0603", 8, "DigiKey", 0.02, 2500, 0.015),
    ("NE-205", "ESP32-C3 module", 1, "Mouser", 2.95, 1000, 2.60),
    ("NE-206", "3.3V LDO regulator", 1, "Mouser", 0.38, 500, 0.31),
    ("NE-207", "Bare PCB, 4-layer", 1, "JLCPCB", 1.10, 500, 0.92),
]
BOARD_PARTS_100: list[tuple[str, str, int, str, float, int, float]] = [
    ("NE-208", "Tactile switch", 2, "DigiKey", 0.09, 1000, 0.07),
    ("NE-209", "u.FL antenna connector", 1, "Mouser", 0.55, 500, 0.48),
]
# what a user calls each part mid-sentence: (one, several)
BOARD_SPOKEN: dict[str, tuple[str, str]] = {
    "NE-201": ("JST 4-pin connector", "JST 4-pin connectors"),
    "NE-202": ("TMP117 temperature sensor", "TMP117 temperature sensors"),
    "NE-203": ("10k 0603 resistor", "10k 0603 resistors"),
    "NE-204": ("100nF 0603 capacitor", "100nF 0603 capacitors"),
    "NE-205": ("ESP32-C3 module", "ESP32-C3 modules"),
    "NE-206": ("3.3V LDO", "3.3V LDOs"),
    "NE-207": ("4-layer bare PCB", "4-layer bare PCBs"),
    "NE-208": ("tactile switch", "tactile switches"),
    "NE-209": ("u.FL antenna connector", "u.FL antenna connectors"),
    "NE-210": ("status LED", "status LEDs"),
    "NE-211": ("2x5 pin header", "2x5 pin headers"),
    "NE-212": ("ferrite bead", "ferrite beads"),
    "NE-213": ("coin cell holder", "coin cell holders"),
}
# parts a user may add later (sizes 50 and 100), as BOARD_PARTS rows
BOARD_NEW_PARTS: list[tuple[str, str, int, str, float, int, float]] = [
    ("NE-210", "Status LED 0603", 2, "DigiKey", 0.06, 1000, 0.04),
    ("NE-211", "Pin header 2x5", 1, "DigiKey", 0.28, 500, 0.22),
    ("NE-212", "Ferrite bead 0603", 2, "Mouser", 0.05, 1000, 0.03),
    ("NE-213", "Coin cell holder", 1, "Mouser", 0.32, 500, 0.26),
]
# the most of a part a board may take (the module and the bare PCB stay at one)
BOARD_MAX = {
    "NE-201": 3, "NE-202": 3, "NE-203": 10, "NE-204": 12, "NE-205": 1, "NE-206": 2, "NE-207": 1,
    "NE-208": 4, "NE-209": 2, "NE-210": 4, "NE-211": 2, "NE-212": 4, "NE-213": 1,
}  # fmt: skip
BOARD_KEPT = ("NE-201", "NE-202", "NE-203", "NE-204", "NE-205", "NE-206", "NE-207")  # never dropped
BOARD_CUSTOMERS = ["Tidewater Instruments", "Kestrel Sensing", "Bluefen Controls", "Marlow Labs"]
BOARD_BUYERS = ["Hannah Cole", "Ravi Menon", "Julia Brandt", "Owen Price"]


def board_inputs(size: int, d: Draw) -> dict[str, Any]:
    """The build's inputs: its part rows ``[part number, description, per board, supplier,
    base price, break quantity, break price]`` (size 10 holds the connector and the sensor;
    rows dropped go to ``removed``), the build quantity, customer, due date and buyer."""
    rows = BOARD_PARTS + (BOARD_PARTS_100 if size == 100 else [])
    return {
        "size": size,
        "parts": [list(r) for r in rows[: 2 if size == 10 else len(rows)]],
        "removed": [],
        "build": d.pick([400, 320, 360, 440, 480]),
        "customer": d.pick(BOARD_CUSTOMERS),
        "due": d.date("2025-08-18", "2025-09-12", shipped="2025-08-29", weekdays="01234"),
        "buyer": d.pick(BOARD_BUYERS),
    }


def board_params(size: int) -> dict[str, Any]:
    return board_inputs(size, SHIPPED)


def _board_line(row: Sequence[Any], build: int) -> dict[str, Any]:
    pn, desc, per_board, supplier, base, break_qty, break_price = row
    qty = per_board * build
    volume = qty >= break_qty
    price = break_price if volume else base
    return {
        "part_number": pn,
        "description": desc,
        "supplier": supplier,
        "per_board": per_board,
        "order_qty": qty,
        "price_tier": "volume" if volume else "standard",
        "unit_price": price,
        "line_cost": money(qty * price),
    }


def board_compute(p: dict[str, Any]) -> dict[str, Any]:
    size, build = p["size"], p["build"]
    lines = [_board_line(r, build) for r in p["parts"]]
    if size == 10:
        parts = [
            {
                "part": x["description"],
                "per_board": x["per_board"],
                "order_qty": x["order_qty"],
                "unit_price": x["unit_price"],
            }
            for x in lines
        ]
        material = money(sum(x["order_qty"] * x["unit_price"] for x in parts))
        return {"build_quantity": build, "parts": parts, "material_cost": material}
    keep: tuple[str, ...] = (
        "part_number",
        "description",
        "per_board",
        "order_qty",
        "unit_price",
        "line_cost",
    )
    if size == 100:
        keep = (
            "part_number",
            "description",
            "supplier",
            "per_board",
            "order_qty",
            "price_tier",
            "unit_price",
            "line_cost",
        )
    parts = [{k: line[k] for k in keep} for line in lines]
    material = money(sum(x["line_cost"] for x in parts))
    per_board = money(material / build)
    art: dict[str, Any] = {
        "board": {"name": "SB-40 sensor board", "revision": "2.1"},
        "customer": p["customer"],
        "build_quantity": build,
        "smt_line": "Line 3",
        "due_date": p["due"],
        "parts": parts,
        "material_cost": material,
        "material_cost_per_board": per_board,
    }
    if size == 50:
        return art
    price = money((per_board + 3.8) * 1.3)
    art["quote"] = {
        "assembly_per_board": 3.8,
        "markup_percent": 30,
        "price_per_board": price,
        "total": money(price * build),
    }
    art["nre"] = {"stencil": 180.0, "test_fixture": 450.0}
    art["contacts"] = {"buyer": p["buyer"], "engineer": "Viktor Sandberg"}
    art["approved_alternates"] = [
        {"part_number": "NE-206", "alternate": "AP2112K-3.3"},
        {"part_number": "NE-203", "alternate": "RC0603FR-0710KL"},
    ]
    art["compliance"] = {"rohs": True, "ipc_class": "2"}
    art["panelization"] = {"boards_per_panel": 4, "panels": build // 4}
    art["shipping"] = {"carrier": "UPS Freight", "incoterm": "FCA"}
    art["test"] = {"method": "ICT + functional", "yield_target_percent": 98.5}
    return art


def board_conversation(p: dict[str, Any]) -> list[Turn]:
    size, build = p["size"], p["build"]
    if size == 10:
        return [
            (
                f"We're building {build} SB-40 sensor boards. Each board has one JST 4-pin connector and one TMP117 "
                "temperature sensor.",
                [
                    "/build_quantity",
                    "/parts/0/part",
                    "/parts/0/per_board",
                    "/parts/1/part",
                    "/parts/1/per_board",
                ],
            ),
            (
                "Order quantity for a part is per-board count times the boards we build. Pricing has breaks: "
                "the connector is $0.42 each, or $0.35 once we order 500 or more; the sensor is $1.85, or $1.70 "
                "at 1,000 or more. Fill in order quantities and unit prices.",
                [
                    "/parts/0/order_qty",
                    "/parts/0/unit_price",
                    "/parts/1/order_qty",
                    "/parts/1/unit_price",
                ],
            ),
            (
                "Material cost is order quantity times unit price, summed over both parts.",
                ["/material_cost"],
            ),
        ]
    n = len(BOARD_PARTS) + (len(BOARD_PARTS_100) if size == 100 else 0)
    line_text = (
        f"Order quantity = per board x {build}. Each part's unit price is its base price, or its break "
        "price once the order quantity reaches the break; line cost = order quantity x unit price."
    )
    if size == 100:
        line_text += " Note the supplier and label the tier standard or volume."
    turns: list[Turn] = [
        (
            f"{p['customer']} ordered {build} SB-40 sensor boards, revision 2.1, due {p['due']} on SMT Line 3.",
            ["/board", "/customer", "/build_quantity", "/smt_line", "/due_date"],
        ),
        (
            "Per board: one NE-201 JST 4-pin connector (DigiKey, $0.42, or $0.35 at 500+), one NE-202 TMP117 "
            "temperature sensor (Mouser, $1.85, $1.70 at 1,000+), six NE-203 10k 0603 resistors (DigiKey, "
            "$0.012, $0.009 at 2,500+), eight NE-204 100nF 0603 capacitors (DigiKey, $0.02, $0.015 at 2,500+).",
            [
                f"/parts/{i}/{k}"
                for i in range(4)
                for k in ("part_number", "description", "per_board")
            ]
            + ([f"/parts/{i}/supplier" for i in range(4)] if size == 100 else []),
        ),
        (
            "Also one NE-205 ESP32-C3 module (Mouser, $2.95, $2.60 at 1,000+), one NE-206 3.3V LDO (Mouser, "
            "$0.38, $0.31 at 500+) and the NE-207 4-layer bare PCB (JLCPCB, $1.10, $0.92 at 500+)."
            + (
                " Plus two NE-208 tactile switches (DigiKey, $0.09, $0.07 at 1,000+) and one NE-209 u.FL "
                "antenna connector (Mouser, $0.55, $0.48 at 500+)."
                if size == 100
                else ""
            ),
            [
                f"/parts/{i}/{k}"
                for i in range(4, n)
                for k in ("part_number", "description", "per_board")
            ]
            + ([f"/parts/{i}/supplier" for i in range(4, n)] if size == 100 else []),
        ),
        (
            line_text,
            [
                f"/parts/{i}/{k}"
                for i in range(n)
                for k in (
                    ("order_qty", "price_tier", "unit_price", "line_cost")
                    if size == 100
                    else ("order_qty", "unit_price", "line_cost")
                )
            ],
        ),
        (
            "Total the material cost and show it per board too, to the cent.",
            ["/material_cost", "/material_cost_per_board"],
        ),
    ]
    if size == 50:
        return turns
    turns += [
        (
            "Quote: price per board is (material per board + $3.80 assembly) plus a 30% markup, to the cent; "
            f"the quote total is that times {build}. Stencil ($180) and test fixture ($450) are NRE, billed separately.",
            ["/quote", "/nre"],
        ),
        (
            f"Buyer is {p['buyer']}, engineer Viktor Sandberg. Approved alternates: AP2112K-3.3 for NE-206 and "
            "RC0603FR-0710KL for NE-203.",
            ["/contacts", "/approved_alternates"],
        ),
        (
            f"RoHS compliant, IPC class 2. Panels hold 4 boards, so {build // 4} panels. Ships UPS Freight, FCA. Testing "
            "is ICT + functional with a 98.5% yield target.",
            ["/compliance", "/panelization", "/shipping", "/test"],
        ),
    ]
    return turns


def _board_row(p: dict[str, Any], pn: str) -> list[Any]:
    return next(r for r in p["parts"] if r[0] == pn)  # type: ignore[no-any-return]


def _set_per_board(q: dict[str, Any], pn: str, n: int) -> None:
    _board_row(q, pn)[2] = n


def board_revision(p: dict[str, Any]) -> Revision:
    return Revision(
        request="The customer wants a second sensor port, so each board needs two of the JST 4-pin connectors "
        "instead of one.",
        mutate=lambda q: _set_per_board(q, "NE-201", 2),
        direct="/parts/0/per_board",
    )


def board_followups(p: dict[str, Any]) -> list[Revision]:
    return [
        Revision(
            request="Tidewater increased the order: we're building 500 boards now.",
            mutate=lambda q: q.update(build=500),
            direct="/build_quantity",
            theme="A bigger build scales every order quantity; the parts whose orders reach their price break "
            "switch to the volume price",
            pattern="threshold",
        ),
        Revision(
            request="The customer dropped the second sensor port again, so it's back to one JST connector per "
            "board.",
            mutate=lambda q: _set_per_board(q, "NE-201", 1),
            direct="/parts/0/per_board",
            theme="The connector count the revision doubled goes back to one: at 500 boards its order still "
            "reaches the break, so only quantities and costs change",
            pattern="threshold",
        ),
        Revision(
            request="Add a second TMP117 sensor to each board for redundancy.",
            mutate=lambda q: _set_per_board(q, "NE-202", 2),
            direct="/parts/1/per_board",
            theme="Two sensors per board double the sensor order past its 1,000-piece break: volume price and "
            "the roll-up follow",
            pattern="threshold",
        ),
    ]


# moves of bom-connector-price-break: size 10 holds the connector and the sensor only, without
# part numbers, suppliers or tiers; parts are added or dropped at sizes 50 and 100


def _volume(row: Sequence[Any], per_board: int, build: int) -> bool:
    """Whether ``row``'s order reaches its price break."""
    return bool(per_board * build >= row[5])


def _board_count(p: dict[str, Any], n: int, row: Sequence[Any]) -> str:
    """``two JST 4-pin connectors`` (size 10) or ``two NE-201 JST 4-pin connectors``."""
    one, many = BOARD_SPOKEN[row[0]]
    noun = one if n == 1 else many
    return f"{count_word(n)} {noun}" if p["size"] == 10 else f"{count_word(n)} {row[0]} {noun}"


def _board_per(p: dict[str, Any], d: Draw, cross: bool) -> Revision | None:
    """Another per-board count of a part, crossing its price break exactly when ``cross``."""
    build = p["build"]
    fits = {
        i: [
            n
            for n in range(1, BOARD_MAX[r[0]] + 1)
            if n != r[2] and (_volume(r, n, build) != _volume(r, r[2], build)) == cross
        ]
        for i, r in enumerate(p["parts"])
    }
    lines = [i for i, ns in fits.items() if ns]
    if not lines:
        return None
    i = d.pick(lines)
    row = p["parts"][i]
    n = d.pick(fits[i])
    old = count_word(row[2])
    request = d.pick(
        [
            f"Each board needs {_board_count(p, n, row)} now instead of {old}.",
            f"Design change: make it {_board_count(p, n, row)} per board, not {old}.",
        ]
    )
    crossing = "crosses its price break" if cross else "stays on its side of the price break"
    return Revision(
        request=request,
        mutate=lambda q: _set_per_board(q, row[0], n),
        direct=f"/parts/{i}/per_board",
        theme=f"{row[1]} goes to {n} per board: its order {crossing}, the roll-up follows",
    )


def _board_build(p: dict[str, Any], d: Draw) -> Revision | None:
    """Another build quantity (a multiple of the 4-board panel) that moves a part across its break."""
    rows, old = p["parts"], p["build"]
    pool = [
        b
        for b in range(300, 1001, 20)
        if b != old and any(_volume(r, r[2], b) != _volume(r, r[2], old) for r in rows)
    ]
    if not pool:
        return None
    build = d.pick(pool)
    who = "The customer" if p["size"] == 10 else p["customer"]
    return Revision(
        request=d.pick(
            [
                f"{who} changed the order: we're building {build:,} boards now, not {old:,}.",
                f"Make the build {build:,} boards instead of {old:,}.",
            ]
        ),
        mutate=lambda q: q.update(build=build),
        direct="/build_quantity",
        theme=f"A build of {build} scales every order quantity; parts whose order crosses its break "
        "change price",
    )


def _board_reprice(p: dict[str, Any], d: Draw) -> Revision | None:
    """A supplier re-quotes both prices of a part (not the sub-cent passives)."""
    lines = [i for i, r in enumerate(p["parts"]) if r[4] >= 0.05]
    i = d.pick(lines)
    row = p["parts"][i]
    volume = _volume(row, row[2], p["build"])
    quotes = [
        (money(row[4] * f), money(row[6] * f))
        for f in (0.8, 0.9, 1.1, 1.2)
        if money((row[6] if volume else row[4]) * f) != (row[6] if volume else row[4])
    ]
    base, low = d.pick(quotes)
    who = "The supplier" if p["size"] == 10 else row[3]
    name = BOARD_SPOKEN[row[0]][0] if p["size"] == 10 else f"{row[0]} {BOARD_SPOKEN[row[0]][0]}"

    def mutate(q: dict[str, Any]) -> None:
        _board_row(q, row[0])[4:7] = [base, row[5], low]

    return Revision(
        request=f"{who} re-quoted the {name}: {dollars(base)} each, or {dollars(low)} at "
        f"{row[5]:,} or more.",
        mutate=mutate,
        direct=f"/parts/{i}/unit_price",
        theme=f"{row[1]} is re-quoted: its price and the roll-up follow",
    )


def _board_add(p: dict[str, Any], d: Draw) -> Revision | None:
    """A new part, or one dropped earlier, joins the build as its last line."""
    choices = _addable(p, BOARD_NEW_PARTS)
    if not choices:
        return None
    again, row = d.pick(choices)
    pn, desc, n, supplier, base, break_qty, low = row
    source = f" from {supplier}" if p["size"] == 100 else ""
    what = (
        f"{count_word(n)} per board{source}, {dollars(base)} each or {dollars(low)} at "
        f"{break_qty:,} or more"
    )
    request = (
        f"Put {pn} ({desc}) back on the board, as the last line: {what}."
        if again
        else f"Add a new part, {pn} {desc}: {what}."
    )
    return Revision(
        request=request,
        mutate=lambda q: _join(q, row),
        direct=f"/parts/{len(p['parts'])}",
        theme=f"{desc} joins the build: its order, price and cost join the roll-up",
    )


def _board_remove(p: dict[str, Any], d: Draw) -> Revision | None:
    lines = [i for i, r in enumerate(p["parts"]) if r[0] not in BOARD_KEPT]
    if not lines:
        return None
    i = d.pick(lines)
    row = p["parts"][i]
    name = f"{row[0]} {BOARD_SPOKEN[row[0]][1 if row[2] > 1 else 0]}"
    return Revision(
        request=d.pick(
            [
                f"Drop the {name} from the BOM.",
                f"The board no longer needs the {name}; take it out.",
            ]
        ),
        mutate=lambda q: _leave(q, i),
        direct=f"/parts/{i}",
        theme=f"{row[1]} leaves the build: its cost leaves the roll-up",
    )


BOARD_MOVES = [
    Move("cross-break", "threshold", lambda p, d: _board_per(p, d, cross=True)),
    Move("build", "threshold", _board_build),
    Move("per-board", "arithmetic", lambda p, d: _board_per(p, d, cross=False)),
    Move("reprice", "arithmetic", _board_reprice, opens=False),
    Move("add-part", "add_remove", _board_add, when=lambda p: p["size"] >= 50),
    Move("remove-part", "add_remove", _board_remove, when=lambda p: p["size"] >= 50),
]


# --------------------------------------------------------------------------- bom-drop-bumper
# Add/remove: a component is removed; the count, cost and weight roll-ups, the enclosure kit
# that lists it and its supplier's summary follow.

# (part number, description, qty, unit cost, supplier, weight g per unit)
SPEAKER_PARTS: list[tuple[str, str, int, float, str, int]] = [
    ("CA-201", "Speaker driver 40 mm", 2, 3.10, "Dongguan Acoustics", 38),
    ("CA-214", "Rubber bumper ring", 1, 0.85, "Pacific Molding", 22),
    ("CA-220", "Li-ion battery 2000 mAh", 1, 4.75, "Dongguan Acoustics", 41),
    ("CA-230", "Front housing", 1, 1.60, "Pacific Molding", 64),
    ("CA-231", "Rear housing", 1, 1.45, "Pacific Molding", 58),
    ("CA-240", "Amplifier board", 1, 3.80, "Dongguan Acoustics", 12),
]
SPEAKER_PARTS_100: list[tuple[str, str, int, float, str, int]] = [
    ("CA-250", "Grille mesh", 1, 0.70, "Keystone Metals", 15),
    ("CA-260", "USB-C port board", 1, 0.95, "Dongguan Acoustics", 4),
    ("CA-270", "Lanyard clip", 1, 0.30, "Keystone Metals", 6),
]
BUMPER = "CA-214"
SPEAKER_ROUTING: list[tuple[str, str, int]] = [
    ("Station 1", "Solder drivers and amplifier", 6),
    ("Station 2", "Install battery and USB-C board", 4),
    ("Station 3", "Close housing and fit grille", 5),
    ("Station 4", "Audio test and pack", 7),
]


# what a user calls each part mid-sentence
SPEAKER_SPOKEN = {
    "CA-201": "40 mm speaker drivers",
    "CA-214": "rubber bumper ring",
    "CA-220": "2000 mAh Li-ion battery",
    "CA-230": "front housing",
    "CA-231": "rear housing",
    "CA-240": "amplifier board",
    "CA-250": "grille mesh",
    "CA-260": "USB-C port board",
    "CA-270": "lanyard clip",
}
SPEAKER_SMALL = ("CA-201", "CA-214", "CA-220")  # the size-10 BOM
SPEAKER_OPTIONAL = (BUMPER, "CA-270")  # the catalog parts a move may drop and put back
SPEAKER_SUPPLIERS = ["Pacific Molding", "Dongguan Acoustics", "Keystone Metals"]


def speaker_inputs(size: int, d: Draw) -> dict[str, Any]:
    """The speaker's inputs: its part rows ``[part number, description, qty, unit cost,
    supplier, grams]`` in BOM order (catalog parts, then parts added), the catalog parts taken
    out (``out``: a part put back returns to its place) and added parts dropped (``dropped``)."""
    rows = SPEAKER_PARTS + (SPEAKER_PARTS_100 if size == 100 else [])
    parts = [list(r) for r in rows if size > 10 or r[0] in SPEAKER_SMALL]
    drawn = {
        "CA-201": [3.10, 2.85, 3.40, 3.65],
        BUMPER: [0.85, 0.75, 0.95, 1.10],
        "CA-220": [4.75, 4.40, 5.20, 5.60],
    }
    for row in parts:
        if row[0] in drawn:
            row[3] = d.pick(drawn[row[0]])
    return {"size": size, "parts": parts, "out": [], "dropped": []}


def speaker_params(size: int) -> dict[str, Any]:
    return speaker_inputs(size, SHIPPED)


def _speaker_rows(p: dict[str, Any]) -> list[list[Any]]:
    """The parts in the BOM, in order."""
    return [r for r in p["parts"] if r[0] not in p["out"]]


def _speaker_row(p: dict[str, Any], pn: str) -> list[Any]:
    return next(r for r in p["parts"] if r[0] == pn)  # type: ignore[no-any-return]


def speaker_compute(p: dict[str, Any]) -> dict[str, Any]:
    size = p["size"]
    rows = _speaker_rows(p)
    if size == 10:
        parts: list[dict[str, Any]] = [
            {"part": f"{d} (pair)" if pn == "CA-201" else d, "cost": money(q * c)}
            for pn, d, q, c, _, _ in rows
        ]
        return {
            "product": "Trailhead speaker",
            "revision": "B",
            "components": parts,
            "component_count": len(parts),
            "material_cost": money(sum(x["cost"] for x in parts)),
        }
    parts = []
    for pn, desc, qty, cost, supplier, grams in rows:
        part: dict[str, Any] = {
            "part_number": pn,
            "description": desc,
            "qty": qty,
            "unit_cost": cost,
            "extended_cost": money(qty * cost),
            "supplier": supplier,
        }
        if size == 100:
            part["weight_g"] = qty * grams
        parts.append(part)
    material = money(sum(x["extended_cost"] for x in parts))
    summary: dict[str, Any] = {"component_count": len(parts), "material_cost": material}
    present = {x["part_number"] for x in parts}
    enclosure = [pn for pn in ("CA-230", "CA-231", BUMPER, "CA-250") if pn in present]
    subassemblies: list[dict[str, Any]] = [{"name": "Enclosure kit", "parts": enclosure}]
    suppliers = SPEAKER_SUPPLIERS[: 3 if size == 100 else 2]
    art: dict[str, Any] = {
        "product": "Trailhead speaker",
        "revision": "B",
        "components": parts,
        "summary": summary,
        "subassemblies": subassemblies,
        "suppliers": [
            {
                "name": s,
                "part_count": sum(x["supplier"] == s for x in parts),
                "spend_per_unit": money(
                    sum(x["extended_cost"] for x in parts if x["supplier"] == s)
                ),
            }
            for s in suppliers
        ],
    }
    if size == 50:
        return art
    weight = sum(x["weight_g"] for x in parts)
    summary.update(total_weight_g=weight, shipping_weight_g=weight + 180)
    electronics = [pn for pn in ("CA-201", "CA-240", "CA-260") if pn in present]
    subassemblies.append({"name": "Electronics module", "parts": electronics})
    art["routing"] = [{"station": s, "operation": o, "minutes": m} for s, o, m in SPEAKER_ROUTING]
    art["assembly_minutes"] = sum(m for _, _, m in SPEAKER_ROUTING)
    return art


def speaker_conversation(p: dict[str, Any]) -> list[Turn]:
    size = p["size"]
    driver, bumper, battery = (_speaker_row(p, pn)[3] for pn in SPEAKER_SMALL)
    if size == 10:
        return [
            ("BOM for the Trailhead speaker, revision B.", ["/product", "/revision"]),
            (
                f"Components with their cost per speaker: the 40 mm driver pair {dollars(money(2 * driver))}, a "
                f"rubber bumper ring {dollars(bumper)} and the 2000 mAh Li-ion battery {dollars(battery)}.",
                ["/components/0", "/components/1", "/components/2"],
            ),
            (
                "Keep a component count and the total material cost.",
                ["/component_count", "/material_cost"],
            ),
        ]
    turns: list[Turn] = [
        ("Let's build the BOM for the Trailhead speaker, revision B.", ["/product", "/revision"]),
        (
            f"Components: CA-201 40 mm speaker driver, 2 at {dollars(driver)} (Dongguan Acoustics); CA-214 rubber "
            f"bumper ring, 1 at {dollars(bumper)} (Pacific Molding); CA-220 2000 mAh Li-ion battery, 1 at "
            f"{dollars(battery)} (Dongguan Acoustics); "
            "CA-230 front housing $1.60 and CA-231 rear housing $1.45 (both Pacific Molding); CA-240 amplifier "
            "board $3.80 (Dongguan Acoustics). Extended cost = qty x unit cost.",
            [
                f"/components/{i}/{k}"
                for i in range(6)
                for k in (
                    "part_number",
                    "description",
                    "qty",
                    "unit_cost",
                    "extended_cost",
                    "supplier",
                )
            ],
        ),
    ]
    if size == 100:
        turns += [
            (
                "Add CA-250 grille mesh $0.70 and CA-270 lanyard clip $0.30 (both Keystone Metals), and CA-260 "
                "USB-C port board $0.95 (Dongguan Acoustics), one each.",
                [
                    f"/components/{i}/{k}"
                    for i in range(6, 9)
                    for k in (
                        "part_number",
                        "description",
                        "qty",
                        "unit_cost",
                        "extended_cost",
                        "supplier",
                    )
                ],
            ),
            (
                "Weights per unit: driver 38 g, bumper 22 g, battery 41 g, front housing 64 g, rear housing 58 g, "
                "amp board 12 g, grille 15 g, USB-C board 4 g, clip 6 g. Store each line's weight (qty x unit "
                "weight).",
                [f"/components/{i}/weight_g" for i in range(9)],
            ),
        ]
    summary = "Summary: number of component lines and the total material cost per speaker."
    summary_ptrs = ["/summary/component_count", "/summary/material_cost"]
    if size == 100:
        summary += " Also total weight, and shipping weight = total weight + 180 g of packaging."
        summary_ptrs += ["/summary/total_weight_g", "/summary/shipping_weight_g"]
    enclosure = (
        "The enclosure kit is the outer shell parts: the front and rear housings and the bumper ring"
        + (", plus the grille." if size == 100 else ".")
    )
    enclosure_ptrs = ["/subassemblies/0"]
    if size == 100:
        enclosure += " The electronics module is the drivers, the amp board and the USB-C board."
        enclosure_ptrs.append("/subassemblies/1")
    turns += [
        (summary, summary_ptrs),
        (enclosure, enclosure_ptrs),
        (
            "Per supplier, show how many of our component lines they supply and their spend per speaker.",
            ["/suppliers"],
        ),
    ]
    if size == 100:
        turns += [
            (
                "Routing: station 1 solders the drivers and amplifier (6 min), station 2 installs the battery and "
                "USB-C board (4), station 3 closes the housing and fits the grille (5), station 4 audio test and "
                "pack (7). Total the assembly minutes.",
                ["/routing", "/assembly_minutes"],
            ),
        ]
    return turns


def speaker_revision(p: dict[str, Any]) -> Revision:
    return Revision(
        request="The new housing has the bumper molded in, so drop the rubber bumper ring from the BOM.",
        mutate=lambda q: q["out"].append(BUMPER),
        direct="/components/1",
    )


STRAP = ("CA-280", "Silicone carry strap", 1, 0.45, "Pacific Molding", 9)
# parts a user may add later, as SPEAKER_PARTS rows (from the suppliers every size lists)
SPEAKER_NEW_PARTS: list[tuple[str, str, int, float, str, int]] = [
    STRAP,
    ("CA-282", "Passive radiator", 1, 1.20, "Dongguan Acoustics", 18),
    ("CA-284", "Button membrane", 1, 0.25, "Pacific Molding", 3),
    ("CA-286", "Drawstring carry pouch", 1, 0.60, "Pacific Molding", 14),
    ("CA-288", "Foam gasket", 2, 0.10, "Pacific Molding", 1),
]


def _set_speaker_cost(q: dict[str, Any], pn: str, cost: float) -> None:
    _speaker_row(q, pn)[3] = cost


def speaker_followups(p: dict[str, Any]) -> list[Revision]:
    size = p["size"]
    cost = "/components/1/cost" if size == 10 else "/components/1/unit_cost"
    end = len(p["parts"])  # the index a part added at the end takes

    def back(q: dict[str, Any]) -> None:
        q["out"].remove(BUMPER)

    return [
        Revision(
            request="The molded-in bumper failed the drop test. Put the rubber bumper ring back in the BOM, "
            "in its old place.",
            mutate=back,
            direct="/components/1",
            theme="The removed component comes back in its place: counts, cost and weight roll-ups, the "
            "enclosure kit and its supplier's summary follow",
            pattern="add_remove",
        ),
        Revision(
            request="Pacific Molding re-quoted the bumper ring at $0.70.",
            mutate=lambda q: _set_speaker_cost(q, BUMPER, 0.70),
            direct=cost,
            theme="The part just put back gets a lower price: its line, the material cost and its supplier's "
            "spend follow",
            pattern="arithmetic",
        ),
        Revision(
            # size 10 holds no part numbers, suppliers or quantities and only size 100 weights: the
            # request names what the size holds, and spells the new part's name as the gold does
            request="Add a new component, Silicone carry strap: $0.45 per speaker."
            if size == 10
            else "Add a new component, CA-280 Silicone carry strap from Pacific Molding: one per speaker, "
            + ("$0.45, 9 g." if size == 100 else "$0.45."),
            mutate=lambda q: q["parts"].append(list(STRAP)),
            direct=f"/components/{end}",
            theme="A new component adds a line: count, material cost, weights and its supplier's summary "
            "follow; the kit lists stay",
            pattern="add_remove",
        ),
    ]


# moves of bom-drop-bumper: size 10 lists parts by name and cost per speaker only (no part
# numbers, quantities, suppliers or weights); weights are in the document at size 100 only


def _speaker_label(p: dict[str, Any], row: Sequence[Any]) -> str:
    """``the rubber bumper ring`` (size 10: ``the 40 mm driver pair``), ``the CA-214 rubber
    bumper ring`` beyond."""
    pn = row[0]
    if p["size"] == 10 and pn == "CA-201":
        return "the 40 mm driver pair"
    name = SPEAKER_SPOKEN.get(pn) or row[1][0].lower() + row[1][1:]
    return f"the {name}" if p["size"] == 10 else f"the {pn} {name}"


def _speaker_terms(p: dict[str, Any], row: Sequence[Any]) -> str:
    """What a line costs (and weighs) as the size records it."""
    _, _, qty, cost, supplier, grams = row
    if p["size"] == 10:
        return f"{dollars(money(qty * cost))} per speaker"
    terms = f"{count_word(qty)} per speaker at {dollars(cost)} each from {supplier}"
    return terms + (f", {grams} g each" if p["size"] == 100 else "")


def _speaker_drop(p: dict[str, Any], d: Draw) -> Revision | None:
    """Take out the bumper, the lanyard clip or a part added earlier."""
    rows = _speaker_rows(p)
    added = {r[0] for r in SPEAKER_NEW_PARTS}
    lines = [i for i, r in enumerate(rows) if r[0] in SPEAKER_OPTIONAL or r[0] in added]
    if not lines:
        return None
    i = d.pick(lines)
    row = rows[i]
    label = _speaker_label(p, row)

    def mutate(q: dict[str, Any]) -> None:
        if row[0] in added:
            q["parts"].remove(row)
            q["dropped"].append(row)
        else:
            q["out"].append(row[0])

    return Revision(
        request=d.pick(
            [f"Drop {label} from the BOM.", f"We don't need {label} any more; take it out."]
        ),
        mutate=mutate,
        direct=f"/components/{i}",
        theme=f"{row[1]} leaves the BOM: counts, costs, its supplier's summary and the kits follow",
    )


def _speaker_back(p: dict[str, Any], d: Draw) -> Revision | None:
    """A catalog part taken out comes back in its old place (the request restates its terms)."""
    if not p["out"]:
        return None
    pn = d.pick(p["out"])
    row = _speaker_row(p, pn)
    q = copy.deepcopy(p)
    q["out"].remove(pn)
    i = next(n for n, r in enumerate(_speaker_rows(q)) if r[0] == pn)

    def mutate(q: dict[str, Any]) -> None:
        q["out"].remove(pn)

    return Revision(
        request=f"Put {_speaker_label(p, row)} back in the BOM, in its old place: "
        f"{_speaker_terms(p, row)}.",
        mutate=mutate,
        direct=f"/components/{i}",
        theme=f"{row[1]} comes back in its place: counts, costs, its supplier's summary and the kits "
        "follow",
    )


def _speaker_add(p: dict[str, Any], d: Draw) -> Revision | None:
    """A new part, or one added and dropped earlier, joins the BOM as its last line."""
    held = {r[0] for r in p["parts"]}
    rows = [list(r) for r in SPEAKER_NEW_PARTS if r[0] not in held]
    if not rows:
        return None
    row = d.pick(rows)
    dropped = next((r for r in p["dropped"] if r[0] == row[0]), None)
    row = dropped or row
    name = row[1] if p["size"] == 10 else f"{row[0]} {row[1]}"
    request = (
        f"Add a new component, {name}: {_speaker_terms(p, row)}."
        if dropped is None
        else f"Add {name} back, as the last line: {_speaker_terms(p, row)}."
    )

    def mutate(q: dict[str, Any]) -> None:
        q["dropped"] = [r for r in q["dropped"] if r[0] != row[0]]
        q["parts"].append(row)

    return Revision(
        request=request,
        mutate=mutate,
        direct=f"/components/{len(_speaker_rows(p))}",
        theme=f"{row[1]} joins the BOM: counts, costs and its supplier's summary follow",
    )


def _speaker_reprice(p: dict[str, Any], d: Draw) -> Revision | None:
    rows = _speaker_rows(p)
    i = d.pick(range(len(rows)))
    row = rows[i]
    costs = {money(row[3] * f) for f in (0.8, 0.9, 1.1, 1.2)}
    cost = d.pick(sorted(c for c in costs if c != row[3] and c > 0))
    label = _speaker_label(p, row)
    if p["size"] == 10:
        request = (
            f"{label[0].upper()}{label[1:]} costs {dollars(money(row[2] * cost))} per speaker now."
        )
        direct = f"/components/{i}/cost"
    else:
        request = f"{row[4]} re-quoted {label} at {dollars(cost)} each."
        direct = f"/components/{i}/unit_cost"
    return Revision(
        request=request,
        mutate=lambda q: _set_speaker_cost(q, row[0], cost),
        direct=direct,
        theme=f"{row[1]} is re-priced: its line, the material cost and its supplier's spend follow",
    )


def _speaker_supplier(p: dict[str, Any], d: Draw) -> Revision | None:
    """A part moves to another supplier the size lists, at the same price."""
    rows = _speaker_rows(p)
    i = d.pick(range(len(rows)))
    row = rows[i]
    supplier = d.pick([s for s in SPEAKER_SUPPLIERS[: 3 if p["size"] == 100 else 2] if s != row[4]])

    def mutate(q: dict[str, Any]) -> None:
        _speaker_row(q, row[0])[4] = supplier

    return Revision(
        request=f"We're sourcing {_speaker_label(p, row)} from {supplier} now, at the same price.",
        mutate=mutate,
        direct=f"/components/{i}/supplier",
        theme=f"{row[1]} moves from {row[4]} to {supplier}: both suppliers' counts and spend follow",
    )


SPEAKER_MOVES = [
    Move("drop-part", "add_remove", _speaker_drop),
    Move("put-back", "add_remove", _speaker_back),
    Move("add-part", "add_remove", _speaker_add),
    Move("reprice", "arithmetic", _speaker_reprice, opens=False),
    Move("switch-supplier", "substitution", _speaker_supplier, when=lambda p: p["size"] >= 50),
]


# --------------------------------------------------------------------------- bom-production-start
# Temporal: the pilot run's production start moves; materials-due, purchase-order, inspection,
# test, QA, shipping and delivery dates set relative to it shift; fixed dates stay.

PACK_START = "2025-09-08"
# (part number, part, supplier, lead time days, PO date if already placed)
PACK_PARTS: list[tuple[str, str, str, int, str | None]] = [
    ("VL-100", "21700 cells, Samsung 50S", "Avnet", 45, "2025-07-20"),
    ("VL-110", "BMS board 13S", "Jiangsu Power", 35, None),
    ("VL-120", "Nickel strip 0.15 mm", "Sinoweld", 21, None),
    ("VL-130", "Extruded aluminum enclosure", "Alu-Tek", 28, None),
    ("VL-140", "Wiring harness", "HarnessPro", 14, None),
    ("VL-150", "XT60 connector", "Amass", 10, None),
]
PACK_PARTS_100: list[tuple[str, str, str, int, str | None]] = [
    ("VL-160", "Cell holder frame", "Alu-Tek", 21, None),
    ("VL-170", "Thermal pad", "Bergquist", 18, None),
]
PACK_TESTS: list[tuple[str, int]] = [
    ("Cell capacity check", 0),
    ("Vibration test", 4),
    ("Thermal cycling", 5),
    ("Water ingress IPX5", 7),
]


PACK_CONTACTS = ["Elin Nyberg", "Jonas Eklund", "Mia Lindholm", "Karl Strand"]
PACK_LEADS = ["Marta Silva", "Joana Reis", "Inês Duarte", "Paulo Matos"]
PACK_LINES = ["Line 1", "Line 2", "Line 3", "Line 4", "Line 5"]
PACK_WINDOW = ("2025-08-25", "2025-10-10")  # starts a move may pick: after the fixed certification
PACK_SPOKEN = {
    "VL-100": "21700 cells",
    "VL-110": "13S BMS board",
    "VL-120": "0.15 mm nickel strip",
    "VL-130": "extruded aluminum enclosure",
    "VL-140": "wiring harness",
    "VL-150": "XT60 connector",
    "VL-160": "cell holder frame",
    "VL-170": "thermal pad",
}


def pack_inputs(size: int, d: Draw) -> dict[str, Any]:
    """The pilot run's inputs: its start, line and quantity, the offsets the conversation
    states (materials due, first article inspection), the parts ``[part number, part,
    supplier, lead time, PO date if placed]`` (sizes 50 and 100) and the people named."""
    rows = PACK_PARTS + (PACK_PARTS_100 if size == 100 else [])
    return {
        "size": size,
        "start": d.date("2025-09-01", "2025-09-19", shipped=PACK_START, weekdays="01234"),
        "line": d.pick(["Line 2", "Line 1", "Line 3", "Line 5"]),
        "quantity": d.pick([150, 120, 200, 250]),
        "due_days": 5,
        "fai_days": 2,
        "parts": [] if size == 10 else [list(r) for r in rows],
        "contact": d.pick(PACK_CONTACTS),
        "ops_lead": d.pick(PACK_LEADS),
    }


def pack_params(size: int) -> dict[str, Any]:
    return pack_inputs(size, SHIPPED)


def pack_compute(p: dict[str, Any]) -> dict[str, Any]:
    size, start, line = p["size"], p["start"], p["line"]
    materials_due = add_days(start, -p["due_days"])
    ship = add_days(start, 14)
    if size == 10:
        return {
            "product": "VB-48 battery pack",
            "customer": "Pedalworks Distribution",
            "quantity": p["quantity"],
            "line": line,
            "production_start": start,
            "materials_due": materials_due,
            "first_article_inspection": add_days(start, p["fai_days"]),
            "ship_date": ship,
            "design_freeze": "2025-07-31",
            "trade_show": "2025-10-14",
        }
    parts = [
        {
            "part_number": pn,
            "part": name,
            "supplier": sup,
            "lead_time_days": lead,
            "po_date": placed or add_days(materials_due, -lead),
        }
        for pn, name, sup, lead, placed in p["parts"]
    ]
    end = add_days(start, 9)
    qa = add_days(end, 3)
    art: dict[str, Any] = {
        "product": {
            "name": "VB-48 battery pack",
            "model": "VB-48-13S4P",
            "quantity": p["quantity"],
            "line": line,
        },
        "customer": {"name": "Pedalworks Distribution", "contact": p["contact"]},
        "factory": "Voltline Plant 1, Porto",
        "ops_lead": p["ops_lead"],
        "schedule": {
            "production_start": start,
            "materials_due": materials_due,
            "first_article_inspection": add_days(start, p["fai_days"]),
            "production_end": end,
            "qa_release": qa,
            "ship_date": add_days(qa, 2),
        },
        "parts": parts,
        "fixed_dates": {
            "design_freeze": "2025-07-31",
            "un38_3_certification": "2025-08-18",
            "trade_show": "2025-10-14",
        },
        "quality_plan": {"aql": "1.0", "sample_size": 20},
        "pilot_budget_eur": 42000,
    }
    if size == 50:
        return art
    art["schedule"].update(customer_delivery=add_days(ship, 4), pilot_review=add_days(ship, 7))
    art["tests"] = [{"test": t, "date": add_days(start, d)} for t, d in PACK_TESTS]
    art["fixed_dates"].update(
        supplier_holiday_start="2025-10-01", supplier_holiday_end="2025-10-07"
    )
    art["team"] = [
        {"role": "Ops lead", "name": p["ops_lead"]},
        {"role": "Quality", "name": "Rui Costa"},
        {"role": "Electrical", "name": "Ana Pires"},
        {"role": "Buyer", "name": "Tiago Mendes"},
    ]
    art["budget_breakdown_eur"] = {
        "cells": 19500,
        "electronics": 9800,
        "mechanical": 6200,
        "labor": 4500,
        "contingency": 2000,
    }
    art["documents"] = [
        {"doc": "Pack drawing", "version": "D"},
        {"doc": "Process FMEA", "version": "2"},
        {"doc": "Test specification", "version": "1.3"},
        {"doc": "Work instructions", "version": "B"},
    ]
    art["customer"]["po_number"] = "PW-88314"
    art["product"].update(chemistry="Li-ion NMC", energy_wh=672)
    art["logistics"] = {
        "carrier": "DHL Freight",
        "incoterm": "DAP",
        "transit_days": 4,
        "shift_pattern": "2 shifts",
    }
    return art


def pack_conversation(p: dict[str, Any]) -> list[Turn]:
    size, start, line, qty = p["size"], p["start"], p["line"], p["quantity"]
    offsets = f"{p['due_days']} days before the start, first article inspection {p['fai_days']} days after"
    if size == 10:
        return [
            (
                f"We're planning the pilot run of the VB-48 battery pack for Pedalworks Distribution: {qty} packs "
                f"on {line}.",
                ["/product", "/customer", "/quantity", "/line"],
            ),
            (
                f"Production starts {start}. Materials have to be in {p['due_days']} days before the start, first "
                f"article inspection is {p['fai_days']} days after the start, and we ship two weeks (14 days) after "
                "the start.",
                ["/production_start", "/materials_due", "/first_article_inspection", "/ship_date"],
            ),
            (
                "Keep the fixed dates in view too: design freeze was 2025-07-31 and the trade show is 2025-10-14.",
                ["/design_freeze", "/trade_show"],
            ),
        ]
    n = len(PACK_PARTS) + (len(PACK_PARTS_100) if size == 100 else 0)
    turns: list[Turn] = [
        (
            f"Planning the pilot run of the VB-48 battery pack (model VB-48-13S4P): {qty} packs on {line} at "
            f"Voltline Plant 1, Porto, for Pedalworks Distribution (contact {p['contact']}). {p['ops_lead']} is "
            "ops lead.",
            [
                "/product/name",
                "/product/model",
                "/product/quantity",
                "/product/line",
                "/customer/name",
                "/customer/contact",
                "/factory",
                "/ops_lead",
            ],
        ),
        (
            f"Production starts {start}. All dates are calendar days: materials due {offsets} the start, "
            "production ends 9 days after the start, QA "
            "release 3 days after production ends, and we ship 2 days after QA release.",
            [
                "/schedule/production_start",
                "/schedule/materials_due",
                "/schedule/first_article_inspection",
                "/schedule/production_end",
                "/schedule/qa_release",
                "/schedule/ship_date",
            ],
        ),
        (
            "Purchase orders go out each part's lead time before the materials due date. The cells are already "
            "ordered (2025-07-20), that date is done. Parts: VL-100 21700 cells (Samsung 50S, Avnet, 45 days), "
            "VL-110 13S BMS board (Jiangsu Power, 35 days), VL-120 0.15 mm nickel strip (Sinoweld, 21 days), "
            "VL-130 extruded aluminum enclosure (Alu-Tek, 28 days), VL-140 wiring harness (HarnessPro, 14 days), "
            "VL-150 XT60 connector (Amass, 10 days)."
            + (
                " Also VL-160 cell holder frame (Alu-Tek, 21 days) and VL-170 thermal pad (Bergquist, 18 days)."
                if size == 100
                else ""
            ),
            [f"/parts/{i}" for i in range(n)],
        ),
        (
            "Fixed dates that don't move: design freeze 2025-07-31, UN38.3 certification slot 2025-08-18, "
            "trade show 2025-10-14.",
            [
                "/fixed_dates/design_freeze",
                "/fixed_dates/un38_3_certification",
                "/fixed_dates/trade_show",
            ],
        ),
        (
            "Quality plan AQL 1.0 with 20 samples; pilot budget €42,000.",
            ["/quality_plan", "/pilot_budget_eur"],
        ),
    ]
    if size == 100:
        turns += [
            (
                "Delivery reaches Pedalworks 4 days after we ship, and we hold the pilot review a week after "
                "shipping. Their PO is PW-88314.",
                ["/schedule/customer_delivery", "/schedule/pilot_review", "/customer/po_number"],
            ),
            (
                "Tests during the run, counted from the production start: cell capacity check on day 0, vibration "
                "on day 4, thermal cycling on day 5, IPX5 water ingress on day 7.",
                ["/tests"],
            ),
            (
                "Suppliers in China close for the holiday from 2025-10-01 to 2025-10-07.",
                ["/fixed_dates/supplier_holiday_start", "/fixed_dates/supplier_holiday_end"],
            ),
            (
                f"Team: {p['ops_lead']} ops lead, Rui Costa quality, Ana Pires electrical, Tiago Mendes buyer. Budget "
                "split: cells €19,500, electronics €9,800, mechanical €6,200, labor €4,500, contingency €2,000.",
                ["/team", "/budget_breakdown_eur"],
            ),
            (
                "Controlled documents: pack drawing rev D, process FMEA v2, test specification v1.3, work "
                "instructions rev B.",
                ["/documents"],
            ),
            (
                "It's an NMC pack, 672 Wh. We run 2 shifts; DHL Freight carries it, DAP, 4 days in transit.",
                ["/product/chemistry", "/product/energy_wh", "/logistics"],
            ),
        ]
    return turns


def pack_revision(p: dict[str, Any]) -> Revision:
    return Revision(
        request="Line 2 is booked longer than planned. Push the production start back two weeks, to 2025-09-22.",
        mutate=lambda q: q.update(start="2025-09-22"),
        direct="/production_start" if p["size"] == 10 else "/schedule/production_start",
    )


def pack_followups(p: dict[str, Any]) -> list[Revision]:
    start = "/production_start" if p["size"] == 10 else "/schedule/production_start"
    line = "/line" if p["size"] == 10 else "/product/line"

    def to_line_4(q: dict[str, Any]) -> None:
        q.update(line="Line 4", start="2025-09-29")

    return [
        Revision(
            request="Line 2 freed up a week earlier than feared: start production on 2025-09-15.",
            mutate=lambda q: q.update(start="2025-09-15"),
            direct=start,
            theme="The production start moves again, a week earlier: every date set from it follows, fixed "
            "dates stay",
            pattern="temporal",
        ),
        Revision(
            request="Line 2 can't take us after all. Move the pilot to Line 4; the earliest it can start us is "
            "2025-09-29.",
            mutate=to_line_4,
            direct=line,
            theme="The run moves to another line, whose first free day becomes the production start; the "
            "schedule follows",
            pattern="substitution",
        ),
        Revision(
            request="Line 4 can squeeze us in a week earlier, on 2025-09-22.",
            mutate=lambda q: q.update(start="2025-09-22"),
            direct=start,
            theme="The start on the new line moves a week earlier: the dates set from it move back",
            pattern="temporal",
        ),
    ]


# moves of bom-production-start: size 10 records no parts, lead times or PO dates; every date
# in a request is an ISO date, as the conversation writes them


def _pack_path(p: dict[str, Any], name: str) -> str:
    return f"/{name}" if p["size"] == 10 else f"/schedule/{name}"


def _pack_starts(p: dict[str, Any], days: range | Sequence[int]) -> list[int]:
    """The shifts in ``days`` that keep the start on a weekday inside the window."""
    lo, hi = PACK_WINDOW
    return [
        n
        for n in days
        if lo <= add_days(p["start"], n) <= hi
        and _dt.date.fromisoformat(add_days(p["start"], n)).weekday() < 5
    ]


def _pack_start(p: dict[str, Any], d: Draw) -> Revision | None:
    shifts = _pack_starts(p, [n for n in range(-14, 22) if abs(n) >= 2])
    if not shifts:
        return None
    days = d.pick(shifts)
    start = add_days(p["start"], days)
    later = "back" if days > 0 else "forward"
    return Revision(
        request=d.pick(
            [
                f"Move the production start to {start}.",
                f"{p['line']} changed its plan: pull our production start {later} to {start}."
                if days < 0
                else f"{p['line']} is booked longer than planned. Push the production start {later} to {start}.",
            ]
        ),
        mutate=lambda q: q.update(start=start),
        direct=_pack_path(p, "production_start"),
        theme=f"The production start moves {abs(days)} days {later}: every date set from it follows, fixed "
        "dates and placed orders stay",
    )


def _pack_line(p: dict[str, Any], d: Draw) -> Revision | None:
    shifts = _pack_starts(p, [n for n in range(-7, 22) if abs(n) >= 3])
    if not shifts:
        return None
    line = d.pick([x for x in PACK_LINES if x != p["line"]])
    start = add_days(p["start"], d.pick(shifts))

    def mutate(q: dict[str, Any]) -> None:
        q.update(line=line, start=start)

    return Revision(
        request=f"{p['line']} can't take us after all. Move the pilot to {line}; the earliest it can start "
        f"us is {start}.",
        mutate=mutate,
        direct=["/line" if p["size"] == 10 else "/product/line", _pack_path(p, "production_start")],
        theme=f"The run moves to {line}, whose first free day becomes the production start; the schedule "
        "follows",
    )


def _pack_due(p: dict[str, Any], d: Draw) -> Revision | None:
    days = d.pick([n for n in (3, 4, 5, 6, 7, 10) if n != p["due_days"]])
    return Revision(
        request=f"The warehouse wants materials in {days} days before the production start now, not "
        f"{p['due_days']}.",
        mutate=lambda q: q.update(due_days=days),
        direct=_pack_path(p, "materials_due"),
        theme="The materials due date moves"
        + (": every open purchase order moves with it" if p["size"] > 10 else ""),
    )


def _pack_slip(p: dict[str, Any], d: Draw) -> Revision | None:
    """The start moves by whole weeks, said relative to the plan."""
    weeks_ = [w for w in (-2, -1, 1, 2, 3) if _pack_starts(p, [7 * w])]
    if not weeks_:
        return None
    weeks = d.pick(weeks_)
    start = add_days(p["start"], 7 * weeks)
    span = f"{count_word(abs(weeks))} week{'s' if abs(weeks) > 1 else ''}"
    request = (
        f"Everything slips by {span}: start production {7 * weeks} days later than currently planned."
        if weeks > 0
        else f"Good news, we can start {span} early: production starts {-7 * weeks} days earlier than "
        "currently planned."
    )
    return Revision(
        request=request,
        mutate=lambda q: q.update(start=start),
        direct=_pack_path(p, "production_start"),
        theme=f"The start moves by {span}: every date set from it follows, fixed dates stay",
    )


def _pack_lead(p: dict[str, Any], d: Draw) -> Revision | None:
    """A supplier quotes another lead time for a part not yet ordered: its PO date moves."""
    lines = [i for i, r in enumerate(p["parts"]) if r[4] is None]
    if not lines:
        return None
    i = d.pick(lines)
    pn, _, supplier, lead, _ = p["parts"][i]
    days = d.pick([n for n in range(7, 57, 7) if n != lead])

    def mutate(q: dict[str, Any]) -> None:
        q["parts"][i][3] = days

    return Revision(
        request=f"{supplier} now quotes {days} days lead time for the {pn} {PACK_SPOKEN[pn]}.",
        mutate=mutate,
        direct=f"/parts/{i}/lead_time_days",
        theme=f"A {days}-day lead time moves the {pn} purchase order date",
    )


PACK_MOVES = [
    Move("shift-start", "temporal", _pack_start),
    Move("switch-line", "substitution", _pack_line),
    Move("slip", "temporal", _pack_slip),
    Move("materials-due", "temporal", _pack_due, when=lambda p: p["size"] >= 50),
    Move("lead-time", "temporal", _pack_lead, when=lambda p: p["size"] >= 50, opens=False),
]


# --------------------------------------------------------------------------- bom-release
# Status flip: the draft BOM is released; editability, watermark, change control, ERP sync,
# every active part's purchasing status and the controlled documents move together.

# (part number, description, qty, supplier, unit cost, obsolete)
KETTLE_PARTS: list[tuple[str, str, int, str, float, bool]] = [
    ("HK-301", "Heating element 2200W", 1, "Strix", 4.60, False),
    ("HK-310", "Borosilicate glass body 1.7 L", 1, "Fuzhou Glassworks", 3.90, False),
    ("HK-322", "Lid assembly", 1, "Ningbo Plastics", 1.25, False),
    ("HK-330", "Power base with 360 connector", 1, "Strix", 3.35, False),
    ("HK-341", "Silicone gasket (old profile)", 1, "Ningbo Plastics", 0.22, True),
    ("HK-342", "Silicone gasket", 1, "Ningbo Plastics", 0.24, False),
]
KETTLE_PARTS_100: list[tuple[str, str, int, str, float, bool]] = [
    ("HK-350", "Handle, soft-touch", 1, "Ningbo Plastics", 0.95, False),
    ("HK-360", "LED ring", 1, "Shenzhen Lumen", 0.40, False),
    ("HK-371", "Limescale filter", 1, "Ningbo Plastics", 0.18, False),
    ("HK-380", "Screws M4 x 10", 6, "Fastenal", 0.03, False),
]
KETTLE_DOCS: list[str] = ["Assembly drawing", "Test specification", "Packaging specification"]
DRAFT_WATERMARK = "DRAFT - NOT FOR PRODUCTION"
RELEASED_WATERMARK = "CONTROLLED COPY"


GLASS_BODIES = {
    "HK-310": ("Borosilicate glass body 1.7 L", 3.90),
    "HK-312": ("Reinforced borosilicate glass body 1.7 L", 3.90),
}
FEET = ("HK-390", "Non-slip feet", 1, "Ningbo Plastics", 0.12, False)


KETTLE_OWNERS = ["Grace Lindqvist", "Helena Berg", "Tobias Lund", "Amira Haddad"]
KETTLE_ENGINEERS = ["Owen Marsh", "Felix Amann", "Nora Quinn", "Yusuf Demir"]


def kettle_inputs(size: int, d: Draw) -> dict[str, Any]:
    """The BOM's inputs: its status, its part rows ``[part number, description, qty, supplier,
    unit cost, obsolete]`` (size 10 holds the element and the glass body; rows dropped go to
    ``removed``), the element's cost and the people and pilot the conversation names."""
    rows = KETTLE_PARTS + (KETTLE_PARTS_100 if size == 100 else [])
    parts = [list(r) for r in rows[: 2 if size == 10 else len(rows)]]
    parts[0][4] = d.pick([4.60, 4.35, 4.85, 5.10])
    return {
        "size": size,
        "released": False,
        "parts": parts,
        "removed": [],
        "owner": d.pick(KETTLE_OWNERS),
        "engineer": d.pick(KETTLE_ENGINEERS),
        "pilot": d.pick([300, 200, 250, 400]),
    }


def kettle_params(size: int) -> dict[str, Any]:
    return kettle_inputs(size, SHIPPED)


def _kettle_material(p: dict[str, Any]) -> float:
    """Material cost per kettle: the active parts only."""
    return money(sum(r[2] * r[4] for r in p["parts"] if not r[5]))


def kettle_compute(p: dict[str, Any]) -> dict[str, Any]:
    size, released = p["size"], p["released"]
    status = "released" if released else "draft"
    purchasing = "open" if released else "hold"
    if size == 10:
        return {
            "bom_number": "BOM-K2-C",
            "product": "K2 electric kettle",
            "revision": "C",
            "status": status,
            "editable": not released,
            "watermark": RELEASED_WATERMARK if released else DRAFT_WATERMARK,
            "parts": [
                {"part": r[1], "purchasing": "blocked" if r[5] else purchasing} for r in p["parts"]
            ],
        }
    parts = []
    for pn, desc, qty, supplier, cost, obsolete in p["parts"]:
        part: dict[str, Any] = {
            "part_number": pn,
            "description": desc,
            "qty": qty,
            "supplier": supplier,
        }
        if size == 100:
            part["unit_cost"] = cost
        part["purchasing"] = "blocked" if obsolete else purchasing
        parts.append(part)
    art: dict[str, Any] = {
        "bom": {
            "number": "BOM-K2-C",
            "product": "K2 electric kettle",
            "model": "HK-K2",
            "revision": "C",
            "status": status,
            "owner": p["owner"],
        },
        "document_control": {
            "editable": not released,
            "watermark": RELEASED_WATERMARK if released else DRAFT_WATERMARK,
            "change_process": "ECO required" if released else "direct edit",
            "erp_sync": released,
        },
        "parts": parts,
        "factory": "Harlow Home, Suzhou plant",
        "target_launch": "2026-02-02",
        "certifications": ["UL 1082", "CE"],
        "colors": ["Matte black", "Cream", "Sage"],
        "unit_weight_g": 1180,
        "packaging_bom": "PKG-K2-A",
        "unit_material_cost": _kettle_material(p),
    }
    if size == 50:
        return art
    art["documents"] = [{"doc": d, "status": status} for d in KETTLE_DOCS]
    art["certifications"].append("GS")
    art["previous_revision"] = {
        "revision": "B",
        "status": "superseded",
        "released_on": "2025-03-14",
    }
    art["tooling"] = [
        {"tool": "Lid mold", "status": "approved"},
        {"tool": "Handle mold", "status": "T2 trial"},
        {"tool": "Base mold", "status": "approved"},
    ]
    art["bom"]["created_on"] = "2025-10-02"
    art["pilot"] = {"quantity": p["pilot"], "date": "2025-12-08"}
    art["bom"]["engineer"] = p["engineer"]
    return art


def kettle_conversation(p: dict[str, Any]) -> list[Turn]:
    size = p["size"]
    if size == 10:
        return [
            (
                "Start BOM-K2-C for the K2 electric kettle, revision C. It's a draft for now.",
                ["/bom_number", "/product", "/revision", "/status"],
            ),
            (
                "While it's a draft, anyone on the team can edit it, it carries the watermark 'DRAFT - NOT FOR "
                "PRODUCTION', and every part's purchasing status is hold. Once it's released it gets locked "
                "against editing, the watermark becomes 'CONTROLLED COPY', and every part's purchasing status "
                "becomes open.",
                ["/editable", "/watermark"],
            ),
            (
                "Parts so far: the 2200W heating element and the 1.7 L borosilicate glass body.",
                ["/parts/0", "/parts/1"],
            ),
        ]
    n = len(KETTLE_PARTS) + (len(KETTLE_PARTS_100) if size == 100 else 0)
    bom_ptrs = [
        "/bom/number",
        "/bom/product",
        "/bom/model",
        "/bom/revision",
        "/bom/status",
        "/bom/owner",
    ]
    turns: list[Turn] = [
        (
            f"Open BOM-K2-C for the K2 electric kettle (model HK-K2), revision C, owned by {p['owner']}. Status "
            "draft until engineering signs off.",
            bom_ptrs,
        ),
        (
            "Document control depends on status. Draft: editable, watermark 'DRAFT - NOT FOR PRODUCTION', "
            "changes made by direct edit, not synced to the ERP. Released: locked (not editable), watermark "
            "'CONTROLLED COPY', changes only through an ECO ('ECO required'), and synced to the ERP.",
            ["/document_control"],
        ),
        (
            "Parts: HK-301 2200W heating element (Strix), HK-310 1.7 L borosilicate glass body (Fuzhou "
            "Glassworks), HK-322 lid assembly (Ningbo Plastics), HK-330 power base with 360 connector (Strix), "
            "HK-341 silicone gasket, old profile, and HK-342 silicone gasket (both Ningbo Plastics); one of each."
            + (
                " Also HK-350 soft-touch handle and HK-371 limescale filter (Ningbo Plastics), HK-360 LED ring "
                "(Shenzhen Lumen) and six HK-380 M4 x 10 screws (Fastenal)."
                if size == 100
                else ""
            ),
            [
                f"/parts/{i}/{k}"
                for i in range(n)
                for k in ("part_number", "description", "qty", "supplier")
            ],
        ),
        (
            "Purchasing status per part: hold while the BOM is a draft, open once it's released. The old-"
            "profile gasket HK-341 is obsolete, so it stays blocked whatever the BOM status.",
            [f"/parts/{i}/purchasing" for i in range(n)],
        ),
        (
            "Built at Harlow Home's Suzhou plant, launching 2026-02-02, certified UL 1082 and CE. Colors: matte "
            "black, cream, sage. It weighs 1180 g; packaging is on PKG-K2-A.",
            [
                "/factory",
                "/target_launch",
                "/certifications/0",
                "/certifications/1",
                "/colors",
                "/unit_weight_g",
                "/packaging_bom",
            ],
        ),
    ]
    if size == 50:
        turns.append(
            (
                f"Material cost per kettle comes to {dollars(_kettle_material(p))}.",
                ["/unit_material_cost"],
            )
        )
        return turns
    turns += [
        (
            f"Unit costs: element {dollars(p['parts'][0][4])}, glass body $3.90, lid $1.25, power base $3.35, old gasket $0.22, gasket "
            "$0.24, handle $0.95, LED ring $0.40, filter $0.18, screws $0.03 each. Material cost per kettle "
            "counts active parts only.",
            [*(f"/parts/{i}/unit_cost" for i in range(n)), "/unit_material_cost"],
        ),
        (
            "The assembly drawing, test specification and packaging specification follow the BOM's status: "
            "draft while it's draft, released when it's released.",
            ["/documents"],
        ),
        (
            f"Add GS certification. Revision B was released 2025-03-14 and is now superseded. {p['engineer']} is the "
            "engineer.",
            ["/certifications/2", "/previous_revision", "/bom/engineer"],
        ),
        (
            f"Tooling: the lid and base molds are approved, the handle mold is at T2 trial. Pilot of {p['pilot']} units on "
            "2025-12-08. For the record, this BOM was opened on 2025-10-02.",
            ["/tooling", "/pilot", "/bom/created_on"],
        ),
    ]
    return turns


def kettle_revision(p: dict[str, Any]) -> Revision:
    return Revision(
        request="Engineering signed off on revision C this morning, so go ahead and release the BOM.",
        mutate=lambda q: q.update(released=True),
        direct="/status" if p["size"] == 10 else "/bom/status",
    )


def kettle_followups(p: dict[str, Any]) -> list[Revision]:
    size = p["size"]
    status = "/status" if size == 10 else "/bom/status"
    glass = ["/parts/1/part"] if size == 10 else ["/parts/1/part_number", "/parts/1/description"]
    end = len(p["parts"])  # the index a part added at the end takes

    def swap_and_release(q: dict[str, Any]) -> None:
        desc, cost = GLASS_BODIES["HK-312"]
        q["parts"][1][0:2] = ["HK-312", desc]
        q["parts"][1][4] = cost
        q.update(released=True)

    def add_feet(q: dict[str, Any]) -> None:
        q["parts"].append(list(FEET))
        q.update(released=False)

    return [
        Revision(
            request="QA found hairline cracks in the first glass bodies. Pull the release and put the BOM back "
            "to draft while we sort it out.",
            mutate=lambda q: q.update(released=False),
            direct=status,
            theme="The release is undone: the BOM is editable again, draft watermark, purchasing back on hold",
            pattern="status_flip",
        ),
        Revision(
            # size 10 parts hold no part number or supplier: the request there gives none
            request="There's a reinforced body at the same price: reinforced borosilicate glass body 1.7 L. Swap "
            "it in for the glass body; engineering signed off on that, so release the BOM again."
            if size == 10
            else "Fuzhou Glassworks has a reinforced body, HK-312 (reinforced borosilicate glass body 1.7 L), "
            "at the same price. Swap it in for HK-310; engineering signed off on that, so release the BOM again.",
            mutate=swap_and_release,
            direct=[status, *glass],
            overrides={glass[-1]: regex(r"(?i)^reinforced borosilicate glass body 1\.7 ?l$")},
            theme="The cracked part is replaced and the BOM released again: locking, watermark, change control "
            "and purchasing flip back",
            pattern="substitution",
        ),
        Revision(
            # size 10 parts hold a name and purchasing only: the request there gives no more
            request=(
                "Add a new part, Non-slip feet."
                if size == 10
                else "Add a new part, HK-390 Non-slip feet from Ningbo Plastics, one set per kettle at $0.12."
            )
            + " That's a BOM change, so take it back to draft until engineering signs off again.",
            mutate=add_feet,
            direct=[f"/parts/{end}", status],
            theme="A part is added to the released BOM, which goes back to draft: every part's purchasing and "
            "the document control follow",
            pattern="add_remove",
        ),
    ]


# moves of bom-release: size 10 lists parts by name and purchasing status only (no part numbers,
# suppliers, costs or obsolete parts), so there a part is added, dropped or swapped only together
# with a release or a return to draft; obsolete parts and costs move at 50 and 100


# parts a user may add later, as KETTLE_PARTS rows
KETTLE_NEW_PARTS: list[tuple[str, str, int, str, float, bool]] = [
    FEET,
    ("HK-392", "Cord wrap clip", 1, "Ningbo Plastics", 0.08, False),
    ("HK-394", "Boil-dry sensor", 1, "Strix", 0.65, False),
    ("HK-396", "Spout filter mesh", 1, "Ningbo Plastics", 0.15, False),
    ("HK-398", "Rating label", 1, "Ningbo Plastics", 0.04, False),
]
KETTLE_DROPPABLE = ("HK-360", "HK-371")  # catalog parts a move may drop (size 100)
# the glass bodies a swap picks from: (part number, description, unit cost)
GLASS_OPTIONS: list[tuple[str, str, float]] = [
    ("HK-310", "Borosilicate glass body 1.7 L", 3.90),
    ("HK-312", "Reinforced borosilicate glass body 1.7 L", 4.15),
    ("HK-314", "Double-wall glass body 1.7 L", 5.40),
]


def _kettle_status_path(p: dict[str, Any]) -> str:
    return "/status" if p["size"] == 10 else "/bom/status"


def _kettle_change(p: dict[str, Any], d: Draw) -> tuple[str, bool]:
    """What a change does to the BOM's status, said in the request: a released BOM goes back to
    draft, or (sizes 50 and 100) stays released under an ECO; a draft stays a draft, or (size 10,
    where a part's change cascades into nothing else) is released with it."""
    if not p["released"]:
        if p["size"] == 10:
            return " Engineering signed off on it, so release the BOM.", True
        return "", False
    if p["size"] > 10 and d.chance(0.5):
        return " Engineering approved it as an ECO, so the BOM stays released.", True
    return (
        " That's a BOM change, so take it back to draft until engineering signs off again.",
        False,
    )


def _kettle_label(p: dict[str, Any], row: Sequence[Any]) -> str:
    """``the spout filter mesh`` (size 10), ``HK-341 silicone gasket (old profile)`` beyond."""
    desc = row[1] if row[1][:2].isupper() else row[1][0].lower() + row[1][1:]
    return f"the {desc}" if p["size"] == 10 else f"{row[0]} {desc}"


def _with_status(p: dict[str, Any], released: bool, *paths: str) -> list[str]:
    return [*paths, _kettle_status_path(p)] if released != p["released"] else list(paths)


def _kettle_release(p: dict[str, Any], d: Draw) -> Revision | None:
    return Revision(
        request=d.pick(
            [
                "Engineering signed off on revision C, so go ahead and release the BOM.",
                "We have all the sign-offs now. Release the BOM.",
            ]
        ),
        mutate=lambda q: q.update(released=True),
        direct=_kettle_status_path(p),
        theme="The BOM is released: it locks, the watermark changes and purchasing opens",
    )


def _kettle_unrelease(p: dict[str, Any], d: Draw) -> Revision | None:
    return Revision(
        request=d.pick(
            [
                "QA found a problem with the first units. Pull the release and put the BOM back to draft "
                "while we sort it out.",
                "Put the BOM back to draft, we need to rework it.",
            ]
        ),
        mutate=lambda q: q.update(released=False),
        direct=_kettle_status_path(p),
        theme="The release is undone: the BOM is editable again, draft watermark, purchasing on hold",
    )


def _kettle_obsolete(p: dict[str, Any], d: Draw, obsolete: bool) -> Revision | None:
    """An active part (not the glass body, element or power base) goes obsolete, or (``obsolete``
    False) an obsolete one comes back; size 50 records no unit costs, so the request says what the
    part's cost does to the material cost."""
    core = {g[0] for g in GLASS_OPTIONS} | {"HK-301", "HK-330"}
    if obsolete:
        lines = [i for i, r in enumerate(p["parts"]) if not r[5] and r[0] not in core]
        if len([r for r in p["parts"] if not r[5]]) <= 3:
            return None
    else:
        lines = [i for i, r in enumerate(p["parts"]) if r[5]]
    if not lines:
        return None
    i = d.pick(lines)
    _, desc, qty, _, cost, _ = p["parts"][i]
    cost_text = (
        f"take its {dollars(money(qty * cost))} per kettle out of the material cost"
        if obsolete
        else f"its {dollars(money(qty * cost))} per kettle counts in the material cost again"
    )
    if p["size"] == 100:  # the unit costs are in the document
        cost_text = (
            "it no longer counts toward the material cost"
            if obsolete
            else "it counts toward the material cost again"
        )
    status, released = _kettle_change(p, d)

    def mutate(q: dict[str, Any]) -> None:
        q["parts"][i][5] = obsolete
        q["released"] = released

    label = _kettle_label(p, p["parts"][i])
    return Revision(
        request=f"{label} is obsolete now: block its purchasing whatever the BOM status, and {cost_text}."
        + status
        if obsolete
        else f"{label} is back in production, no longer obsolete: its purchasing follows the BOM status "
        f"again, and {cost_text}." + status,
        mutate=mutate,
        direct=_with_status(p, released, f"/parts/{i}/purchasing"),
        theme=f"{desc} goes obsolete: its purchasing is blocked and the material cost drops"
        if obsolete
        else f"{desc} is active again: its purchasing follows the BOM status and the material cost rises",
    )


def _kettle_terms(p: dict[str, Any], row: Sequence[Any]) -> str:
    pn, desc, qty, supplier, cost, _ = row
    if p["size"] == 10:
        return desc  # type: ignore[no-any-return]
    return f"{pn} {desc} from {supplier}, {count_word(qty)} per kettle at {dollars(cost)}"


def _kettle_add(p: dict[str, Any], d: Draw) -> Revision | None:
    """A new part, or one dropped earlier, joins the BOM as its last line."""
    choices = _addable(p, KETTLE_NEW_PARTS)
    if not choices:
        return None
    again, row = d.pick(choices)
    status, released = _kettle_change(p, d)
    request = (
        f"Put this part back in the BOM, as the last line: {_kettle_terms(p, row)}."
        if again
        else f"Add a new part, {_kettle_terms(p, row)}."
    ) + status
    return Revision(
        request=request,
        mutate=lambda q: _join(q, row, released=released),
        direct=_with_status(p, released, f"/parts/{len(p['parts'])}"),
        theme=f"{row[1]} joins the BOM"
        + (": the material cost rises" if p["size"] > 10 else "")
        + ("; the BOM goes back to draft" if p["released"] and not released else ""),
    )


def _kettle_drop(p: dict[str, Any], d: Draw) -> Revision | None:
    added = {r[0] for r in KETTLE_NEW_PARTS} | set(KETTLE_DROPPABLE)
    lines = [i for i, r in enumerate(p["parts"]) if r[0] in added and not r[5]]
    if not lines:
        return None
    i = d.pick(lines)
    row = p["parts"][i]
    status, released = _kettle_change(p, d)
    # size 50 records no unit costs: the request says what the part took off the material cost
    cost = f" (its {dollars(money(row[2] * row[4]))} per kettle comes off the material cost)"
    return Revision(
        request=f"Drop {_kettle_label(p, row)} from the BOM{cost if p['size'] == 50 else ''}."
        + status,
        mutate=lambda q: _leave(q, i, released=released),
        direct=_with_status(p, released, f"/parts/{i}"),
        theme=f"{row[1]} leaves the BOM"
        + (": the material cost drops" if p["size"] > 10 else "")
        + ("; the BOM goes back to draft" if p["released"] and not released else ""),
    )


def _kettle_glass(p: dict[str, Any], d: Draw) -> Revision | None:
    """Another glass body from Fuzhou Glassworks replaces the current one."""
    i, row = next((i, r) for i, r in enumerate(p["parts"]) if r[0] in {g[0] for g in GLASS_OPTIONS})
    pn, desc, cost = d.pick([g for g in GLASS_OPTIONS if g[0] != row[0]])
    status, released = _kettle_change(p, d)
    was = f"; the current one costs {dollars(row[4])}" if p["size"] == 50 else ""
    request = (
        f"Swap the glass body for another one: {desc}."
        if p["size"] == 10
        else f"Swap the glass body {row[0]} for {pn} ({desc}) from Fuzhou Glassworks, {dollars(cost)}{was}."
    )
    where = (
        [f"/parts/{i}/part"]
        if p["size"] == 10
        else [f"/parts/{i}/part_number", f"/parts/{i}/description"]
    )

    def mutate(q: dict[str, Any]) -> None:
        q["parts"][i][0:2] = [pn, desc]
        q["parts"][i][4] = cost
        q["released"] = released

    return Revision(
        request=request + status,
        mutate=mutate,
        direct=_with_status(p, released, *where),
        theme=f"{desc} replaces the glass body: the material cost follows",
    )


def _kettle_reprice(p: dict[str, Any], d: Draw) -> Revision | None:
    lines = [i for i, r in enumerate(p["parts"]) if not r[5]]
    i = d.pick(lines)
    pn, _, _, supplier, cost, _ = p["parts"][i]
    new = d.pick(sorted({money(cost * f) for f in (0.8, 0.9, 1.1, 1.2)} - {cost}))
    status, released = _kettle_change(p, d)

    def mutate(q: dict[str, Any]) -> None:
        q["parts"][i][4] = new
        q["released"] = released

    return Revision(
        request=f"{supplier} re-quoted {_kettle_label(p, p['parts'][i])} at {dollars(new)} each."
        + status,
        mutate=mutate,
        direct=_with_status(p, released, f"/parts/{i}/unit_cost"),
        theme=f"{pn} is re-priced: the material cost follows",
    )


KETTLE_MOVES = [
    Move("release", "status_flip", _kettle_release, when=lambda p: not p["released"]),
    Move("unrelease", "status_flip", _kettle_unrelease, when=lambda p: p["released"]),
    Move(
        "obsolete",
        "status_flip",
        lambda p, d: _kettle_obsolete(p, d, obsolete=True),
        when=lambda p: p["size"] >= 50,
    ),
    Move(
        "reinstate",
        "status_flip",
        lambda p, d: _kettle_obsolete(p, d, obsolete=False),
        when=lambda p: p["size"] >= 50,
    ),
    Move("add-part", "add_remove", _kettle_add),
    Move("drop-part", "add_remove", _kettle_drop),
    Move("swap-glass", "substitution", _kettle_glass),
    Move(
        "reprice",
        "arithmetic",
        _kettle_reprice,
        when=lambda p: p["size"] == 100,
        opens=False,
    ),
]


# --------------------------------------------------------------------------- registry

SCENARIOS = [
    Scenario(
        id="bom-hinge-screws",
        domain=DOMAIN,
        pattern="arithmetic",
        theme="More hinge screws per lamp recompute the extended cost, material, overhead, unit cost, batch cost and prices",
        params=lamp_params,
        compute=lamp_compute,
        conversation=lamp_conversation,
        revision=lamp_revision,
        followups=lamp_followups,
        inputs=lamp_inputs,
        moves=LAMP_MOVES,
        notes=(
            "Cost roll-up: extended cost = qty x unit cost, material per lamp and batch material cost; at "
            "50+ overhead (15% of material), unit cost, batch cost and wholesale price (2x); at 100 also "
            "retail (1.8x wholesale) and the quote price and total."
        ),
    ),
    Scenario(
        id="bom-connector-price-break",
        domain=DOMAIN,
        pattern="threshold",
        theme="A second connector per board pushes its order past the 500-piece price break, repricing the part and the roll-up",
        params=board_params,
        compute=board_compute,
        conversation=board_conversation,
        revision=board_revision,
        followups=board_followups,
        inputs=board_inputs,
        moves=BOARD_MOVES,
        notes=(
            "Price-break threshold: a second connector per board doubles its order quantity past the "
            "500-piece break, so its unit price drops and the material cost follows; at 50+ line cost and "
            "cost per board; at 100 the tier label and the quote. Parts just below their break "
            "(resistors, 2,400 of 2,500) or already past it (capacitors) keep their prices."
        ),
    ),
    Scenario(
        id="bom-drop-bumper",
        domain=DOMAIN,
        pattern="add_remove",
        theme="Dropping a component updates the line count, cost and weight roll-ups, the enclosure kit list and the supplier summary",
        params=speaker_params,
        compute=speaker_compute,
        conversation=speaker_conversation,
        revision=speaker_revision,
        followups=speaker_followups,
        inputs=speaker_inputs,
        moves=SPEAKER_MOVES,
        notes=(
            "Removal of one BOM line: component count and material cost follow; at 50+ the part leaves "
            "the enclosure-kit list and its supplier's line count and spend drop; at 100 the total and "
            "shipping weights follow too."
        ),
    ),
    Scenario(
        id="bom-production-start",
        domain=DOMAIN,
        pattern="temporal",
        theme="Moving the pilot run's production start shifts materials, PO, inspection, test, QA and ship dates, not fixed dates",
        params=pack_params,
        compute=pack_compute,
        conversation=pack_conversation,
        revision=pack_revision,
        followups=pack_followups,
        inputs=pack_inputs,
        moves=PACK_MOVES,
        notes=(
            "Offsets from the production start: materials due (-5 days), first article inspection (+2) "
            "and ship date (+14); at 50+ production end, QA release and each PO date (materials due - "
            "lead time) except the already-placed cell order; at 100 delivery, pilot review and test "
            "dates. Design freeze, certification, trade show and holiday dates are absolute."
        ),
    ),
    Scenario(
        id="bom-release",
        domain=DOMAIN,
        pattern="status_flip",
        theme="Releasing the draft BOM locks it, swaps the watermark, opens purchasing and releases its documents",
        params=kettle_params,
        compute=kettle_compute,
        conversation=kettle_conversation,
        revision=kettle_revision,
        followups=kettle_followups,
        inputs=kettle_inputs,
        moves=KETTLE_MOVES,
        notes=(
            "Status flip draft -> released: editability, watermark and every active part's purchasing "
            "status (hold -> open) move together; at 50+ also change process and ERP sync, while the "
            "obsolete gasket stays blocked; at 100 the three controlled documents are released as well."
        ),
    ),
]
