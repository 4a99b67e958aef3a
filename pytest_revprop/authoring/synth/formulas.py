"""The arithmetic a writer declares for a computed value, evaluated on the document.

A ``derived`` entry of a turn may carry a ``formula``: an expression over the places the
value is computed from, each written as its JSON Pointer in braces, such as
``{/line/hours} * {/line/rate}`` or ``round({/subtotal} * {/tax_percent} / 100, 2)``. Numbers,
``+ - * /``, parentheses and the functions ``round``, ``min``, ``max``, ``abs`` and ``len``
(the length of a list, an object or a text) are allowed, nothing else. A declared value that
is a number computed from numbers only must give its formula (an arithmetic dependency), so
that every arithmetic dependency is checked: the value must equal what its formula gives, to
the precision the value is written with (``73.44`` to the cent, ``1020`` to the unit).
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Callable, Sequence
from decimal import Decimal
from typing import Any

from pytest_revprop.util.jsonutil import MISSING, is_within, resolve

MAX_FORMULA_CHARS = 500
_REFERENCE = re.compile(r"\{(/[^{}]*)\}")
_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "round": round,
    "min": min,
    "max": max,
    "abs": abs,
    "len": len,
}
_OPERATORS: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
}


class FormulaError(ValueError):
    """A formula that cannot be read or evaluated: the message says why, for the re-ask."""


def is_number(value: Any) -> bool:
    """Whether ``value`` is a JSON number (booleans are not, though Python counts them as ints)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def evaluate(formula: str, doc: Any) -> Any:
    """What ``formula`` gives on ``doc``; FormulaError when it cannot be read or computed."""
    if len(formula) > MAX_FORMULA_CHARS:
        raise FormulaError(f"it is longer than {MAX_FORMULA_CHARS} characters")
    values: dict[str, Any] = {}

    def name(match: re.Match[str]) -> str:
        pointer = match.group(1)
        value = resolve(doc, pointer)
        if value is MISSING:
            raise FormulaError(f"{pointer} is not a place of the document")
        values[f"_v{len(values)}"] = value
        return f" _v{len(values) - 1} "

    expression = _REFERENCE.sub(name, formula)
    if "{" in expression or "}" in expression:
        raise FormulaError("write each place as its JSON Pointer in braces, {/like/this}")
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except SyntaxError:
        raise FormulaError("it is not an arithmetic expression") from None
    try:
        return _value(tree.body, values)
    except ZeroDivisionError:
        raise FormulaError("it divides by zero") from None
    except (TypeError, ValueError, OverflowError) as exc:
        raise FormulaError(f"it cannot be computed ({exc})") from None


def _value(node: ast.AST, values: dict[str, Any]) -> Any:
    if isinstance(node, ast.Constant) and is_number(node.value):
        return node.value
    if isinstance(node, ast.Name) and node.id in values:
        return values[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        operand = _number(_value(node.operand, values))
        return -operand if isinstance(node.op, ast.USub) else operand
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        left, right = _number(_value(node.left, values)), _number(_value(node.right, values))
        return _OPERATORS[type(node.op)](left, right)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in _FUNCTIONS
        and not node.keywords
    ):
        args = [_value(arg, values) for arg in node.args]
        if node.func.id != "len":
            args = [_number(arg) for arg in args]
        return _FUNCTIONS[node.func.id](*args)
    shown = ast.unparse(node) if isinstance(node, ast.expr) else type(node).__name__
    raise FormulaError(
        f"{shown!r} is not allowed: use numbers, places in braces, + - * /, parentheses "
        "and round, min, max, abs, len"
    )


def _number(value: Any) -> Any:
    if not is_number(value):
        raise FormulaError(f"{value!r} is not a number")
    return value


def agrees(value: Any, computed: Any) -> bool:
    """Whether ``value`` is what its formula gave, to the precision ``value`` is written with."""
    if not is_number(value) or not is_number(computed) or not math.isfinite(computed):
        return False
    exponent = Decimal(repr(value)).as_tuple().exponent
    decimals = max(-exponent, 0) if isinstance(exponent, int) else 0
    tolerance = 0.5 * 10.0**-decimals + 1e-9 * abs(value)
    return bool(abs(value - computed) <= tolerance)


def formula_reasons(
    where: str, path: str, sources: Sequence[str], formula: Any, doc: Any
) -> list[str]:
    """Why the declared ``formula`` of the value at ``path`` does not hold on ``doc`` (empty
    when it does, or when the value needs none: it is not a number computed from numbers)."""
    value = resolve(doc, path)
    if formula is None or formula == "":
        if is_number(value) and all(is_number(resolve(doc, s)) for s in sources):
            return [
                f'{where}: {path} is computed from numbers: give its "formula" over the places '
                f"it is computed from, each in braces ({{{sources[0]}}} * ..., + - * / and "
                "round), so that it can be checked"
            ]
        return []
    if not isinstance(formula, str):
        return [f'{where}: "formula" must be a string such as "{{/a}} * {{/b}}"']
    outside = [p for p in _REFERENCE.findall(formula) if not any(is_within(p, s) for s in sources)]
    if outside:
        return [f'{where}: the formula uses {outside[0]}, which is not in its "from" list']
    try:
        computed = evaluate(formula, doc)
    except FormulaError as exc:
        return [f"{where}: the formula {formula!r} cannot be used: {exc}"]
    if agrees(value, computed):
        return []
    return [
        f"{path} is {value!r}, but its formula {formula} gives {_shown(computed)} "
        f"({_substituted(formula, doc)}): fix the value or the formula"
    ]


def _shown(number: Any) -> str:
    return f"{number:.6g}" if isinstance(number, float) else repr(number)


def _substituted(formula: str, doc: Any) -> str:
    """The formula with each place replaced by its value (``12 * 85``)."""
    return _REFERENCE.sub(lambda m: _shown(resolve(doc, m.group(1))), formula)
