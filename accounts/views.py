from datetime import timedelta

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_http_methods, require_POST

from accounts.selectors import token_of, tokens_of
from accounts.services import api_token_create, api_token_revoke

EXPIRY_CHOICES = {"": None, "30": 30, "90": 90, "365": 365}


@login_required
@require_http_methods(["GET", "POST"])
def api_tokens(request):
    new_key = ""
    if request.method == "POST":
        name = (request.POST.get("name") or "token").strip()[:100]
        days = EXPIRY_CHOICES.get(request.POST.get("expires_in_days", ""))
        expires_at = timezone.now() + timedelta(days=days) if days else None
        _, new_key = api_token_create(user=request.user, name=name, expires_at=expires_at)
    return render(
        request,
        "accounts/api_tokens.html",
        {"tokens": tokens_of(user=request.user), "new_key": new_key},
    )


@login_required
@require_POST
def api_token_revoke_view(request, token_id: int):
    token = token_of(user=request.user, token_id=token_id)
    if token is None:
        raise Http404("no such token")
    api_token_revoke(token=token)
    messages.success(request, f"Token {token.name} ({token.prefix}…) revoked.")
    return redirect("accounts:api_tokens")
