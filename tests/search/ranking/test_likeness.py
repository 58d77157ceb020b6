import pytest

from search.ranking.likeness import code_shape, node_kinds, shape_similarity, word_similarity

ORIGINAL = """
def retry(send, attempts=3):
    for attempt in range(attempts):
        try:
            return send()
        except ConnectionError:
            pass
"""
RENAMED = ORIGINAL.replace("send", "fn").replace("attempts", "n").replace("attempt", "i")
OTHER = """
class Config:
    name = "x"
    values = {"a": 1, "b": [1, 2]}
"""


def test_shape_ignores_names_and_words_ignore_structure():
    assert shape_similarity(ORIGINAL, RENAMED) == pytest.approx(1.0)
    assert word_similarity(ORIGINAL, RENAMED) < 0.6  # only "connection error", "range" stay
    assert shape_similarity(ORIGINAL, OTHER) < 0.3
    reformatted = ORIGINAL.replace("    ", "  ").replace("range(attempts)", "range( attempts )")
    assert shape_similarity(ORIGINAL, reformatted) == pytest.approx(1.0)
    assert word_similarity(ORIGINAL, reformatted) == pytest.approx(1.0)


def test_similarities_are_symmetric_and_bounded():
    for a, b in ((ORIGINAL, OTHER), (RENAMED, OTHER), (ORIGINAL, "")):
        for similarity in (shape_similarity, word_similarity):
            assert similarity(a, b) == similarity(b, a)
            assert 0.0 <= similarity(a, b) <= 1.0 + 1e-9
    assert shape_similarity("", "") == 0.0


def test_fragments_and_indented_methods_parse():
    method = "    def charge(self, amount):\n        return self._post(amount)\n"
    assert node_kinds(method)[:2] == ["function_definition", "parameters"]
    assert "for_statement" in node_kinds("for x in items:\n    x.strip(")
    grams = code_shape("x = 1").counts
    assert grams["assignment"] == 1 and grams["expression_statement/assignment/integer"] == 1


def test_shape_reads_each_language_with_its_own_grammar():
    go_a = "func add(a int, b int) int {\n\treturn a + b\n}"
    go_b = "func sum(x int, y int) int {\n\treturn x + y\n}"
    python = "def add(a, b):\n    return a + b"
    assert shape_similarity(go_a, go_b, "go") > 0.9
    assert shape_similarity(go_a, python, "go", "python") < 0.5
    assert shape_similarity("# Title\n\ntext", "# Other\n\nmore", "markdown") == 0.0
