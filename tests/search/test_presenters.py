"""How the page presents search answers: a located file's units, each line of code once."""

from indexing.models import CodeUnit
from search.locate import LocatedFile
from search.presenters import located_file_for_page
from search.results import SearchResult

METHOD_LINES = [
    "    def charge(self, amount_cents, card_token):",
    '        """Charge a card and return the transaction id."""',
    *(f"        audit.append(({n}, amount_cents))" for n in range(12)),
    "        if self.declined(card_token):",
    '            raise PaymentDeclined("the card was declined by the bank")',
    "        return self._post('/charge', amount_cents, card_token)",
    *(f"        audit.append(({n}, card_token))" for n in range(12)),
]
CLASS_LINES = [
    "class PaymentGateway:",
    '    """Charges credit cards through the payment provider."""',
    "",
    *METHOD_LINES,
    "",
    "    def _post(self, path, *args):",
    "        raise ConnectionError(path)",
]
START = 40  # the class's first line in its file


def _unit(qualname, kind, lines, start_line):
    return CodeUnit(
        path="shop/payments.py",
        language="python",
        kind=kind,
        name=qualname.rsplit(".", 1)[-1],
        qualname=qualname,
        start_line=start_line,
        end_line=start_line + len(lines) - 1,
        code="\n".join(lines) + "\n",
    )


def _file(*units):
    results = [SearchResult(n, unit, 1.0 / n, {"issue": 1}) for n, unit in enumerate(units, 1)]
    return LocatedFile(1, "shop/payments.py", 1.0, ["traceback frame"], results)


GATEWAY = _unit("PaymentGateway", "class", CLASS_LINES, START)
CHARGE = _unit("PaymentGateway.charge", "method", METHOD_LINES, START + 3)
HELPER = _unit(
    "retry_http_call", "function", ["def retry_http_call(send):", "    return send()"], 10
)


def _shown_lines(item):
    if item.get("shown_with"):
        return set()
    chosen = item["excerpt"]
    return {chosen.signature_line, *range(chosen.start_line, chosen.end_line + 1)}


def test_a_class_whose_best_lines_are_its_methods_says_where_they_are_whichever_comes_first():
    for units, where in (((CHARGE, GATEWAY), "above"), ((GATEWAY, CHARGE), "below")):
        page = located_file_for_page(_file(*units, HELPER), "card declined")
        by_name = {item["unit"].qualname: item for item in page["units"]}
        assert [item["unit"] for item in page["units"]] == [*units, HELPER]  # the order kept
        pointer = by_name["PaymentGateway"]["shown_with"]
        assert pointer["unit"] is CHARGE and pointer["where"] == where and not pointer["whole"]
        window = by_name["PaymentGateway.charge"]["excerpt"]
        assert window.start_line <= pointer["first"] <= pointer["last"] <= window.end_line
        assert "shown_with" not in by_name["PaymentGateway.charge"]
        assert "shown_with" not in by_name["retry_http_call"]
        shown = [_shown_lines(item) for item in page["units"]]
        assert sum(map(len, shown)) == len(set().union(*shown))  # no line twice


def test_a_unit_inside_one_shown_whole_points_to_it():
    post = ["    def _post(self, path, *args):", "        raise ConnectionError(path)"]
    small = _unit("PaymentGateway", "class", ["class PaymentGateway:", "", *post], START)
    method = _unit("PaymentGateway._post", "method", post, START + 2)
    page = located_file_for_page(_file(method, small), "connection error")
    first, second = page["units"]
    assert "shown_with" not in second and not second["folded"]  # the class, whole
    assert first["shown_with"] == {
        "unit": small,
        "whole": True,
        "first": START + 2,
        "last": START + 3,
        "where": "below",
    }


def test_units_whose_code_does_not_meet_each_keep_their_own():
    page = located_file_for_page(_file(HELPER, CHARGE), "card declined")
    assert all("shown_with" not in item for item in page["units"])
    assert page["rank"] == 1 and page["path"] == "shop/payments.py"
