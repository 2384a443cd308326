"""A sed script read the way GNU sed 4.9 compiles it (``sed/compile.c``), for what it does.

The parser follows GNU sed's own reader character by character — ``compile_program``,
``compile_address``, ``match_slash`` (with ``snarf_char_class``: the delimiter means nothing
inside a bracket expression), ``mark_subst_opts``, ``read_text``, ``read_filename``,
``read_label``, ``read_end_of_cmd`` — so where a command ends, where a file name starts and what
an escaped newline does are decided by the same rules as sed's. It does not compile regular
expressions: a script sed would reject for a bad regex is still read to its end (a superset of
what sed does: ``w`` files are created when sed reads the script, before anything runs).

What it reports: the files ``w``, ``W`` and ``s///w`` write (created when sed *reads* the script,
whatever the addresses say; ``/dev/stdout`` and ``/dev/stderr`` are sed's own streams), the files
``r`` and ``R`` read, the commands ``e`` and ``s///e`` run in a shell, and anything sed would
reject (``error``). Several scripts (``-e``, ``--expression``) are read in order and share one
program, as in sed: an ``a\\`` text or a block may continue in the next one. ``--sandbox`` makes
``e``, ``r``, ``w`` (all forms) an error from the point it is given.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from agent_tui.core.permissions.shell.strverscmp import strverscmp

EOF = ""
BLANK = " \t"
SPACE = " \t\n\v\f\r"
DIGITS = "0123456789"
SPECIAL_OUTPUTS = frozenset({"/dev/stdout", "/dev/stderr"})
SANDBOXED = "e/r/w commands disabled in sandbox mode"
MAX_SCRIPT = 200_000
"""Characters read at most: a longer script is not understood (bounded time)."""
SED_VERSION = "4.9"
"""The version modelled: ``v 4.10`` asks for a newer one, an error to sed 4.9."""


class SedError(Exception):
    """sed would stop with this error before running anything."""


@dataclass
class SedProgram:
    commands: list[str] = field(default_factory=list)
    """Each command letter, in order (``{`` and ``}`` included; ``#`` and ``v`` are not
    commands, as in sed)."""
    writes: list[tuple[str, str]] = field(default_factory=list)
    """(file, how): ``w``, ``W``, ``s///w``; special outputs included."""
    reads: list[tuple[str, str]] = field(default_factory=list)
    """(file, how): ``r``, ``R``."""
    runs: list[tuple[str, str]] = field(default_factory=list)
    """(command text, how): ``e COMMAND`` (text empty: the pattern space runs), ``s///e``."""
    texts: list[str] = field(default_factory=list)
    """The texts of ``a``, ``i``, ``c`` and ``e``."""
    error: str | None = None
    unsure: str | None = None
    """Input the parser cannot read as sed surely would (a multibyte delimiter…)."""

    @property
    def files_written(self) -> list[str]:
        return [name for name, _ in self.writes if name not in SPECIAL_OUTPUTS]

    @property
    def needs_sandbox_off(self) -> bool:
        """Has a command ``sed --sandbox`` refuses."""
        return bool(self.writes or self.reads or self.runs)


@dataclass
class _Address:
    kind: str  # "num", "num_mod", "regex", "last", "step", "step_mod", "null"
    number: int = 0


