"""A fake OpenAI-compatible server on loopback, for the LLM layer's error paths. What it answers
is set per test: a list of replies, consumed in order (the last one repeats)."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest


@dataclass
class Reply:
    content: str = ""
    status: int = 200
    delay_s: float = 0.0
    raw: bytes | None = None  # sent as the body instead of a well-formed completion
    # The first token's alternatives when the request asks for log-probabilities; by default
    # the reply's first word, likely, and its opposite, unlikely.
    logprobs: dict[str, float] | None = None

    def first_token_alternatives(self) -> list[dict]:
        if self.logprobs is None:
            word = (self.content.split() or [""])[0]
            other = {"Yes": "No", "No": "Yes"}.get(word, "the")
            self.logprobs = {word: -0.05, other: -3.0}
        return [{"token": t, "logprob": v, "bytes": None} for t, v in self.logprobs.items()]


@dataclass
class FakeLLM:
    base_url: str
    replies: list[Reply] = field(default_factory=lambda: [Reply("ok")])
    requests: list[dict] = field(default_factory=list)

    responder: object = None  # request body -> Reply, instead of the list

    def answer(self, *replies: Reply | str) -> None:
        self.replies = [r if isinstance(r, Reply) else Reply(r) for r in replies]
        self.responder = None

    def answer_with(self, responder) -> None:
        """Decide each reply from the request (e.g. judge the candidate in the prompt)."""
        self.responder = responder


def _logprobs(reply: Reply) -> dict:
    alternatives = reply.first_token_alternatives()
    first = alternatives[0]
    return {"content": [{**first, "top_logprobs": alternatives}]}


@pytest.fixture
def fake_llm():
    state: dict = {}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            fake: FakeLLM = state["fake"]
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            fake.requests.append(body)
            if fake.responder is not None:
                reply = fake.responder(body)
            else:
                reply = fake.replies[0] if len(fake.replies) == 1 else fake.replies.pop(0)
            time.sleep(reply.delay_s)
            if reply.raw is not None:
                payload = reply.raw
            else:
                payload = json.dumps(
                    {
                        "id": "x",
                        "object": "chat.completion",
                        "created": 0,
                        "model": body["model"],
                        "choices": [
                            {
                                "index": 0,
                                "finish_reason": "stop",
                                "message": {"role": "assistant", "content": reply.content},
                                "logprobs": _logprobs(reply) if body.get("logprobs") else None,
                            }
                        ],
                        "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
                    }
                ).encode()
            try:
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout test)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state["fake"] = FakeLLM(base_url=f"http://127.0.0.1:{server.server_port}/v1")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield state["fake"]
    server.shutdown()
    server.server_close()


@pytest.fixture
def fake_client(fake_llm, db):
    from agents.llm import OpenAICompatibleClient

    return OpenAICompatibleClient(
        base_url=fake_llm.base_url, model="fake-model", timeout_s=2, max_retries=0
    )


def use_fake_llm(settings, fake_llm, *, model="fake-model", timeout_s=2, **agents) -> None:
    """Point the LLM settings at the fake server (the caller clears the client cache after)."""
    from agents.llm import get_llm_client

    settings.REPORIFT = {
        **settings.REPORIFT,
        "LLM": {
            **settings.REPORIFT["LLM"],
            "BASE_URL": fake_llm.base_url,
            "MODEL": model,
            "TIMEOUT_S": timeout_s,
            "MAX_RETRIES": 0,
        },
        "AGENTS": {**settings.REPORIFT["AGENTS"], **agents},
    }
    get_llm_client.cache_clear()
