import pytest

from search.filters import SearchFilters, is_auxiliary_path, is_test_path


@pytest.mark.parametrize(
    "path",
    [
        "tests/test_api.py",
        "pkg/test_api.py",
        "pkg/api_test.py",
        "conftest.py",
        "bins/bins_test.go",
        "src/cart.spec.ts",
        "src/cart.test.jsx",
        "src/__tests__/cart.js",
        "spec/slugger_spec.rb",
        "src/test/java/shop/LedgerTest.java",
        "TestLedger.java",
        "Shop.Tests/InvoiceTests.cs",
        "QueueSpec.scala",
        "test/stock_test.exs",
        "tests/ringbuf_test.c",
        "acceptance/Requester/RequesterSteps.cs",
        "e2e/checkout.spec-helpers.js",
    ],
)
def test_test_files_of_every_language(path):
    assert is_test_path(path)


@pytest.mark.parametrize(
    "path",
    ["pkg/tests.py", "latest.go", "src/contest.ts", "Testament.java", "lib/attest.rb", "spec.md"],
)
def test_files_that_only_look_like_tests(path):
    # `tests.py` stays out as Python's rule always had it (the ranker was fitted with it).
    assert not is_test_path(path)


def test_the_language_filter():
    go_only = SearchFilters(languages=("go", "rust"))
    assert go_only.active
    assert go_only.allows("bins/bins.go", "function", "go")
    assert not go_only.allows("cart.js", "function", "javascript")
    assert SearchFilters().allows("cart.js", "function", "javascript")
    assert not SearchFilters(languages=("python",)).allows("README.md", "section", "markdown")


def test_a_code_hosts_issue_forms_come_after_the_code():
    assert is_auxiliary_path(".github/ISSUE_TEMPLATE/bug_report.md")
    assert not is_auxiliary_path(".github/workflows/ci.yml")
