"""Our glob matchers against git: a table of pattern × path verdicts that ``git check-ignore``
gives (checked again below when git is installed), for the permission rules (gitignore
semantics: a bare name at any depth, a match covers what is below) and for the ``glob`` tool
(the whole relative path, ``*`` within one level). ``pathspec`` agrees with the table except
where it is known to differ from git (``PATHSPEC_DIFFERS``); its regexes backtrack, so it is
the oracle here, not our matcher.
"""

from __future__ import annotations

import random
import re
import shutil
import subprocess
import time
from pathlib import Path

import pathspec
import pytest

from agent_tui.core.permissions.rules import Rule
from agent_tui.core.workspace.globs import GlobError, expand_braces, glob_regex, translate
from agent_tui.core.workspace.ignores import IgnoreFile, parse_line

# (pattern, path, git's verdict for a .gitignore holding just that pattern)
RULE_TABLE = [
    ("*.py", "a.py", True),
    ("*.py", "src/a.py", True),
    ("*.py", "a.pyc", False),
    ("*.py", "src/a.py/x", True),
    ("a?c", "abc", True),
    ("a?c", "a/c", False),
    ("a?c", "x/abc", True),
    ("a?c", "ac", False),
    ("[abc]x", "ax", True),
    ("[abc]x", "dx", False),
    ("[abc]x", "x/bx", True),
    ("[!a]x", "ax", False),
    ("[!a]x", "bx", True),
    ("[!a]x", "x", False),
    ("[!a]x", "dir/bx", True),
    ("[^a]x", "ax", False),
    ("[^a]x", "bx", True),
    ("a[!x]b", "a/b", False),
    ("a[!x]b", "azb", True),
    ("a[!x]b", "axb", False),
    ("a[^x]b", "a/b", False),
    ("a[^x]b", "azb", True),
    ("[]a]x", "]x", True),
    ("[]a]x", "ax", True),
    ("[]a]x", "bx", False),
    ("[!]a]x", "]x", False),
    ("[!]a]x", "ax", False),
    ("[!]a]x", "bx", True),
    ("[a-c]x", "bx", True),
    ("[a-c]x", "dx", False),
    ("[a-c]x", "-x", False),
    ("[a-]x", "-x", True),
    ("[a-]x", "ax", True),
    ("[a-]x", "bx", False),
    ("[z-a]x", "zx", True),
    ("[z-a]x", "ax", False),
    ("[z-a]x", "mx", False),
    ("[\\]]x", "]x", True),
    ("[\\]]x", "\\x", False),
    ("[\\a]x", "ax", True),
    ("[\\a]x", "\\x", False),
    ("[[]x", "[x", True),
    ("[[:digit:]]x", "1x", True),
    ("[[:digit:]]x", "ax", False),
    ("[[:digit:]]x", ":x", False),
    ("[[:upper:][:digit:]]", "A", True),
    ("[[:upper:][:digit:]]", "7", True),
    ("[[:upper:][:digit:]]", "a", False),
    ("[!a-z]", "q", False),
    ("[!a-z]", "Q", True),
    ("[!a-z]", "7", True),
    ("\\*", "*", True),
    ("\\*", "a", False),
    ("\\*", "x/*", True),
    ("a\\*b", "a*b", True),
    ("a\\*b", "axb", False),
    ("\\?", "?", True),
    ("\\?", "a", False),
    ("\\[a]", "[a]", True),
    ("\\[a]", "a", False),
    ("\\a", "a", True),
    ("\\a", "a/b", True),
    ("\\a", "b", False),
    ("\\!x", "!x", True),
    ("\\!x", "x", False),
    ("\\#x", "#x", True),
    ("a**b", "ab", True),
    ("a**b", "axb", True),
    ("a**b", "a/b", False),
    ("a**b", "ax/yb", False),
    ("a**b", "x/axxb", True),
    ("**.py", "a.py", True),
    ("**.py", "x/a.py", True),
    ("**.py", "x/y/a.py", True),
    ("a/**.py", "a/b.py", True),
    ("a/**.py", "a/x/b.py", False),
    ("a/b**", "a/b", True),
    ("a/b**", "a/bcd", True),
    ("a/b**", "a/b/c", True),
    ("a/b**", "a/x/b", False),
    ("**/b", "b", True),
    ("**/b", "a/b", True),
    ("**/b", "a/x/b", True),
    ("**/b", "b/c", True),
    ("**/b", "ab", False),
    ("**/a/b", "a/b", True),
    ("**/a/b", "x/a/b", True),
    ("**/a/b", "x/y/a/b/c", True),
    ("**/a/b", "a/x/b", False),
    ("a/**/b", "a/b", True),
    ("a/**/b", "a/x/b", True),
    ("a/**/b", "a/x/y/b", True),
    ("a/**/b", "a/b/c", True),
    ("a/**/b", "x/a/b", False),
    ("a/**/b", "a/xb", False),
    ("a/**", "a", False),
    ("a/**", "a/b", True),
    ("a/**", "a/b/c", True),
    ("a/**/", "a/b", False),
    ("a/**/", "a/b/c", True),
    ("**", "a", True),
    ("**", "a/b", True),
    ("x/**/**/y", "x/y", True),
    ("x/**/**/y", "x/q/y", True),
    ("x/**/**/y", "x/q/r/y", True),
    ("x/**/**/y", "xy", False),
    ("**/**/x", "x", True),
    ("**/**/x", "a/b/x", True),
    ("a/b", "a/b", True),
    ("a/b", "x/a/b", False),
    ("a/b", "a/b/c", True),
    ("a/b", "a/bc", False),
    ("/a", "a", True),
    ("/a", "a/b", True),
    ("/a", "x/a", False),
    ("/a/b", "a/b", True),
    ("/a/b", "x/a/b", False),
    ("b/", "b", False),
    ("b/", "b/c", True),
    ("b/", "a/b/c", True),
    ("b/", "a/b", False),
    ("/a/", "a", False),
    ("/a/", "a/x", True),
    ("/a/", "b/a/x", False),
    ("a/*/c", "a/b/c", True),
    ("a/*/c", "a/c", False),
    ("a/*/c", "a/b/d/c", False),
    ("a/*/c", "a/b/c/d", True),
    ("*/b", "a/b", True),
    ("*/b", "b", False),
    ("*/b", "x/a/b", False),
    ("a/*", "a/b", True),
    ("a/*", "a/b/c", True),
    ("a/*", "a", False),
    ("*", "a", True),
    ("*", "a/b", True),
    ("?", "a", True),
    ("?", "ab", False),
    ("?", "x/a", True),
    ("a/b*/c", "a/b/c", True),
    ("a/b*/c", "a/bxx/c", True),
    ("a/b*/c", "a/b/x/c", False),
    ("x\\?y", "x?y", True),
    ("x\\?y", "xzy", False),
    ("*a*a*b", "aab", True),
    ("*a*a*b", "xaayb", True),
    ("*a*a*b", "ab", False),
    ("*a*a*b", "aaa", False),
    (".env", ".env", True),
    (".env", "x/.env", True),
    (".env", ".env.local", False),
    (".env", ".env/x", True),
    (".env*", ".env.local", True),
    (".env*", "x/.env", True),
    ("secrets/**/*.key", "secrets/a.key", True),
    ("secrets/**/*.key", "secrets/x/y/a.key", True),
    ("secrets/**/*.key", "x/secrets/a.key", False),
    ("src/**/test_*.py", "src/test_a.py", True),
    ("src/**/test_*.py", "src/x/test_a.py", True),
    ("src/**/test_*.py", "src/x/a_test.py", False),
    ("*.{js,ts}", "a.js", False),
    ("*.{js,ts}", "a.{js,ts}", True),
    ("a b", "a b", True),
    ("a b", "ab", False),
    ("a+b(c).txt", "a+b(c).txt", True),
    ("a+b(c).txt", "aab(c).txt", False),
    ("ü*", "über", True),
    ("ü*", "x/ünd", True),
    ("ü*", "u", False),
]

