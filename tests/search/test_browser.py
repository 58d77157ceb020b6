"""End to end in headless Chromium: log in, index a repository from a git URL, search, filter."""

import os
import shutil
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


def test_index_search_filter(live_server, browser_page, django_user_model, write_repo, tmp_path):
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
