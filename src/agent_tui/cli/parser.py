"""The argument parser of every ``agent-tui`` command line: no abbreviated options.

argparse by default takes any unambiguous prefix of an option for the option, so
``agent-tui --mode plan`` ran with ``--model plan`` and failed on an unknown model, and a
prefix that is unambiguous today (``--perm``) would change meaning when an option is added.
Here an option is only ever its full name; anything else is an unrecognised argument.
Subcommand parsers are made with the parser's class, so they are strict too.
"""

from __future__ import annotations

import argparse
from typing import Any


class StrictParser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)
