"""JSON Schema for tool inputs, as models see it, and schema errors as JSON paths."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic.version import VERSION as PYDANTIC_VERSION

STORED = Path(__file__).with_name("stored_schemas.json")
"""The built-in tools' ``schema_text``, made ahead (issue 45): a start that sends the tools
array builds none of their models for it (~1.5 ms of CPU a model, and what they hold), and a
model is built by its first call. Each is used only when made by this pydantic version for a
model of the same fields; ``tests/core/tools/test_stored_schemas.py`` checks that every one is
what pydantic makes now, and rewrites the file when run as a module."""


def _strip_titles(node: Any) -> Any:
    """Drop pydantic's auto-generated ``title`` keys and ``"additionalProperties": true`` (what
    JSON Schema assumes anyway, e.g. a ``dict[str, Any]``): tokens the model does not need."""
    if isinstance(node, dict):
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key == "title" and isinstance(value, str):
                continue
            if key == "additionalProperties" and value is True:
                continue
            if key == "properties" and isinstance(value, dict):
                out[key] = {name: _strip_titles(prop) for name, prop in value.items()}
            else:
                out[key] = _strip_titles(value)
        return out
    if isinstance(node, list):
        return [_strip_titles(item) for item in node]
    return node


def input_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The JSON Schema the model sees for a tool input model (an ``object`` schema): a new
    dict each call, read from the model's schema made once (``schema_text``)."""
    schema: dict[str, Any] = json.loads(schema_text(model))
    return schema


@functools.lru_cache(maxsize=1024)
def schema_text(model: type[BaseModel]) -> str:
    """``input_schema`` of ``model`` as JSON, made once per model class: pydantic's
    ``model_json_schema`` (~0.5 ms a model) is not cached by pydantic, and every change of a
    registry (an MCP server connecting) had it remade for every built-in tool. The models'
    schemas are static (no hook makes them depend on anything but the class). A built-in
    tool's is read from ``STORED``."""
    stored = _stored().get(model_name(model))
    if stored is not None and stored["fields"] == list(model.model_fields):
        return str(stored["schema"])
    return made_schema_text(model)


def model_name(model: type[BaseModel]) -> str:
    return f"{model.__module__}.{model.__qualname__}"


@functools.cache
def _stored() -> dict[str, dict[str, Any]]:
    """``STORED``'s schemas by model name; none when pydantic is another version (its schemas
    may differ) or the file cannot be read."""
    try:
        data = json.loads(STORED.read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("pydantic") != PYDANTIC_VERSION:
        return {}
    schemas = data.get("schemas")
    return schemas if isinstance(schemas, dict) else {}


def made_schema_text(model: type[BaseModel]) -> str:
    """``schema_text`` as pydantic makes it (builds ``model``)."""
    schema: dict[str, Any] = _strip_titles(model.model_json_schema())
    schema.setdefault("type", "object")
    schema.setdefault("properties", {})
    return json.dumps(schema, ensure_ascii=False)


def json_path(loc: tuple[int | str, ...]) -> str:
    """``("edits", 0, "path")`` -> ``$.edits[0].path``."""
    out = "$"
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def describe_validation_error(error: ValidationError, at: tuple[int | str, ...] = ()) -> list[str]:
    """One line per problem: the JSON path, what is wrong, and what was given. ``at`` is where
    the validated value sits in a larger document (``("ui",)``: paths read ``$.ui.theme``)."""
    lines = []
    for problem in error.errors(include_url=False):
        path = json_path((*at, *problem.get("loc", ())))
        message = problem.get("msg", "invalid")
        kind = problem.get("type", "")
        if kind == "missing":
            lines.append(f"{path}: required field is missing")
        elif kind == "extra_forbidden":
            lines.append(f"{path}: unknown field (not in the schema)")
        else:
            if kind == "value_error" and "error" in problem.get("ctx", {}):
                message = str(problem["ctx"]["error"])  # a validator's own words, no prefix
            given = problem.get("input")
            shown = repr(given)
            if len(shown) > 80:
                shown = shown[:77] + "..."
            got = "" if shown in message else f" (got {shown})"
            lines.append(f"{path}: {message}{got}")
    return lines
