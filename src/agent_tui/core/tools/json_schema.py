"""Raw JSON Schema inputs (MCP tools): check a schema, validate arguments against it.

Problems come back one line each, with the JSON path of the value like the pydantic errors of
``schema.describe_validation_error`` (``$.items[0].name: ...``). ``jsonschema`` is imported on
first use, so tools described by pydantic models never pay for it. Validators are compiled
once per schema (compiling costs far more than validating).
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from agent_tui.core.tools.schema import json_path

MAX_PROBLEMS = 20


def schema_problem(schema: Any) -> str | None:
    """Why ``schema`` cannot describe a tool input (not a valid JSON Schema, not an object
    schema), or None when it can."""
    if not isinstance(schema, dict):
        return f"the input schema is a {type(schema).__name__}, not a JSON object"
    kind = schema.get("type")
    if kind is not None and kind != "object":
        return f"the input schema has type {kind!r}; a tool input must be an object"
    try:
        _validator(json.dumps(schema, sort_keys=True))
    except Exception as exc:  # SchemaError, an unknown $schema dialect, a broken $ref ...
        message = getattr(exc, "message", None) or str(exc)
        return f"the input schema is not a valid JSON Schema: {message.splitlines()[0]}"
    return None


def validate_arguments(schema: dict[str, Any], arguments: Any) -> list[str]:
    """The problems of ``arguments`` against ``schema``; empty when they are valid.

    A schema that cannot be compiled or resolved validates nothing (the server will judge):
    tools with broken schemas stay callable.
    """
    try:
        validator = _validator(json.dumps(schema, sort_keys=True))
        errors = sorted(validator.iter_errors(arguments), key=lambda e: list(map(str, e.path)))
    except Exception:
        return []
    problems: list[str] = []
    for error in errors:
        problems.extend(_describe(error))
        if len(problems) >= MAX_PROBLEMS:
            return [*problems[:MAX_PROBLEMS], "... (more problems not shown)"]
    return problems


@lru_cache(maxsize=1024)
def _validator(schema_json: str) -> Any:
    from jsonschema.validators import Draft202012Validator, validator_for

    schema = json.loads(schema_json)
    cls = validator_for(schema, default=Draft202012Validator)
    cls.check_schema(schema)
    return cls(schema)


def _describe(error: Any) -> list[str]:
    path = tuple(error.absolute_path)
    kind = error.validator
    if kind == "required" and isinstance(error.instance, dict):
        missing = [name for name in error.validator_value if name not in error.instance]
        return [f"{json_path((*path, name))}: required field is missing" for name in missing]
    if kind == "additionalProperties" and isinstance(error.instance, dict):
        known = set(error.schema.get("properties", {}))
        patterns = error.schema.get("patternProperties", {})
        extra = [k for k in error.instance if k not in known and not patterns]
        if extra:
            return [f"{json_path((*path, k))}: unknown field (not in the schema)" for k in extra]
    shown = repr(error.instance)
    if len(shown) > 80:
        shown = shown[:77] + "..."
    message = error.message
    if len(message) > 200:
        message = message[:197] + "..."
    if shown not in message:
        message += f" (got {shown})"
    return [f"{json_path(path)}: {message}"]
