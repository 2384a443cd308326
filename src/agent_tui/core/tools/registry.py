"""The tool registry: the single source of truth for what the model sees and what runs.

``dispatch`` never raises (except to propagate cancellation): an unknown tool, arguments that
are not JSON, a schema violation, a handler exception or a timeout each comes back as a
structured ``ToolErrorInfo`` the model can read and act on.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from agent_tui.core.calls import ToolCall
from agent_tui.core.text.utf8 import clean, clean_text, encodable, first_surrogate
from agent_tui.core.tools import errors as codes
from agent_tui.core.tools.aliases import AliasRefused
from agent_tui.core.tools.base import Tool, ToolContext, ToolOutput
from agent_tui.core.tools.errors import ToolErrorInfo, ToolFailure

if TYPE_CHECKING:
    from agent_tui.core.budget.raw import RawOutput
    from agent_tui.core.tools.json_schema import Checker
from agent_tui.core.tools.schema import describe_validation_error, input_schema

log = logging.getLogger(__name__)

UnknownExplainer = Callable[[str], ToolErrorInfo | None]
"""``explain(name)``: why there is no tool ``name`` when its owner knows (the MCP manager, for
``mcp__<server>__…`` of a server that failed to start), else None ("unknown tool")."""


@dataclass
class DispatchOutcome:
    """Either ``output`` (the call ran) or ``error`` (it failed before or while running)."""

    tool: Tool[Any] | None
    output: ToolOutput | None = None
    error: ToolErrorInfo | None = None
    raw: RawOutput | None = None
    """With ``error``: the exact output of the failed call, for its spill (``ToolFailure``)."""
    footer: str = ""
    """With ``error``: the end of its message every excerpt keeps."""

    @property
    def ok(self) -> bool:
        return self.error is None


@dataclass
class PreparedCall:
    """A call whose tool was found and whose input validated, ready to run."""

    tool: Tool[Any]
    input: BaseModel


class ToolRegistry:
    """One entry per tool. Wire-format tool arrays are sorted by name and byte-stable."""

    def __init__(self, tools: Iterable[Tool[Any]] = ()) -> None:
        self._tools: dict[str, Tool[Any]] = {}
        self._aliases: dict[str, str] = {}
        self._cache: dict[str, str] = {}
        self._checkers: dict[str, tuple[Tool[Any], Checker, frozenset[str]]] = {}
        """Per tool name: the compiled checker of its raw JSON Schema, the optional properties
        whose schema refuses null (``null_free_optionals``), and the entry they are of."""
        self._explainers: list[UnknownExplainer] = []
        for tool in tools:
            self.register(tool)

    # -- membership -------------------------------------------------------------------------

    def register(self, tool: Tool[Any]) -> None:
        others = [*tool.aliases, *(alias.name for alias in tool.call_aliases)]
        for name in [tool.name, *others]:
            if name in self._tools or name in self._aliases:
                raise ValueError(f"tool name {name!r} is already registered")
        self._tools[tool.name] = tool
        for alias in others:
            self._aliases[alias] = tool.name
        self._cache.clear()
        self._checkers.pop(tool.name, None)

    def unregister(self, name: str) -> None:
        tool = self._tools.pop(name)
        for alias in [*tool.aliases, *(alias.name for alias in tool.call_aliases)]:
            self._aliases.pop(alias, None)
        self._cache.clear()
        self._checkers.pop(name, None)

    def add_unknown_explainer(self, explain: UnknownExplainer) -> Callable[[], None]:
        """Ask ``explain(name)`` first when a call names no registered tool; its answer (when
        not None) is the call's error instead of "unknown tool". Returns a remover."""
        self._explainers.append(explain)
        return lambda: self._explainers.remove(explain) if explain in self._explainers else None

    def explain_unknown(self, name: str) -> ToolErrorInfo | None:
        """Why there is no tool ``name``, from the explainers (None: none knows)."""
        for explain in self._explainers:
            try:
                info = explain(name)
            except Exception:  # an explainer must never break dispatch
                log.exception("explaining the unknown tool %r failed", name)
                continue
            if info is not None:
                return info
        return None

    def get(self, name: str) -> Tool[Any] | None:
        """Look a tool up by name or alias."""
        return self._tools.get(name) or self._tools.get(self._aliases.get(name, ""))

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.get(name) is not None

    def __iter__(self) -> Iterator[Tool[Any]]:
        return iter(self.tools())

    def __len__(self) -> int:
        return len(self._tools)

    def names(self) -> list[str]:
        return sorted(self._tools)

    def tools(self) -> list[Tool[Any]]:
        return [self._tools[name] for name in self.names()]

    def closest(self, name: str, n: int = 3) -> list[str]:
        """Registered names that look like ``name`` (for "did you mean")."""
        import difflib  # only a mistaken name asks (issue 45: not on every start)

        pool = [*self._tools, *self._aliases]
        found = difflib.get_close_matches(name, pool, n=n, cutoff=0.5)
        if not found:
            lowered = name.lower()
            found = [p for p in sorted(pool) if lowered in p.lower() or p.lower() in lowered][:n]
        return found

    # -- wire formats -----------------------------------------------------------------------

    def openai_tools(self) -> list[dict[str, Any]]:
        """The Chat Completions ``tools`` array."""
        tools: list[dict[str, Any]] = json.loads(self.openai_tools_json())
        return tools

    def anthropic_tools(self) -> list[dict[str, Any]]:
        """The Messages API ``tools`` array."""
        tools: list[dict[str, Any]] = json.loads(self.anthropic_tools_json())
        return tools

    def openai_tools_json(self) -> str:
        if "openai" not in self._cache:
            array = [
                {
                    "type": "function",
                    "function": {
                        "name": t.name,
                        "description": t.description,
                        "parameters": tool_schema(t),
                    },
                }
                for t in self.tools()
            ]
            self._cache["openai"] = json.dumps(array, ensure_ascii=False, separators=(",", ":"))
        return self._cache["openai"]

    def anthropic_tools_json(self) -> str:
        if "anthropic" not in self._cache:
            array = [
                {
                    "name": t.name,
                    "description": t.description,
                    "input_schema": tool_schema(t),
                }
                for t in self.tools()
            ]
            self._cache["anthropic"] = json.dumps(array, ensure_ascii=False, separators=(",", ":"))
        return self._cache["anthropic"]

    # -- dispatch ---------------------------------------------------------------------------

    def prepare(self, name: str, raw_arguments: str | None) -> PreparedCall | ToolErrorInfo:
        """Find the tool and validate the arguments, without running anything."""
        tool = self.get(name)
        if tool is None:
            explained = self.explain_unknown(name) if self._explainers else None
            if explained is not None:
                return explained
            suggestions = self.closest(name)
            hint = (
                f"Did you mean {', '.join(suggestions)}? " if suggestions else ""
            ) + f"Call one of the available tools: {', '.join(self.names())}."
            return ToolErrorInfo(
                code=codes.UNKNOWN_TOOL,
                message=f"There is no tool named {name!r}.",
                next_step=hint,
                retryable=False,
                details=[f"closest: {s}" for s in suggestions],
            )
        text = raw_arguments if raw_arguments and raw_arguments.strip() else "{}"
        try:
            arguments = json.loads(text)
        except json.JSONDecodeError as exc:
            excerpt = text if len(text) <= 200 else text[:200] + "..."
            return ToolErrorInfo(
                code=codes.INVALID_JSON,
                message=f"The arguments for {tool.name} are not valid JSON: {exc.msg} "
                f"at line {exc.lineno} column {exc.colno}.",
                next_step="Send the arguments again as one JSON object matching the tool's "
                "input schema (escape quotes and newlines inside strings).",
                retryable=True,
                details=[f"received: {excerpt}"],
            )
        if not isinstance(arguments, dict):
            return ToolErrorInfo(
                code=codes.INVALID_ARGUMENTS,
                message=f"The arguments for {tool.name} must be a JSON object, "
                f"not {type(arguments).__name__}.",
                next_step='Send an object such as {"name": value, ...} matching the schema.',
                retryable=True,
            )
        # A lone surrogate in the parsed arguments comes from a \\u escape or from the text
        # itself: most arguments have neither, and skip the walk over every value.
        surrogate = first_surrogate(arguments) if _may_hold_surrogate(text) else None
        if surrogate is not None:
            return ToolErrorInfo(
                code=codes.INVALID_ARGUMENTS,
                message=f"The arguments for {tool.name} contain the escape "
                f"\\u{ord(surrogate):04x}, a lone UTF-16 surrogate: it is not a character "
                "and cannot be written as UTF-8.",
                next_step="Send the arguments again with text only (for a byte that is not "
                "valid UTF-8 in a file, edit the text around it; to write such bytes, use "
                "run_shell, e.g. printf).",
                retryable=True,
            )
        try:  # Claude Code's names and shapes: before anything judges them
            arguments = _as_ours(tool, name, arguments)
        except AliasRefused as refused:
            return ToolErrorInfo(
                code=codes.INVALID_ARGUMENTS,
                message=f"The arguments for {tool.name} (called as {name}) cannot be run "
                f"here: {refused.field} has no equivalent.",
                next_step=f"Call {tool.name} again without {refused.field} "
                "(see details for why and what to do instead).",
                retryable=True,
                details=[f"$.{refused.field}: {refused.reason}"],
            )
        parsed: BaseModel | None = None
        problems = []
        if tool.input_schema is not None:  # a raw JSON Schema (MCP tools) is checked first
            checker, droppable = self._checker(tool)
            if droppable:  # "omit null": a model's null for an optional it may leave out
                for key in [k for k, v in arguments.items() if v is None and k in droppable]:
                    del arguments[key]
            problems = checker(arguments)
        if not problems:
            try:
                parsed = tool.input_model.model_validate(arguments)
            except ValidationError as exc:
                problems = describe_validation_error(exc)
        if parsed is None:
            return ToolErrorInfo(
                code=codes.INVALID_ARGUMENTS,
                message=f"The arguments for {tool.name} do not match its input schema "
                f"({len(problems)} problem{'s' if len(problems) != 1 else ''}).",
                next_step="Fix the fields listed in details and call the tool again.",
                retryable=True,
                details=problems,
            )
        return PreparedCall(tool=tool, input=parsed)

    def as_ours(self, call: ToolCall) -> ToolCall:
        """``call`` as a call of our tool when the model named it by another tool's name
        (Claude Code's ``Bash``): our name, and its arguments in our shape when they can be
        read (else as sent: ``prepare`` says what is wrong). Any other call as it is. What the
        card, the results and the transcript's records show; the conversation keeps the
        model's own call, which is what it is sent again.

        A proxy call (``run_tool(name, input)``) whose input is valid is the call of its
        target (``mcp__github__create_issue`` with its own input): the proxy is a wrapper, and
        what the user approves and sees is the tool it calls."""
        tool = self.get(call.name)
        if tool is not None and tool.proxy is not None:
            return self._proxied(call)
        if tool is None or tool.call_alias(call.name) is None:
            return call
        arguments = call.parsed_arguments()
        if arguments is None:
            return ToolCall(id=call.id, name=tool.name, arguments=call.arguments)
        try:
            arguments = _as_ours(tool, call.name, arguments)
        except AliasRefused:
            return ToolCall(id=call.id, name=tool.name, arguments=call.arguments)
        text = json.dumps(arguments, ensure_ascii=False, separators=(",", ":"))
        return ToolCall(id=call.id, name=tool.name, arguments=text)

    def _proxied(self, call: ToolCall) -> ToolCall:
        """The call a proxy call makes, when its input is valid and names a tool that is not
        a proxy; else the call as it is (``partition.resolve_proxy`` says what is wrong)."""
        prepared = self.prepare(call.name, call.arguments)
        if isinstance(prepared, ToolErrorInfo) or prepared.tool.proxy is None:
            return call
        name, arguments = prepared.tool.proxy(prepared.input)
        target = self.get(name)
        if target is None or target.proxy is not None:
            return call
        return ToolCall(id=call.id, name=target.name, arguments=arguments)

    def _checker(self, tool: Tool[Any]) -> tuple[Checker, frozenset[str]]:
        """The compiled checker of ``tool``'s raw schema and the optional properties whose
        null may be dropped, made on its first call."""
        cached = self._checkers.get(tool.name)
        if cached is not None and cached[0] is tool:
            return cached[1], cached[2]
        assert tool.input_schema is not None
        from agent_tui.core.tools.json_schema import argument_checker  # raw schemas only (MCP)

        checker = argument_checker(tool.input_schema)
        droppable = null_free_optionals(tool.input_schema)
        self._checkers[tool.name] = (tool, checker, droppable)
        return checker, droppable

    async def run(self, prepared: PreparedCall, ctx: ToolContext) -> DispatchOutcome:
        """Run a prepared call; exceptions and timeouts become structured errors."""
        tool = prepared.tool
        deadline = asyncio.timeout(tool.timeout)
        try:
            async with deadline:
                output = await tool.call(prepared.input, ctx)
        except ToolFailure as failure:
            return DispatchOutcome(
                tool=tool, error=failure.info, raw=failure.raw, footer=failure.footer
            )
        except TimeoutError as exc:
            if not deadline.expired():  # the handler's own timeout: an ordinary failure
                return DispatchOutcome(tool=tool, error=_exception_info(tool.name, exc))
            return DispatchOutcome(
                tool=tool,
                error=ToolErrorInfo(
                    code=codes.TIMEOUT,
                    message=f"{tool.name} did not finish within {tool.timeout:g} seconds "
                    "and was stopped.",
                    next_step="Narrow the request (smaller path, fewer files) and try again.",
                    retryable=True,
                ),
            )
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a handler bug must not kill the loop
            log.exception("tool %s raised", tool.name)
            return DispatchOutcome(tool=tool, error=_exception_info(tool.name, exc))
        return DispatchOutcome(tool=tool, output=_encodable(output))

    async def dispatch(
        self, name: str, raw_arguments: str | None, ctx: ToolContext
    ) -> DispatchOutcome:
        """Prepare and run one call. Never raises except ``CancelledError``."""
        prepared = self.prepare(name, raw_arguments)
        if isinstance(prepared, ToolErrorInfo):
            return DispatchOutcome(tool=self.get(name), error=prepared)
        return await self.run(prepared, ctx)


