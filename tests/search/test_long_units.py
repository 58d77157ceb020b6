"""A long unit is never shown whole in a result: the page shows its excerpt with the rest
folded, the agents' excerpt is a window, and the whole class waits behind the fold."""

from types import SimpleNamespace

from search.excerpts import WINDOW
from search.mcp_actions import excerpt_for_agents
from search.presenters import result_for_page
from search.results import SearchResult


def long_class(methods: int = 60) -> SimpleNamespace:
    lines = ["class Pool:", '    """Connections kept open for reuse."""']
    for i in range(methods):
        lines += [f"    def method_{i}(self, key):", f"        value = self.table[{i}]"]
        lines += ["        self.touch(key)", "        return value", ""]
    lines[-4] = "        return self.release_connection(key)"  # what the query asks about
    code = "\n".join(lines)
    count = len(code.split("\n"))
    return SimpleNamespace(
        pk=1,
        code=code,
        start_line=10,
        end_line=10 + count - 1,
        kind="class",
        qualname="Pool",
        path="pool.py",
        language="python",
        signature="class Pool:",
        docstring="Connections kept open for reuse.",
    )


def test_a_class_of_300_lines_is_shown_by_its_excerpt_not_whole():
    unit = long_class()
    assert unit.end_line - unit.start_line + 1 >= 300
    result = SearchResult(1, unit, 1.0, {"S1": 1})
    page = result_for_page(result, "release the connection")
    assert page["folded"]
    shown = page["excerpt"].end_line - page["excerpt"].start_line + 1
    assert shown <= WINDOW and page["folded_before"] + page["folded_after"] >= 280
    assert "release_connection" in page["excerpt"].text
    agents = excerpt_for_agents(result, "release the connection")
    # The signature, a "..." line and the window: never the whole class.
    assert len(agents["excerpt"].split("\n")) <= WINDOW + 2
