"""Paste an issue, get the files to change: through the service, the API, MCP, the command line
and the page, on a small real repository indexed for real."""

from __future__ import annotations

import asyncio
import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from search.answer import answer
from search.locate import locate_files
from search.mcp_server import build_server

STORE = {
    "shop/__init__.py": "",
    "shop/orders.py": '''
from shop.inventory import Stock
from shop.payments import charge


def place_order(cart, card):
    """Reserve every line of the cart, then charge the card for the total."""
    stock = Stock()
    for line in cart:
        stock.reserve(line.sku, line.quantity)
    return charge(card, sum(line.price for line in cart))
''',
    "shop/inventory.py": '''
class Stock:
    """How many of each article the warehouse holds."""

    def __init__(self):
        self.available = {}

    def reserve(self, sku, quantity):
        if quantity > self.available.get(sku, 0):
            raise ValueError(f"cannot hold back {quantity} of {sku}: the shelf is short")
        self.available[sku] -= quantity
''',
    "shop/payments.py": '''
class PaymentDeclined(Exception):
    pass


def charge(card, amount):
    """Charge a credit card through the payment gateway."""
    if card.expired:
        raise PaymentDeclined("the issuing bank refused this card number")
    return card.debit(amount)


def refund(card, amount):
    """Give the money of an order back to the card it was paid with."""
    return card.credit(amount)
''',
    "shop/texts.py": '''
def order_summary(order):
    """A line about an order and its payment for the confirmation email."""
    return f"order {order.id}: payment of {order.total} charged to the card"
''',
    "tests/test_orders.py": """
from shop.orders import place_order


def test_place_order_charges_the_card_and_reserves_stock():
    assert place_order([], None) is None
""",
}

TRACEBACK_ISSUE = """Checkout crashes when the payment card is charged for a big order

When a customer pays for an order with many lines the payment fails and the card is never
charged. Full output:

```
Traceback (most recent call last):
  File "/srv/app/venv/lib/python3.11/site-packages/flask/app.py", line 1498, in dispatch
    return handler(**args)
  File "/srv/app/venv/lib/python3.11/site-packages/shop/inventory.py", line 10, in reserve
    raise ValueError(...)
ValueError: boom
```
"""

MESSAGE_ISSUE = """Customers see a strange refusal

Since Monday some customers get "the issuing bank refused this card number" although their
cards work everywhere else. What decides that?
"""


@pytest.fixture
def store(indexed_repo):
    return indexed_repo("store", STORE)


@pytest.mark.django_db
def test_a_traceback_frame_in_the_repository_brings_its_file_first(store):
    located = locate_files(repository=store, issue=TRACEBACK_ISSUE, k=5)
    first = located.files[0]
    # The prose is all about payments; the frame inside the repository wins.
    assert first.path == "shop/inventory.py"
    assert any("traceback frame (line 10 in reserve)" in r for r in first.reasons)
    assert first.units[0].unit.qualname == "Stock.reserve"
    assert [f.rank for f in located.files] == list(range(1, len(located.files) + 1))


@pytest.mark.django_db
def test_an_issue_whose_only_clue_is_an_error_message_finds_the_file_that_raises_it(store):
    located = locate_files(repository=store, issue=MESSAGE_ISSUE, k=5)
    assert located.files[0].path == "shop/payments.py"
    assert any("says the message" in r for r in located.files[0].reasons)
    assert located.files[0].units[0].unit.qualname == "charge"


@pytest.mark.django_db
def test_a_pasted_issue_is_read_as_one_by_every_search(store):
    issue = TRACEBACK_ISSUE + "\n" + "More context about the shop and its customers. " * 30
    response = answer(repository=store, query=issue, k=5)
    assert response.results[0].unit.path == "shop/inventory.py"
    assert response.notices[0].startswith("read as an issue (2 traceback frames")
    assert "\n" in response.query  # its lines kept: frames are read line by line


TOO_LONG = "x " * 16_500  # 33,000 characters
LIMIT = "longer than 32,000 characters"


@pytest.mark.django_db
def test_an_issue_over_the_limit_is_refused_by_the_api_with_the_limit(store, client):
    for url, body in (
        ("/api/locate", {"repo": "store", "issue": TOO_LONG}),
        ("/api/search", {"repo": ["store"], "q": TOO_LONG}),
    ):
        answer = client.post(url, json.dumps(body), content_type="application/json")
        assert answer.status_code == 400 and LIMIT in answer.json()["detail"], url


@pytest.mark.django_db
def test_the_api_locates_and_searches_an_issue_posted_whole(store, client):
    answer = client.post(
        "/api/locate",
        json.dumps({"repo": "store", "issue": TRACEBACK_ISSUE, "k": 3}),
        content_type="application/json",
    )
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["files"][0]["path"] == "shop/inventory.py"
    assert body["files"][0]["reasons"][0].startswith("traceback frame")
    assert body["files"][0]["units"][0]["qualname"] == "Stock.reserve"
    assert body["clues"]["frames"][1]["function"] == "reserve"
    posted = client.post(
        "/api/search",
        json.dumps({"repo": ["store"], "q": TRACEBACK_ISSUE, "group": "file"}),
        content_type="application/json",
    ).json()
    assert posted["files"][0]["path"] == "shop/inventory.py"


