"""Pages generated from the code at build time, so they cannot drift from it.

``settings_reference()`` walks the pydantic settings models (``agent_tui.core.settings.Settings``
and the section models it aggregates) into a Markdown page: every key with its type, default,
bounds and description. A field's description is its ``Field(description=...)``, else the
docstring written under it in the class (the house style), else the model's docstring.

``benchmark_history()`` renders the dated figures kept as data in ``benchmarks/history/*.json``
(one file per benchmark) into one page; ``benchmarks_page()`` is ``benchmarks/README.md`` (how
to run each script, the latest figures) as a page.

``hooks.py`` beside this file hands both to mkdocs; ``tests/test_docs_reference.py`` checks
that every settings field is in the page. Run this file to print the pages.
"""

from __future__ import annotations

import ast
import inspect
import itertools
import json
import textwrap
import types
import typing
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from pydantic.fields import FieldInfo

ROOT = Path(__file__).resolve().parents[2]
HISTORY = ROOT / "benchmarks" / "history"

EXTERNAL_PAGES = {
    "permissions": (
        "permissions.md",
        "`allow`, `ask`, `deny` rules and `defaultMode`; combined across the files, a deny "
        "anywhere winning",
    ),
    "mcp": (
        "mcp.md",
        "`disabled` (servers turned off in this project), `start` (`eager` or `lazy`), "
        "`roots` (more directories offered to servers)",
    ),
    "hooks": ("extensions.md#hooks", "commands run at events; they add up across the files"),
}
"""The sections another package reads from the same files (``settings.EXTERNAL``), and where
they are described."""


def attribute_docstrings(model: type[BaseModel]) -> dict[str, str]:
    """The docstring written under each field of ``model`` (and of its bases)."""
    found: dict[str, str] = {}
    for klass in reversed(model.__mro__):
        if not (isinstance(klass, type) and issubclass(klass, BaseModel)) or klass is BaseModel:
            continue
        try:
            source = textwrap.dedent(inspect.getsource(klass))
        except (OSError, TypeError):
            continue
        body = ast.parse(source).body[0]
        assert isinstance(body, ast.ClassDef)
        statements = body.body
        for this, after in itertools.pairwise(statements):
            if (
                isinstance(this, ast.AnnAssign)
                and isinstance(this.target, ast.Name)
                and isinstance(after, ast.Expr)
                and isinstance(after.value, ast.Constant)
                and isinstance(after.value.value, str)
            ):
                found[this.target.id] = inspect.cleandoc(after.value.value)
    return found


