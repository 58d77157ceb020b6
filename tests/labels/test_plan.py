"""What a label run labels: generated and given queries, candidates, and the code copy."""

from __future__ import annotations

import pytest

from indexing.models import CodeUnit
from labels.plan import (
    PlanError,
    candidates,
    clean_question,
    docstring_queries,
    load_queries,
)

pytestmark = pytest.mark.django_db


def test_docstring_queries_skip_tests_and_classes(shop):
    queries = docstring_queries(repository=shop, n=10)
    assert queries and all(q["source"] == "docstring" for q in queries)
    assert not any(q["origin"].startswith("tests/") for q in queries)
    assert "Retry a failed HTTP call with exponential backoff" in {q["query"] for q in queries}
    assert not any(q["origin"].endswith("::PaymentGateway") for q in queries)


def test_llm_questions_are_validated(shop):
    unit = CodeUnit.objects.get(qualname="slugify_title")
    assert clean_question('"How do I make a URL slug from a title?"\n', unit).startswith("How")
    with pytest.raises(ValueError, match="names the code"):
        clean_question("What does slugify_title do in the given code?", unit)
    with pytest.raises(ValueError, match="words"):
        clean_question("slugs", unit)


def test_candidates_are_the_union_of_the_rankers(shop):
    found = candidates(repository=shop, query="retry a failed http call", depth=2)
    names = [u.qualname for u in found]
    assert names[0] == "retry_http_call" and len(names) == len(set(names)) >= 2


def test_given_queries_as_text(tmp_path):
    path = tmp_path / "q.txt"
    path.write_text("retry failed calls\n\n  make   a slug \n")
    assert [q["query"] for q in load_queries(path)] == ["retry failed calls", "make a slug"]
    (tmp_path / "empty.txt").write_text("\n")
    with pytest.raises(PlanError, match="no queries"):
        load_queries(tmp_path / "empty.txt")
