"""Full mode on the page: the search runs in the background while the page shows its stages,
then the results replace them; a job is visible to the caller who started it only."""

import json
import re
import time

import pytest
from django.test import Client

from agents.llm import get_llm_client
from tests.agents.conftest import Reply, fake_llm, use_fake_llm  # noqa: F401  (a fixture)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def slow_llm(settings, fake_llm):  # noqa: F811
    use_fake_llm(settings, fake_llm, model="paid-model", timeout_s=10, AUGMENTER="prompt")
    fake_llm.answer(
        Reply("Code that retries an HTTP call.", delay_s=0.6),
        Reply("```python\ndef retry(send):\n    return send()\n```", delay_s=0.6),
        Reply(json.dumps({"ranking": ["c1"], "reasons": {"c1": "retries the call"}})),
    )
    get_llm_client.cache_clear()
    yield fake_llm
    get_llm_client.cache_clear()


def test_full_mode_page_shows_stages_then_results(shop, slow_llm, settings):
    settings.REPORIFT = {**settings.REPORIFT, "LLM_FOR_ANONYMOUS": True}
    client = Client()
    page = client.get("/search/", {"repo": "shop", "q": "retry failed http calls", "mode": "full"})
    html = page.content.decode()
    assert page.status_code == 200 and 'id="full-mode-job"' in html
    # Before and while it runs, the page says what full mode does with this model.
    assert html.count("Full mode: paid-model expands the query, writes code") == 2
    job_url = re.search(r'hx-get="(/search/jobs/[0-9a-f]+/)"', html).group(1)
    seen_stages: set[str] = set()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        part = client.get(job_url).content.decode()
        seen_stages |= set(re.findall(r'class="stage (?:running|done)">([^<·…]+)', part))
        if "hx-get" not in part:
            break
        time.sleep(0.2)
    assert "hx-get" not in part, "the job did not finish"
    assert {"research agent (augmented query) ", "code generation "} & seen_stages
    assert 'data-qualname="retry_http_call"' in part and "full mode" in part
    # Someone else cannot read this caller's job.
    assert Client(REMOTE_ADDR="203.0.113.9").get(job_url).status_code == 404
