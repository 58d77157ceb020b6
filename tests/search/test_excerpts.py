"""Excerpts chosen for the query and the one-line reasons: what people and agents read first."""

import html
import re
from types import SimpleNamespace

import numpy as np
import pytest

from indexing.parsing import parse_source
from search.excerpts import WINDOW, excerpt
from search.ranking.explain import SIGNALS, explain, stream_reason
from search.ranking.features import FEATURES

RETRY_QUERY = "where do we retry failed HTTP calls?"


@pytest.fixture(scope="module")
def http_adapter():
    import requests.adapters

    with open(requests.adapters.__file__, "rb") as fh:
        parsed = parse_source(fh.read())
    unit = next(u for u in parsed.units if u.qualname == "HTTPAdapter")
    # As search holds it: a CodeUnit's fields.
    return SimpleNamespace(
        **vars(unit), path="requests/adapters.py", module_summary=parsed.module_summary
    )


def test_a_long_class_shows_the_lines_about_the_query(http_adapter):
    assert http_adapter.end_line - http_adapter.start_line > 200
    chosen = excerpt(http_adapter.code, http_adapter.start_line, RETRY_QUERY)
    assert chosen.end_line - chosen.start_line + 1 <= WINDOW
    assert http_adapter.start_line <= chosen.start_line <= chosen.end_line <= http_adapter.end_line
    assert "max_retries" in chosen.text or "retry" in chosen.text.lower()
    assert chosen.signature.startswith("class HTTPAdapter")
    assert {"retri", "fail"} <= set(chosen.matched)
    lines = http_adapter.code.splitlines()
    offset = chosen.start_line - http_adapter.start_line
    assert chosen.text.splitlines() == lines[offset : offset + len(chosen.text.splitlines())]


def test_no_matching_line_shows_the_start():
    code = "def f(a):\n    x = a\n    return x\n"
    chosen = excerpt(code, 10, "zebra giraffe")
    assert chosen.start_line == 11 and chosen.signature == "def f(a):"
    assert excerpt("x = 1", 1, "anything").text == "x = 1"


def test_reason_names_the_signals_that_lifted_it(http_adapter):
    contributions = np.zeros(len(FEATURES) + 1)
    contributions[FEATURES.index("name_hits")] = 0.8
    contributions[FEATURES.index("bm25")] = 0.5
    contributions[FEATURES.index("cos_header")] = -2.0
    reason = explain(
        query="retry adapter for http",
        unit=http_adapter,
        contributions=contributions,
        code_part=0.3,
    )
    parts = reason.split("; ")
    assert parts[0] == "name words match 'adapter', 'http'"
    assert parts[1].startswith("BM25 hit on") and "'retry'" in parts[1]
    assert parts[2] == "code close to the query"
    assert "name and signature" not in reason  # it pulled the result down
    assert set(SIGNALS) >= {"code", "header", "bm25", "name"}
    assert stream_reason({"S4": 2, "S1": 1}) == "found by code vector (#1), BM25 (#2)"


@pytest.mark.slow
def test_demo_page_first_result_folds_to_the_retry_lines(client, db):
    import os

    import urllib3

    from indexing.services import index_run_execute, index_run_start, repository_create

    repository = repository_create(name="demo", source=os.path.dirname(urllib3.__file__))
    run = index_run_execute(run=index_run_start(repository=repository, enqueue=False))
    assert run.status == "succeeded", run.error
    page = client.get("/search/", {"repo": "demo", "q": RETRY_QUERY}).content.decode()
    first = page.split('<li class="result"', 2)[1]
    assert 'class="reason"' in first
    before_fold = first.split('<details class="whole">', 1)[0]
    line_numbers = [
        int(n) for n in re.findall(r'<span class="normal">\s*(\d+)</span>', before_fold)
    ]
    assert 0 < len(line_numbers) <= 15
    text = re.sub(r"<[^>]+>", "", before_fold)
    assert re.search(r"max_retries|retry", text), text[:2000]


def test_the_judge_reads_the_signature_and_the_matching_lines():
    from types import SimpleNamespace

    from search.full_mode import _candidate_excerpt

    body = [f"    setting_{i} = {i}" for i in range(40)]
    code = "\n".join(["class HTTPAdapter:", *body, "    max_retries = Retry(3)", *body])
    unit = SimpleNamespace(
        kind="class", qualname="HTTPAdapter", path="adapters.py", code=code, start_line=10
    )
    text = _candidate_excerpt(SimpleNamespace(unit=unit), "retry failed calls")
    lines = text.splitlines()
    assert lines[:3] == ["class HTTPAdapter in adapters.py", "class HTTPAdapter:", "    ..."]
    assert "max_retries = Retry(3)" in text and len(lines) <= 3 + 12


def test_a_match_above_the_signature_only_shows_the_start():
    # Found live: the decorator named the query's word, no line below it did (StopIteration).
    code = "@retry_on_failure\ndef fetch(url):\n" + "\n".join(f"    step_{i}()" for i in range(30))
    chosen = excerpt(code, 5, "retry")
    assert chosen.signature_line == 6 and chosen.start_line == 7
    assert chosen.text.startswith("    step_0()")


