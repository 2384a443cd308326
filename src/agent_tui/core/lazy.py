"""Lazy re-exports for a package's ``__init__`` (PEP 562): ``from agent_tui.core.commands import
CommandRegistry`` imports ``commands.registry`` when the name is first asked for, not every
submodule the package names whenever any one of them is imported. A headless run that needs
one submodule pays for that one (issue 45: start-up time).

A package lists what it exports and where::

    if TYPE_CHECKING:  # what mypy and readers see
        from agent_tui.core.commands.registry import CommandRegistry
    else:
        __getattr__ = lazy.exports(__name__, {"CommandRegistry": "registry"})
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def exports(package: str, names: Mapping[str, str]) -> Callable[[str], Any]:
    """The module ``__getattr__`` of ``package``: ``names`` maps each exported name to the
    submodule (relative to ``package``) that defines it. A name is imported once, then kept in
    the package's namespace. A name may not be that of a submodule: importing the submodule
    sets the package's attribute of that name to the module, and ``__getattr__`` is never asked
    (export such a name eagerly)."""
    shadowed = sorted(set(names) & set(names.values()))
    if shadowed:
        raise ValueError(f"{package}: {shadowed} would be shadowed by submodules of that name")

    def __getattr__(name: str) -> Any:
        where = names.get(name)
        if where is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{where}"), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
