"""The installed `reporift` command works from any folder: every app of the project is a package
that the install maps, and the folder it runs in (the user's project, for `mcp --path "$PWD"`)
shadows none of its modules."""

import fnmatch
import os
import subprocess
import sys
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


def test_the_current_folder_shadows_nothing(tmp_path):
    project = tmp_path / "project"
    for name in ("mcp", "accounts"):  # a dependency's name and one of our apps'
        (project / name).mkdir(parents=True)
        (project / name / "__init__.py").write_text("raise ImportError('the project folder')\n")
    # -P: the interpreter itself does not put the current folder on the path, as for the
    # installed console script.
    code = (
        "from reporift.commands import django_setup; django_setup(); "
        "import mcp.server.fastmcp, accounts.models"
    )
    done = subprocess.run(
        [sys.executable, "-P", "-c", code],
        cwd=project,
        env={**os.environ, "REPORIFT_DATA_DIR": str(tmp_path / "data")},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
