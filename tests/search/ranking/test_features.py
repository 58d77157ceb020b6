from types import SimpleNamespace

import numpy as np
import pytest

from search.ranking.features import FEATURES, Candidate, feature_matrix


def unit(
    qualname,
    *,
    path="shop/http.py",
    kind="method",
    code="",
    docstring="",
    lines=(1, 3),
    decorators=(),
    class_summary="",
    module_summary="",
):
    name = qualname.rsplit(".", 1)[-1]
    return SimpleNamespace(
        path=path,
        kind=kind,
        name=name,
        qualname=qualname,
        signature=f"def {name}(self, attempts)",
        docstring=docstring,
        code=code or f"def {name}(self, attempts):\n    pass",
        class_name=qualname.rsplit(".", 1)[0] if "." in qualname else "",
        class_summary=class_summary,
        module_summary=module_summary,
        start_line=lines[0],
        end_line=lines[1],
        decorators=list(decorators),
    )


def column(matrix: np.ndarray, name: str) -> list[float]:
    return matrix[:, FEATURES.index(name)].astype(float).round(4).tolist()


@pytest.fixture
def matrix():
    documented = unit(
        "Client.retry_request",
        docstring="Retry the request.\n\nMore words about retrying here.",
        code='def retry_request(self, attempts):\n    """Retry the request.\n\n    More words '
        'about retrying here.\n    """\n    return self.send()',
        lines=(10, 15),
    )
    candidates = [
        Candidate(unit("Client.retry"), cos_code=0.5, cos_header=0.6, bm25=3.0),
        Candidate(documented, cos_code=0.7, cos_header=0.4, bm25=0.0),
        Candidate(
            unit(
                "test_retry",
                path="tests/test_http.py",
                kind="function",
                decorators=("pytest.mark.slow",),
            ),
            cos_code=0.6,
            cos_header=0.2,
            bm25=1.0,
        ),
        Candidate(unit("Client._retry", decorators=("property",)), 0.1, 0.1, 1.5),
    ]
    return feature_matrix("Retry failed HTTP requests", candidates)


def test_shape_and_order_of_columns(matrix):
    assert matrix.shape == (4, len(FEATURES)) and matrix.dtype == np.float32


def test_scores_ranks_and_gaps(matrix):
    assert column(matrix, "cos_code_rank") == [3, 1, 2, 4]
    assert column(matrix, "cos_header_rank") == [1, 2, 3, 4]
    assert column(matrix, "cos_code_gap") == [0.2, 0.0, 0.1, 0.6]
    # A candidate the lexical stream did not score ranks after all the others.
    assert column(matrix, "bm25_rank") == [1, 5, 3, 2]
    assert column(matrix, "bm25_share") == [1.0, 0.0, 0.3333, 0.5]


def test_identifier_overlap_is_stemmed(matrix):
    # "retry", "fail", "http", "request" (stems) against the name's words.
    assert column(matrix, "name_hits") == [1, 2, 1, 1]
    assert column(matrix, "name_share_of_query") == [0.25, 0.5, 0.25, 0.25]
    assert column(matrix, "name_share_of_name") == [1.0, 1.0, 0.5, 1.0]
    assert column(matrix, "path_share_of_query") == [0.25, 0.25, 0.25, 0.25]


def test_nothing_depends_on_the_docstring(matrix):
    # The documented unit's code words count without its docstring, and its lines without the
    # docstring's extra lines: the package benchmark strips gold docstrings (see the module).
    assert (
        column(matrix, "code_share_of_query")[1] == column(matrix, "code_share_of_query")[0] + 0.25
    )
    # Lines 10 to 15, of which the docstring statement takes 4: counted as one, like `pass`.
    assert column(matrix, "body_lines")[1] == pytest.approx(np.log1p(6 - 4 + 1), abs=1e-4)
    assert not any("doc" in name for name in FEATURES)


def test_facts(matrix):
    assert column(matrix, "is_test") == [0, 0, 1, 0]
    assert column(matrix, "is_method") == [1, 1, 0, 1]
    assert column(matrix, "is_private") == [0, 0, 0, 1]
    assert column(matrix, "is_property") == [0, 0, 0, 1]
    assert column(matrix, "same_name_candidates") == [0, 0, 0, 0]


def test_no_candidates():
    assert feature_matrix("anything", []).shape == (0, len(FEATURES))


def go_unit(docstring: str):
    code = (
        "// Retry sends the request again, with backoff.\n"
        "// It gives up after the attempts.\n"
        "func (c *Client) Retry(attempts int) error {\n"
        "\treturn c.send()\n"
        "}"
    )
    return SimpleNamespace(
        **{
            **vars(unit("Client.Retry", path="http/client.go", code=code, lines=(1, 5))),
            "signature": "func (c *Client) Retry(attempts int) error",
            "docstring": docstring,
            "language": "go",
        }
    )


def test_a_doc_comment_counts_as_a_docstring_does():
    # As for Python: the words and lines of a unit's own doc comment are no feature.
    documented = go_unit("Retry sends the request again, with backoff.\nIt gives up.")
    bare = go_unit("")
    rows = feature_matrix(
        "retry with backoff", [Candidate(documented, 0.5, 0.5, 1.0), Candidate(bare, 0.5, 0.5, 1.0)]
    )
    assert column(rows, "code_share_of_query") == [0.5, 1.0]  # "retry" in the code; "backoff" not
    assert column(rows, "body_lines")[0] == pytest.approx(np.log1p(4), abs=1e-4)
    assert column(rows, "body_lines")[1] == pytest.approx(np.log1p(5), abs=1e-4)


def test_a_languages_syntax_words_match_no_question():
    code = "function add_item(item)\n  return item\nend"
    lua = SimpleNamespace(**{**vars(unit("add_item", code=code)), "language": "lua"})
    same_as_python = SimpleNamespace(**{**vars(lua), "language": "python"})
    rows = feature_matrix(
        "function to add an item at the end",
        [Candidate(lua, 0.5, 0.5, 1.0), Candidate(same_as_python, 0.5, 0.5, 1.0)],
    )
    # Lua's `function` and `end` are its syntax, not the question's words.
    assert column(rows, "code_share_of_query") == [0.5, 1.0]


@pytest.mark.parametrize(
    ("language", "name", "signature", "private", "special"),
    [
        ("go", "dialContext", "func (d *Dialer) dialContext(ctx context.Context)", 1, 0),
        ("go", "DialContext", "func (d *Dialer) DialContext(ctx context.Context)", 0, 0),
        ("rust", "parse", "fn parse(input: &str) -> Version", 1, 0),
        ("rust", "parse", "pub fn parse(input: &str) -> Version", 0, 0),
        ("typescript", "flush", "private flush(): void", 1, 0),
        ("typescript", "constructor", "constructor(options: Options)", 0, 1),
        ("php", "__construct", "public function __construct()", 0, 1),
        ("c", "grow", "static int grow(buffer *b, size_t n)", 1, 0),
        ("ruby", "initialize", "def initialize(options)", 0, 1),
        ("markdown", "_Install_", "", 0, 0),  # a section has neither
    ],
)
def test_internal_and_special_in_each_language(language, name, signature, private, special):
    # The ranker reads Python's `_helper` and `__init__` in each language's own terms.
    candidate = SimpleNamespace(**vars(unit(f"Dialer.{name}")), language=language)
    candidate.signature = signature
    matrix = feature_matrix("dial a context", [Candidate(candidate, 0.5, 0.5, 1.0)])
    assert column(matrix, "is_private") == [private]
    assert column(matrix, "is_special") == [special]
