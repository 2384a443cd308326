"""Split a shell command into the simple commands it would run, for permission matching.

An allow rule approves a command only if *every* simple command in it is allowed, so this
module must find all of them: commands joined by ``&&``, ``||``, ``;``, ``|``, ``&`` or
newlines; commands inside ``$(…)``, backticks, ``<(…)`` and subshells; the code passed to
``bash -c``/``sh -c``/``eval``; and the real command behind wrappers (``env``, ``nohup``,
``timeout``, ``xargs``…) and leading ``VAR=value`` assignments. Anything it cannot see
through (a command name built from a variable, a heredoc, unbalanced quotes) marks the
analysis ``opaque``: such a command is never approved by a rule, it is asked about.
"""

from __future__ import annotations

from dataclasses import dataclass, field

SHELLS = {"bash", "sh", "zsh", "dash", "ksh", "fish"}
# wrappers whose own options are skipped before the real command: name -> options taking a value
WRAPPERS: dict[str, set[str]] = {
    "env": {"-u", "--unset", "-C", "--chdir", "-S", "--split-string"},
    "command": set(),
    "builtin": set(),
    "nohup": set(),
    "time": {"-f", "--format", "-o", "--output"},
    "nice": {"-n", "--adjustment"},
    "ionice": {"-c", "-n", "-p"},
    "timeout": {"-s", "--signal", "-k", "--kill-after"},
    "stdbuf": {"-i", "-o", "-e"},
    "exec": {"-a"},
    "xargs": {"-I", "-L", "-n", "-P", "-d", "-E", "-s", "-a", "--max-args", "--max-procs"},
    "chronic": set(),
    "unbuffer": set(),
}
NEEDS_POSITIONAL = {"timeout": 1}  # ``timeout DURATION cmd``
SAFE_REDIRECT_TARGETS = {"/dev/null", "/dev/stdout", "/dev/stderr"}


@dataclass
class SimpleCommand:
    """One command the shell would run: its words after quote removal."""

    argv: list[str]
    dynamic: list[bool] = field(default_factory=list)
    """Per word: its text came from an expansion ($x, $(…), a glob) and is not known here."""
    writes: list[str] = field(default_factory=list)
    """Files it redirects output into."""

    @property
    def name(self) -> str:
        return self.argv[0] if self.argv else ""

    def known_prefix(self, n: int) -> bool:
        """True when the first ``n`` words are literal text (safe to match a rule against)."""
        return len(self.argv) >= n and not any(self.dynamic[:n])

    @property
    def writes_files(self) -> bool:
        return any(t not in SAFE_REDIRECT_TARGETS for t in self.writes)


@dataclass
class ShellAnalysis:
    commands: list[SimpleCommand] = field(default_factory=list)
    opaque: str | None = None
    """Why part of the command cannot be analysed (None when everything was seen)."""


@dataclass
class _Word:
    text: str = ""
    dynamic: bool = False
    quoted: bool = False
    started: bool = False


