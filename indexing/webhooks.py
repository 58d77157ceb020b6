"""Push webhooks of GitHub, GitLab and Gitea: who sent it, what it says.

Each repository has its own secret (`Repository.webhook_secret`). GitHub and Gitea sign the
body with it (HMAC-SHA256: `X-Hub-Signature-256: sha256=<hex>`, `X-Gitea-Signature: <hex>`);
GitLab sends it as a token (`X-Gitlab-Token`). Every comparison is constant-time
(`hmac.compare_digest`). Pure functions of the request's headers and body: the view
(`indexing.views.push_webhook`) decides what to do with the answer.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass

PROVIDERS = ("github", "gitlab", "gitea")


class WebhookRefused(Exception):
    """Not a delivery this repository accepts; `status` is the HTTP answer."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Push:
    delivery_id: str
    event: str  # "push", or what else the provider sent ("ping", "Tag Push Hook", ...)
    ref: str  # "refs/heads/main"
    after: str
    default_branch: str


def _header(headers, name: str) -> str:
    return headers.get(name, "") or ""


def verify(provider: str, *, secret: str, headers, body: bytes) -> None:
    """Raise WebhookRefused(401) unless the delivery carries `secret`'s signature."""
    if provider not in PROVIDERS:
        raise WebhookRefused(404, f"unknown webhook provider {provider!r}")
    if not secret:
        raise WebhookRefused(401, "webhooks are not enabled for this repository")
    if provider == "gitlab":
        given, expected = _header(headers, "X-Gitlab-Token"), secret
    else:
        digest = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
        if provider == "github":
            given, expected = _header(headers, "X-Hub-Signature-256"), f"sha256={digest}"
        else:
            given, expected = _header(headers, "X-Gitea-Signature"), digest
    if not given or not hmac.compare_digest(given.encode(), expected.encode()):
        raise WebhookRefused(401, "missing or wrong webhook signature")


def parse(provider: str, *, headers, body: bytes) -> Push:
    """The push a verified delivery describes."""
    if provider == "github":
        event, delivery = _header(headers, "X-GitHub-Event"), _header(headers, "X-GitHub-Delivery")
    elif provider == "gitlab":
        event = _header(headers, "X-Gitlab-Event")
        delivery = _header(headers, "X-Gitlab-Event-UUID") or _header(headers, "Idempotency-Key")
    else:
        event, delivery = _header(headers, "X-Gitea-Event"), _header(headers, "X-Gitea-Delivery")
    try:
        payload = json.loads(body or b"{}")
    except ValueError as exc:
        raise WebhookRefused(400, "the body is not JSON") from exc
    if not isinstance(payload, dict):
        raise WebhookRefused(400, "the body is not a JSON object")
    project = payload.get("repository") or payload.get("project") or {}
    if not isinstance(project, dict):
        project = {}
    is_push = event.lower() in ("push", "push hook")
    return Push(
        delivery_id=delivery[:200],
        event="push" if is_push else event or "unknown",
        ref=str(payload.get("ref") or ""),
        after=str(payload.get("after") or payload.get("checkout_sha") or ""),
        default_branch=str(project.get("default_branch") or "")
        if isinstance(project, dict)
        else "",
    )


def concerns_indexed_ref(push: Push, *, indexed_ref: str) -> bool:
    """Whether the push moved the ref the repository indexes (its default branch when none)."""
    branch = indexed_ref or push.default_branch
    if not branch:
        return True  # nothing to tell them apart by: checking the remote is cheap
    return push.ref in (f"refs/heads/{branch}", f"refs/tags/{branch}")
