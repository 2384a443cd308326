"""String fields cleaned of lone surrogates (``core.text.utf8``) only where one can be:
``CleanStr`` / ``CleanJsonStr`` run their cleaning on Python input (a model built in code, a
dict from a provider or an old reader) and nothing on JSON input (``validate_json``), whose
parser refuses a lone surrogate escape and input that is not UTF-8, so every string it gives is
encodable already. Reading a session file validates thousands of messages from JSON: a Python
call per string field was a large part of that (issue 45).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import GetCoreSchemaHandler
from pydantic_core import CoreSchema, core_schema

from agent_tui.core.text.utf8 import clean_json_text, clean_text


@dataclass(frozen=True)
class CleanedFromPython:
    """A ``str`` field's marker: ``clean`` runs after it is validated from Python input only
    (a JSON document's strings hold no lone surrogate)."""

    clean: Callable[[str], str]

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        inner = handler(source)
        return core_schema.json_or_python_schema(
            json_schema=inner,
            python_schema=core_schema.no_info_after_validator_function(self.clean, inner),
            serialization=inner.get("serialization"),
        )


CleanStr = Annotated[str, CleanedFromPython(clean_text)]
"""Text without lone surrogates (``clean_text``)."""
CleanJsonStr = Annotated[str, CleanedFromPython(clean_json_text)]
"""A JSON document's text without lone surrogates (``clean_json_text``), its meaning kept."""