# (pattern, path, git's wildmatch verdict on the whole path: a .gitignore of "/PATTERN" and
# "!*/", so that no parent directory decides)
GLOB_TABLE = [
    ("*", "a", True),
    ("*", "a/b", False),
    ("*.py", "a.py", True),
    ("*.py", "src/a.py", False),
    ("**/*.py", "a.py", True),
    ("**/*.py", "src/a.py", True),
    ("**/*.py", "src/x/a.py", True),
    ("**/*.py", "a.pyc", False),
    ("**.py", "a.py", True),
    ("**.py", "src/a.py", False),
    ("src/**/*.ts", "src/a.ts", True),
    ("src/**/*.ts", "src/x/y/a.ts", True),
    ("src/**/*.ts", "a.ts", False),
    ("a/**", "a/b", True),
    ("a/**", "a/b/c", True),
    ("a/**", "a", False),
    ("a/**/b", "a/b", True),
    ("a/**/b", "a/x/y/b", True),
    ("a/**/b", "a/bb", False),
    ("a**b", "axb", True),
    ("a**b", "a/b", False),
    ("*/*/*.py", "a/b/c.py", True),
    ("*/*/*.py", "a/c.py", False),
    ("f[!0-4].py", "f5.py", True),
    ("f[!0-4].py", "f3.py", False),
    ("a[!x]b", "a/b", False),
    ("a[!x]b", "azb", True),
    ("\\*.txt", "*.txt", True),
    ("\\*.txt", "a.txt", False),
    ("[[:alpha:]]*", "x1", True),
    ("[[:alpha:]]*", "1x", False),
    ("**/a/**/b", "x/a/y/a/z/b", True),
    ("**/a/**/b", "a/b/c", False),
    ("**/a/**/b", "a/b", True),
    ("**/**/x", "x", True),
    ("**/**/x", "a/b/x", True),
    ("a/*", "a/b", True),
    ("a/*", "a/b/c", False),
    ("?.md", "a.md", True),
    ("?.md", "ab.md", False),
    ("x/**/**/y", "x/y", True),
    ("x/**/**/y", "x/1/2/y", True),
]

