"""Skill folders written as users have them, for the skills tests."""

from __future__ import annotations

from pathlib import Path

SENTENCE = (
    "extract tables and text from PDF files, fill forms, merge and split documents, convert "
    "scanned pages with OCR, and check the result against the original layout before saving"
)
WORDS = SENTENCE.split()


def write_skill(
    root: Path,
    name: str,
    description: str,
    body: str = "Follow these steps.\n",
    *,
    files: dict[str, str] | None = None,
    extra: str = "",
) -> Path:
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {description}\n{extra}---\n{body}", encoding="utf-8"
    )
    for relative, text in (files or {}).items():
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return folder


def generated(root: Path, count: int, words: int = 60) -> list[str]:
    """``count`` skills with long descriptions (``words`` words each, about 400 characters:
    as long as real ones get); returns their names."""
    names = []
    for i in range(count):
        name = f"skill-{i:03d}-{WORDS[i % len(WORDS)].strip(',')}"
        text = " ".join(WORDS[(i + j) % len(WORDS)] for j in range(words))
        write_skill(root, name, f"Use when asked to {text}.", files={"notes.md": f"notes {i}\n"})
        names.append(name)
    return names
