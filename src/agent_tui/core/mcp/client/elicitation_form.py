"""The form of an elicitation request (form mode): the requested schema as typed fields.

The requested schema (flat, primitive properties only) is parsed into ``FormField``s — text
(with ``format`` email, uri, date, date-time and length limits), number and integer
(``minimum``/``maximum``), boolean, single choice (``enum``, titled ``oneOf`` consts, legacy
``enumNames``) and multiple choice (``type: array`` of such items, ``minItems``/``maxItems``).
Defaults are applied as SEP-1034 says (``defaults``: the form starts from them, and a field
left out of the answer gets its default). An answer is checked against the fields before it is
sent (``check_value``, ``check_answer``: one clear error per field). Anything the client cannot
show faithfully (a nested object, a ``$ref``, an unknown type or format) raises
``UnsupportedSchema``. Nothing here imports the SDK, nor anything of the UI.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Literal
from urllib.parse import urlsplit

FieldKind = Literal["text", "number", "integer", "boolean", "choice", "multi"]
TextFormat = Literal["email", "uri", "date", "date-time"]
Value = str | int | float | bool | list[str]
FORMATS: tuple[TextFormat, ...] = ("email", "uri", "date", "date-time")
MAX_FIELDS = 50
MAX_OPTIONS = 500
EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
_KNOWN_KEYS = {
    "type",
    "title",
    "description",
    "default",
    "format",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "enum",
    "enumNames",
    "oneOf",
    "items",
    "minItems",
    "maxItems",
    "$comment",
    "examples",
}


class UnsupportedSchema(ValueError):
    """The requested schema has something the client cannot show; the message says what."""


@dataclass(frozen=True)
class Option:
    value: str
    title: str


@dataclass(frozen=True)
class FormField:
    """One property of a requested schema, as a form shows it."""

    name: str
    kind: FieldKind
    title: str
    """The schema's ``title``, else the property's name."""
    description: str | None = None
    required: bool = False
    default: Value | None = None
    """The schema's default (already checked against the field), or None."""
    format: TextFormat | None = None
    min_length: int | None = None
    max_length: int | None = None
    minimum: float | None = None
    maximum: float | None = None
    options: tuple[Option, ...] = ()
    min_items: int | None = None
    max_items: int | None = None

    @property
    def has_default(self) -> bool:
        return self.default is not None

    def hint(self) -> str:
        """What the field accepts, in a few words (``email``, ``integer 1–10``, ...)."""
        if self.kind == "text":
            parts: list[str] = [self.format or "text"]
            if self.min_length is not None or self.max_length is not None:
                parts.append(_range(self.min_length, self.max_length, "chars"))
            return ", ".join(parts)
        if self.kind in ("number", "integer"):
            span = _range(self.minimum, self.maximum, "")
            return f"{self.kind} {span}".strip()
        if self.kind == "multi":
            span = _range(self.min_items, self.max_items, "")
            return f"choose {span}".strip() if span else "choose any"
        return ""


def _range(low: float | None, high: float | None, unit: str) -> str:
    def fmt(v: float) -> str:
        return f"{v:g}"

    tail = f" {unit}" if unit else ""
    if low is not None and high is not None:
        return f"{fmt(low)}–{fmt(high)}{tail}"
    if low is not None:
        return f"≥ {fmt(low)}{tail}"
    if high is not None:
        return f"≤ {fmt(high)}{tail}"
    return ""


# -- parsing ----------------------------------------------------------------------------------


def parse_schema(schema: Any) -> tuple[FormField, ...]:
    """The fields of a form request's ``requestedSchema``; ``UnsupportedSchema`` says what
    part cannot be shown (the request is then declined, never guessed at)."""
    if not isinstance(schema, Mapping):
        raise UnsupportedSchema("the requested schema is not an object")
    if schema.get("type", "object") != "object":
        raise UnsupportedSchema(
            f"the requested schema's type is {schema.get('type')!r}, not object"
        )
    properties = schema.get("properties", {})
    if not isinstance(properties, Mapping):
        raise UnsupportedSchema("the requested schema's properties are not an object")
    if len(properties) > MAX_FIELDS:
        raise UnsupportedSchema(f"the form has {len(properties)} fields (at most {MAX_FIELDS})")
    required = schema.get("required") or []
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        raise UnsupportedSchema("the requested schema's required list is not a list of names")
    missing = [r for r in required if r not in properties]
    if missing:
        raise UnsupportedSchema(f"required field(s) {', '.join(missing)} are not described")
    return tuple(
        _field(str(name), prop, str(name) in required) for name, prop in properties.items()
    )


