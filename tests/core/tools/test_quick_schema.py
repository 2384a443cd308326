"""The quick acceptance predicate never accepts what ``jsonschema`` rejects (it may only be
stricter), on generated schemas of the subset it compiles and generated JSON values; schemas
outside the subset are left to ``jsonschema``; registry calls still get jsonschema's problems."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from jsonschema.validators import validator_for

from agent_tui.core.tools.json_schema import argument_checker, validate_arguments
from agent_tui.core.tools.quick_schema import quick_check

TYPES = ["string", "integer", "number", "boolean", "null", "object", "array"]
DIALECTS = [
    None,
    "http://json-schema.org/draft-04/schema#",
    "http://json-schema.org/draft-07/schema#",
    "https://json-schema.org/draft/2020-12/schema",
]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5),
    st.floats(-5, 5, allow_nan=False),
    st.sampled_from([0.0, 1.0, 2.0, -1.0]),
    st.text(max_size=4),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.sampled_from("abcd"), inner, max_size=4)
    ),
    max_leaves=8,
)


def _leaf_schema() -> st.SearchStrategy[dict[str, Any]]:
    type_ = st.one_of(st.sampled_from(TYPES), st.lists(st.sampled_from(TYPES), min_size=1))
    parts = st.fixed_dictionaries(
        {},
        optional={
            "type": type_,
            "enum": st.lists(scalars, min_size=1, max_size=4),
            "const": scalars,
            "minLength": st.integers(0, 3),
            "maxLength": st.integers(0, 3),
            "minItems": st.integers(0, 2),
            "maxItems": st.integers(0, 2),
            "minimum": st.one_of(st.integers(-3, 3), st.floats(-3, 3, allow_nan=False)),
            "maximum": st.one_of(st.integers(-3, 3), st.floats(-3, 3, allow_nan=False)),
            "description": st.text(max_size=5),
            "format": st.sampled_from(["uri", "date-time", "email"]),
        },
    )
    return parts


schemas = st.recursive(
    _leaf_schema(),
    lambda inner: st.fixed_dictionaries(
        {"type": st.just("object")},
        optional={
            "properties": st.dictionaries(st.sampled_from("abcd"), inner, max_size=4),
            "required": st.lists(st.sampled_from("abcd"), max_size=3, unique=True),
            "additionalProperties": st.one_of(st.booleans(), inner),
            "items": inner,
        },
    ),
    max_leaves=6,
)


@settings(max_examples=400, deadline=None)
@given(schema=schemas, dialect=st.sampled_from(DIALECTS), instance=values)
def test_what_the_predicate_accepts_jsonschema_accepts(
    schema: dict[str, Any], dialect: str | None, instance: Any
) -> None:
    if dialect is not None:
        schema = {"$schema": dialect, **schema}
    cls = validator_for(schema)
    assume(cls(cls.META_SCHEMA).is_valid(schema))  # e.g. draft 4 wants a non-empty required
    quick = quick_check(schema)
    assert quick is not None, schema  # every generated schema is in the subset
    if quick(instance):
        assert cls(schema).is_valid(instance), (schema, instance)


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"a": {"$ref": "#/$defs/x"}}, "$defs": {"x": {}}},
        {"type": "object", "properties": {"a": {"type": "string", "pattern": "^a"}}},
        {"type": "object", "oneOf": [{"required": ["a"]}]},
        {"$schema": "http://json-schema.org/draft-03/schema#", "type": "object"},
        {"type": "object", "patternProperties": {"^x": {"type": "integer"}}},
        {"type": "object", "properties": {"n": {"type": "number", "exclusiveMinimum": 0}}},
    ],
)
def test_schemas_outside_the_subset_go_to_jsonschema_alone(schema: dict[str, Any]) -> None:
    assert quick_check(schema) is None


def test_the_checker_still_describes_problems_like_jsonschema() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": "integer"}, "kind": {"enum": ["x", "y"]}},
        "required": ["a"],
        "additionalProperties": False,
    }
    quick = quick_check(schema)
    assert quick is not None
    assert quick({"a": 1, "kind": "x"})
    assert not quick({"a": 1.0})
    check = argument_checker(schema)
    assert check({"a": 1, "kind": "x"}) == []
    assert check({"a": 1.0}) == []  # stricter predicate, jsonschema's verdict: valid
    for bad in ({}, {"a": "1"}, {"a": 1, "kind": "z"}, {"a": 1, "other": True}):
        assert check(bad) == validate_arguments(json.loads(json.dumps(schema)), bad) != []
    assert any("kind" in p for p in check({"a": 1, "kind": "z"}))
