"""One field of an elicitation form: its title, the control for its kind, and a line under it
with what it accepts or what is wrong with the value.

Text, number and integer fields are an ``Input``; a boolean a ``Checkbox``; a single choice a
``Select``; a multiple choice a ``SelectionList``. The control starts from the field's
default (SEP-1034). ``raw()`` is what the control holds, for ``core.mcp.client.elicitation``'s
checks; the row never judges a value itself.
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Checkbox, Input, Label, Select, SelectionList, Static

from agent_tui.core.mcp.client.elicitation_form import FormField


class FieldRow(Vertical):
    DEFAULT_CSS = """
    FieldRow {
        height: auto;
        & > Horizontal { height: auto; }
        & .title { width: 18; height: 1; padding-right: 1; text-overflow: ellipsis; }
        & .control { width: 1fr; }
        & Input.control { height: 1; }
        & Checkbox.control { border: none; padding: 0; height: 1; background: transparent; }
        & SelectionList.control { height: auto; max-height: 4; border: none; padding: 0; }
        & .note { height: auto; padding-left: 18; color: $text-muted; }
        &.-error .note { color: $error; }
        &.-error .title { color: $error; }
    }
    """

    def __init__(self, field: FormField, index: int, *, cursor_blink: bool = True) -> None:
        super().__init__(id=f"field-{index}")
        self.field = field
        self.cursor_blink = cursor_blink
        self.error: str | None = None

    def compose(self) -> ComposeResult:
        field = self.field
        star = " *" if field.required else ""
        with Horizontal():
            yield Label(Content.assemble(field.title, (star, "bold $warning")), classes="title")
            yield self._control()
        note = Static(self._note(), classes="note", markup=False)
        note.display = bool(self._note())
        yield note

    def _control(self) -> Widget:
        field = self.field
        default = field.default
        if field.kind == "boolean":
            return Checkbox(
                "yes" if default else "no", value=bool(default), compact=True, classes="control"
            )
        if field.kind == "choice":
            options = [(o.title, o.value) for o in field.options]
            return Select(
                options,
                value=default if isinstance(default, str) else Select.NULL,
                allow_blank=True,
                compact=True,
                prompt="choose…",
                classes="control",
            )
        if field.kind == "multi":
            chosen = set(default) if isinstance(default, list) else set()
            return SelectionList[str](
                *((o.title, o.value, o.value in chosen) for o in field.options),
                compact=True,
                classes="control",
            )
        text = (
            ""
            if default is None
            else (f"{default:g}" if isinstance(default, float) else str(default))
        )
        control = Input(
            text,
            placeholder=field.hint(),
            compact=True,
            classes="control",
            select_on_focus=False,
        )
        control.cursor_blink = self.cursor_blink
        return control

    def _note(self) -> str:
        """The error, else the description (and, for a list, how many to choose); a text or
        number field's hint is its placeholder. Empty: the line is hidden."""
        if self.error is not None:
            return self.error
        hint = self.field.hint() if self.field.kind == "multi" else ""
        parts = [p for p in (self.field.description, hint) if p and p != "choose any"]
        return " · ".join(parts)

    @property
    def control(self) -> Widget:
        return self.query_one(".control")

    def raw(self) -> Any:
        """What the control holds: text, a bool, the chosen value (None: none), the chosen
        values."""
        control = self.control
        if isinstance(control, Checkbox):
            return control.value
        if isinstance(control, Select):
            return None if control.value is Select.NULL else control.value
        if isinstance(control, SelectionList):
            return list(control.selected)
        assert isinstance(control, Input)
        return control.value

    def show_error(self, error: str | None) -> None:
        self.error = error
        self.set_class(error is not None, "-error")
        note = self.query_one(".note", Static)
        note.update(self._note())
        note.display = bool(self._note())

    def on_checkbox_changed(self, event: Checkbox.Changed) -> None:
        event.checkbox.label = "yes" if event.value else "no"