def _field(name: str, prop: Any, required: bool) -> FormField:
    if not isinstance(prop, Mapping):
        raise UnsupportedSchema(f"field {name!r}: its schema is not an object")
    kind = prop.get("type")
    if "$ref" in prop:
        raise UnsupportedSchema(f"field {name!r}: a $ref (references are never followed)")
    if kind not in ("string", "number", "integer", "boolean", "array"):
        raise UnsupportedSchema(f"field {name!r}: unsupported type {kind!r}")
    unknown = sorted(k for k in prop if k not in _KNOWN_KEYS)
    if unknown:
        raise UnsupportedSchema(f"field {name!r}: unsupported keyword(s) {', '.join(unknown)}")
    title = _text(prop.get("title")) or name
    description = _text(prop.get("description"))
    base: dict[str, Any] = {
        "name": name,
        "title": title,
        "description": description,
        "required": required,
    }
    if kind == "string" and ("enum" in prop or "oneOf" in prop):
        f = FormField(kind="choice", options=_options(name, prop), **base)
    elif kind == "string":
        f = _string_field(name, prop, base)
    elif kind in ("number", "integer"):
        f = FormField(
            kind=kind,
            minimum=_number(name, prop, "minimum"),
            maximum=_number(name, prop, "maximum"),
            **base,
        )
        if f.minimum is not None and f.maximum is not None and f.minimum > f.maximum:
            raise UnsupportedSchema(f"field {name!r}: minimum is above maximum")
    elif kind == "boolean":
        f = FormField(kind="boolean", **base)
    elif kind == "array":
        items = prop.get("items")
        if not isinstance(items, Mapping) or items.get("type", "string") != "string":
            raise UnsupportedSchema(f"field {name!r}: only arrays of string choices")
        if "enum" not in items and "anyOf" not in items:
            raise UnsupportedSchema(f"field {name!r}: an array without choices (enum/anyOf)")
        f = FormField(
            kind="multi",
            options=_options(name, {"enum": items.get("enum"), "oneOf": items.get("anyOf")}),
            min_items=_count(name, prop, "minItems"),
            max_items=_count(name, prop, "maxItems"),
            **base,
        )
    else:
        raise UnsupportedSchema(f"field {name!r}: unsupported type {kind!r}")
    if "default" in prop and prop["default"] is not None:
        value, error = check_value(f, prop["default"])
        if error is not None:
            raise UnsupportedSchema(f"field {name!r}: its default does not fit ({error})")
        f = FormField(**{**f.__dict__, "default": value})
    return f


def _string_field(name: str, prop: Mapping[str, Any], base: dict[str, Any]) -> FormField:
    fmt = prop.get("format")
    if fmt is not None and fmt not in FORMATS:
        raise UnsupportedSchema(f"field {name!r}: unsupported format {fmt!r}")
    low, high = _count(name, prop, "minLength"), _count(name, prop, "maxLength")
    if low is not None and high is not None and low > high:
        raise UnsupportedSchema(f"field {name!r}: minLength is above maxLength")
    return FormField(kind="text", format=fmt, min_length=low, max_length=high, **base)


def _options(name: str, prop: Mapping[str, Any]) -> tuple[Option, ...]:
    enum, one_of, names = prop.get("enum"), prop.get("oneOf"), prop.get("enumNames")
    found: list[Option] = []
    if one_of is not None:
        if not isinstance(one_of, list):
            raise UnsupportedSchema(f"field {name!r}: its choices are not a list")
        for item in one_of:
            if not isinstance(item, Mapping) or not isinstance(item.get("const"), str):
                raise UnsupportedSchema(f"field {name!r}: a choice is not a string const")
            found.append(Option(item["const"], _text(item.get("title")) or item["const"]))
    elif enum is not None:
        if not isinstance(enum, list) or not all(isinstance(v, str) for v in enum):
            raise UnsupportedSchema(f"field {name!r}: its enum is not a list of strings")
        titles = names if isinstance(names, list) and len(names) == len(enum) else enum
        found = [Option(v, _text(t) or v) for v, t in zip(enum, titles, strict=True)]
    if not found:
        raise UnsupportedSchema(f"field {name!r}: no choices")
    if len(found) > MAX_OPTIONS:
        raise UnsupportedSchema(f"field {name!r}: {len(found)} choices (at most {MAX_OPTIONS})")
    if len({o.value for o in found}) != len(found):
        raise UnsupportedSchema(f"field {name!r}: the same choice twice")
    return tuple(found)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _number(name: str, prop: Mapping[str, Any], key: str) -> float | None:
    value = prop.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise UnsupportedSchema(f"field {name!r}: {key} is not a number")
    return value


def _count(name: str, prop: Mapping[str, Any], key: str) -> int | None:
    value = prop.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise UnsupportedSchema(f"field {name!r}: {key} is not a count")
    return value


# -- defaults and validation ------------------------------------------------------------------


