"""``ln``'s arguments as GNU ln reads them: what it links, where, and how (shared by the
outside-the-workspace check and the writes through links a command makes)."""

from __future__ import annotations

from agent_tui.core.permissions.shell import Word


def parse_ln(args: list[Word]) -> tuple[list[Word], Word | None, bool, bool, bool] | None:
    """``ln``'s operands: (link targets, where the link goes — its name or directory, or None:
    the working directory —, symbolic, ``-r``, whether ``where`` is a directory by ``-t``);
    None for an option it does not know."""
    operands: list[Word] = []
    directory: Word | None = None
    symbolic = relative = False
    index = 0
    while index < len(args):
        text = args[index].text
        index += 1
        if text == "--":
            operands += args[index:]
            break
        if text in ("--help", "--version"):
            return [], None, False, False, False  # it prints and links nothing
        if text in ("-t", "--target-directory", "-S", "--suffix"):
            if index >= len(args):
                return None
            if text in ("-t", "--target-directory"):
                directory = args[index]
            index += 1
        elif text.startswith("--target-directory="):
            value = text.split("=", 1)[1]
            directory = Word(value, value)
        elif text.startswith(("--suffix=", "--backup")) or text in LN_FLAGS_LONG:
            symbolic = symbolic or text == "--symbolic"
            relative = relative or text == "--relative"
        elif text.startswith("-") and text != "-":
            letters = text[1:]
            if not letters or any(c not in LN_FLAGS_SHORT for c in letters):
                return None  # -tDIR, -S.bak, an unknown option
            symbolic = symbolic or "s" in letters
            relative = relative or "r" in letters
        else:
            operands.append(args[index - 1])
    if directory is not None:
        return operands, directory, symbolic, relative, True
    if len(operands) > 1:
        return operands[:-1], operands[-1], symbolic, relative, False
    return operands, None, symbolic, relative, False


LN_FLAGS_SHORT = frozenset("bdfFinLPrsTv")
LN_FLAGS_LONG = frozenset(
    {
        "--directory",
        "--force",
        "--interactive",
        "--logical",
        "--no-dereference",
        "--physical",
        "--relative",
        "--symbolic",
        "--no-target-directory",
        "--verbose",
    }
)
