"""Excerpts chosen for the query and the one-line reasons: what people and agents read first."""

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

    import requests

    from indexing.services import index_run_execute, index_run_start, repository_create

    repository = repository_create(name="demo", source=os.path.dirname(requests.__file__))
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
