"""The reply palette follows the theme's ``auto N%`` text colours, and says so when a theme's
value is not a colour."""

from __future__ import annotations

import logging

import pytest
from textual.app import App
from textual.color import Color

from agent_tui.ui.chat import markdown_lines
from agent_tui.ui.chat.markdown_lines import palette


def _variables(theme: str) -> dict[str, str]:
    app = App()
    app.theme = theme
    return dict(app.get_css_variables())


@pytest.mark.parametrize("theme", ["textual-dark", "textual-light", "nord", "gruvbox"])
def test_text_muted_is_the_contrast_colour_over_the_background(
    theme: str, caplog: pytest.LogCaptureFixture
) -> None:
    variables = _variables(theme)
    assert variables["text-muted"].startswith("auto")  # what Textual's themes ship
    background = Color.parse(variables["background"])
    contrast = background.get_contrast_text(0.6)
    expected = background.blend(contrast, 0.6).with_alpha(1).hex6
    with caplog.at_level(logging.WARNING, logger=markdown_lines.log.name):
        styles = palette(variables, dark=background.brightness < 0.5).theme.styles
    assert caplog.records == []
    assert str(styles["markdown.hr"].color.name).lower() == expected.lower()
    assert expected.lower() != "#888888"


def test_a_value_that_is_no_colour_falls_back_with_a_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    variables = _variables("textual-dark") | {"text-muted": "auto sixty"}
    with caplog.at_level(logging.WARNING, logger=markdown_lines.log.name):
        styles = palette(variables, dark=True).theme.styles
    assert str(styles["markdown.hr"].color.name).lower() == "#888888"
    assert [r.getMessage() for r in caplog.records] == [
        "the theme's text-muted is not a colour: #888888 is used"
    ]
