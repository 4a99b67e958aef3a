"""The case file's JSON Schema: loading it, checking a document against it, and its errors
as one short line (the loading rules beyond the schema are in :mod:`core.cases`)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import cache
from importlib import resources
from typing import Any

from pytest_revprop.util.jsonutil import child_pointer


@cache
def _validator() -> Any:
    import jsonschema

    schema_text = resources.files("pytest_revprop").joinpath("schema/case.schema.json").read_text()
    schema = json.loads(schema_text)
    return jsonschema.Draft7Validator(schema)


def case_schema() -> dict[str, Any]:
    """The shipped JSON Schema for case files."""
    schema: dict[str, Any] = _validator().schema
    return schema


def _pointer(parts: Iterable[Any]) -> str:
    pointer = ""
    for part in parts:
        pointer = child_pointer(pointer, part)
    return pointer


@cache
def _fast_validator() -> tuple[Any, type[Exception]]:
    """The compiled schema and the exception it raises (of the module it was compiled with,
    which stays right if ``fastjsonschema`` is imported again, as an in-process pytester run
    does)."""
    import fastjsonschema

    return fastjsonschema.compile(case_schema()), fastjsonschema.JsonSchemaException


def brief(value: Any, limit: int = 60) -> str:
    """A value as a message quotes it: JSON, cut; an object or array only named, never
    dumped (it may be the whole artifact)."""
    if isinstance(value, dict):
        return f"an object with {len(value)} member(s)"
    if isinstance(value, list):
        return f"an array of {len(value)} item(s)"
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def schema_error_text(error: Any) -> str:
    """A jsonschema error in one line that quotes at most a short value: jsonschema's own
    message prints the Python repr of the offending instance, which for a whole artifact or
    gold runs to thousands of characters."""
    kind, expected, instance = error.validator, error.validator_value, error.instance
    if kind == "required" and isinstance(instance, dict):
        missing = [n for n in expected if n not in instance]
        return f"{missing[0] if missing else expected[0]} is required"
    if kind == "additionalProperties" and isinstance(instance, dict):
        allowed = set(error.schema.get("properties", {}))
        extra = sorted(k for k in instance if k not in allowed)
        return f"{', '.join(extra[:5]) or 'a member'}: not allowed here"
    if kind == "type":
        wanted = " or ".join(expected) if isinstance(expected, list) else expected
        return f"{brief(instance)} is not of type {wanted}"
    if kind == "enum":
        return f"{brief(instance)} is not one of {', '.join(map(str, expected))}"
    if kind == "pattern":
        return f"{brief(instance)} does not have the required form ({expected})"
    if kind in ("minLength", "minItems") and expected == 1:
        return f"{brief(instance)} should be non-empty"
    if kind in ("minLength", "maxLength", "minItems", "maxItems", "minimum", "maximum"):
        return f"{brief(instance)} breaks {kind} {expected}"
    if kind == "const":
        return f"{brief(instance)} is not {brief(expected)}"
    return f"{brief(instance)} breaks the schema's {kind!r} rule"


def schema_problem(data: Any) -> tuple[str, str] | None:
    """Where ``data`` first breaks the schema and why, as (JSON Pointer, one-line message);
    None when it conforms. The compiled validator answers the common case; the slower one
    names the place only when there is a problem."""
    validate, invalid = _fast_validator()
    try:
        validate(data)
        return None
    except invalid:
        pass
    errors = sorted(
        _validator().iter_errors(data),
        key=lambda e: (len(e.absolute_path), str(e.absolute_path)),
    )
    if not errors:
        return None
    return _pointer(errors[0].absolute_path), schema_error_text(errors[0])
