import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import pytest

from agents.web_search import WebSearchError, web_search, web_search_tool


@pytest.fixture
def search_server():
    seen = []
    state = {"body": b""}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            seen.append(parse_qs(urlsplit(self.path).query))
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(state["body"])

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/search", seen, state
    server.shutdown()
    server.server_close()


def test_results_are_summarised(search_server):
    url, seen, state = search_server
    state["body"] = json.dumps(
        {
            "results": [
                {
                    "title": "urllib3 Retry",
                    "url": "https://x",
                    "content": "Retry  configuration\n for pools",
                },
                {"title": "b", "content": "c"},
                {"title": "d", "content": "e"},
                {"title": "f", "content": "g"},
            ]
        }
    ).encode()
    assert web_search(url, "retry http") == [
        "urllib3 Retry: Retry configuration for pools",
        "b: c",
        "d: e",
    ]
    assert seen == [{"q": ["retry http"], "format": ["json"]}]


def test_garbage_and_unreachable(search_server):
    url, _, state = search_server
    state["body"] = b"<html>not json</html>"
    with pytest.raises(WebSearchError):
        web_search(url, "x")
    with pytest.raises(WebSearchError):
        web_search("http://127.0.0.1:9/search", "x", timeout_s=1)


def test_tool_shares_the_call_budget(search_server):
    url, seen, state = search_server
    state["body"] = json.dumps({"results": [{"title": "t", "content": "c"}]}).encode()
    calls: list[str] = []
    tool = web_search_tool(url, calls, limit=2)
    assert tool._run("one") == "t: c"
    assert tool._run("two") == "t: c"
    assert "limit reached" in tool._run("three")
    assert len(seen) == 2