PATHSPEC_DIFFERS = {
    # pathspec's [!x] and [^x] match "/" (git's never do)
    ("a[!x]b", "a/b"),
    ("a[^x]b", "a/b"),
    # pathspec rejects a reversed range (re.error); git takes its first character
    ("[z-a]x", "zx"),
    ("[z-a]x", "ax"),
    ("[z-a]x", "mx"),
    # pathspec takes "\" inside a class literally; git as an escape
    ("[\\]]x", "]x"),
    ("[\\a]x", "\\x"),
    # pathspec's "a/**/" matches the files in a/ too (git's only what is in its directories)
    ("a/**/", "a/b"),
    # pathspec has no POSIX classes
    ("[[:digit:]]x", "1x"),
    ("[[:upper:][:digit:]]", "A"),
    ("[[:upper:][:digit:]]", "7"),
}

WORKSPACE = Path("/work/space")


def test_the_table_is_large_enough() -> None:
    assert len(RULE_TABLE) + len(GLOB_TABLE) >= 200
    assert len(set(RULE_TABLE)) == len(RULE_TABLE)


@pytest.mark.parametrize(("pattern", "path", "expected"), RULE_TABLE)
def test_a_rule_matches_what_gitignore_matches(pattern: str, path: str, expected: bool) -> None:
    rule = Rule("read_file", pattern)
    assert rule.matches_path(WORKSPACE / path, WORKSPACE) is expected
    assert rule.path_matcher(WORKSPACE)(f"{WORKSPACE}/{path}") is expected


@pytest.mark.parametrize(("pattern", "path", "expected"), GLOB_TABLE)
def test_the_glob_tool_matches_what_wildmatch_matches(
    pattern: str, path: str, expected: bool
) -> None:
    assert (glob_regex(pattern).fullmatch(path) is not None) is expected


@pytest.mark.filterwarnings("ignore::FutureWarning")  # pathspec's regex for [[:digit:]]
def test_pathspec_agrees_with_the_table_except_where_it_differs_from_git() -> None:
    differs = set()
    for pattern, path, expected in RULE_TABLE:
        try:
            verdict: bool | None = pathspec.GitIgnoreSpec.from_lines([pattern]).match_file(path)
        except re.error:
            verdict = None  # pathspec cannot compile it
        if verdict is not expected:
            differs.add((pattern, path))
    assert differs == PATHSPEC_DIFFERS


