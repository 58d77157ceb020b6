from reporift.words import elide_middle, plural


def test_counts_in_words():
    assert plural(1, "file") == "1 file"
    assert plural(0, "unit") == "0 units"
    assert plural(2, "old version") == "2 old versions"
    assert plural(3, "repository") == "3 repositories"
    assert plural(2, "index", "indexes") == "2 indexes"


def test_a_long_qualified_name_keeps_its_ends_and_loses_its_middle():
    name = ".".join(f"level{i}" for i in range(300)) + ".handle_request"
    short = elide_middle(name, 80)
    assert len(short) <= 80 and "…" in short
    # Where it lives and what it is, in whole parts.
    assert short.startswith("level0.level1.") and short.endswith(".handle_request")
    assert short.split("…")[1].startswith("level")
    assert elide_middle("Router::handle", 80) == "Router::handle"


def test_a_name_without_separators_is_cut_anyway():
    assert len(elide_middle("x" * 500, 40)) == 40
