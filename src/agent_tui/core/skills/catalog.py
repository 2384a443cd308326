"""The skills' part of the cold prompt: each skill's name and description, and nothing more.

Its size is bounded by a share of the model's context window (``SHARE``, 1%: 100 skills fit
in 1,280 tokens of a 128k model) and **no skill is ever dropped**: when the descriptions do not
fit, the longest are shortened, all to the same length (the shortest keep their whole text),
until they do. A shortened description ends in ``…``; the ``skill`` tool's result gives it
whole. Only when the names alone exceed the budget does the part go over it (each name stays,
with no description) — a skill that is not listed would never be used. The text depends only on
the skills and the window, so the prompt prefix stays cache-stable for the session.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent_tui.core.skills.skill_file import Skill
from agent_tui.core.text.utf8 import clean_text

SHARE = 0.01
"""The share of the context window the part may take."""
MAX_DESCRIPTION = 400
"""Characters of a description at most, whatever the budget (the tool gives the rest)."""
CHARS_PER_TOKEN = 4
"""Budget in characters from tokens: ``conversation.context.estimate_tokens``'s ratio for ASCII
text; other characters count a token each, which the budget allows for (``_cost``)."""
HEADER = (
    "# Skills\n"
    "Skills are instructions and files for particular tasks. When a task matches a skill's "
    "description, call the skill tool with its name first and follow what it returns.\n"
)


def prompt_section(skills: Sequence[Skill], context_window: int) -> str:
    """The part for ``skills`` within ``SHARE`` of ``context_window`` tokens ("" for none)."""
    if not skills:
        return ""
    budget = int(context_window * SHARE) * CHARS_PER_TOKEN
    heads = [f"- {skill.name}" for skill in skills]
    texts = [clean_text(skill.description)[: MAX_DESCRIPTION * 2] for skill in skills]
    fixed = _cost(HEADER) + sum(_cost(h) + 3 for h in heads)  # ": " and the newline
    cap = _cap([_cost(t) for t in texts], budget - fixed)
    lines = []
    for head, text in zip(heads, texts, strict=True):
        short = _shorten(text, cap)
        lines.append(f"{head}: {short}" if short else head)
    return HEADER + "\n".join(lines) + "\n"


def _cost(text: str) -> int:
    """Characters as the budget counts them: one per ASCII character, ``CHARS_PER_TOKEN`` per
    other character (a token each in the estimate)."""
    if text.isascii():
        return len(text)
    return sum(1 if ch < "\x80" else CHARS_PER_TOKEN for ch in text)


def _cap(costs: list[int], room: int) -> int:
    """The largest length ``L <= MAX_DESCRIPTION`` such that the descriptions cut at ``L`` fit
    in ``room`` (0 when not even that fits): water-filling, so short ones stay whole."""
    low, high = 0, MAX_DESCRIPTION
    while low < high:
        mid = (low + high + 1) // 2
        if sum(min(c, mid) for c in costs) <= room:
            low = mid
        else:
            high = mid - 1
    return low


def _shorten(text: str, cap: int) -> str:
    if _cost(text) <= cap:
        return text
    if cap < 8:  # too short to say anything: the name alone
        return ""
    if text.isascii():
        cut = text[: cap - CHARS_PER_TOKEN]  # the ellipsis counts as a token
    else:
        kept, used = [], CHARS_PER_TOKEN
        for ch in text:
            used += _cost(ch)
            if used > cap:
                break
            kept.append(ch)
        cut = "".join(kept)
    space = cut.rfind(" ")
    if space > len(cut) * 2 // 3:  # end at a word when little is lost
        cut = cut[:space]
    return cut.rstrip(" ,;:.-") + "…"