@pytest.mark.django_db
def test_the_command_line_locates_from_a_file_or_standard_input(
    store, tmp_path, capsys, monkeypatch
):
    issue = tmp_path / "issue.md"
    issue.write_text(TRACEBACK_ISSUE)
    call_command("locate", "store", "--issue", str(issue), "--k", "3")
    out = capsys.readouterr()
    assert out.out.splitlines()[0].startswith("  1. shop/inventory.py  (traceback frame")
    assert "Stock.reserve (method)" in out.out and "read: 2 traceback frames" in out.err
    monkeypatch.setattr("sys.stdin", io.StringIO(MESSAGE_ISSUE))
    call_command("locate", "store", "--json")
    assert json.loads(capsys.readouterr().out)["files"][0]["path"] == "shop/payments.py"
    issue.write_text(TOO_LONG)
    with pytest.raises(CommandError, match=LIMIT):
        call_command("locate", "store", "--issue", str(issue))


@pytest.mark.django_db
def test_the_page_takes_a_pasted_issue(store, client):
    page = client.post("/locate/", {"repo": "store", "issue": TRACEBACK_ISSUE, "k": 5})
    text = page.content.decode()
    assert page.status_code == 200
    assert text.index('data-path="shop/inventory.py"') < text.index('data-path="shop/payments.py"')
    assert "traceback frame (line 10 in reserve)" in text
    refused = client.post("/locate/", {"repo": "store", "issue": TOO_LONG})
    assert refused.status_code == 400 and LIMIT in refused.content.decode()


# MCP tools read the database from a worker thread: the rows must be committed.
@pytest.mark.django_db(transaction=True)
def test_mcp_locates_an_issue_and_refuses_one_over_the_limit(store):
    server = build_server(lambda ctx: None)

    async def calls():
        tools = {tool.name for tool in await server.list_tools()}
        found = await server.call_tool("locate_files", {"issue": TRACEBACK_ISSUE, "k": 3})
        refusals = []
        for name, arguments in (
            ("locate_files", {"repository": "store", "issue": TOO_LONG}),
            ("search_code", {"repository": "store", "query": TOO_LONG}),
        ):
            try:
                await server.call_tool(name, arguments)
            except Exception as exc:  # the SDK raises the tool's error in-process
                refusals.append(str(exc))
        return tools, found, refusals

    tools, found, refusals = asyncio.run(calls())
    assert "locate_files" in tools
    structured = found[1] if isinstance(found, tuple) else found
    assert structured["repository"] == "store"
    assert structured["files"][0]["path"] == "shop/inventory.py"
    assert len(refusals) == 2 and all(LIMIT in r for r in refusals)


class ScriptedLLM:
    def __init__(self, text):
        self.text = text

    def complete(self, messages, **options):
        from agents.llm import Completion

        return Completion(self.text, "scripted-llm", 5.0)


VAGUE_ISSUE = """Orders are sometimes accepted although the warehouse is short

We get complaints that customers receive confirmations for goods we do not have.
Nothing in the logs. Could someone look at this?
"""


@pytest.fixture
def suspects_on(settings, monkeypatch):
    """A model for which naming suspects is on (the embedded ones measured: off)."""
    monkeypatch.setattr("agents.llm.configured_model", lambda: "scripted-llm")
    agents = settings.REPORIFT["AGENTS"]
    per_model = {**agents["PER_MODEL"], "scripted-llm": {"STAGES": ["suspects"]}}
    settings.REPORIFT = {**settings.REPORIFT, "AGENTS": {**agents, "PER_MODEL": per_model}}


@pytest.mark.django_db
def test_full_mode_searches_what_the_llm_names_and_says_so(store, monkeypatch, suspects_on):
    monkeypatch.setattr(
        "agents.llm.get_llm_client",
        lambda: ScriptedLLM('{"files": [], "symbols": ["Stock.reserve"], "concepts": []}'),
    )
    located = locate_files(repository=store, issue=VAGUE_ISSUE, k=3, mode="full")
    assert located.files[0].path == "shop/inventory.py"
    assert any("which the LLM named" in r for r in located.files[0].reasons)
    assert any(n.startswith("scripted-llm named 0 files, 1 symbols") for n in located.notices)


@pytest.mark.django_db
def test_an_llm_that_answers_garbage_is_reported_and_the_issue_still_located(
    store, monkeypatch, suspects_on
):
    monkeypatch.setattr("agents.llm.get_llm_client", lambda: ScriptedLLM("no idea, sorry"))
    located = locate_files(repository=store, issue=TRACEBACK_ISSUE, k=3, mode="full")
    assert located.files[0].path == "shop/inventory.py"
    assert any("the LLM's suspects were not used" in n for n in located.notices)


@pytest.mark.django_db
def test_full_mode_asks_no_llm_where_its_suspects_did_not_help(store, monkeypatch):
    monkeypatch.setattr("agents.llm.configured_model", lambda: "qwen2.5-coder-0.5b-instruct")
    monkeypatch.setattr("agents.llm.get_llm_client", _refuse_llm)
    located = locate_files(repository=store, issue=TRACEBACK_ISSUE, k=3, mode="full")
    assert located.files[0].path == "shop/inventory.py"
    assert any("suspects are off for qwen2.5-coder-0.5b-instruct" in n for n in located.notices)


def _refuse_llm():
    raise AssertionError("an LLM was started for a model whose suspects are off")