def defaults(fields: Sequence[FormField]) -> dict[str, Value]:
    """Each field's default (SEP-1034), by name; fields without one are left out."""
    return {f.name: _copy(f.default) for f in fields if f.default is not None}


def _copy(value: Value) -> Value:
    return list(value) if isinstance(value, list) else value


def check_value(f: FormField, raw: Any) -> tuple[Value | None, str | None]:
    """``raw`` (what a form holds: text for text and number fields, a bool, the chosen value,
    a list of chosen values — or an already-typed value) as the field's value, or an error.
    An empty text gives ``(None, None)``: no value."""
    if f.kind == "boolean":
        if isinstance(raw, bool):
            return raw, None
        return None, "choose yes or no"
    if f.kind == "multi":
        if not isinstance(raw, list | tuple) or not all(isinstance(v, str) for v in raw):
            return None, "choose from the list"
        chosen = list(dict.fromkeys(raw))
        allowed = {o.value for o in f.options}
        bad = [v for v in chosen if v not in allowed]
        if bad:
            return None, f"not a choice: {', '.join(bad)}"
        if f.min_items is not None and len(chosen) < f.min_items:
            return None, f"choose at least {f.min_items}"
        if f.max_items is not None and len(chosen) > f.max_items:
            return None, f"choose at most {f.max_items}"
        return chosen, None
    if f.kind == "choice":
        if not isinstance(raw, str) or raw == "":
            return None, None if raw in ("", None) else "choose from the list"
        if raw not in {o.value for o in f.options}:
            return None, "not one of the choices"
        return raw, None
    if f.kind in ("number", "integer"):
        return _check_number(f, raw)
    return _check_text(f, raw)


def _check_number(f: FormField, raw: Any) -> tuple[Value | None, str | None]:
    number: int | float
    if isinstance(raw, bool):
        return None, f"enter {'an integer' if f.kind == 'integer' else 'a number'}"
    if isinstance(raw, int | float):
        number = raw
    elif isinstance(raw, str):
        text = raw.strip()
        if not text:
            return None, None
        try:
            number = int(text) if f.kind == "integer" else float(text)
        except ValueError:
            if f.kind == "integer":
                return None, "enter a whole number (like 3)"
            return None, "enter a number (like 2.5)"
    else:
        return None, "enter a number"
    if not math.isfinite(number):
        return None, "enter a finite number"
    if f.kind == "integer" and isinstance(number, float):
        if not number.is_integer():
            return None, "enter a whole number (like 3)"
        number = int(number)
    if f.minimum is not None and number < f.minimum:
        return None, f"at least {f.minimum:g}"
    if f.maximum is not None and number > f.maximum:
        return None, f"at most {f.maximum:g}"
    return number, None


def _check_text(f: FormField, raw: Any) -> tuple[Value | None, str | None]:
    if not isinstance(raw, str):
        return None, "enter text"
    if raw == "":
        return None, None
    if f.min_length is not None and len(raw) < f.min_length:
        return None, f"at least {f.min_length} characters"
    if f.max_length is not None and len(raw) > f.max_length:
        return None, f"at most {f.max_length} characters"
    if f.format == "email" and not EMAIL.match(raw):
        return None, "enter an email address (like name@example.com)"
    if f.format == "uri":
        parts = urlsplit(raw)
        if not parts.scheme or not (parts.netloc or parts.path):
            return None, "enter a URI (like https://example.com)"
    if f.format == "date":
        try:
            date.fromisoformat(raw)
        except ValueError:
            return None, "enter a date as YYYY-MM-DD"
    if f.format == "date-time":
        try:
            datetime.fromisoformat(raw.replace("Z", "+00:00"))
        except ValueError:
            return None, "enter a date and time as YYYY-MM-DDTHH:MM:SS"
    return raw, None


def check_answer(
    fields: Sequence[FormField], values: Mapping[str, Any]
) -> tuple[dict[str, Value], dict[str, str]]:
    """The content to send for ``values`` (by field name) and the errors, by field name.
    A field missing from ``values`` (or left empty) takes its default; a required field
    with neither is an error. Names that are not fields are ignored."""
    content: dict[str, Value] = {}
    errors: dict[str, str] = {}
    for f in fields:
        value: Value | None = None
        if f.name in values and values[f.name] is not None:
            value, error = check_value(f, values[f.name])
            if error is not None:
                errors[f.name] = error
                continue
        if value is None and f.default is not None:
            value = _copy(f.default)
        if value is None:
            if f.required:
                errors[f.name] = "required"
            continue
        content[f.name] = value
    return content, errors


__all__ = [
    "EMAIL",
    "FORMATS",
    "MAX_FIELDS",
    "MAX_OPTIONS",
    "FieldKind",
    "FormField",
    "Option",
    "TextFormat",
    "UnsupportedSchema",
    "Value",
    "check_answer",
    "check_value",
    "defaults",
    "parse_schema",
]
