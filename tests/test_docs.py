"""The docs site stays whole: the generated settings reference lists every settings field, the
benchmark history keeps every recorded run, the README stays short and its links lead to files
that exist. (``mkdocs build --strict`` in ``.ci/run`` checks the site's own links.)"""

from __future__ import annotations

import importlib.util
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
    assert "| `executor.max_parallel` | int | `10` | ≥ 1, ≤ 100 |" in page
    assert "| `ui.theme` | str \\| null | `null` |" in page


def test_the_readme_is_short_and_its_links_lead_somewhere() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text):
        if not target.startswith(("http://", "https://")):
            assert (ROOT / target).exists(), f"README links to {target}, which does not exist"


def test_every_docs_page_is_in_the_nav() -> None:
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    pages = [p.name for p in DOCS.glob("*.md")]
    pages += ["settings-reference.md", "benchmarks-history.md"]  # generated at build time
    missing = [page for page in pages if f": {page}" not in nav]
    assert not missing, f"pages not in mkdocs.yml's nav: {missing}"
