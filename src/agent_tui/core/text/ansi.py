"""Terminal escape sequences (ECMA-48) in program output: colours, cursor moves, titles, links.

A command run without a terminal may still colour its output (``--color=yes``, a
``FORCE_COLOR`` it inherited, a tool that ignores the hints): the escape codes cost tokens,
hide the words a log is scanned for (``\\x1b[31mFAIL`` does not start with ``FAIL``) and mean
nothing to a model. ``strip_escapes`` removes them; it never removes a line break, so line
numbers stay those of the original output.
"""

from __future__ import annotations

import re

ESC = "\x1b"
_ESCAPE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: SGR colours (ESC [ 1;31 m), cursor moves, erasing
    r"|\x1b\][^\x07\x1b\n]*(?:\x07|\x1b\\)?"  # OSC: window titles, hyperlinks; BEL or ST ends it
    r"|\x1b[PX^_][^\x1b\n]*(?:\x1b\\)?"  # DCS, SOS, PM and APC strings, up to ST
    r"|\x1b[ -/]*[0-~]"  # the other escapes: character sets (ESC ( B), keypad modes, ESC 7…
    r"|\x1b"  # a lone ESC (a sequence cut short)
)


def strip_escapes(text: str) -> str:
    """``text`` without terminal escape sequences (unchanged, not copied, when it has none)."""
    if ESC not in text:
        return text
    return _ESCAPE.sub("", text)
