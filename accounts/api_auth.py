"""Who calls the JSON API: a bearer token (`manage.py create_api_token`), else the session, else
nobody (anonymous callers see public repositories). Shared by every app's endpoints."""

from __future__ import annotations

from ninja import Schema
from ninja.security import HttpBearer, django_auth

from accounts.services import user_for_api_token


class ErrorOut(Schema):
    detail: str


class TokenAuth(HttpBearer):
    """`Authorization: Bearer rr_...` with a token from `manage.py create_api_token`."""

    def authenticate(self, request, token):
        user = user_for_api_token(token)
        if user is not None:
            request.user = user
        return user


token_auth = TokenAuth()
WRITE_AUTH = [token_auth, django_auth]


def caller(request):
    """The user behind a request that may be anonymous: a bearer token, else the session."""
    header = request.headers.get("Authorization", "")
    if header.lower().startswith("bearer "):
        user = user_for_api_token(header[7:].strip())
        if user is None:
            return None, False
        return user, True
    return request.user, True
