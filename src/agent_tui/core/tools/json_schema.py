"""Raw JSON Schema inputs (MCP tools): check a schema, validate arguments against it.

Problems come back one line each, with the JSON path of the value like the pydantic errors of
``schema.describe_validation_error`` (``$.items[0].name: ...``). ``jsonschema`` is imported on
first use, so tools described by pydantic models never pay for it. Validators are compiled
once per schema (compiling costs far more than validating); the registry keeps each tool's
``argument_checker``, and valid arguments of the common flat object schemas are accepted by a
compiled predicate (``quick_schema``) without the generic walk.

A schema never makes us fetch anything. The schemas come from MCP servers, which the security
model treats as possibly hostile, and ``jsonschema`` on its own still retrieves a remote
``$ref`` (``http://…``, ``file://…``) with ``urlopen`` — no timeout, on the event loop: a
server could make the agent request any URL it likes (SSRF) or hang it. So validators are built
on a ``referencing.Registry`` whose ``retrieve`` refuses every URI: only references inside the
schema itself resolve (``#/...``, ``$defs``, ``$id``-anchored subschemas, the JSON Schema
meta-schemas ``jsonschema`` ships). A schema with any other ``$ref`` is reported by
``schema_problem`` and refused by ``validate_arguments``, naming the reference.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from agent_tui.core.tools.quick_schema import quick_check
from agent_tui.core.tools.schema import json_path

log = logging.getLogger(__name__)

MAX_PROBLEMS = 20

_REF_KEYWORDS = ("$ref", "$dynamicRef", "$recursiveRef")
"""Keywords whose value is a reference the validator would look up."""


@dataclass(frozen=True)
class _BadRef:
    """A reference in a schema that does not resolve inside it."""

    ref: str
    keyword: str
    where: str
    """The JSON Pointer of the subschema holding it (``#/properties/a``)."""
    remote: bool
    """True when it names a document other than the schema (never fetched); False for a
    pointer or anchor that leads nowhere inside the schema."""

    def __str__(self) -> str:
        at = f"{self.keyword} at {self.where}"
        if self.remote:
            return (
                f"the input schema refers to {self.ref} ({at}), which is never fetched: only "
                "references inside the schema itself resolve (#/..., $defs, $id)"
            )
        return f"the input schema refers to {self.ref} ({at}), which is not in the schema"


@dataclass(frozen=True)
class _Compiled:
    validator: Any
    bad_ref: _BadRef | None


def schema_problem(schema: Any) -> str | None:
    """Why ``schema`` cannot describe a tool input (not a valid JSON Schema, not an object
    schema, a ``$ref`` that does not resolve inside it), or None when it can."""
    if not isinstance(schema, dict):
        return f"the input schema is a {type(schema).__name__}, not a JSON object"
    kind = schema.get("type")
    if kind is not None and kind != "object":
        return f"the input schema has type {kind!r}; a tool input must be an object"
    try:
        compiled = _compiled(json.dumps(schema, sort_keys=True))
    except Exception as exc:  # SchemaError, an unknown $schema dialect, hostile nesting ...
        message = getattr(exc, "message", None) or str(exc) or type(exc).__name__
        log.warning("an input schema is not a valid JSON Schema: %s", message.splitlines()[0])
        return f"the input schema is not a valid JSON Schema: {message.splitlines()[0]}"
    if compiled.bad_ref is not None:
        return str(compiled.bad_ref)
    return None


def validate_arguments(schema: dict[str, Any], arguments: Any) -> list[str]:
    """The problems of ``arguments`` against ``schema``; empty when they are valid.

    A schema that cannot be compiled validates nothing (the server will judge): tools with
    broken schemas stay callable. A schema whose ``$ref`` does not resolve inside it is one
    problem naming that reference: those arguments cannot be checked, and the reference is
    never fetched to check them.
    """
    return argument_checker(schema)(arguments)


Checker = Callable[[Any], list[str]]
"""``validate_arguments`` bound to one schema: ``checker(arguments) -> problems``."""


def argument_checker(schema: dict[str, Any]) -> Checker:
    """``validate_arguments`` for ``schema``, compiled now: the registry keeps one per tool,
    so a call neither serialises the schema (the compile cache's key) nor looks it up."""
    try:
        compiled = _compiled(json.dumps(schema, sort_keys=True))
    except Exception:
        log.warning(
            "an input schema could not be compiled: its arguments go unchecked", exc_info=True
        )
        return _no_problems
    if compiled.bad_ref is not None:
        problems = [_refused(str(compiled.bad_ref))]
        return lambda _arguments: list(problems)
    validator = compiled.validator
    quick = quick_check(schema)
    if quick is None:
        return lambda arguments: _check(validator, arguments)
    # Valid arguments (nearly every call) are accepted by the compiled predicate alone;
    # anything it does not accept gets jsonschema's verdict and problem list.
    return lambda arguments: [] if quick(arguments) else _check(validator, arguments)


def _no_problems(_arguments: Any) -> list[str]:
    return []


def _check(validator: Any, arguments: Any) -> list[str]:
    from referencing.exceptions import Unresolvable

    try:
        if validator.is_valid(arguments):  # the common case: no error objects, no sort
            return []
        found = validator.iter_errors(arguments)
        errors = sorted(found, key=lambda e: list(map(str, e.path)))
    except Unresolvable as exc:  # a reference the walk did not foresee: still never fetched
        return [_refused(f"the input schema refers to {exc.ref}, which does not resolve")]
    except Exception:
        log.exception("checking arguments against their input schema failed: passed unchecked")
        return []
    problems: list[str] = []
    for error in errors:
        problems.extend(_describe(error))
        if len(problems) >= MAX_PROBLEMS:
            return [*problems[:MAX_PROBLEMS], "... (more problems not shown)"]
    return problems


def _refused(why: str) -> str:
    return (
        f"$: {why}; the arguments cannot be checked against it, so the call is refused "
        "(calling again will not help: the tool's input schema must be fixed)"
    )


def _refuse(uri: str) -> Any:
    """The registry's ``retrieve``: every URI not already in the registry stays unresolved
    (no network, no file access)."""
    from referencing.exceptions import NoSuchResource

    raise NoSuchResource(ref=uri)  # type: ignore[call-arg]


@lru_cache(maxsize=1)
def _registry() -> Any:
    """The meta-schemas ``jsonschema`` ships, and nothing that could be fetched."""
    import referencing
    from jsonschema_specifications import REGISTRY as SPECIFICATIONS  # type: ignore[import-untyped]

    return SPECIFICATIONS.combine(referencing.Registry(retrieve=_refuse))  # type: ignore[call-arg]


@lru_cache(maxsize=1024)
def _compiled(schema_json: str) -> _Compiled:
    from jsonschema.validators import (  # type: ignore[import-untyped]
        Draft202012Validator,
        validator_for,
    )

    schema = json.loads(schema_json)
    cls = validator_for(schema, default=Draft202012Validator)
    cls.check_schema(schema)
    return _Compiled(cls(schema, registry=_registry()), _first_bad_ref(schema, cls))


def _first_bad_ref(schema: Any, cls: Any) -> _BadRef | None:
    """The first reference in ``schema`` that does not resolve inside it (nor to a shipped
    meta-schema), looked up where the validator would look it up: in the scope of the
    subschema that holds it (``$id`` changes the base URI)."""
    import referencing.jsonschema
    from referencing.exceptions import Unresolvable

    spec = referencing.jsonschema.specification_with(
        cls.ID_OF(cls.META_SCHEMA) or "", default=referencing.jsonschema.DRAFT202012
    )
    root = spec.create_resource(schema)
    pointers = dict(_pointers(schema))
    todo = [(root, _registry().resolver_with_root(root))]
    while todo:
        resource, resolver = todo.pop()
        contents = resource.contents
        if isinstance(contents, dict):
            for keyword in _REF_KEYWORDS:
                ref = contents.get(keyword)
                if not isinstance(ref, str):
                    continue
                try:
                    resolver.lookup(ref)
                except Unresolvable as exc:
                    # PointerToNowhere, NoSuchAnchor: the document is there, the place is not
                    remote = type(exc) is Unresolvable
                    return _BadRef(ref, keyword, pointers.get(id(contents), "#"), remote)
        for sub in spec.subresources_of(contents):
            child = spec.create_resource(sub)
            todo.append((child, resolver.in_subresource(child)))
    return None


def _pointers(value: Any, pointer: str = "#") -> Iterator[tuple[int, str]]:
    """(id of each object or array in ``value``, its JSON Pointer), iteratively."""
    stack = [(value, pointer)]
    while stack:
        node, where = stack.pop()
        if isinstance(node, dict):
            yield id(node), where
            stack.extend((v, f"{where}/{_escape(str(k))}") for k, v in node.items())
        elif isinstance(node, list):
            yield id(node), where
            stack.extend((v, f"{where}/{i}") for i, v in enumerate(node))


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


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
