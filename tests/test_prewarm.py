"""``tests/prewarm.py`` leans on pytest's private assert-rewriting helpers: they are still there
with the signatures it was written against (pytest is pinned below 9 for them), and what it
writes is what pytest's import hook then accepts as up to date."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest
from _pytest.assertion import rewrite

from tests.prewarm import _rewrite, _rotated

SIGNATURES = {
    "_read_pyc": "(source: 'Path', pyc: 'Path', trace: 'Callable[[str], None]' = ",
    "_rewrite_test": "(fn: 'Path', config: 'Config') -> 'tuple[os.stat_result, types.CodeType]'",
    "_write_pyc": "(state: 'AssertionState', co: 'types.CodeType', "
    "source_stat: 'os.stat_result', pyc: 'Path') -> 'bool'",
    "get_cache_dir": "(file_path: 'Path') -> 'Path'",
    "try_makedirs": "(cache_dir: 'Path') -> 'bool'",
}


@pytest.mark.parametrize("name", sorted(SIGNATURES))
def test_pytests_private_helpers_are_as_written_against(name: str) -> None:
    assert str(inspect.signature(getattr(rewrite, name))).startswith(SIGNATURES[name])
    assert isinstance(rewrite.PYC_TAIL, str)
    assert rewrite.assertstate_key is not None


def test_a_prewarmed_test_module_is_what_the_import_hook_accepts(
    tmp_path: Path, pytestconfig: pytest.Config
) -> None:
    module = tmp_path / "test_sample.py"
    module.write_text("def test_it():\n    x = 1\n    assert x == 2\n", encoding="utf-8")
    pyc = rewrite.get_cache_dir(module) / (module.name[:-3] + rewrite.PYC_TAIL)
    assert not pyc.exists()
    _rewrite(pytestconfig, [module])
    code = rewrite._read_pyc(module, pyc)
    assert code is not None  # the hook would load this and not rewrite again
    namespace: dict[str, object] = {}
    exec(code, namespace)
    test = namespace["test_it"]
    assert callable(test)
    with pytest.raises(AssertionError, match=r"assert 1 == 2"):  # rewritten: values shown
        test()


def test_each_worker_starts_its_share_elsewhere() -> None:
    paths = [Path(str(n)) for n in range(10)]
    assert _rotated(paths, 0, 3)[0] == Path("0")
    assert _rotated(paths, 1, 3)[0] == Path("3")
    assert _rotated(paths, 2, 3)[0] == Path("6")
    assert sorted(_rotated(paths, 2, 3)) == sorted(paths)
