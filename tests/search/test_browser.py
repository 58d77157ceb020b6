"""End to end in headless Chromium: log in, index a repository from a git URL, search, filter;
paste a long issue and read the files to change."""

import os
import shutil
from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import SAMPLE_FILES, git_commit_all

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow, pytest.mark.browser]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DOCS = Path(__file__).resolve().parents[2] / "docs"


@pytest.fixture
def browser_page():
    if not Path(CHROMIUM).exists():
        pytest.fail("Chromium is missing: `make test` installs Debian's chromium package")
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")  # playwright runs an event loop
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        try:
            yield page
        finally:
            browser.close()


@pytest.fixture
def models_ready():
    """The embedders' files, built before the browser waits on a page: a test session builds
    them at its first index, which takes longer than a click waits on two busy cores."""
    from indexing.embedding import get_embedder
    from indexing.static_tier import get_static_embedder

    get_embedder().embed(["warm up"])
    get_static_embedder()


def test_index_search_filter(
    live_server, browser_page, models_ready, django_user_model, write_repo, tmp_path
):
    origin = write_repo(SAMPLE_FILES)
    git_commit_all(origin)
    django_user_model.objects.create_user("dev", password="correct-horse-battery")
    page = browser_page

    page.goto(f"{live_server.url}/accounts/login/?next=/repos/new/")
    page.fill("input[name=username]", "dev")
    page.fill("input[name=password]", "correct-horse-battery")
    page.click("button[type=submit]")
    page.wait_for_url("**/repos/new/")

    page.fill("input[name=name]", "shop")
    page.fill("input[name=git_url]", origin.as_uri())
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")
    page.wait_for_selector("text=succeeded", timeout=60_000)

    page.click("a:text('shop')")
    page.fill("#q", "where do we retry failed HTTP calls?")
    page.click("button:text('Search')")
    page.wait_for_selector("ol.results li.result")
    first = page.locator("ol.results li.result").first
    assert first.get_attribute("data-qualname") == "retry_http_call"
    assert "shop/payments.py" in first.inner_text()

    page.fill("#q", "charge")
    page.check("input[name=kind][value=class]")
    page.click("button:text('Search')")
    page.wait_for_selector("ol.results li.result")
    names = page.locator("ol.results li.result").evaluate_all(
        "items => items.map(i => i.dataset.qualname)"
    )
    assert names == ["PaymentGateway"]
    assert "kind=class" in page.url  # the filtered results have a URL that can be shared

    page.goto(f"{live_server.url}/search/?repo=shop&q=retry+failed+http+calls&k=3")
    page.wait_for_selector("ol.results li.result")
    target = DOCS if os.environ.get("REPORIFT_UPDATE_SCREENSHOT") else tmp_path
    page.screenshot(path=str(target / "search-results.png"), full_page=True)

    # Home, search and results pages at desktop and phone widths: nothing wider than the
    # screen (code scrolls inside its own box), the results readable at both.
    for width, height in ((1200, 900), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        for url in ("/", "/search/", "/search/?q=retry+failed+http+calls&k=3"):
            page.goto(f"{live_server.url}{url}")
            overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
            assert overflow <= 1, (width, url, overflow)
        assert page.locator("ol.results li.result .reason").first.is_visible()
        assert page.locator("ol.results li.result .repository").first.inner_text() == "shop"
        page.screenshot(path=str(tmp_path / f"results-{width}.png"), full_page=True)


# A bug report as people paste it: a title, what happened, a log, the traceback, what they tried.
LONG_ISSUE = "\n".join(
    [
        "PaymentGateway.charge gives up with ConnectionError when the provider is slow",
        "",
        "Since the provider moved its endpoint, charging a card fails for about one order in "
        "five. The customer sees the generic error page and the order stays unpaid, although "
        "the provider's dashboard shows the charge never arrived. It happens more at lunch "
        "time, when the provider answers slowly.",
        "",
        "Log of one checkout (times in UTC):",
        "```",
        *(
            f"2026-03-{day:02d} 12:{minute:02d}:07 INFO checkout order={4100 + day * 7 + minute} "
            f"cart_lines={minute % 9 + 1} amount_cents={1999 + minute * 113} "
            "gateway=PaymentGateway status=retrying"
            for day in range(1, 8)
            for minute in range(0, 50, 3)
        ),
        "```",
        "",
        "Traceback:",
        "```",
        "Traceback (most recent call last):",
        '  File "/srv/shop/venv/lib/python3.11/site-packages/shop/payments.py", line 110, '
        "in charge",
        '    return retry_http_call(lambda: self._post("/charge", amount_cents, card_token))',
        '  File "/srv/shop/venv/lib/python3.11/site-packages/shop/payments.py", line 99, '
        "in retry_http_call",
        "    return send()",
        '  File "/srv/shop/venv/lib/python3.11/site-packages/shop/payments.py", line 113, in _post',
        "    raise ConnectionError(path)",
        "ConnectionError: /charge",
        "```",
        "",
        "I tried raising the attempts to 5 and the backoff to 2 seconds: the checkout then "
        "takes half a minute and still fails now and then. Expected: a slow provider is "
        "waited for, and a card is never charged twice.",
    ]
)


def test_paste_a_long_issue(live_server, browser_page, indexed_repo, shop, tmp_path):
    """The issue box as wide as the search form and growing with the text, its count against
    the limit the server holds it to; the answer with one number a file, each line of code once
    a file, nothing wider than the screen, and the repository kept in both forms."""
    from search.retrieval import search_config

    indexed_repo("blog", {"blog/posts.py": "def publish(post):\n    post.public = True\n"})
    limit = search_config()["MAX_ISSUE_CHARS"]
    assert 3_000 < len(LONG_ISSUE) < limit
    page = browser_page
    page.set_viewport_size({"width": 1280, "height": 900})

    # A search in shop: the issue form below is set to shop too ("blog" comes first).
    page.goto(f"{live_server.url}/search/?repo=shop&q=charge+a+card")
    page.wait_for_selector("ol.results li.result")
    assert page.input_value("#issue-form select[name=repo]") == "shop"

    page.click("details.issue-form summary")
    box = page.locator("#issue-text")
    empty_height = box.bounding_box()["height"]
    box.fill(LONG_ISSUE)
    count = page.inner_text("#issue-count")
    assert count == f"{len(LONG_ISSUE.strip()):,} of {limit:,} characters", count
    _box_spans_the_search_form(page)
    grown = box.bounding_box()["height"]
    assert empty_height < grown <= 0.7 * 900 + 1, (empty_height, grown)
    # Past the limit the count says by how much, and the browser keeps the form back.
    box.fill(LONG_ISSUE * (limit // len(LONG_ISSUE) + 1))
    assert "over the limit of " + f"{limit:,}" in page.inner_text("#issue-count")
    assert page.evaluate("document.getElementById('issue-text').checkValidity()") is False
    box.fill(LONG_ISSUE)

    page.click("button:text('Find the files')")
    page.wait_for_selector("ol.located-files li.located-file")
    files = page.locator("li.located-file")
    assert files.first.get_attribute("data-path") == "shop/payments.py"
    # The repository the issue was read in, chosen in both forms; the issue still in its box.
    assert page.input_value("#search-form select[name=repo]") == "shop"
    assert page.input_value("#issue-form select[name=repo]") == "shop"
    assert page.input_value("#issue-text") == LONG_ISSUE

    # One number a file: its rank, and no list marker beside it.
    for position, file in enumerate(files.all(), start=1):
        assert file.evaluate("li => getComputedStyle(li).listStyleType") == "none"
        assert file.locator(".rank").all_inner_texts() == [str(position)]
    # Each line of code once a file; a unit whose lines another shows says where they are.
    for file in files.all():
        shown = file.locator(".located-unit > .code-wrap td.linenos").all_inner_texts()
        numbers = Counter(n for text in shown for n in text.split())
        assert numbers and max(numbers.values()) == 1, (file.get_attribute("data-path"), numbers)
    pointers = files.first.locator(".located-unit:has(.shown-with)")
    assert pointers.count() >= 1  # the small class shown whole, and its methods in it
    for unit in pointers.all():
        named = unit.locator(".shown-with .qualname").get_attribute("title")
        holder = files.first.locator(f'.located-unit[data-qualname="{named}"]')
        assert holder.locator(":scope > .code-wrap").count() == 1, named
        assert unit.locator(":scope > .code-wrap").count() == 0  # its code only in its fold

    target = DOCS if os.environ.get("REPORIFT_UPDATE_SCREENSHOT") else tmp_path
    for width, height, name in ((1280, 900, "locate-results"), (400, 844, "locate-results-phone")):
        page.set_viewport_size({"width": width, "height": height})
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, (width, overflow)
        _box_spans_the_search_form(page)
        # As in the docs: the box, its count, the summary and the first file.
        first = files.first.bounding_box()
        clip = {"x": 0, "y": 0, "width": width, "height": first["y"] + first["height"] + 16}
        page.screenshot(path=str(target / f"{name}.png"), full_page=True, clip=clip)


def _box_spans_the_search_form(page):
    box = page.locator("#issue-text").bounding_box()
    form = page.locator("#search-form").bounding_box()
    query = page.locator("#q").bounding_box()
    assert abs(box["x"] - form["x"]) <= 1 and abs(box["width"] - form["width"]) <= 1, (box, form)
    assert box["width"] >= query["width"]
