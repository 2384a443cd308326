"""Every private member of a dependency that agent-tui relies on, in one place.

A private member (a name starting with ``_``, or a module whose name does) is not part of its
library's promise: a minor release may rename it, change its signature or drop it. Each one
the code uses is listed here with where it is used, why, and the signature it was written
against; ``tests/test_private_members.py`` imports each and checks it is still there as
listed, so an upgrade that breaks one fails the suite loudly instead of the app failing at a
user's keyboard. The libraries are pinned below their next major in ``pyproject.toml``.

When you use another private member, add it here; when you stop, remove it (the test checks
that each ``used_in`` file still mentions the member's last name).

This module imports nothing: it is data, readable by the core and the UI alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Kind = Literal["callable", "class", "attribute", "instance attribute", "module"]


@dataclass(frozen=True)
class Private:
    """One private member: ``module`` imported, then ``name`` (dotted) looked up in it."""

    module: str
    name: str
    """Dotted path inside ``module``; empty for the module itself."""
    kind: Kind
    used_in: tuple[str, ...]
    """Files under ``src/agent_tui`` that rely on it."""
    why: str
    signature: str | None = None
    """``str(inspect.signature(member))`` as written against (callables only)."""
    owner: str | None = None
    """For an instance attribute: the class (dotted, in ``module``) whose fresh instance,
    made with no arguments, has it."""


PRIVATE: tuple[Private, ...] = (
    # ---- Textual -----------------------------------------------------------------------
    Private(
        "textual.app",
        "App._driver",
        "instance attribute",
        ("ui/shell/attention.py",),
        "the terminal's writer: notifications (OSC 9/777, the bell) and the title go out in "
        "order with the frames (Textual's own copy_to_clipboard writes OSC 52 the same way)",
        owner="App",
    ),
    Private(
        "textual.css.stylesheet",
        "Stylesheet._variables",
        "instance attribute",
        ("ui/shell/preload.py", "ui/shell/appending_stylesheet.py"),
        "the theme's variables the preloaded rules were parsed with (a changed theme drops them)",
        owner="Stylesheet",
    ),
    Private(
        "textual.css.stylesheet",
        "Stylesheet._variable_tokens",
        "instance attribute",
        ("ui/shell/preload.py",),
        "the tokenized variables the parser needs to parse default CSS off the event loop",
        owner="Stylesheet",
    ),
    Private(
        "textual.css.stylesheet",
        "Stylesheet._parse_cache",
        "instance attribute",
        ("ui/shell/preload.py",),
        "where the preloaded rules go (an LRUCache keyed as _parse_rules keys it)",
        owner="Stylesheet",
    ),
    Private(
        "textual.css.stylesheet",
        "Stylesheet._parse_rules",
        "callable",
        ("ui/shell/preload.py", "ui/shell/appending_stylesheet.py"),
        "preload makes the cache keys this method makes: (css, read_from, is_default_rules, "
        "tie_breaker, scope); the appending parse calls it as Stylesheet.parse does",
        signature="(self, css: 'str', read_from: 'CSSLocation', is_default_rules: 'bool' = "
        "False, tie_breaker: 'int' = 0, scope: 'str' = '') -> 'list[RuleSet]'",
    ),
    *(
        Private(
            "textual.css.stylesheet",
            f"Stylesheet.{name}",
            "instance attribute",
            ("ui/shell/appending_stylesheet.py",),
            why,
            owner="Stylesheet",
        )
        for name, why in (
            ("_rules", "the parsed rules, in source order: an appending parse extends them"),
            ("_rules_map", "the rules by selector name: an appending parse extends it"),
            ("_require_parse", "cleared by an appending parse, as Stylesheet.parse does"),
            ("_invalid_css", "sources that failed to parse, skipped as Stylesheet.parse does"),
        )
    ),
    Private(
        "textual._xterm_parser",
        "XTermParser",
        "class",
        ("ui/shell/typed_ahead.py",),
        "keys typed before the driver started (taken from the terminal's queue then) parsed "
        "into the key events the driver's own parser would have posted",
    ),
    Private(
        "textual.content",
        "Content._wrap_and_format",
        "callable",
        ("ui/chat/assistant_reply.py",),
        "a reply's line in view turned into a strip as Content.render_strips does it, only for "
        "the lines that changed (Textual turns the whole widget into strips on every change)",
        signature="(self, width: 'int', align: 'TextAlign' = 'left', overflow: 'TextOverflow' "
        "= 'fold', no_wrap: 'bool' = False, line_pad: 'int' = 0, tab_size: 'int' = 8, "
        "selection: 'Selection | None' = None, selection_style: 'Style | None' = None, "
        "post_style: 'Style | None' = None, get_style: 'Callable[[str | Style], Style]' = "
        "<bound method Style.parse of <class 'textual.style.Style'>>) -> 'list[_FormattedLine]'",
    ),
    Private(
        "textual.widget",
        "Widget._get_style",
        "callable",
        ("ui/chat/assistant_reply.py",),
        "the style lookup Visual.to_strips hands Content.render_strips, for the same strips",
        signature="(self, style: 'VisualStyle | str') -> 'VisualStyle'",
    ),
    Private(
        "textual.dom",
        "DOMNode._css_bases",
        "callable",
        ("ui/shell/preload.py",),
        "the classes whose DEFAULT_CSS a widget gets, in the order of their tie breakers",
        signature="(base: 'Type[DOMNode]') -> 'Sequence[Type[DOMNode]]'",
    ),
    Private(
        "textual.dom",
        "DOMNode._css_type_name",
        "attribute",
        ("ui/shell/preload.py",),
        "the scope of a class's scoped default CSS",
    ),
    Private(
        "textual.dom",
        "DOMNode._get_default_css",
        "callable",
        ("ui/shell/preload.py",),
        "the method whose (css, where, tie breaker, scope) preload reproduces",
        signature="(self) -> 'list[tuple[CSSLocation, str, int, str]]'",
    ),
    Private(
        "textual.widgets._footer",
        "FooterKey",
        "class",
        ("ui/common/steady_footer.py",),
        "the footer's key widgets, started in the footer's compact state (no flicker)",
    ),
    Private(
        "textual.widgets",
        "Footer._bindings_ready",
        "attribute",
        ("ui/common/steady_footer.py",),
        "whether the footer has read the screen's keys yet (a reactive; before it has, there "
        "is nothing shown to compare what it would show with)",
    ),
    Private(
        "textual._context",
        "active_app",
        "attribute",
        ("ui/common/width_class.py",),
        "the running app's width, from a render helper that has no widget at hand",
    ),
    Private(
        "textual.screen",
        "Screen._push_result_callback",
        "callable",
        ("ui/shell/shell_screen.py",),
        "the shell is the app's first screen (not pushed over an empty one: a lighter first "
        "frame), given the result callback push_screen gives a screen, which switch_screen "
        "pops as the main screen takes its place",
        signature="(self, requester: 'MessagePump', callback: "
        "'ScreenResultCallbackType[ScreenResultType] | None', future: "
        "'asyncio.Future[ScreenResultType | None] | None' = None) -> 'None'",
    ),
    Private(
        "textual.widget",
        "Widget._forward_event",
        "callable",
        ("ui/shell/key_question.py",),
        "a key typed before a one-key question armed goes to the prompt below, through "
        "Textual's own routing",
        signature="(self, event: 'events.Event') -> 'None'",
    ),
    Private(
        "textual.screen",
        "Screen._on_screen_resume",
        "callable",
        ("ui/common/styled_once.py",),
        "overridden: a screen shown again is not restyled when nothing changed",
        signature="(self, event: 'events.ScreenResume') -> 'None'",
    ),
    Private(
        "textual.widgets",
        "TextArea._on_key",
        "callable",
        ("ui/shell/prompt_input.py",),
        "overridden: the completion menu and history take their keys before the text area",
        signature="(self, event: 'events.Key') -> 'None'",
    ),
    Private(
        "textual.widgets",
        "Input._on_key",
        "callable",
        ("ui/spills/line_prompt.py",),
        "overridden: keys after Enter/Esc are held, not typed (Input's handler is skipped)",
        signature="(self, event: 'events.Key') -> 'None'",
    ),
    # ---- the MCP SDK -------------------------------------------------------------------
    Private(
        "mcp.client.auth",
        "OAuthClientProvider._initialize",
        "callable",
        ("core/mcp/auth/provider.py", "core/mcp/auth/grants.py"),
        "extended: a stored token's expiry is taken early (refresh before it lapses); the "
        "jwt_bearer grant's fixed client",
        signature="(self) -> None",
    ),
    Private(
        "mcp.client.auth",
        "OAuthClientProvider._perform_authorization",
        "callable",
        ("core/mcp/auth/provider.py", "core/mcp/auth/grants.py"),
        "extended: the scopes asked for (configured, or what a step-up was refused for); "
        "the browserless grants' token request (grants: jwt_bearer's is agent-tui's own)",
        signature="(self) -> httpx2.Request",
    ),
    Private(
        "mcp.client.auth",
        "OAuthClientProvider._exchange_token_authorization_code",
        "callable",
        ("core/mcp/auth/provider.py",),
        "extended: a pre-registered client sends its secret the way the server takes it",
        signature="(self, auth_code: str, code_verifier: str) -> httpx2.Request",
    ),
    Private(
        "mcp.client.auth",
        "OAuthClientProvider._refresh_token",
        "callable",
        ("core/mcp/auth/provider.py",),
        "extended: the same client-secret method on a refresh",
        signature="(self) -> httpx2.Request",
    ),
    # ---- regex -------------------------------------------------------------------------
    Private(
        "regex._regex_core",
        "",
        "module",
        ("core/tools/builtin/grep_tool.py",),
        "grep judges a pattern's size and literal needles from regex's own parse tree, "
        "exactly what its compiler gets",
    ),
    Private(
        "regex._regex_core",
        "_parse_pattern",
        "callable",
        ("core/tools/builtin/grep_tool.py",),
        "the parser regex.compile runs",
        signature="(source, info)",
    ),
    Private(
        "regex._regex_core",
        "_UnscopedFlagSet",
        "class",
        ("core/tools/builtin/grep_tool.py",),
        "raised when an inline global flag restarts the parse, as in regex.compile",
    ),
    Private(
        "regex._regex_core",
        "Info.__init__",
        "callable",
        ("core/tools/builtin/grep_tool.py",),
        "the parse state built as regex.compile builds it",
        signature="(self, flags=0, char_type=None, kwargs={})",
    ),
    *(
        Private(
            "regex._regex_core",
            name,
            "class" if name[0].isupper() and not name.isupper() else "attribute",
            ("core/tools/builtin/grep_tool.py",),
            "a node class or flag of regex's parse tree that grep walks",
        )
        for name in (
            "Source",
            "Info",
            "Branch",
            "Sequence",
            "Character",
            "GreedyRepeat",
            "RegexBase",
            "NOCASE",
            "UNICODE",
            "VERBOSE",
        )
    ),
)