# A unit whose window (the lines about the fallback encoding) starts inside its long docstring.
DOCSTRING_START = 40
DOCSTRING_UNIT = [
    "def decode_body(response):",
    '    """Return the response body as text.',
    "",
    "    Most servers name a charset in the Content-Type header, and that header",
    "    wins when it is present. Some send none at all and some send a wrong",
    "    one; browsers then look at the bytes themselves, in the same order as",
    "    this function does. <script>alert('doc')</script> & friends stay text.",
    "",
    "    See the WHATWG rules for the details of the order.",
    "    Without a header charset the fallback encoding is used.",
    '    """',
    '    charset = response.headers.get("charset") or FALLBACK_ENCODING',
    "    text = response.body.decode(charset)",
    "    if not text:",
    '        return "<img src=x onerror=alert(1)>"',
    "    lines = text.splitlines()",
    "    for index, line in enumerate(lines):",
    "        lines[index] = line.rstrip()",
    "    while lines and not lines[-1]:",
    "        lines.pop()",
    '    return " ".join(lines)',
]
CLOSING_QUOTES = DOCSTRING_UNIT.index('    """')


def _page_parts(lines: list[str], start_line: int, query: str) -> dict:
    from search.presenters import result_for_page

    code = "\n".join(lines)
    unit = SimpleNamespace(
        code=code,
        start_line=start_line,
        end_line=start_line + len(lines) - 1,
        language="python",
        path="a.py",
    )
    return result_for_page(SimpleNamespace(unit=unit, streams=[]), query)


def _code_lines(html: str) -> list[str]:
    """The highlighted source lines of a Pygments table, one HTML string per line."""
    code = html.split("<code>", 1)[1].split("</code>", 1)[0]
    return code.split("\n")[:-1]


def _line_numbers(html: str) -> list[int]:
    return [int(n) for n in re.findall(r'<span class="normal">\s*(\d+)</span>', html)]


def _numbered_lines(html: str) -> dict[int, str]:
    """Each shown line's HTML by the line number printed beside it."""
    return dict(zip(_line_numbers(html), _code_lines(html), strict=True))


def _text(line_html: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", line_html))


def test_highlight_of_a_window_inside_a_docstring_colours_the_code_after_it():
    # Lexed alone, the window's closing quotes opened a string that swallowed all the code below.
    parts = _page_parts(DOCSTRING_UNIT, DOCSTRING_START, "fallback encoding")
    chosen = parts["excerpt"]
    first = chosen.start_line - DOCSTRING_START
    assert 1 < first < CLOSING_QUOTES  # the case at hand: the window opens mid-docstring
    lines = _code_lines(parts["window_html"])
    closing = CLOSING_QUOTES - first
    for line in lines[: closing + 1]:
        assert '<span class="sd">' in line, line  # the docstring's lines stay docstring
    after = lines[closing + 1 :]
    assert after and all(
        not re.match(r'(<span class="w">\s*</span>)?\s*<span class="s', line) for line in after
    ), after
    assert '<span class="n">charset</span>' in after[0]
    assert any('<span class="k">if</span>' in line for line in after)
    assert any('<span class="k">return</span>' in line for line in after)


def test_highlight_window_line_numbers_are_the_files_own():
    parts = _page_parts(DOCSTRING_UNIT, DOCSTRING_START, "fallback encoding")
    chosen = parts["excerpt"]
    numbers = _line_numbers(parts["window_html"])
    assert numbers == list(range(chosen.start_line, chosen.end_line + 1))
    shown = [_text(line) for line in _code_lines(parts["window_html"])]
    assert shown == [DOCSTRING_UNIT[n - DOCSTRING_START] for n in numbers]
    assert _line_numbers(parts["signature_html"]) == [DOCSTRING_START]
    assert '<span class="k">def</span>' in parts["signature_html"]
    assert parts["folded_before"] == chosen.start_line - DOCSTRING_START - 1  # the gap marker


def test_highlight_escapes_markup_in_every_part_of_the_excerpt():
    # Pygments escapes what it lexes; cutting its tokens into lines must not undo that.
    parts = _page_parts(DOCSTRING_UNIT, DOCSTRING_START, "browsers look at the bytes")
    assert 1 < parts["excerpt"].start_line - DOCSTRING_START < CLOSING_QUOTES
    assert "alert('doc')" in _text(parts["window_html"])  # the markup is in the window
    for part in ("signature_html", "window_html", "code_html"):
        assert "<script" not in parts[part] and "<img" not in parts[part], part
    assert "&lt;script&gt;" in parts["window_html"] and "&amp; friends" in parts["window_html"]
    assert "&lt;img src=x" in parts["window_html"] and "&lt;img src=x" in parts["code_html"]


def test_a_form_feed_does_not_shift_the_line_numbers():
    # The parser counts line feeds only; str.splitlines also breaks at a form feed.
    lines = ["def f():", "    x = 1", "\f", "    needle = 2", "    return needle"]
    chosen = excerpt("\n".join(lines), 10, "needle")
    assert (chosen.start_line, chosen.end_line) == (10, 14)
    assert chosen.text.split("\n") == lines
    numbered = _numbered_lines(_page_parts(lines, 10, "needle")["code_html"])
    assert "needle" in _text(numbered[13]) and "return" in _text(numbered[14])


@pytest.fixture(scope="module")
def response_unit():
    import requests.models

    with open(requests.models.__file__, "rb") as fh:
        parsed = parse_source(fh.read())
    return next(u for u in parsed.units if u.qualname == "Response")


def test_highlight_of_the_response_window_matches_the_whole_unit(response_unit):
    # A developer question's case: its window on requests' Response opens inside `json`'s
    # docstring.
    parts = _page_parts(
        response_unit.code.split("\n"),
        response_unit.start_line,
        "guess the encoding of a response body",
    )
    window = _numbered_lines(parts["window_html"])
    whole = _numbered_lines(parts["code_html"])
    assert window and all(window[n] == whole[n] for n in window)
    guess = next(line for line in window.values() if "guess_json_utf" in line)
    assert '<span class="n">guess_json_utf</span>' in guess
