import pytest

from indexing.documents import collect_document_chunks, search_repository_documents
from indexing.services import index_run_execute, index_run_start, repository_create

pytestmark = pytest.mark.django_db

README = """# Shop

Short.

Payments are retried with exponential backoff when the provider's HTTP API is unreachable.

Slugs are built from titles by lowercasing and joining words with hyphens.
"""


def index(write_repo, files):
    repository = repository_create(name="docs", source=str(write_repo(files)))
    return index_run_execute(run=index_run_start(repository=repository, enqueue=False))


def test_readme_paragraphs_and_docstrings_are_searchable(write_repo):
    run = index(
        write_repo,
        {
            "README.md": README,
            "docs/guide.rst": "Configuration lives in settings.toml and is read once at start-up.",
            "shop/cart.py": 'def total(items):\n    """Sum the prices of the items in a cart."""\n',
        },
    )
    assert search_repository_documents(run=run, query="retry http backoff", n=1) == [
        "README.md: Payments are retried with exponential backoff when the provider's HTTP API "
        "is unreachable."
    ]
    assert search_repository_documents(run=run, query="cart prices", n=1) == [
        "total: Sum the prices of the items in a cart."
    ]
    found = search_repository_documents(run=run, query="configuration settings", n=3)
    assert found[0].startswith("docs/guide.rst: Configuration lives")


def test_nothing_to_match(write_repo):
    run = index(write_repo, {"README.md": "the of and to is it " * 10, "a.py": "x = 1\n"})
    assert search_repository_documents(run=run, query="the of", n=3) == []
    assert search_repository_documents(run=run, query="retry", n=3) == []


def test_short_paragraphs_and_links_are_skipped(tmp_path):
    (tmp_path / "README.md").write_text(README)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "secret.md").symlink_to("/etc/passwd")
    paths = [path for path, _ in collect_document_chunks(tmp_path)]
    assert paths == ["README.md", "README.md"]  # "# Shop" and "Short." are too short
