from types import SimpleNamespace

import pytest

from indexing.unit_text import MAX_CHARS, identifier_words, unit_text

UNIT = SimpleNamespace(
    path="shop/http_client.py",
    qualname="RetryPolicy.getBackoff",
    docstring="Seconds to wait before the next try.",
    code=(
        'def getBackoff(self, attempt):\n    """Seconds to wait before the next try."""\n'
        "    return 2 ** attempt"
    ),
)


def test_identifier_words():
    assert identifier_words("HTTPRetry_policy.getValue") == [
        "http",
        "retry",
        "policy",
        "get",
        "value",
    ]
    assert identifier_words("parse2JSON") == ["parse2", "json"]
    assert identifier_words("") == []


def test_styles():
    assert unit_text(UNIT, "code") == UNIT.code
    default = unit_text(UNIT, "default")
    assert default.startswith("retry policy get backoff (shop http client)\nSeconds to wait")
    assert default.count("Seconds to wait") == 2  # docstring first, then inside the code
    header_code = unit_text(UNIT, "header_code")
    assert header_code.startswith("retry policy get backoff (shop http client)\ndef getBackoff")
    assert header_code.count("Seconds to wait") == 1


def test_snippets_leave_the_path_out():
    assert unit_text(UNIT, "default", include_path=False).startswith("retry policy get backoff\n")


def test_long_units_are_cut_and_unknown_styles_refused():
    long_unit = SimpleNamespace(path="a.py", qualname="f", docstring="", code="x" * 10_000)
    assert len(unit_text(long_unit)) == MAX_CHARS
    with pytest.raises(ValueError, match="unknown embed text style"):
        unit_text(UNIT, "poetry")
