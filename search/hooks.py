"""`POST /hooks/<provider>/<repository>`: push webhooks that keep an index fresh.

A verified push to the indexed ref asks for one sync (`indexing.sync`); a push to another
branch, a ping, or a delivery id seen before is acknowledged and changes nothing. A missing or
wrong signature is answered 401 and starts nothing; so is a repository without a secret (or
one that does not exist: a sender cannot tell the two apart).
"""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.http import JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from indexing.models import Repository, WebhookDelivery
from indexing.sync import sync_request
from indexing.webhooks import WebhookRefused, concerns_indexed_ref, parse, verify
from search.ratelimit import webhook_refusal

MAX_BODY_BYTES = 5 * 1024 * 1024


@csrf_exempt  # authenticated by the signature, not by a session
@require_POST
def push_webhook(request, provider: str, name: str):
    refusal = webhook_refusal(request)
    if refusal is not None:
        response = JsonResponse({"detail": refusal.message}, status=429)
        response["Retry-After"] = str(refusal.retry_after_s)
        return response
    if int(request.META.get("CONTENT_LENGTH") or 0) > MAX_BODY_BYTES:
        return JsonResponse({"detail": "the delivery is too large"}, status=413)
    repository = Repository.objects.filter(name=name).first()
    body = request.body
    try:
        verify(
            provider,
            secret=repository.webhook_secret if repository else "",
            headers=request.headers,
            body=body,
        )
        push = parse(provider, headers=request.headers, body=body)
    except WebhookRefused as exc:
        return JsonResponse({"detail": str(exc)}, status=exc.status)
    if push.event != "push":
        return JsonResponse({"status": "ignored", "detail": f"{push.event} event"})
    if not concerns_indexed_ref(push, indexed_ref=repository.ref):
        return JsonResponse({"status": "ignored", "detail": f"push to {push.ref}"})
    if push.delivery_id:
        try:
            with transaction.atomic():
                WebhookDelivery.objects.create(
                    repository=repository, provider=provider, delivery_id=push.delivery_id
                )
        except IntegrityError:
            return JsonResponse({"status": "duplicate", "detail": "delivery seen before"})
    sync_request(repository=repository, trigger=f"webhook:{provider}")
    return JsonResponse({"status": "accepted"}, status=202)
