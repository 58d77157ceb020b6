"""What a repository may be called: the name its project has on a code host.

GitHub, GitLab and Gitea name a repository with letters, digits, `.`, `-` and `_`
(`telescope.nvim`, `socket.io`, `next.js`), so RepoRift accepts exactly that, up to 100
characters, everywhere a name is given or read (page, API, CLI, MCP, webhook URLs). A name of
dots alone (`.`, `..`) would read as a path in a URL, and anything else (a `/`, a space) cannot
be a name: both are refused with a message that says what a name may hold.
"""

from __future__ import annotations

import re

from django.core.exceptions import ValidationError

MAX_LENGTH = 100
# Also the URL converter's pattern, so a URL reaches every repository a name can make.
PATTERN = r"[A-Za-z0-9._-]+"
_NAME = re.compile(rf"{PATTERN}\Z")
RULE = (
    "a repository name holds letters, digits, '.', '-' and '_' (as GitHub, GitLab and Gitea "
    f"allow), at most {MAX_LENGTH} characters, and is not made of dots alone"
)


def name_problem(name: str) -> str | None:
    """Why `name` cannot name a repository, or None when it can."""
    if not name:
        return "give the repository a name: " + RULE
    if len(name) > MAX_LENGTH:
        return f"{name[:40]!r}... is {len(name)} characters long: {RULE}"
    if not _NAME.match(name) or not name.strip("."):
        return f"{name!r} cannot name a repository: {RULE}"
    return None


def validate_repository_name(name: str) -> None:
    """The model and form validator."""
    problem = name_problem(name)
    if problem:
        raise ValidationError(problem, code="invalid_repository_name")


def name_from_source(source: str) -> str:
    """The name a repository's source suggests: the last part of its path or URL, as the
    project names itself (`…/telescope.nvim.git` → `telescope.nvim`), other characters made `-`."""
    last = source.rstrip("/").rsplit("/", 1)[-1].removesuffix(".git")
    for suffix in (".tar.gz", ".tgz", ".zip"):
        last = last.removesuffix(suffix)
    cleaned = re.sub(r"[^A-Za-z0-9._-]+", "-", last).strip("-")[:MAX_LENGTH]
    return cleaned if cleaned.strip(".") else "repository"


class RepositoryNameConverter:
    """`<repo:name>` in URL patterns."""

    regex = PATTERN

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value
