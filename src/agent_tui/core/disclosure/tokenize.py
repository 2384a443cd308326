"""Tokens for tool search: English words (split on case, ``_``, ``-``, ``.``) and CJK text as
unigrams plus bigrams, so 读取文件 matches 文件 and 读取 alike."""

from __future__ import annotations

import re

_CJK = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_PIECES = re.compile(rf"[{_CJK}]+|[A-Za-z]+|\d+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_IS_CJK = re.compile(rf"[{_CJK}]")
_STOP_WORDS = (
    "a an the of to for in on and or is are be by with from as at it this that "
    "use used uses using can will tool tools"
)
STOP = frozenset(_STOP_WORDS.split())


def _stem(word: str) -> str:
    """A light English stemmer: plural and -ing/-ed endings (files -> file, listing -> list),
    and -ation as the verb (relations -> relate, creation -> create)."""
    for suffix, keep in (("ies", "y"), ("sses", "ss"), ("ing", ""), ("ed", ""), ("es", "e")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)] + keep
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        word = word[:-1]
    if word.endswith("ation") and len(word) > 7:
        return word[: -len("ation")] + "ate"
    return word


def tokens(text: str) -> list[str]:
    out: list[str] = []
    for piece in _PIECES.findall(text):
        if _IS_CJK.match(piece):
            out.extend(piece)
            out.extend(piece[i : i + 2] for i in range(len(piece) - 1))
            continue
        for word in _CAMEL.findall(piece) or [piece]:
            lowered = word.lower()
            if lowered not in STOP and len(lowered) > 1:
                out.append(_stem(lowered))
    return out
