"""Search limits per caller, the same for the web page, the JSON API and MCP, counted with
django-ratelimit in Django's cache (in-process by default, shared through Redis when REDIS_URL
is set).

Three buckets: every search counts against `SEARCH_RATE_PER_MINUTE`; a full-mode search, which
may call the operator's (possibly paid) LLM several times, also counts against the much smaller
`FULL_RATE_PER_MINUTE` and against the caller's `LLM_DAILY_BUDGET`. A caller is a user, or an
address for anonymous callers. Behind a reverse proxy every request comes from the proxy's
address, so addresses in `TRUSTED_PROXIES` are looked through: the client is the right-most
address of X-Forwarded-For that is not a trusted proxy (the left part of that header is written
by the client and cannot be believed).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from functools import lru_cache

from django.conf import settings
from django_ratelimit.core import is_ratelimited


@dataclass(frozen=True)
class Refusal:
    message: str
    retry_after_s: int
    status: int = 429  # 401: the caller must sign in first (asking again later will not help)


@lru_cache(maxsize=8)
def _networks(spec: tuple[str, ...]) -> tuple[ipaddress._BaseNetwork, ...]:
    return tuple(ipaddress.ip_network(s, strict=False) for s in spec)


def _trusted(address: str, networks) -> bool:
    try:
        ip = ipaddress.ip_address(address.strip())
    except ValueError:
        return False
    return any(ip in network for network in networks)


def client_address(request) -> str:
    remote = request.META.get("REMOTE_ADDR", "") or "?"
    networks = _networks(tuple(settings.REPORIFT["TRUSTED_PROXIES"]))
    if not networks or not _trusted(remote, networks):
        return remote
    forwarded = [a.strip() for a in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
    for address in reversed([a for a in forwarded if a]):
        if not _trusted(address, networks):
            return address
    return remote


def caller_key(request, user) -> str:
    if user is not None and user.is_authenticated:
        return f"user:{user.pk}"
    return f"addr:{client_address(request)}"


def _limited(request, group: str, key: str, rate: str) -> bool:
    return is_ratelimited(
        request, group=group, key=lambda _group, _request: key, rate=rate, increment=True
    )


def search_refusal(request, user, *, mode: str) -> Refusal | None:
    """None when this search may run (and it is counted); otherwise why not."""
    conf = settings.REPORIFT["LIMITS"]
    key = caller_key(request, user)
    per_minute = conf["SEARCH_RATE_PER_MINUTE"]
    if per_minute and _limited(request, "search", key, f"{per_minute}/m"):
        return Refusal(f"too many searches (limit {per_minute} a minute); try again shortly", 60)
    if mode != "full":
        return None
    return llm_refusal(request, user, work="full-mode searches", instead="fast mode still answers")


def llm_open(user) -> bool:
    """Whether `user` may ask for work that spends the LLM at all (the limits still apply)."""
    signed_in = user is not None and user.is_authenticated
    return signed_in or bool(settings.REPORIFT.get("LLM_FOR_ANONYMOUS", False))


def llm_refusal(request, user, *, work: str, instead: str) -> Refusal | None:
    """The buckets of work that calls the operator's LLM (full-mode searches, examples of found
    code): for signed-in callers unless the operator opened it to anonymous ones, then per
    minute and a daily budget, shared by all of it. None when it may run (and it is counted)."""
    if not llm_open(user):
        return Refusal(
            f"sign in for {work}: they spend the LLM's time, which this installation keeps for "
            "signed-in users",
            0,
            status=401,
        )
    conf = settings.REPORIFT["LIMITS"]
    key = caller_key(request, user)
    full = conf["FULL_RATE_PER_MINUTE"]
    if full and _limited(request, "search-full", key, f"{full}/m"):
        return Refusal(
            f"too many {work} (limit {full} a minute); try again shortly or {instead}", 60
        )
    daily = conf["LLM_DAILY_BUDGET"]
    if daily and _limited(request, "llm-day", key, f"{daily}/d"):
        return Refusal(f"today's LLM budget ({daily} calls) is spent; {instead}", 3600)
    return None


def webhook_refusal(request) -> Refusal | None:
    """Push webhooks count per sending address, at the API's rate: a flood of forged
    deliveries costs one HMAC each and never reaches git."""
    per_minute = settings.REPORIFT["LIMITS"]["SEARCH_RATE_PER_MINUTE"]
    key = f"addr:{client_address(request)}"
    if per_minute and _limited(request, "webhook", key, f"{per_minute}/m"):
        return Refusal(f"too many webhook deliveries (limit {per_minute} a minute)", 60)
    return None
