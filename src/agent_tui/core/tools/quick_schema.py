"""A quick acceptance test for the JSON Schemas most tools have, before ``jsonschema``.

``jsonschema`` walks a schema through generic machinery (a validator object per level,
generators per keyword): on a tool call with two string arguments that is most of what our
layer adds to an MCP call. Most tool schemas are a flat object of typed properties with
``required``, ``enum`` and a few bounds, so ``quick_check(schema)`` compiles such a schema into
a plain predicate. It is only ever a shortcut for the answer *valid*: the predicate returns
True only for arguments ``jsonschema`` also accepts (it is stricter where that is simpler:
an ``integer`` must be an ``int``, an ``enum`` value must have the same type as a member), and
False sends the arguments to ``jsonschema``, which decides and describes the problems. A schema
with any keyword this module does not know (``$ref``, ``pattern``, ``oneOf``, ``format`` is
fine: not asserted), or a dialect other than drafts 4, 6, 7, 2019-09 and 2020-12, gets None:
``jsonschema`` only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Predicate = Callable[[Any], bool]

DIALECTS = {
    "http://json-schema.org/draft-04/schema#",
    "http://json-schema.org/draft-06/schema#",
    "http://json-schema.org/draft-07/schema#",
    "http://json-schema.org/draft-04/schema",
    "http://json-schema.org/draft-06/schema",
    "http://json-schema.org/draft-07/schema",
    "https://json-schema.org/draft/2019-09/schema",
    "https://json-schema.org/draft/2020-12/schema",
}
ANNOTATIONS = {
    "title",
    "description",
    "default",
    "examples",
    "$comment",
    "deprecated",
    "readOnly",
    "writeOnly",
    "format",  # an annotation: the validators are built without a format checker
    "contentMediaType",
    "contentEncoding",
}
SCALAR_TYPES: dict[str, Predicate] = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: type(v) is int,
    "number": lambda v: type(v) is int or type(v) is float,
    "boolean": lambda v: type(v) is bool,
    "null": lambda v: v is None,
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
}
_SCALARS = (str, int, float, bool, type(None))


class _Unsupported(Exception):
    pass


def quick_check(schema: Any) -> Predicate | None:
    """A predicate that is True only for instances valid against ``schema`` (False: ask
    ``jsonschema``), or None when the schema is outside the subset handled here."""
    if not isinstance(schema, dict):
        return None
    dialect = schema.get("$schema")
    if dialect is not None and dialect not in DIALECTS:
        return None
    try:
        return _compile(schema, root=True)
    except _Unsupported:
        return None


def _compile(schema: Any, *, root: bool = False) -> Predicate:
    if schema is True or schema == {}:
        return lambda _v: True
    if not isinstance(schema, dict):
        raise _Unsupported
    checks: list[Predicate] = []
    for key, value in schema.items():
        if key in ANNOTATIONS or (root and key == "$schema"):
            continue
        checks.append(_keyword(key, value, schema))
    if not checks:
        return lambda _v: True
    if len(checks) == 1:
        return checks[0]
    return lambda v: all(check(v) for check in checks)


def _keyword(key: str, value: Any, schema: dict[str, Any]) -> Predicate:
    if key == "type":
        return _type(value)
    if key == "properties":
        return _properties(value)
    if key == "required":
        if not isinstance(value, list) or not all(isinstance(n, str) for n in value):
            raise _Unsupported
        names = tuple(value)
        return lambda v: not isinstance(v, dict) or all(n in v for n in names)
    if key == "additionalProperties":
        return _additional(value, schema.get("properties", {}))
    if key == "items" and isinstance(value, dict | bool):
        item = _compile(value)
        return lambda v: not isinstance(v, list) or all(item(x) for x in v)
    if key == "enum":
        return _enum(value)
    if key == "const":
        return _enum([value])
    if key in ("minLength", "maxLength", "minItems", "maxItems") and type(value) is int:
        return _length(key, value)
    if key in ("minimum", "maximum") and type(value) in (int, float):
        return _bound(key, value)
    raise _Unsupported


def _type(value: Any) -> Predicate:
    names = value if isinstance(value, list) else [value]
    if not names or not all(isinstance(n, str) and n in SCALAR_TYPES for n in names):
        raise _Unsupported
    tests = [SCALAR_TYPES[n] for n in names]
    if len(tests) == 1:
        return tests[0]
    return lambda v: any(test(v) for test in tests)


def _properties(value: Any) -> Predicate:
    if not isinstance(value, dict):
        raise _Unsupported
    compiled = [(name, _compile(sub)) for name, sub in value.items()]
    checked = [(name, check) for name, (check) in compiled if not _accepts_all(value[name])]
    return lambda v: (
        not isinstance(v, dict) or all(check(v[name]) for name, check in checked if name in v)
    )


def _accepts_all(schema: Any) -> bool:
    return schema is True or (isinstance(schema, dict) and set(schema) <= ANNOTATIONS)


def _additional(value: Any, properties: Any) -> Predicate:
    if not isinstance(properties, dict):
        raise _Unsupported
    known = frozenset(properties)
    if value is True:
        return lambda _v: True
    if value is False:
        return lambda v: not isinstance(v, dict) or known.issuperset(v)
    extra = _compile(value)
    return lambda v: (
        not isinstance(v, dict) or all(extra(item) for name, item in v.items() if name not in known)
    )


def _enum(value: Any) -> Predicate:
    if not isinstance(value, list) or not all(type(m) in _SCALARS for m in value):
        raise _Unsupported
    members = tuple((type(m), m) for m in value)
    return lambda v: any(type(v) is kind and v == m for kind, m in members)


def _length(key: str, bound: int) -> Predicate:
    kind = str if key.endswith("Length") else list
    if key.startswith("min"):
        return lambda v: not isinstance(v, kind) or len(v) >= bound
    return lambda v: not isinstance(v, kind) or len(v) <= bound


def _bound(key: str, bound: float) -> Predicate:
    def number(v: Any) -> bool:
        return type(v) is int or type(v) is float

    if key == "minimum":
        return lambda v: not number(v) or v >= bound
    return lambda v: not number(v) or v <= bound
