from pathlib import PurePosixPath
from types import SimpleNamespace

import pytest

from indexing.unit_text import (
    MAX_CHARS,
    code_text,
    field_texts,
    file_suffix,
    folders,
    header_text,
    identifier_words,
)

METHOD = SimpleNamespace(
    kind="method",
    path="shop/http_client.py",
    qualname="RetryPolicy.getBackoff",
    signature="def getBackoff(self, attempt)",
    docstring="Seconds to wait before the next try.",
    code=(
        'def getBackoff(self, attempt):\n    """Seconds to wait before the next try."""\n'
        "    return 2 ** attempt"
    ),
    class_name="RetryPolicy",
    class_summary="When and how often to retry a failed call",
    module_summary="HTTP client with retries",
)


def test_identifier_words():
    assert identifier_words("HTTPRetry_policy.getValue") == [
        "http",
        "retry",
        "policy",
        "get",
        "value",
    ]
    assert identifier_words("parse2JSON") == ["parse2", "json"]
    assert identifier_words("") == []


def test_code_field_is_the_source():
    assert code_text(METHOD) == METHOD.code


def test_header_field_is_kind_name_place_and_signature():
    assert header_text(METHOD) == (
        "method retry policy get backoff in shop http client\ndef getBackoff(self, attempt)"
    )


def test_header_variants_measured_for_the_defaults():
    with_doc = header_text(METHOD, docstring=True)
    assert with_doc.endswith("def getBackoff(self, attempt)\nSeconds to wait before the next try.")
    with_context = header_text(METHOD, context=True)
    assert with_context.splitlines()[1:3] == [
        "retry policy: When and how often to retry a failed call",
        "module: HTTP client with retries",
    ]
    assert header_text(METHOD, include_path=False) == (
        "method retry policy get backoff\ndef getBackoff(self, attempt)"
    )


def test_a_function_has_no_class_context():
    function = SimpleNamespace(
        **{**vars(METHOD), "kind": "function", "qualname": "backoff", "class_name": ""}
    )
    function.class_summary = ""
    assert header_text(function, context=True) == (
        "function backoff in shop http client\nmodule: HTTP client with retries\n"
        "def getBackoff(self, attempt)"
    )


def test_field_texts_and_cut():
    long_unit = SimpleNamespace(**{**vars(METHOD), "code": "x" * 10_000})
    texts = field_texts([METHOD, long_unit])
    assert set(texts) == {"code", "header"}
    assert texts["code"][0] == METHOD.code
    assert len(texts["code"][1]) == MAX_CHARS
    assert texts["header"][0] == header_text(METHOD)


def test_the_path_is_read_without_its_extension():
    from indexing.unit_text import file_stem, path_text

    assert path_text("pkg/net.py") == "pkg/net"
    assert path_text("bins/bins.go") == "bins/bins"
    assert path_text("docs/README.md") == "docs/README"
    assert path_text("pkg/stub.pyi") == "pkg/stub.pyi"  # as it always was
    assert path_text("conf/.bashrc") == "conf/.bashrc"
    assert path_text("a.d/Makefile") == "a.d/Makefile"
    assert file_stem("src/router/index.ts") == "index"


@pytest.mark.parametrize(
    "path",
    [
        "pkg/mod.py",
        "Makefile",
        ".bashrc",
        "a/.hidden",
        "x/y.tar.gz",
        "odd.",
        "./a/b.c",
        "a//b/c.d",
        "dir.v1/file",
        "src/index.test.ts",
    ],
)
def test_a_paths_suffix_and_folders_are_what_pathlib_says(path):
    # Read from strings on every candidate of every search: pathlib's answer, without its cost.
    pure = PurePosixPath(path)
    assert file_suffix(path) == pure.suffix
    assert folders(path) == list(pure.parts[:-1])
