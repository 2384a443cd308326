"""Interpreter code an allow rule names word for word.

Code handed to an interpreter (``python3 -c CODE``, ``node -e CODE``) is not analysed: it could
run or read anything, so while deny or read rules are in force such a command asks in every
mode. A rule that names the code itself — ``run_shell(python3 -c 'print(1)':*)`` — is the
user vouching for exactly that text: under it the code is no unknown. The deny rules still see
the code's words (a denied program named in it denies the call), and a protected file named in
it still asks.
"""

from __future__ import annotations

from agent_tui.core.permissions.matching import allows
from agent_tui.core.permissions.rules import Rule, RuleError
from agent_tui.core.permissions.shell import ShellAnalysis, SimpleCommand
from agent_tui.core.permissions.shell.commands import basename
from agent_tui.core.permissions.shell.programs import interpreter_family


def vouched_code(allow: list[Rule], a: ShellAnalysis, commands: list[SimpleCommand]) -> bool:
    """True when the command hands code to interpreters and every piece of it is a word of an
    interpreter's command that an allow rule covering that command names (not via ``:*``)."""
    if not a.code_texts or a.unseen_code:
        return False
    covered: set[str] = set()
    for command in commands:
        name = command.name
        if name is None or interpreter_family(basename(name.text)) is None:
            continue
        for rule in allow:
            if rule.pattern is None or not allows(rule, command):
                continue
            try:
                named = set(rule.shell_words()[0])  # the words it matched, word for word
            except RuleError:
                continue
            covered.update(w.text for w in command.words if w.literal and w.text in named)
    return all(text and text in covered for text in a.code_texts)