class _Parser:
    """A small POSIX-shell lexer: enough to find every simple command, and to know when not."""

    def __init__(self, source: str, depth: int) -> None:
        self.s = source
        self.i = 0
        self.depth = depth
        self.result = ShellAnalysis()
        self.words: list[_Word] = []
        self.word = _Word()
        self.writes: list[str] = []
        self.pending_redirect: str | None = None

    # -- helpers ----------------------------------------------------------------------------

    def opaque(self, reason: str) -> None:
        if self.result.opaque is None:
            self.result.opaque = reason

    def end_word(self) -> None:
        if not self.word.started:
            return
        if self.pending_redirect is not None:
            if self.pending_redirect.startswith(">"):
                self.writes.append(self.word.text if not self.word.dynamic else "$dynamic")
            self.pending_redirect = None
        else:
            self.words.append(self.word)
        self.word = _Word()

    def end_command(self) -> None:
        self.end_word()
        if self.pending_redirect is not None:
            self.opaque("a redirection without a target")
            self.pending_redirect = None
        if self.words:
            argv = [w.text for w in self.words]
            dynamic = [w.dynamic for w in self.words]
            self._add(argv, dynamic, self.writes)
        self.words, self.writes = [], []

    def merge(self, inner: ShellAnalysis) -> None:
        self.result.commands.extend(inner.commands)
        if inner.opaque:
            self.opaque(inner.opaque)

    def nested(self, source: str) -> None:
        if self.depth > 8:
            self.opaque("commands nested too deeply")
            return
        self.merge(analyse(source, self.depth + 1))

    def take_until_close(self, open_ch: str, close_ch: str) -> str:
        """Text up to the matching ``close_ch`` (quotes respected); i is left after it."""
        depth, start, quote = 1, self.i, ""
        while self.i < len(self.s):
            ch = self.s[self.i]
            if quote:
                if ch == "\\" and quote == '"':
                    self.i += 1
                elif ch == quote:
                    quote = ""
            elif ch in "'\"":
                quote = ch
            elif ch == "\\":
                self.i += 1
            elif ch == open_ch:
                depth += 1
            elif ch == close_ch:
                depth -= 1
                if depth == 0:
                    self.i += 1
                    return self.s[start : self.i - 1]
            self.i += 1
        self.opaque(f"an unclosed {open_ch!r}")
        return self.s[start:]

    def take_backticks(self) -> str:
        start = self.i
        while self.i < len(self.s) and self.s[self.i] != "`":
            self.i += 2 if self.s[self.i] == "\\" else 1
        if self.i >= len(self.s):
            self.opaque("an unclosed backtick")
            return self.s[start:]
        self.i += 1
        return self.s[start : self.i - 1]

    def dollar(self) -> None:
        """At ``$``: command substitution, arithmetic, or a variable (dynamic text)."""
        nxt = self.s[self.i + 1 : self.i + 2]
        self.word.started = True
        self.word.dynamic = True
        if self.s.startswith("$((", self.i):
            self.i += 3
            self.take_until_close("(", ")")
            if self.i < len(self.s) and self.s[self.i] == ")":
                self.i += 1
            return
        if nxt == "(":
            self.i += 2
            self.nested(self.take_until_close("(", ")"))
            return
        if nxt == "{":
            self.i += 2
            self.take_until_close("{", "}")
            return
        self.i += 1
        while self.i < len(self.s) and (self.s[self.i].isalnum() or self.s[self.i] in "_?@#$!*-"):
            self.i += 1
            if self.s[self.i - 1] in "?@#$!*-":
                break

    # -- main loop --------------------------------------------------------------------------

    def run(self) -> ShellAnalysis:
        s = self.s
        while self.i < len(s):
            ch = s[self.i]
            if ch == "\\":
                if s[self.i + 1 : self.i + 2] == "\n":
                    self.i += 2
                    continue
                self.word.started = True
                self.word.text += s[self.i + 1 : self.i + 2]
                self.i += 2
            elif ch == "'":
                end = s.find("'", self.i + 1)
                if end < 0:
                    self.opaque("an unclosed single quote")
                    end = len(s)
                self.word.started = self.word.quoted = True
                self.word.text += s[self.i + 1 : end]
                self.i = end + 1
            elif ch == '"':
                self.double_quoted()
            elif ch == "`":
                self.i += 1
                self.word.started = self.word.dynamic = True
                self.nested(self.take_backticks())
            elif ch == "$":
                self.dollar()
            elif ch in " \t":
                self.end_word()
                self.i += 1
            elif ch == "#" and not self.word.started:
                nl = s.find("\n", self.i)
                self.i = len(s) if nl < 0 else nl
            elif ch in ";\n&|":
                self.operator()
            elif ch in "<>":
                self.redirect()
            elif ch == "(" and not self.word.started and not self.words:
                self.i += 1
                self.nested(self.take_until_close("(", ")"))
            elif ch in "()":
                self.opaque(f"an unexpected {ch!r}")
                self.i += 1
            else:
                if ch in "*?[" and not self.words:
                    self.word.dynamic = True
                self.word.started = True
                self.word.text += ch
                self.i += 1
        self.end_command()
        return self.result

    def double_quoted(self) -> None:
        s = self.s
        self.i += 1
        self.word.started = self.word.quoted = True
        while self.i < len(s) and s[self.i] != '"':
            ch = s[self.i]
            if ch == "\\" and s[self.i + 1 : self.i + 2] in ('"', "\\", "$", "`", "\n"):
                self.word.text += s[self.i + 1]
                self.i += 2
            elif ch == "$":
                self.dollar()
            elif ch == "`":
                self.i += 1
                self.word.dynamic = True
                self.nested(self.take_backticks())
            else:
                self.word.text += ch
                self.i += 1
        if self.i >= len(s):
            self.opaque("an unclosed double quote")
        self.i += 1

    def operator(self) -> None:
        s = self.s
        ch = s[self.i]
        if ch == "&" and s[self.i + 1 : self.i + 2] == ">":  # &> file
            self.redirect()
            return
        self.end_command()
        self.i += 2 if s[self.i : self.i + 2] in ("&&", "||", "|&", ";;") else 1

    def redirect(self) -> None:
        s = self.s
        # a bare fd number just before the operator (2>, 1>>) is part of the redirection
        if self.word.started and self.word.text.isdigit() and not self.word.quoted:
            self.word = _Word()
        else:
            self.end_word()
        if s.startswith("<<", self.i) and not s.startswith("<<<", self.i):
            self.opaque("a heredoc")
            self.i = len(s)
            return
        if s[self.i] in "<>" and s[self.i + 1 : self.i + 2] == "(":  # process substitution
            self.i += 2
            self.nested(self.take_until_close("(", ")"))
            self.word.started = self.word.dynamic = True
            return
        start = self.i
        while self.i < len(s) and s[self.i] in "<>&|":
            self.i += 1
        op = s[start : self.i]
        if op.endswith("&") or s[self.i : self.i + 1] == "&":  # >&2, 2>&1
            if s[self.i : self.i + 1] == "&":
                self.i += 1
            while self.i < len(s) and (s[self.i].isdigit() or s[self.i] == "-"):
                self.i += 1
            return
        self.pending_redirect = ">" if ">" in op else "<"
        while self.i < len(s) and s[self.i] in " \t":
            self.i += 1

    def _add(self, argv: list[str], dynamic: list[bool], writes: list[str]) -> None:
        # leading assignments: VAR=value cmd
        while argv and _is_assignment(argv[0]):
            argv, dynamic = argv[1:], dynamic[1:]
        if not argv:
            return
        if argv[0] in ("{", "}", "!"):
            self._add(argv[1:], dynamic[1:], writes)
            return
        name = argv[0]
        if name in WRAPPERS:
            rest = _skip_wrapper(name, argv[1:])
            cut = len(argv) - len(rest)
            if rest:
                self._add(rest, dynamic[cut:], writes)
                return
        if name in SHELLS or name in ("eval", "source", "."):
            self._shell_code(name, argv, dynamic)
            if (
                name in SHELLS
                and "-c" not in argv[1:]
                and not any(a.startswith("-") and "c" in a[1:] for a in argv[1:])
            ):
                self.result.commands.append(SimpleCommand(argv, dynamic, list(writes)))
            return
        if name == "find":
            self._find_exec(argv, dynamic)
        self.result.commands.append(SimpleCommand(argv, dynamic, list(writes)))

    def _find_exec(self, argv: list[str], dynamic: list[bool]) -> None:
        """``find … -exec CMD … ;`` runs CMD: it is a command of its own."""
        i = 0
        while i < len(argv):
            if argv[i] in ("-exec", "-execdir", "-ok", "-okdir"):
                j = i + 1
                while j < len(argv) and argv[j] not in (";", "+"):
                    j += 1
                if j > i + 1:
                    self._add(argv[i + 1 : j], dynamic[i + 1 : j], [])
                i = j
            i += 1

    def _shell_code(self, name: str, argv: list[str], dynamic: list[bool]) -> None:
        if name == "eval":
            if any(dynamic[1:]):
                self.opaque("eval of dynamic text")
            self.nested(" ".join(argv[1:]))
            return
        if name in ("source", "."):
            self.opaque(f"{name} runs a script file")
            return
        for idx, arg in enumerate(argv[1:], start=1):
            if arg == "-c" or (arg.startswith("-") and not arg.startswith("--") and "c" in arg):
                if idx + 1 >= len(argv):
                    self.opaque(f"{name} -c without code")
                elif dynamic[idx + 1]:
                    self.opaque(f"{name} -c with dynamic code")
                else:
                    self.nested(argv[idx + 1])
                return
        if len(argv) > 1:
            self.opaque(f"{name} runs a script file")


def _is_assignment(word: str) -> bool:
    name, eq, _ = word.partition("=")
    return bool(eq) and name.replace("_", "a").isalnum() and not name[:1].isdigit()


def _skip_wrapper(name: str, args: list[str]) -> list[str]:
    takes_value = WRAPPERS[name]
    positional = NEEDS_POSITIONAL.get(name, 0)
    i = 0
    while i < len(args):
        arg = args[i]
        if name == "env" and _is_assignment(arg):
            i += 1
        elif arg == "--":
            i += 1
            break
        elif arg.startswith("-") and arg != "-":
            i += 2 if arg in takes_value else 1
        elif positional:
            positional -= 1
            i += 1
        else:
            break
    return args[i:]


def analyse(command: str, depth: int = 0) -> ShellAnalysis:
    """Every simple command in ``command``; ``opaque`` says what could not be seen through."""
    return _Parser(command, depth).run()
