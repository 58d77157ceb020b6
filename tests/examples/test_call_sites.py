"""How the repository's own code calls a unit: found in its files, best sites first, never the
definition itself, an import or a call of some other thing of the same name."""

from __future__ import annotations

from examples.call_sites import MAX_SITES, call_sites, describe_sites

COLOR = """class Color:
    def __init__(self, name, kind, number=None):
        self.name = name

    def downgrade(self, system):
        return Color(self.name, system, number=1)
"""
USES = """from shop.color import Color

DEFAULT = Color("red", "standard")
LONG = Color(
    "blue", "standard")
bare = Color()
print(DEFAULT.downgrade("windows"))
"""
OTHER = """class Pipe:
    def downgrade(self, system):
        return system

Pipe().downgrade("x")
"""


def tree(tmp_path):
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "color.py").write_text(COLOR)
    (tmp_path / "shop" / "uses.py").write_text(USES)
    (tmp_path / "shop" / "other.py").write_text(OTHER)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_color.py").write_text('c = Color("green", "truecolor")\n')
    return tmp_path


def test_a_class_call_sites_best_first(tmp_path):
    sites = call_sites(tree(tmp_path), qualname="Color", own_path="shop/color.py", own_lines=(1, 4))
    texts = [s.text for s in sites]
    # whole lines with arguments first, a test's after them, bare and unbalanced ones last;
    # the call inside `downgrade` (outside the lines of the unit asked about) counts
    assert texts[:2] == [
        'DEFAULT = Color("red", "standard")',
        "return Color(self.name, system, number=1)",
    ]
    assert texts[2] == 'c = Color("green", "truecolor")'
    assert len(sites) == MAX_SITES - 1  # three of a kind at most

    assert not any(t.startswith(("from ", "class ", "def ")) for t in texts)
    assert str(sites[0]) == 'DEFAULT = Color("red", "standard")    # shop/uses.py:3'


def test_a_method_shows_its_calls_and_how_its_class_is_built(tmp_path):
    sites = call_sites(
        tree(tmp_path), qualname="Color.downgrade", own_path="shop/color.py", own_lines=(5, 6)
    )
    texts = [s.text for s in sites]
    assert texts[0] == 'print(DEFAULT.downgrade("windows"))'
    # other.py never names Color: its `downgrade` is another method
    assert not any("Pipe" in t for t in texts)
    assert any(t.startswith("DEFAULT = Color(") for t in texts)


def test_nothing_found_says_nothing(tmp_path):
    root = tree(tmp_path)
    assert call_sites(root, qualname="Missing", own_path="x.py", own_lines=(1, 1)) == []
    assert describe_sites([]) == ""
    described = describe_sites(
        call_sites(root, qualname="Color", own_path="shop/color.py", own_lines=(1, 6))
    )
    assert described.startswith("How the repository's own code calls it")