class _Parser:
    def __init__(self, posix: bool) -> None:
        self.posix = posix
        self.program = SedProgram()
        self.blocks = 0
        self.pending: list[str] | None = None
        """An ``a``/``i``/``c``/``e`` text that continues in the next script."""
        self.pending_is_e = False
        self.labels: set[str] = set()
        self.jumps: list[str] = []
        self.text = ""
        self.pos = 0
        self.sandbox = False

    # -- characters (sed's inchar, savchar, in_nonblank) ----------------------------------------

    def inchar(self) -> str:
        if self.pos < len(self.text):
            ch = self.text[self.pos]
            self.pos += 1
            return ch
        return EOF

    def savchar(self, ch: str) -> None:
        if ch != EOF:
            self.pos -= 1

    def in_nonblank(self) -> str:
        ch = self.inchar()
        while ch != EOF and ch in BLANK:
            ch = self.inchar()
        return ch

    def in_integer(self, ch: str) -> int:
        digits = ""
        while ch != EOF and ch in DIGITS:
            digits += ch
            ch = self.inchar()
        self.savchar(ch)
        return int(digits) if digits else 0

    def read_end_of_cmd(self) -> None:
        ch = self.in_nonblank()
        if ch in ("}", "#"):
            self.savchar(ch)
        elif ch not in (EOF, "\n", ";"):
            raise SedError("extra characters after command")

    # -- one script ---------------------------------------------------------------------------

    def script(self, text: str, sandbox: bool) -> None:
        self.text, self.pos, self.sandbox = text, 0, sandbox
        if self.pending is not None:
            self.read_text(self.pending, "\n", self.pending_is_e)
        while True:
            ch = self.inchar()
            while ch == ";" or (ch != EOF and ch in SPACE):
                ch = self.inchar()
            if ch == EOF:
                return
            self.command(ch)

    def command(self, ch: str) -> None:
        a1: _Address | None = None
        a2: _Address | None = None
        a1 = self.address(ch)
        if a1 is not None:
            if a1.kind in ("step", "step_mod"):
                raise SedError("invalid usage of +N or ~N as first address")
            ch = self.in_nonblank()
            if ch == ",":
                a2 = self.address(self.in_nonblank())
                if a2 is None:
                    raise SedError("unexpected `,'")
                ch = self.in_nonblank()
            if (
                a1.kind == "num"
                and a1.number == 0
                and (
                    (a2 is None and ch != "r")
                    or (a2 is not None and a2.kind != "regex")
                    or self.posix
                )
            ):
                raise SedError("invalid usage of line address 0")
        if ch == "!":
            ch = self.in_nonblank()
            if ch == "!":
                raise SedError("multiple `!'s")
        if self.posix and ch in ("e", "F", "v", "z", "L", "Q", "T", "R", "W"):
            raise SedError(f"unknown command: `{ch}'")
        if self.posix and ch in ("a", "i", "l", "=", "r") and a2 is not None:
            raise SedError("command only uses one address")
        if ch == "#":
            if a1 is not None:
                raise SedError("comments don't accept any addresses")
            while ch not in (EOF, "\n"):
                ch = self.inchar()
            return
        if ch == "v":
            version = self.read_label() or "4.0"
            if strverscmp(version, SED_VERSION) > 0:
                raise SedError("expected newer version of sed")
            self.posix = False
            return
        self.program.commands.append(ch or "EOF")
        if ch == "{":
            self.blocks += 1
        elif ch == "}":
            if not self.blocks:
                raise SedError("unexpected `}'")
            if a1 is not None:
                raise SedError("`}' doesn't want any addresses")
            self.read_end_of_cmd()
            self.blocks -= 1
        elif ch == "e":
            if self.sandbox:
                raise SedError(SANDBOXED)
            ch = self.in_nonblank()
            if ch in (EOF, "\n"):
                self.program.runs.append(("", "the `e` command (it runs the pattern space)"))
                return
            self.text_command(ch, is_e=True)
        elif ch in ("a", "i", "c"):
            self.text_command(self.in_nonblank(), is_e=False)
        elif ch == ":":
            if a1 is not None:
                raise SedError(": doesn't want any addresses")
            label = self.read_label()
            if not label:
                raise SedError('":" lacks a label')
            self.labels.add(label)
        elif ch in ("T", "b", "t"):
            label = self.read_label()
            if label:
                self.jumps.append(label)
        elif ch in ("Q", "q", "L", "l"):
            if ch in ("Q", "q") and a2 is not None:
                raise SedError("command only uses one address")
            ch = self.in_nonblank()
            if ch != EOF and ch in DIGITS and not self.posix:
                self.in_integer(ch)
            else:
                self.savchar(ch)
            self.read_end_of_cmd()
        elif ch in "=dDFgGhHnNpPzx" and ch != EOF:
            self.read_end_of_cmd()
        elif ch in ("r", "R"):
            name = self.read_filename()
            if not name:
                raise SedError("missing filename in r/R/w/W commands")
            self.program.reads.append((name, f"the `{ch}` command"))
        elif ch in ("w", "W"):
            name = self.read_filename()
            if not name:
                raise SedError("missing filename in r/R/w/W commands")
            self.program.writes.append((name, f"the `{ch}` command"))
        elif ch == "s":
            self.substitute()
        elif ch == "y":
            slash = self.delimiter()
            if self.match_slash(slash, regex=False) is None:
                raise SedError("unterminated `y' command")
            if self.match_slash(slash, regex=False) is None:
                raise SedError("unterminated `y' command")
            self.read_end_of_cmd()
        elif ch == EOF:
            raise SedError("missing command")
        else:
            raise SedError(f"unknown command: `{ch}'")

    # -- addresses ----------------------------------------------------------------------------

    def address(self, ch: str) -> _Address | None:
        if ch in ("/", "\\") and ch != EOF:
            if ch == "\\":
                ch = self.delimiter()
            if self.match_slash(ch, regex=True) is None:
                raise SedError("unterminated address regex")
            while True:
                ch = self.in_nonblank()
                if self.posix or ch not in ("I", "M") or ch == EOF:
                    self.savchar(ch)
                    return _Address("regex")
        if ch != EOF and ch in DIGITS:
            number = self.in_integer(ch)
            ch = self.in_nonblank()
            if ch != "~" or self.posix:
                self.savchar(ch)
                return _Address("num", number)
            step = self.in_integer(self.in_nonblank())
            return _Address("num_mod" if step > 0 else "num", number)
        if ch in ("+", "~") and ch != EOF and not self.posix:
            step = self.in_integer(self.in_nonblank())
            if step == 0:
                return _Address("null")
            return _Address("step" if ch == "+" else "step_mod", step)
        if ch == "$":
            return _Address("last")
        return None

    def delimiter(self) -> str:
        ch = self.inchar()
        if ch != EOF and not ch.isascii():
            raise _Unsure(
                f"a non-ASCII delimiter ({ch!r}): sed reads it byte by byte or refuses it, "
                "depending on the locale"
            )
        return ch

    # -- regexes and replacements (match_slash, snarf_char_class) --------------------------------

    def match_slash(self, slash: str, regex: bool) -> str | None:
        out: list[str] = []
        ch = self.inchar()
        while ch != EOF and ch != "\n":
            if ch == slash:
                return "".join(out)
            if ch == "\\":
                ch = self.inchar()
                if ch == EOF:
                    break
                if ch != "\n" and (ch != slash or (not regex and ch == "&")):
                    out.append("\\")
            elif ch == "[" and regex:
                out.append(ch)
                ch = self.char_class(out)
                if ch != "]":
                    break
            out.append(ch)
            ch = self.inchar()
        if ch == "\n":
            self.savchar(ch)
        return None

    def char_class(self, out: list[str]) -> str:
        state = 0
        delim = ""
        ch = self.inchar()
        if ch == "^":
            out.append(ch)
            ch = self.inchar()
        if ch == "]":
            out.append(ch)
            ch = self.inchar()
        while True:
            if ch in (EOF, "\n"):
                return ch
            if ch in (".", ":", "="):
                if state == 1:
                    delim, state = ch, 2
                elif state == 2 and ch == delim:
                    state = 3
                else:
                    state &= ~1
            elif ch == "[":
                if state == 0:
                    state = 1
            elif ch == "]":
                if state in (0, 1):
                    return ch
                if state == 3:
                    state = 0
                state &= ~1
            else:
                state &= ~1
            out.append(ch)
            ch = self.inchar()

    def substitute(self) -> None:
        slash = self.delimiter()
        if self.match_slash(slash, regex=True) is None:
            raise SedError("unterminated `s' command")
        if self.match_slash(slash, regex=False) is None:
            raise SedError("unterminated `s' command")
        flags = ""
        evaluates = False
        while True:
            ch = self.in_nonblank()
            if ch in ("i", "I", "m", "M", "e") and ch != EOF:
                if self.posix:
                    raise SedError("unknown option to `s'")
                evaluates |= ch == "e"
            elif ch == "p":
                if "p" in flags:
                    raise SedError("multiple `p' options to `s' command")
            elif ch == "g":
                if "g" in flags:
                    raise SedError("multiple `g' options to `s' command")
            elif ch == "w":
                name = self.read_filename()
                if not name:
                    raise SedError("missing filename in r/R/w/W commands")
                self.program.writes.append((name, "the `w` flag of an `s` command"))
                break
            elif ch != EOF and ch in DIGITS:
                if any(c in DIGITS for c in flags):
                    raise SedError("multiple number options to `s' command")
                if self.in_integer(ch) == 0:
                    raise SedError("number option to `s' command may not be zero")
            elif ch in ("}", "#"):
                self.savchar(ch)
                break
            elif ch in (EOF, "\n", ";") or (ch == "\r" and self.inchar() == "\n"):
                break
            else:
                raise SedError("unknown option to `s'")
            flags += ch
        if evaluates:
            if self.sandbox:
                raise SedError(SANDBOXED)
            self.program.runs.append(("", "the `e` flag of an `s` command (it runs the result)"))

    # -- texts, labels, file names --------------------------------------------------------------

    def text_command(self, ch: str, is_e: bool) -> None:
        if ch == EOF:
            raise SedError("expected \\ after `a', `c' or `i'")
        if ch == "\\":
            ch = self.inchar()
        else:
            if self.posix:
                raise SedError("expected \\ after `a', `c' or `i'")
            self.savchar(ch)
            ch = "\n"
        self.read_text([], ch, is_e)

    def read_text(self, buf: list[str], leadin: str, is_e: bool) -> None:
        self.pending, self.pending_is_e = buf, is_e
        if leadin == EOF:
            return
        if leadin != "\n":
            buf.append(leadin)
        ch = self.inchar()
        while ch not in (EOF, "\n"):
            if ch == "\\":
                ch = self.inchar()
                if ch != EOF:
                    buf.append("\\")
            if ch == EOF:
                return  # continues in the next script
            buf.append(ch)
            ch = self.inchar()
        self.finish_text()

    def finish_text(self) -> None:
        if self.pending is None:
            return
        text = "".join(self.pending)
        self.program.texts.append(text)
        if self.pending_is_e:
            self.program.runs.append((text, "the `e` command"))
        self.pending = None

    def read_label(self) -> str:
        out = ""
        ch = self.in_nonblank()
        while ch not in (EOF, "\n", ";", "}", "#") and ch not in BLANK:
            out += ch
            ch = self.inchar()
        self.savchar(ch)
        return out

    def read_filename(self) -> str:
        if self.sandbox:
            raise SedError(SANDBOXED)
        out = ""
        ch = self.in_nonblank()
        while ch not in (EOF, "\n"):
            out += ch
            ch = self.inchar()
        return out

    def finish(self) -> None:
        if self.blocks:
            raise SedError("unmatched `{'")
        self.finish_text()
        missing = [label for label in self.jumps if label not in self.labels]
        if missing:
            raise SedError(f"can't find label for jump to `{missing[0]}'")


class _Unsure(Exception):
    pass


def parse_sed(scripts: list[tuple[str, bool]], *, posix: bool = False) -> SedProgram:
    """Read ``scripts`` — (text, ``--sandbox`` in force) pairs in the order sed compiles them —
    as one program. Never raises: sed's errors go to ``error``, doubts to ``unsure``."""
    parser = _Parser(posix)
    try:
        if sum(len(text) for text, _ in scripts) > MAX_SCRIPT:
            raise _Unsure(f"a script longer than {MAX_SCRIPT:,} characters")
        for text, sandbox in scripts:
            if any("\udc80" <= c <= "\udcff" for c in text):
                raise _Unsure("bytes that are not UTF-8 (sed's reading depends on the locale)")
            parser.script(text, sandbox)
        parser.finish()
    except SedError as exc:
        parser.program.error = str(exc)
    except _Unsure as exc:
        parser.program.unsure = str(exc)
    return parser.program
