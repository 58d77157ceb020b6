from reporift.words import plural


def test_counts_in_words():
    assert plural(1, "file") == "1 file"
    assert plural(0, "unit") == "0 units"
    assert plural(2, "old version") == "2 old versions"
    assert plural(3, "repository") == "3 repositories"
    assert plural(2, "index", "indexes") == "2 indexes"
