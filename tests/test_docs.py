"""The docs site stays whole: the generated settings reference lists every settings field, the
benchmark history keeps every recorded run (and the benchmarks README stays short), the README
stays short and its links lead to files
that exist. (``mkdocs build --strict`` in ``.ci/run`` checks the site's own links.)"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path
from types import ModuleType

from pydantic import BaseModel

from agent_tui.core.settings import SECTIONS, Settings

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def reference() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_reference", DOCS / "_gen" / "reference.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def every_key(model: type[BaseModel], prefix: str) -> list[str]:
    keys = []
    for name, field in model.model_fields.items():
        keys.append(f"{prefix}.{name}")
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            keys += every_key(annotation, f"{prefix}.{name}")
    return keys


def test_the_settings_reference_lists_every_field_of_every_section() -> None:
    page = reference().settings_reference()
    assert set(SECTIONS) == set(Settings.model_fields), "a section missing from SECTIONS"
    keys = [key for section, model in SECTIONS.items() for key in every_key(model, section)]
    assert len(keys) > 30
    missing = [key for key in keys if f"| `{key}` |" not in page]
    assert not missing, f"not in the settings reference: {missing}"
    for section in SECTIONS:
        assert f"## `{section}`" in page


def test_every_field_in_the_reference_has_a_description() -> None:
    page = reference().settings_reference()
    rows = [line for line in page.splitlines() if line.startswith("| `")]
    bare = [row.split("|")[1].strip() for row in rows if row.rstrip().endswith("|  |")]
    assert not bare, f"fields without a description (add a docstring under them): {bare}"


def test_the_reference_shows_defaults_and_bounds_as_the_models_have_them() -> None:
    page = reference().settings_reference()
    assert '| `sandbox.mode` | "auto" \\| "required" \\| "off" | `"auto"` |' in page
    assert "| `executor.max_parallel` | int (≥ 1, ≤ 100) | `10` |" in page
    assert "| `ui.theme` | str \\| null | `null` |" in page


def test_the_benchmark_history_page_keeps_every_run_of_every_file() -> None:
    page = reference().benchmark_history()
    files = sorted((ROOT / "benchmarks" / "history").glob("*.json"))
    assert files
    for path in files:
        data = json.loads(path.read_text(encoding="utf-8"))
        assert f"## {data['title']}" in page
        assert data["runs"], path.name
        for run in data["runs"]:
            assert f"### {run['heading']}" in page
            assert re.fullmatch(r"20\d\d-\d\d-\d\d", run["date"]), f"{path.name}: {run['heading']}"
            for block in run["blocks"]:
                if "table" in block:
                    table = block["table"]
                    assert all(len(row) == len(table["columns"]) for row in table["rows"])


def test_the_readme_is_short_and_its_links_lead_somewhere() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text):
        if not target.startswith(("http://", "https://")):
            assert (ROOT / target).exists(), f"README links to {target}, which does not exist"


def test_every_docs_page_is_in_the_nav() -> None:
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    pages = [p.name for p in DOCS.glob("*.md")]
    pages += ["settings-reference.md", "benchmarks-history.md", "benchmarks.md"]  # generated
    missing = [page for page in pages if f": {page}" not in nav]
    assert not missing, f"pages not in mkdocs.yml's nav: {missing}"


def test_the_benchmarks_readme_keeps_how_to_run_each_script_and_stays_short() -> None:
    text = (ROOT / "benchmarks" / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 300
    scripts = sorted(p.name for p in (ROOT / "benchmarks").glob("bench_*.py"))
    missing = [name for name in scripts if f"python benchmarks/{name}" not in text]
    assert not missing, f"benchmarks/README.md says nothing of how to run {missing}"
    history = {p.stem for p in (ROOT / "benchmarks" / "history").glob("*.json")}
    assert {name.removesuffix(".py") for name in scripts} <= history