def _git_verdicts(gitignore: str, paths: list[str], tmp: Path) -> dict[str, bool]:
    (tmp / ".gitignore").write_text(gitignore)
    result = subprocess.run(
        ["git", "check-ignore", "--no-index", "--stdin", "-z", "-v", "-n"],
        cwd=tmp,
        input="\0".join(paths) + "\0",
        capture_output=True,
        text=True,
        check=False,
    )
    fields = result.stdout.split("\0")
    return {
        fields[k + 3]: bool(fields[k]) and not fields[k + 2].startswith("!")
        for k in range(0, len(fields) - 1, 4)
    }


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_the_table_is_what_git_says(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    for table, gitignore in ((RULE_TABLE, "{}\n"), (GLOB_TABLE, "/{}\n!*/\n")):
        patterns = dict.fromkeys(pattern for pattern, _, _ in table)
        for pattern in patterns:
            rows = [(path, expected) for p, path, expected in table if p == pattern]
            git = _git_verdicts(gitignore.format(pattern), [path for path, _ in rows], tmp_path)
            for path, expected in rows:
                assert git[path] is expected, (pattern, path)


def test_random_patterns_agree_with_pathspec() -> None:
    """Patterns outside the table, against pathspec (no [!x]: it lets that match "/")."""
    rng = random.Random(18)
    atoms = ["a", "b", "*", "?", "/", "**", "[ab]", "\\*", "**/", "/**/", "[a-b]", "*a"]
    for _ in range(2000):
        pattern = "".join(rng.choice(atoms) for _ in range(rng.randint(1, 6)))
        if "//" in pattern or pattern.endswith("**/"):
            continue  # a rule's absolute path, an empty segment; pathspec's "a/**/" (above)
        spec = pathspec.GitIgnoreSpec.from_lines([pattern])
        rule = Rule("read_file", pattern)
        for _ in range(8):
            path = "/".join(
                "".join(rng.choice("ab*") for _ in range(rng.randint(1, 3)))
                for _ in range(rng.randint(1, 4))
            )
            expected = spec.match_file(path)
            assert rule.matches_path(WORKSPACE / path, WORKSPACE) is expected, (pattern, path)


@pytest.mark.parametrize(
    ("pattern", "miss", "hit"),
    [
        ("*a" * 12 + "*b", "a" * 250, "a" * 250 + "b"),
        ("*[ab]" * 12 + "*c", "ab" * 120, "ab" * 120 + "c"),
        ("*\\*" * 12 + "*b", "*" * 250, "*" * 250 + "b"),
        ("*[[:alpha:]]" * 12 + "*1", "x" * 250, "x" * 250 + "1"),
        ("/".join(["**"] * 12) + "/x", "a/" * 30 + "y", "a/" * 30 + "x"),
        ("**/a/" * 10 + "**/b", "a/" * 1000 + "c", "a/" * 1000 + "b"),
    ],
)
def test_hostile_patterns_answer_at_once(pattern: str, miss: str, hit: str) -> None:
    # pathspec's regex for the first one takes 12 s on a 50-character name (n**13 backtracking)
    started = time.process_time()  # CPU time: a loaded machine does not count
    rule = Rule("read_file", pattern)
    assert not rule.matches_path(WORKSPACE / miss, WORKSPACE)
    assert rule.matches_path(WORKSPACE / hit, WORKSPACE)
    assert glob_regex(pattern).fullmatch(miss) is None
    assert glob_regex(pattern).fullmatch(hit) is not None
    line = parse_line(pattern)
    assert line is not None
    ignore = IgnoreFile.parse(pattern, ".gitignore")
    assert ignore.verdict(miss, miss.rsplit("/", 1)[-1], False) is None
    assert ignore.verdict(hit, hit.rsplit("/", 1)[-1], False) is True
    assert time.process_time() - started < 1.0


@pytest.mark.parametrize(
    "pattern",
    ["[" * 20000, "[\\]" * 7000, "[-[:" * 5000, "[[:x:]" * 3000],
    ids=["open", "escaped-close", "range-to-class", "unknown-class"],
)
def test_brackets_that_never_close_translate_in_linear_time(pattern: str) -> None:
    # each "[" scanned to the end of the segment took 12 s for 5,000 characters
    started = time.process_time()  # CPU time: a loaded machine does not count
    regex = re.compile(translate(pattern))
    assert regex.fullmatch("a" * 100) is None
    assert parse_line(pattern) is None  # git cannot match it: an ignore file drops it
    assert time.process_time() - started < 2.0


def test_no_pattern_crashes_the_translation() -> None:
    rng = random.Random(5)
    chars = "ab*?[]!^-\\:/{},."
    for _ in range(5000):
        pattern = "".join(rng.choice(chars) for _ in range(rng.randint(1, 12)))
        regex = re.compile(translate(pattern))  # never raises without strict
        regex.fullmatch("a/b")
        try:
            re.compile(translate(pattern, strict=True))
        except GlobError:
            pass
        Rule("read_file", pattern).matches_path(WORKSPACE / "a", WORKSPACE)


def test_what_git_cannot_match_is_literal_in_a_rule_and_dropped_from_an_ignore_file() -> None:
    # git matches nothing with an unclosed "[" or a trailing "\": a deny rule denies the file
    # of that name instead (failing closed), an ignore file drops the line (as git does)
    for pattern, name in (("key[1", "key[1"), ("a\\", "a\\")):
        assert Rule("read_file", pattern).matches_path(WORKSPACE / name, WORKSPACE)
        assert parse_line(pattern) is None
    assert parse_line("[[:nope:]]") is None  # an unknown class: git matches nothing


@pytest.mark.parametrize(
    ("line", "name", "ignored"),
    [
        ("", "x", None),
        ("# comment", "# comment", None),
        ("\\#x", "#x", True),
        ("!x", "x", False),
        ("\\!x", "!x", True),
        ("x   ", "x", True),
        ("x\\ ", "x ", True),
        ("x\\ ", "x", None),
        ("x\r", "x", True),
        ("build/", "build", None),  # a file named build: the line is about directories
    ],
)
def test_ignore_file_lines(line: str, name: str, ignored: bool | None) -> None:
    assert IgnoreFile.parse(line, ".gitignore").verdict(name, name, False) is ignored


def test_braces_expand_in_globs_only() -> None:
    assert expand_braces("*.{js,ts}") == ["*.js", "*.ts"]
    assert expand_braces("\\{a,b}") == ["\\{a,b}"]
    assert glob_regex("\\{a,b}").fullmatch("{a,b}")
