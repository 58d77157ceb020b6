"""Web search for the research agent, only when an operator configures an endpoint.

`REPORIFT_WEB_SEARCH_URL` names a SearxNG-compatible search API (`GET <url>?q=...&format=json`
answering `{"results": [{"title", "url", "content"}]}`); nothing is searched otherwise, so the
default installation never leaves the machine.
"""

from __future__ import annotations

import json
import urllib.parse
import urllib.request

MAX_RESULTS = 3


class WebSearchError(RuntimeError):
    pass


def web_search(url: str, query: str, *, timeout_s: float = 10.0) -> list[str]:
    separator = "&" if "?" in url else "?"
    full = f"{url}{separator}{urllib.parse.urlencode({'q': query, 'format': 'json'})}"
    try:
        with urllib.request.urlopen(full, timeout=timeout_s) as response:
            data = json.loads(response.read(1_000_000))
    except (OSError, ValueError) as exc:
        raise WebSearchError(f"web search failed: {exc}") from exc
    results = data.get("results") if isinstance(data, dict) else None
    if not isinstance(results, list):
        raise WebSearchError("web search answered without a results list")
    lines = []
    for item in results[:MAX_RESULTS]:
        if isinstance(item, dict):
            title = str(item.get("title", ""))[:200]
            content = " ".join(str(item.get("content", "")).split())[:400]
            lines.append(f"{title}: {content}".strip(": "))
    return lines


def web_search_tool(url: str, counter: list[str], limit: int):
    """A CrewAI tool over `web_search`, sharing the agent's budget of `limit` tool calls
    (`counter` holds the calls made so far)."""
    from crewai.tools import BaseTool

    class WebSearchTool(BaseTool):
        name: str = "search_the_web"
        description: str = "Search the web for background on a library or concept. Input: keywords."

        def _run(self, query: str) -> str:
            if len(counter) >= limit:
                return "Search limit reached; write the description now."
            counter.append(str(query))
            try:
                found = web_search(url, str(query))
            except WebSearchError as exc:
                return f"Web search is unavailable ({exc})."
            return "\n".join(found) if found else "Nothing found."

    return WebSearchTool()
