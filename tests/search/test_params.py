"""One check of search parameters for every client, and names suggested for a misspelled
repository."""

import pytest

from search.params import (
    SEARCH_PARAMS,
    SIMILAR_PARAMS,
    ParamError,
    api_schema,
    search_params,
    unknown_repository_message,
)


def test_values_checked_with_defaults():
    checked = search_params({"q": "  retry   http ", "kind": ["class", "function"], "k": "3"})
    assert checked["q"] == "retry http" and checked["k"] == 3 and checked["mode"] == "fast"
    assert checked.filters.kinds == ("class", "function") and not checked.filters.exclude_tests
    assert search_params({"q": "x", "exclude_tests": "on"}).filters.exclude_tests


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"q": "x", "kind": ["banana"]}, "kind must be one of function, method, class"),
        ({"q": "x", "mode": "turbo"}, "mode must be one of fast, full (not 'turbo')"),
        ({"q": "x", "k": "many"}, "k must be a whole number between 1 and 100"),
        ({"q": "x", "k": 0}, "k must be between 1 and 100"),
        ({"q": "   "}, "the query is empty"),
        ({}, "the query is empty"),
        ({"q": "y" * 32_001}, "the query is longer than 32,000 characters (it has 32,001)"),
    ],
)
def test_refusals_say_what_is_wrong(raw, message):
    with pytest.raises(ParamError, match=message.replace("(", r"\(").replace(")", r"\)")):
        search_params(raw)


def test_code_to_code_takes_no_query():
    checked = search_params({"k": 5, "path": "pkg/"}, SIMILAR_PARAMS)
    assert checked["k"] == 5 and checked.filters.path == "pkg/" and "q" not in checked.values


def test_api_schema_has_every_parameter():
    schema = api_schema("Probe", SEARCH_PARAMS)
    assert set(schema.model_fields) == {p.name for p in SEARCH_PARAMS}


def test_unknown_repository_suggests_close_names():
    known = ["demo-rich", "shop", "jinja"]
    assert unknown_repository_message("demo-ric", known) == (
        "no repository named 'demo-ric'; did you mean 'demo-rich'?"
    )
    assert unknown_repository_message("zzz", known) == "no repository named 'zzz'"
