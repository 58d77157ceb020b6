"""The installed `reporift` command works from any folder: every app of the project is a package
that the install maps, not only one found because the current folder is the checkout."""

import fnmatch
import tomllib
from pathlib import Path

from django.conf import settings

ROOT = Path(__file__).resolve().parents[2]


def test_every_local_app_is_installed_with_the_project():
    found = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    patterns = found["packages"]["find"]["include"]
    local = [app for app in settings.INSTALLED_APPS if (ROOT / app.split(".")[0]).is_dir()]
    assert "indexing" in local  # the check below would pass on nothing
    missing = [a for a in local if not any(fnmatch.fnmatch(a, p) for p in patterns)]
    assert missing == []
