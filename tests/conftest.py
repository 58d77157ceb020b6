"""Shared fixtures. Every test gets its own Chroma collection and work dir; the embedder is the
real one, loaded once per session."""

from __future__ import annotations

import os
import subprocess
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def isolated_vector_store(settings, tmp_path):
    from indexing.store import get_vector_store
    from indexing.vector_mirror import forget_copies

    settings.REPORIFT = {
        **settings.REPORIFT,
        "VECTOR_STORE": {
            "CLASS": "indexing.store.ChromaVectorStore",
            "OPTIONS": {
                "path": str(settings.TEST_SESSION_DIR / "chroma"),
                "collection_prefix": f"t{uuid.uuid4().hex[:12]}",
            },
        },
        "STATIC_VECTOR_STORE": {
            "CLASS": "indexing.segment_store.SegmentVectorStore",
            "OPTIONS": {"path": str(tmp_path / "static-vectors")},
        },
        "WORK_DIR": str(tmp_path / "work"),
    }
    get_vector_store.cache_clear()
    forget_copies()
    yield
    get_vector_store.cache_clear()
    forget_copies()


@pytest.fixture(scope="session")
def embedder():
    from indexing.embedding import get_embedder

    return get_embedder()


WriteRepo = Callable[[dict[str, str]], Path]


@pytest.fixture
def write_repo(tmp_path) -> WriteRepo:
    """Write {relative path: source} into a fresh directory and return it."""
    counter = iter(range(1000))

    def write(files: dict[str, str]) -> Path:
        root = tmp_path / f"repo{next(counter)}"
        for relative, text in files.items():
            target = root / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
        return root

    return write


def git(root: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    done = subprocess.run(
        ["git", "-C", str(root), *args], capture_output=True, text=True, env=env, check=True
    )
    return done.stdout.strip()


def git_commit_all(root: Path, message: str = "commit") -> str:
    if not (root / ".git").exists():
        git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
    return git(root, "rev-parse", "HEAD")


SAMPLE_FILES = {
    "shop/payments.py": '''
import time


def retry_http_call(send, attempts=3, backoff=0.5):
    """Retry a failed HTTP call with exponential backoff."""
    for attempt in range(attempts):
        try:
            return send()
        except ConnectionError:
            time.sleep(backoff * 2 ** attempt)
    raise RuntimeError("gave up")


class PaymentGateway:
    """Charges credit cards through the payment provider."""

    def charge(self, amount_cents, card_token):
        """Charge a card and return the transaction id."""
        return retry_http_call(lambda: self._post("/charge", amount_cents, card_token))

    def _post(self, path, *args):
        raise ConnectionError(path)
''',
    "shop/text.py": '''
def slugify_title(title):
    """Turn a title into a URL slug: lowercase words joined by hyphens."""
    return "-".join(title.lower().split())


def parse_csv_line(line, sep=","):
    """Split one CSV line into stripped fields."""
    return [field.strip() for field in line.split(sep)]
''',
    "tests/test_text.py": """
from shop.text import slugify_title


def test_slugify_title():
    assert slugify_title("Hello World") == "hello-world"
""",
}


@pytest.fixture
def indexed_repo(db, write_repo):
    """A factory: `indexed_repo(name, files)` writes the files, adds them as a repository and
    indexes it (public, no owner)."""
    from indexing.services import index_run_execute, index_run_start, repository_create

    def index(name: str, files: dict[str, str]):
        repository = repository_create(name=name, source=str(write_repo(files)))
        run = index_run_execute(run=index_run_start(repository=repository, enqueue=False))
        assert run.status == "succeeded", run.error
        repository.refresh_from_db()
        return repository

    return index


@pytest.fixture
def shop(indexed_repo):
    """The sample repository, indexed (public, no owner)."""
    return indexed_repo("shop", SAMPLE_FILES)


@pytest.fixture
def git_origin(write_repo) -> Path:
    """The sample repository as a git repository with one commit on `main`."""
    root = write_repo(SAMPLE_FILES)
    git_commit_all(root, "first")
    return root


@pytest.fixture(scope="session")
def chroma_server(tmp_path_factory):
    """A real Chroma server (the `chroma run` that chromadb ships) on a free loopback port."""
    import socket
    import sys
    import time
    import urllib.request

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    chroma = Path(sys.executable).with_name("chroma")
    process = subprocess.Popen(
        [
            str(chroma),
            "run",
            "--path",
            str(tmp_path_factory.mktemp("chroma-server")),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ],
        env={**os.environ, "ANONYMIZED_TELEMETRY": "False"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v2/heartbeat", timeout=1)
            break
        except OSError:
            if time.monotonic() > deadline or process.poll() is not None:
                process.kill()
                pytest.fail("the Chroma server did not start")
            time.sleep(0.3)
    yield port
    process.terminate()
    process.wait(timeout=20)
