import ast
import json

from benchmarks.question_train import HELD_OUT, build_package, strip_docstrings

SOURCE = '''"""Retry policies for flaky network calls."""

MAX_ATTEMPTS = 5


class Backoff:
    """Exponential backoff with jitter for reconnecting clients."""

    def delay(self, attempt):
        """Seconds to wait."""
        return 2 ** attempt


def connect(host):
    """Open a connection."""
    return host
'''


def test_every_docstring_is_stripped_and_the_code_still_parses():
    stripped = strip_docstrings(SOURCE, ast.parse(SOURCE))
    ast.parse(stripped)
    assert '"""' not in stripped
    assert "class Backoff:\n\n    def delay" in stripped
    assert "MAX_ATTEMPTS = 5" in stripped


def test_rows_of_each_kind_from_a_package(tmp_path, monkeypatch):
    package = tmp_path / "site" / "retrying"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "policy.py").write_text(SOURCE)
    monkeypatch.setattr("benchmarks.package_benchmark.package_root", lambda name: package)
    monkeypatch.setattr("benchmarks.package_benchmark.installed_version", lambda name: "1.0")
    rows = build_package("retrying", tmp_path / "out", per_kind=8)
    by_source = {}
    for row in rows:
        by_source.setdefault(row["source"], []).append(row)
    assert {r["query"] for r in by_source["definition name"]} == {"Backoff", "delay", "connect"}
    assert by_source["dotted name"][0]["query"] == "Backoff.delay"
    assert by_source["module constant"][0]["gold"] == [
        {"path": "retrying/policy.py", "qualname": "MAX_ATTEMPTS"}
    ]
    (cls,) = by_source["class docstring"]
    assert cls["query"] == "Exponential backoff with jitter for reconnecting clients"
    assert cls["kind"] == "behaviour" and cls["gold"][0]["qualname"] == "Backoff"
    (module,) = by_source["module docstring"]
    assert module["gold"] == [{"path": "retrying/policy.py"}]
    copied = (tmp_path / "out" / "retrying-1.0" / "retrying" / "policy.py").read_text()
    assert "Exponential backoff" not in copied  # the query never finds its own sentence
    json.dumps(rows)


def test_held_out_packages_are_never_asked_about():
    assert {"aiohttp", "click", "flask", "httpx", "pydantic", "requests"} <= HELD_OUT
