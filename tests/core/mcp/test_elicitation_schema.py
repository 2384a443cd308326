"""Requested schemas to typed form fields, SEP-1034 defaults, and validation of answers."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_tui.core.mcp.client.elicitation import (
    FormRequest,
    accept_defaults,
    from_params,
    url_request,
)
from agent_tui.core.mcp.client.elicitation_form import (
    FormField,
    UnsupportedSchema,
    check_answer,
    check_value,
    defaults,
    parse_schema,
)


def form(**props: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props}


def test_every_kind_is_typed() -> None:
    fields = parse_schema(
        {
            "type": "object",
            "properties": {
                "name": {"type": "string", "title": "Your name", "minLength": 2},
                "mail": {"type": "string", "format": "email"},
                "site": {"type": "string", "format": "uri"},
                "born": {"type": "string", "format": "date"},
                "n": {"type": "integer", "minimum": 1, "maximum": 9},
                "x": {"type": "number"},
                "ok": {"type": "boolean", "default": False},
                "plan": {"type": "string", "enum": ["a", "b"], "enumNames": ["A", "B"]},
                "col": {"type": "string", "oneOf": [{"const": "r", "title": "Red"}]},
                "tags": {
                    "type": "array",
                    "items": {"anyOf": [{"const": "t", "title": "T"}]},
                    "maxItems": 1,
                },
            },
            "required": ["name"],
        }
    )
    by = {f.name: f for f in fields}
    assert [f.name for f in fields] == [
        "name",
        "mail",
        "site",
        "born",
        "n",
        "x",
        "ok",
        "plan",
        "col",
        "tags",
    ]
    assert by["name"].title == "Your name"
    assert by["name"].required
    assert by["name"].min_length == 2
    assert by["mail"].format == "email"
    assert by["born"].format == "date"
    assert (by["n"].kind, by["n"].minimum, by["n"].maximum) == ("integer", 1, 9)
    assert by["x"].kind == "number"
    assert by["ok"].default is False
    assert [(o.value, o.title) for o in by["plan"].options] == [("a", "A"), ("b", "B")]
    assert [(o.value, o.title) for o in by["col"].options] == [("r", "Red")]
    assert by["tags"].kind == "multi"
    assert by["tags"].max_items == 1
    assert by["n"].hint() == "integer 1–9"


@pytest.mark.parametrize(
    ("schema", "says"),
    [
        ("nope", "not an object"),
        ({"type": "array"}, "not object"),
        (form(o={"type": "object"}), "unsupported type 'object'"),
        (form(o={"type": "string", "pattern": "^a"}), "unsupported keyword(s) pattern"),
        (form(o={"type": "string", "format": "ipv6"}), "unsupported format"),
        (form(o={"$ref": "#/x"}), "$ref"),
        (form(o={"type": "string", "enum": [1, 2]}), "not a list of strings"),
        (form(o={"type": "string", "enum": ["a", "a"]}), "the same choice twice"),
        (form(o={"type": "integer", "minimum": 5, "maximum": 1}), "minimum is above maximum"),
        (form(o={"type": "integer", "default": 2.5}), "its default does not fit"),
        (form(o={"type": "string", "enum": ["a"], "default": "z"}), "its default does not fit"),
        (form(o={"type": "array", "items": {"type": "number"}}), "only arrays of string"),
        ({"type": "object", "properties": {}, "required": ["ghost"]}, "ghost"),
    ],
)
def test_what_cannot_be_shown_is_refused_with_a_reason(schema: Any, says: str) -> None:
    with pytest.raises(UnsupportedSchema, match=None) as caught:
        parse_schema(schema)
    assert says in str(caught.value)


def test_defaults_apply_as_sep1034_says() -> None:
    fields = parse_schema(
        form(
            name={"type": "string", "default": "John Doe"},
            age={"type": "integer", "default": 30},
            score={"type": "number", "default": 95.5},
            status={"type": "string", "enum": ["active", "inactive"], "default": "active"},
            verified={"type": "boolean", "default": True},
            free={"type": "string"},
        )
    )
    want = {"name": "John Doe", "age": 30, "score": 95.5, "status": "active", "verified": True}
    assert defaults(fields) == want
    # a field left out (or empty) of the answer gets its default; one without stays out
    assert check_answer(fields, {}) == (want, {})
    assert check_answer(fields, {"name": "", "free": ""}) == (want, {})
    answer = accept_defaults(FormRequest("s", "m", fields))
    assert answer.action == "accept"
    assert answer.content == want


def test_errors_are_per_field_and_clear() -> None:
    fields = parse_schema(
        {
            "type": "object",
            "properties": {
                "mail": {"type": "string", "format": "email"},
                "n": {"type": "integer", "minimum": 1, "maximum": 9},
                "x": {"type": "number"},
                "d": {"type": "string", "format": "date"},
                "s": {"type": "string", "maxLength": 3},
                "must": {"type": "string"},
                "tags": {
                    "type": "array",
                    "items": {"type": "string", "enum": ["a", "b"]},
                    "minItems": 1,
                },
            },
            "required": ["must"],
        }
    )
    content, errors = check_answer(
        fields,
        {"mail": "x", "n": "2.5", "x": "abc", "d": "31/12/2020", "s": "long", "tags": []},
    )
    assert content == {}
    assert errors == {
        "mail": "enter an email address (like name@example.com)",
        "n": "enter a whole number (like 3)",
        "x": "enter a number (like 2.5)",
        "d": "enter a date as YYYY-MM-DD",
        "s": "at most 3 characters",
        "must": "required",
        "tags": "choose at least 1",
    }
    content, errors = check_answer(
        fields,
        {"mail": "a@b.co", "n": "9", "x": "-1e3", "d": "2020-12-31", "must": "y", "tags": ["b"]},
    )
    assert errors == {}
    assert content == {
        "mail": "a@b.co",
        "n": 9,
        "x": -1000.0,
        "d": "2020-12-31",
        "must": "y",
        "tags": ["b"],
    }


def test_urls_must_be_http_with_a_plain_host() -> None:
    request = url_request("srv", "go", "https://xn--pple-43d.com/login", None)
    assert request.domain == "xn--pple-43d.com"
    assert url_request("srv", "go", "https://аpple.com/", None).domain == "xn--pple-43d.com"
    for bad, says in [
        ("javascript:alert(1)", "scheme"),
        ("file:///etc/passwd", "scheme"),
        ("https://user:pw@example.com/", "user name or password"),
        ("https:///nohost", "no host"),
    ]:
        with pytest.raises(UnsupportedSchema) as caught:
            url_request("srv", "go", bad, None)
        assert says in str(caught.value)


class _Params:
    def __init__(self, **kw: Any) -> None:
        self.__dict__.update(kw)


def test_params_of_both_modes() -> None:
    form_request = from_params("s", _Params(mode="form", message="m", requested_schema=form()))
    assert isinstance(form_request, FormRequest)
    assert form_request.fields == ()
    with pytest.raises(UnsupportedSchema, match="mode"):
        from_params("s", _Params(mode="telepathy", message="m"))


# -- properties -------------------------------------------------------------------------------

bounds = st.one_of(st.none(), st.integers(-1000, 1000))


@given(low=bounds, high=bounds, raw=st.text(max_size=12))
def test_a_number_that_passes_is_within_bounds(low: int | None, high: int | None, raw: str) -> None:
    if low is not None and high is not None and low > high:
        low, high = high, low
    f = FormField("n", "integer", "n", minimum=low, maximum=high)
    value, error = check_value(f, raw)
    if error is None and value is not None:
        assert isinstance(value, int)
        assert not isinstance(value, bool)
        assert low is None or value >= low
        assert high is None or value <= high


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=5),
        lambda inner: (
            st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
        ),
        max_leaves=20,
    )
)
def test_any_schema_parses_or_is_refused(schema: Any) -> None:
    try:
        fields = parse_schema({"type": "object", "properties": {"f": schema}})
    except UnsupportedSchema:
        return
    _content, errors = check_answer(fields, defaults(fields))
    assert not errors or set(errors) == {"f"}


@given(
    st.dictionaries(
        st.sampled_from(["a", "b", "n", "ok"]), st.text(max_size=6) | st.booleans(), max_size=4
    )
)
def test_accepted_content_always_fits_the_schema(values: dict[str, Any]) -> None:
    fields = parse_schema(
        form(
            a={"type": "string", "maxLength": 4},
            b={"type": "string", "enum": ["x", "y"]},
            n={"type": "number", "minimum": 0},
            ok={"type": "boolean"},
        )
    )
    content, _errors = check_answer(fields, values)
    for name, value in content.items():
        field = next(f for f in fields if f.name == name)
        assert check_value(field, value) == (value, None)
