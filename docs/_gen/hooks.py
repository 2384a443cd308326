"""mkdocs hooks (``hooks:`` in mkdocs.yml): add the pages generated from the code and data."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from reference import benchmark_history, benchmarks_page, settings_reference

GENERATED = {
    "settings-reference.md": settings_reference,
    "benchmarks-history.md": benchmark_history,
    "benchmarks.md": benchmarks_page,
}


def on_files(files: Any, config: Any) -> Any:
    from mkdocs.structure.files import File

    for name, make in GENERATED.items():
        files.append(File.generated(config, name, content=make()))
    return files