def type_name(annotation: Any) -> str:
    """``int``, ``str | None``, ``"auto" | "off"``, ``list[str]``: the type as a user writes it."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Literal:
        return " | ".join(json.dumps(a) for a in args)
    if origin in (typing.Union, types.UnionType):
        return " | ".join(type_name(a) for a in args)
    if origin is not None:
        inner = ", ".join(type_name(a) for a in args)
        return f"{getattr(origin, '__name__', str(origin))}[{inner}]"
    if annotation is type(None):
        return "null"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "object"
    return getattr(annotation, "__name__", str(annotation))


def default_of(field: FieldInfo) -> str:
    factory = field.default_factory
    value = factory() if factory is not None else field.default  # type: ignore[call-arg]
    if isinstance(value, BaseModel):
        return "(object)"
    return "`" + json.dumps(value, ensure_ascii=False) + "`"


def bounds_of(field: FieldInfo) -> str:
    words = {"ge": "≥", "gt": ">", "le": "≤", "lt": "<", "min_length": "length ≥"}
    out = []
    for item in field.metadata:
        for attribute, sign in words.items():
            value = getattr(item, attribute, None)
            if value is not None:
                out.append(f"{sign} {value:,}" if isinstance(value, int) else f"{sign} {value}")
    return ", ".join(out)


def cell(text: str) -> str:
    """One table cell: one line, pipes escaped, RST-style double backquotes made Markdown."""
    return " ".join(text.split()).replace("``", "`").replace("|", "\\|")


def field_rows(model: type[BaseModel], prefix: str) -> list[tuple[str, FieldInfo, str]]:
    """(dotted key, field, description) for every field of ``model``, nested models walked."""
    docs = attribute_docstrings(model)
    rows: list[tuple[str, FieldInfo, str]] = []
    for name, field in model.model_fields.items():
        key = f"{prefix}.{name}"
        description = field.description or docs.get(name, "")
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            description = description or inspect.cleandoc(annotation.__doc__ or "")
            rows.append((key, field, description))
            rows += field_rows(annotation, key)
        else:
            rows.append((key, field, description))
    return rows


def settings_reference() -> str:
    """The settings reference page, from the models."""
    from agent_tui.core import settings

    out = [
        "# Settings reference",
        "",
        "<!-- Generated at build time from agent_tui.core.settings (docs/_gen/reference.py); "
        "edit the models' docstrings, not this page. -->",
        "",
        "This page is generated from the settings models in `agent_tui.core.settings` and the "
        "section models it aggregates, so it says what the code accepts. How the files combine "
        "and what a project may set is in [Configuration](configuration.md).",
        "",
        "**Files**, least specific first (a more specific file wins key by key; objects merge, "
        "any other value replaces): `settings.json` in the user config directory "
        "(`~/.config/agent-tui/` on Linux, `AGENT_TUI_CONFIG_DIR` overrides), "
        f"`{settings.PROJECT_DIR}/{settings.SETTINGS_FILE}` in the project, then "
        f"`{settings.PROJECT_DIR}/{settings.LOCAL_SETTINGS_FILE}`. Unknown keys are an error "
        "naming the section; keys starting with `$` (`$schema`) are ignored.",
        "",
    ]
    for section, model in settings.SECTIONS.items():
        out += [f"## `{section}`", "", cell(inspect.cleandoc(model.__doc__ or "")), ""]
        if section in settings.USER_ONLY:
            check = settings.USER_ONLY[section]
            detail = inspect.cleandoc(getattr(check, "__doc__", "") or "")
            why = settings.USER_ONLY_WHY.get(section)
            out += [f"*In a project's files*: {why + '. ' if why else ''}{cell(detail)}", ""]
        if section in settings.FAIL_CLOSED:
            fallback = json.dumps(settings.FAIL_CLOSED[section])
            out += [f"*An invalid `{section}` section* is replaced by `{fallback}`.", ""]
        out += ["| key | type | default | what it does |", "|---|---|---|---|"]
        for key, field, description in field_rows(model, section):
            bounds = bounds_of(field)
            kind = cell(type_name(field.annotation)) + (f" ({bounds})" if bounds else "")
            out.append(f"| `{key}` | {kind} | {default_of(field)} | {cell(description)} |")
        out.append("")
    out += [
        "## Sections read by other packages",
        "",
        "These keys live in the same files but are read by their own package "
        "(`settings.EXTERNAL`), not by the models above:",
        "",
        "| section | what it holds | described in |",
        "|---|---|---|",
    ]
    for section in sorted(settings.EXTERNAL):
        page, what = EXTERNAL_PAGES.get(section, ("configuration.md", ""))
        out.append(f"| `{section}` | {what} | [{page.split('#')[0]}]({page}) |")
    return "\n".join(out) + "\n"


def settings_keys() -> list[str]:
    """Every dotted settings key the models define (what the reference page must list)."""
    from agent_tui.core import settings

    return [key for s, m in settings.SECTIONS.items() for key, _, _ in field_rows(m, s)]


def render_table(table: dict[str, Any]) -> list[str]:
    columns = table["columns"]
    align = table.get("align") or ["---"] * len(columns)
    lines = ["| " + " | ".join(columns) + " |", "|" + "|".join(align) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in table["rows"]]
    return lines


def benchmark_history() -> str:
    """Every benchmark's dated figures, from ``benchmarks/history``."""
    out = [
        "# Benchmark history",
        "",
        "<!-- Generated at build time from benchmarks/history/*.json (docs/_gen/reference.py). -->",
        "",
        "Every figure recorded so far, one section per benchmark: what the script measures, then "
        "each run with its date and the machine and load it was measured on. The data is in "
        "`benchmarks/history/`, one JSON file per benchmark: `title`, `about`, and `runs`, each "
        "with `heading`, `date` (and `date_from`: the heading, its notes, or the commit that "
        "recorded it), `recorded_in` (the commit that wrote the figures down), `machine`, "
        "`load`, and its `blocks`: tables as `columns` and `rows`, and the notes that read "
        "them. [Benchmarks](benchmarks.md) says how to run each script and has the latest "
        "figures.",
        "",
    ]
    files = [json.loads(p.read_text(encoding="utf-8")) for p in HISTORY.glob("*.json")]
    for data in sorted(files, key=lambda d: (d.get("order", 999), d["title"])):
        out += [f"## {data['title']}", ""]
        if data.get("about"):
            out += [data["about"].rstrip(), ""]
        for run in data["runs"]:
            out += [f"### {run['heading']}", ""]
            facts = [f"measured {run['date']} (date from {run.get('date_from', 'the heading')})"]
            if run.get("recorded_in"):
                facts.append(f"recorded in {run['recorded_in']}")
            out += ["*" + " · ".join(facts) + "*", ""]
            for block in run["blocks"]:
                if "table" in block:
                    out += render_table(block["table"])
                else:
                    out.append(block["text"].rstrip())
                out.append("")
    return "\n".join(out) + "\n"


def benchmarks_page() -> str:
    """``benchmarks/README.md`` as a page of the site (its ``history/`` link made the page's)."""
    text = (ROOT / "benchmarks" / "README.md").read_text(encoding="utf-8")
    note = "<!-- Generated at build time from benchmarks/README.md (docs/_gen/reference.py). -->"
    return text.replace("](history/)", "](benchmarks-history.md)").replace("\n", f"\n\n{note}\n", 1)


if __name__ == "__main__":
    print(settings_reference())
