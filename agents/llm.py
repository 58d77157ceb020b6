"""The LLM client seam: chat completions from any OpenAI-compatible endpoint.

`OPENAI_BASE_URL`, `OPENAI_API_KEY` and `REPORIFT_LLM_MODEL` point it at OpenAI, Ollama, vLLM or a
llama.cpp server; with nothing configured it uses the embedded SmolLM2 server
(`agents.local_model`). Completions are cached in the database by (model, messages, parameters),
and every call is logged with its latency and token counts.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from django.conf import settings

from agents.errors import LLMError, LLMUnavailable
from agents.models import CompletionCacheEntry, LLMCall
from reporift.backends import once

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Completion:
    text: str
    model: str
    latency_ms: float
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached: bool = False
    # {token: log-probability} of the first answer token's most likely alternatives, when asked.
    first_token_logprobs: dict[str, float] = field(default_factory=dict)
    # Prompt tokens the server did not evaluate again: its cache held them from an earlier
    # request with the same prefix (llama.cpp and OpenAI report them; 0 where none is said).
    cached_prompt_tokens: int = 0


@runtime_checkable
class LLMClient(Protocol):
    model: str

    def complete(
        self,
        messages: list[dict[str, str]],
        *,
        purpose: str,
        prompt_version: str,
        max_tokens: int = 256,
        temperature: float = 0.0,
        json_mode: bool = False,
        top_logprobs: int = 0,
        timeout_s: float | None = None,
    ) -> Completion:
        """`top_logprobs` > 0 asks for the log-probabilities of that many alternatives of the
        answer's first token (llama.cpp, vLLM and OpenAI return them); `timeout_s` bounds this
        call (a stage's budget) below the client's own timeout."""
        ...


def cache_key(model: str, messages: list[dict[str, str]], params: dict) -> str:
    payload = json.dumps([model, messages, params], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(payload.encode()).hexdigest()


def cached_completion(key: str, model: str) -> Completion | None:
    hit = CompletionCacheEntry.objects.filter(key=key).first()
    if hit is None:
        return None
    return Completion(
        hit.text,
        model,
        0.0,
        hit.prompt_tokens,
        hit.completion_tokens,
        cached=True,
        first_token_logprobs=hit.first_token_logprobs or {},
    )


def store_completion(key: str, completion: Completion) -> None:
    CompletionCacheEntry.objects.update_or_create(
        key=key,
        defaults={
            "model": completion.model,
            "text": completion.text,
            "prompt_tokens": completion.prompt_tokens,
            "completion_tokens": completion.completion_tokens,
            "first_token_logprobs": completion.first_token_logprobs,
        },
    )


class OpenAICompatibleClient:
    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str = "",
        timeout_s: float = 60.0,
        max_retries: int = 1,
        use_cache: bool = True,
    ) -> None:
        import openai

        self.model = model
        self.base_url = base_url
        self.use_cache = use_cache
        self._client = openai.OpenAI(
            base_url=base_url,
            api_key=api_key or "not-needed",
            timeout=timeout_s,
            max_retries=max_retries,
        )

    def complete(
        self,
        messages: list[dict[str, str]],
        *,
        purpose: str,
        prompt_version: str,
        max_tokens: int = 256,
        temperature: float = 0.0,
        json_mode: bool = False,
        top_logprobs: int = 0,
        timeout_s: float | None = None,
    ) -> Completion:
        params = {"max_tokens": max_tokens, "temperature": temperature, "json": json_mode}
        if top_logprobs:
            params["top_logprobs"] = top_logprobs
        key = cache_key(self.model, messages, params)
        use_cache = self.use_cache and temperature == 0.0  # sampled answers are not reused
        if use_cache and (hit := cached_completion(key, self.model)) is not None:
            record_call(hit, purpose, prompt_version)
            return hit
        start = time.perf_counter()
        try:
            completion = self._request(messages, params, start, timeout_s)
        except LLMError as exc:
            record_call(
                Completion("", self.model, (time.perf_counter() - start) * 1000),
                purpose,
                prompt_version,
                error=str(exc),
            )
            raise
        if use_cache:
            store_completion(key, completion)
        record_call(completion, purpose, prompt_version)
        return completion

    def _request(self, messages, params: dict, start: float, timeout_s: float | None) -> Completion:
        import openai

        client = self._client if timeout_s is None else self._client.with_options(timeout=timeout_s)
        extra: dict = {}
        if params["json"]:
            extra["response_format"] = {"type": "json_object"}
        if params.get("top_logprobs"):
            extra |= {"logprobs": True, "top_logprobs": params["top_logprobs"]}
        try:
            response = client.chat.completions.create(
                model=self.model,
                messages=messages,
                max_tokens=params["max_tokens"],
                temperature=params["temperature"],
                **extra,
            )
        except openai.APITimeoutError as exc:
            raise LLMError(f"the LLM at {self.base_url} timed out") from exc
        except openai.APIConnectionError as exc:
            raise LLMError(f"cannot reach the LLM at {self.base_url}") from exc
        except openai.APIStatusError as exc:
            raise LLMError(f"the LLM answered HTTP {exc.status_code}") from exc
        except openai.OpenAIError as exc:  # malformed bodies and the like
            raise LLMError(f"bad answer from the LLM: {type(exc).__name__}: {exc}") from exc
        except ValueError as exc:
            raise LLMError(f"bad answer from the LLM: {exc}") from exc
        choices = getattr(response, "choices", None)
        if not choices or choices[0].message is None:
            raise LLMError("the LLM answered without a choice")
        usage = getattr(response, "usage", None)
        return Completion(
            text=choices[0].message.content or "",
            model=self.model,
            latency_ms=(time.perf_counter() - start) * 1000,
            prompt_tokens=getattr(usage, "prompt_tokens", 0) or 0,
            completion_tokens=getattr(usage, "completion_tokens", 0) or 0,
            first_token_logprobs=_first_token_logprobs(choices[0]),
            cached_prompt_tokens=getattr(
                getattr(usage, "prompt_tokens_details", None), "cached_tokens", 0
            )
            or 0,
        )


def _first_token_logprobs(choice) -> dict[str, float]:
    logprobs = getattr(choice, "logprobs", None)
    content = getattr(logprobs, "content", None) or []
    if not content:
        return {}
    alternatives = getattr(content[0], "top_logprobs", None) or []
    out: dict[str, float] = {}
    for item in alternatives:
        token, value = getattr(item, "token", None), getattr(item, "logprob", None)
        if isinstance(token, str) and isinstance(value, int | float):
            out.setdefault(token, float(value))
    return out


def record_call(completion: Completion, purpose: str, prompt_version: str, error: str = "") -> None:
    try:
        LLMCall.objects.create(
            model=completion.model,
            purpose=purpose,
            prompt_version=prompt_version,
            latency_ms=completion.latency_ms,
            prompt_tokens=completion.prompt_tokens,
            completion_tokens=completion.completion_tokens,
            cached=completion.cached,
            error=error[:2000],
        )
    except Exception:  # a log write must never fail a search
        logger.exception("could not record an LLM call")


def configured_model() -> str:
    """The model that LLM calls will use, read from settings: nothing is started, so callers
    can decide from the model's settings whether they need an LLM at all."""
    conf = settings.REPORIFT["LLM"]
    if conf["BASE_URL"]:
        return conf["MODEL"]  # settings refuse to start without it
    if not conf["EMBEDDED"]:
        raise LLMUnavailable("no LLM endpoint is configured (OPENAI_BASE_URL)")
    from agents.local_model import embedded_model

    return embedded_model()[0]


def llm_endpoint() -> tuple[str, str, str]:
    """(base URL, model, API key) of the configured endpoint, starting the embedded one if none
    is configured."""
    conf = settings.REPORIFT["LLM"]
    model = configured_model()
    if conf["BASE_URL"]:
        return conf["BASE_URL"], model, conf["API_KEY"]
    from agents.local_model import embedded_server

    return embedded_server().base_url, model, ""


@once
def get_llm_client() -> LLMClient:
    conf = settings.REPORIFT["LLM"]
    base_url, model, api_key = llm_endpoint()
    return OpenAICompatibleClient(
        base_url=base_url,
        model=model,
        api_key=api_key,
        timeout_s=conf["TIMEOUT_S"],
        max_retries=conf["MAX_RETRIES"],
    )
