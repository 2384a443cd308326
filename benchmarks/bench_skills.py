"""Agent Skills: what the cold prompt's skills list costs, and what finding skills costs.

    PYTHONPATH=src:. python benchmarks/bench_skills.py

Skill folders are generated on disk (``SKILL.md`` with a ~400-character description, as long as
real ones get, and a file beside it), then for each count and context window: the list's size
(the conversation meter's token estimate) against its budget (1% of the window), how many
descriptions were shortened and to how many characters, and that no skill is missing; the
time to find and read the folders (``SkillSet``) and to write the list (median of 20).
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from tests.core.skills.helpers import generated

from agent_tui.core.conversation.context import estimate_tokens
from agent_tui.core.skills import Location, SkillSet, prompt_section

WINDOWS = (32_000, 128_000, 200_000, 1_000_000)
COUNTS = (20, 100, 300, 1000)


def median_ms(work: object, rounds: int = 20) -> float:
    timings = []
    for _ in range(rounds):
        started = time.perf_counter()
        work()  # type: ignore[operator]
        timings.append((time.perf_counter() - started) * 1000)
    return statistics.median(timings)


def main() -> None:
    print(
        f"{'skills':>6} {'window':>9} {'tokens':>7} {'budget':>7} {'share':>6} "
        f"{'cut':>5} {'shown chars':>11} {'listed':>7} {'find ms':>8} {'list ms':>8}"
    )
    for count in COUNTS:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp) / "skills"
            names = generated(root, count)
            found_ms = median_ms(lambda root=root: SkillSet([Location(root, "user")]), 5)
            skills = SkillSet([Location(root, "user")]).skills
            for window in WINDOWS:
                text = prompt_section(skills, window)
                tokens = estimate_tokens(text)
                lines = text.splitlines()[2:]
                whole = {f"- {s.name}: {s.description}" for s in skills}
                cut = sum(line not in whole for line in lines)
                shown = min(len(line.partition(": ")[2]) for line in lines)
                listed = sum(f"- {name}" in text for name in names)
                list_ms = median_ms(lambda w=window, s=skills: prompt_section(s, w))
                print(
                    f"{count:>6} {window:>9,} {tokens:>7,} {window // 100:>7,} "
                    f"{tokens / window:>6.2%} {cut:>5} {shown:>11} {listed:>7} "
                    f"{found_ms:>8.1f} {list_ms:>8.2f}"
                )


if __name__ == "__main__":
    main()