def _as_ours(tool: Tool[Any], name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """``arguments`` of a call of ``tool`` named ``name`` in the tool's own shape: the call
    alias's rewrite, then the tool's input aliases. ``AliasRefused``: a field it cannot honour."""
    alias = tool.call_alias(name)
    if alias is not None:
        arguments = alias.rewrite(arguments)
    if tool.input_aliases is not None:
        arguments = tool.input_aliases(arguments)
    return arguments


def null_free_optionals(schema: Any) -> frozenset[str]:
    """The top-level properties of ``schema`` that are optional (not in ``required``) and
    whose own schema surely refuses null (a ``type``, ``enum`` or ``const`` without null).
    Models often send ``null`` for an optional argument they mean to leave out; such a null
    can only fail validation, so dispatch drops it (the conformance suite's "omit null").
    A property that may be null, or whose schema says nothing about it (``$ref``, ``anyOf``
    alone, no schema), keeps its null: validation decides."""
    if not isinstance(schema, dict):
        return frozenset()
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return frozenset()
    required = schema.get("required")
    needed = set(required) if isinstance(required, list) else set()
    return frozenset(
        name
        for name, sub in properties.items()
        if name not in needed and isinstance(sub, dict) and _refuses_null(sub)
    )


def _refuses_null(schema: dict[str, Any]) -> bool:
    kind = schema.get("type")
    if isinstance(kind, str):
        return kind != "null"
    if isinstance(kind, list) and kind:
        return "null" not in kind
    enum = schema.get("enum")
    if isinstance(enum, list):
        return None not in enum
    return "const" in schema and schema["const"] is not None


def tool_schema(tool: Tool[Any]) -> dict[str, Any]:
    """The JSON Schema the model sees for ``tool``: its raw schema, else its model's."""
    if tool.input_schema is not None:
        return tool.input_schema
    return input_schema(tool.input_model)


def _may_hold_surrogate(text: str) -> bool:
    """Whether JSON ``text`` may parse to a string with a lone surrogate: it holds one, or
    a ``\\u`` escape (which may write one)."""
    return "\\u" in text or not encodable(text)


def _encodable(output: ToolOutput) -> ToolOutput:
    """``output`` without a lone surrogate (``core.text``) before the budget, a spill file or
    the transcript sees it: a file name or an MCP result that is not valid UTF-8 shows its
    undecodable bytes as ``\\xNN``."""
    if encodable(output.content) and encodable(output.summary) and not first_surrogate(output.data):
        return output
    return dataclasses.replace(
        output,
        content=clean_text(output.content),
        summary=clean_text(output.summary),
        data=clean(output.data),
    )


def _exception_info(name: str, exc: BaseException) -> ToolErrorInfo:
    return ToolErrorInfo(
        code=codes.TOOL_EXCEPTION,
        message=f"{name} failed: {type(exc).__name__}: {exc}",
        next_step="Check the arguments (paths, patterns) and try again, or use another tool "
        "to reach the same goal.",
        retryable=False,
    )
