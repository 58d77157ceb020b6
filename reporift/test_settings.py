"""Settings for the test suite: the real settings, with all state in a fresh temporary dir and no
broker, Chroma server or LLM endpoint inherited from the developer's shell."""

import os
import tempfile
from pathlib import Path

TEST_SESSION_DIR = Path(tempfile.mkdtemp(prefix="reporift-tests-"))
os.environ["REPORIFT_DATA_DIR"] = str(TEST_SESSION_DIR / "data")
# A file, not SQLite's in-memory default, so that a real Celery worker process can share it.
os.environ["REPORIFT_TEST_SQLITE_FILE"] = str(TEST_SESSION_DIR / "test.sqlite3")
for name in ("CELERY_BROKER_URL", "REDIS_URL", "CHROMA_HOST", "OPENAI_BASE_URL"):
    os.environ.pop(name, None)

from reporift.settings import *  # noqa: E402, F403

STORAGES = {
    **STORAGES,  # noqa: F405
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
WHITENOISE_AUTOREFRESH = True

# Tests want a run to have finished when the on-commit hook returns.
REPORIFT = {**REPORIFT, "EAGER_IN_THREAD": False}  # noqa: F405
# Tests clone from file:// URLs on this machine; the refusals have their own tests.
REPORIFT["GIT_ALLOWED_SCHEMES"] = ["https", "file"]
