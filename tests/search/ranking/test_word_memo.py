from pathlib import Path
from types import SimpleNamespace

import pytest

from search.ranking import features
from search.ranking.features import unit_words
from search.ranking.word_memo import WordMemo

HERE = Path(__file__)


def row(pk, *, code, path="shop/http.py", qualname="Client.retry", docstring=""):
    """A fresh object each call, as a unit row read again from the database is."""
    name = qualname.rsplit(".", 1)[-1]
    return SimpleNamespace(
        pk=pk,
        path=path,
        kind="method",
        name=name,
        qualname=qualname,
        signature=f"def {name}(self, attempts)",
        docstring=docstring,
        code=code,
        class_name=qualname.rsplit(".", 1)[0],
        class_summary="An HTTP client that retries.",
        module_summary="Talking to the shop's API.",
        start_line=10,
        end_line=10 + code.count("\n"),
        decorators=["property"],
        language="python",
    )


RETRY = (
    "def retry(self, attempts):\n"
    '    """Ask again after a pause, up to `attempts` times."""\n'
    "    for _ in range(attempts):\n"
    "        if self._private_send():\n"
    "            return True\n"
    "    raise GiveUpError(attempts)\n"
)


def guard(unit):
    return {"start_line": unit.start_line, "code_length": len(unit.code)}


@pytest.fixture
def memo(monkeypatch):
    memo = WordMemo(100)
    monkeypatch.setattr(features, "MEMO", memo)
    return memo


def test_packed_words_come_back_equal_to_the_computed_ones():
    memo = WordMemo(10)
    unit = row(1, code=RETRY, docstring="Ask again after a pause.")
    computed = features.split_words(unit)
    memo.put(1, computed, **guard(unit))
    assert memo.get(1, **guard(unit)) == computed
    assert computed.text != computed.code  # the docstring's words, packed apart, come back


def functions_of_a_real_file():
    """The memo's own source, cut into functions."""
    source = (HERE.parents[3] / "search" / "ranking" / "word_memo.py").read_text()
    for pk, piece in enumerate(source.split("\n    def ")):
        yield row(pk, code=piece, qualname="WordMemo." + piece.split("(", 1)[0].strip())


def test_every_unit_of_a_real_file_round_trips():
    memo = WordMemo(1000)
    for unit in functions_of_a_real_file():
        memo.put(unit.pk, features.split_words(unit), **guard(unit))
    for unit in functions_of_a_real_file():
        assert memo.get(unit.pk, **guard(unit)) == features.split_words(unit)
    # Far smaller than the word sets it stands for (6 KB a unit as objects).
    assert memo.size_bytes() / len(memo) < 1500


def test_what_one_process_saved_another_takes_with_its_own_numbers():
    first = WordMemo(1000)
    units = list(functions_of_a_real_file())
    for unit in units:
        first.put(unit.pk, features.split_words(unit), **guard(unit))
    words, packed = first.saved([u.pk for u in units[:3]])
    assert set(packed) == {u.pk for u in units[:3]}
    assert len(words) < len(first._words)  # only the words those three use
    second = WordMemo(1000)
    second.put(99, features.split_words(row(99, code=RETRY)), **guard(row(99, code=RETRY)))
    assert second.adopt(words, packed) == 3
    for unit in units[:3]:
        assert second.get(unit.pk, **guard(unit)) == features.split_words(unit)
    assert second.get(units[4].pk, **guard(units[4])) is None


def test_the_oldest_unit_is_let_go_past_the_bound():
    memo = WordMemo(2)
    unit = row(1, code=RETRY)
    words = features.split_words(unit)
    for pk in (1, 2, 3):
        memo.put(pk, words, **guard(unit))
    assert memo.get(1, **guard(unit)) is None
    assert memo.get(3, **guard(unit)) == words
    assert len(memo) == 2


def test_a_bound_of_zero_keeps_nothing():
    memo = WordMemo(0)
    unit = row(1, code=RETRY)
    memo.put(1, features.split_words(unit), **guard(unit))
    assert memo.adopt(*WordMemo(5).saved([])) == 0
    assert len(memo) == 0 and memo.get(1, **guard(unit)) is None


def test_a_unit_read_again_is_not_split_again(memo, monkeypatch):
    first = unit_words(row(7, code=RETRY))
    splits = []
    monkeypatch.setattr(features, "_words_of", lambda unit, **kw: splits.append(unit) or first)
    again = unit_words(row(7, code=RETRY))  # a new object: the row cache let it go
    assert again == first
    assert splits == []
    assert len(memo) == 1


def test_an_id_handed_out_again_for_other_code_is_not_confused(memo):
    """A database reset beside a living process can give another unit the same id."""
    before = unit_words(row(7, code=RETRY))
    other = unit_words(row(7, code="def fetch(url):\n    return download(url)\n"))
    assert "download" in other.code and "download" not in before.code
    assert memo.holds(7, **guard(row(7, code="def fetch(url):\n    return download(url)\n")))
    assert not memo.holds(7, **guard(row(7, code=RETRY)))
