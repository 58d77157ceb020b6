"""`/mcp`: the MCP server over streamable HTTP, inside the WSGI web app.

The SDK's transport is an ASGI app whose session manager must be running (an ASGI lifespan)
before it takes a request. The site stays on WSGI (gunicorn's threads, WhiteNoise): requests to
`/mcp` are handed to the ASGI app by a2wsgi on one event loop in a background thread, where the
session manager is started once. The transport runs stateless with JSON answers, so every MCP
request is one plain HTTP request and no gunicorn thread is held by a long-lived stream.

Authentication is the JSON API's: no `Authorization` header is an anonymous caller (public
repositories only); `Bearer <token>` must be an active API token, else 401.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable

from django.conf import settings

PREFIX = "/mcp"


def _bearer(headers) -> str | None:
    value = headers.get("authorization", "") if headers else ""
    if not value:
        return None
    return value[7:].strip() if value.lower().startswith("bearer ") else ""


def _user_from_context(ctx):
    """The caller of an MCP request on `/mcp` (the WSGI mount already refused bad tokens)."""
    from mcp.server.fastmcp.exceptions import ToolError

    from accounts.services import user_for_api_token

    request = getattr(ctx.request_context, "request", None)
    key = _bearer(getattr(request, "headers", None))
    if key is None:
        return None
    user = user_for_api_token(key)
    if user is None:
        raise ToolError("the API token is invalid, expired or revoked")
    return user


def _security():
    from mcp.server.transport_security import TransportSecuritySettings

    hosts = [h for h in settings.ALLOWED_HOSTS if h and h != "*"]
    if not hosts or "*" in settings.ALLOWED_HOSTS:
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    allowed_hosts = [*hosts, *(f"{h}:*" for h in hosts)]
    origins = [*settings.CSRF_TRUSTED_ORIGINS]
    origins += [f"{scheme}://{h}" for h in hosts for scheme in ("http", "https")]
    origins += [f"{o}:*" for o in origins]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=allowed_hosts,
        allowed_origins=origins,
    )


class MCPMount:
    """A WSGI app: `/mcp...` goes to the MCP transport, everything else to `fallback`."""

    def __init__(self, fallback: Callable) -> None:
        self.fallback = fallback
        self._app = None
        self._lock = threading.Lock()

    def _mcp_app(self):
        with self._lock:
            if self._app is None:
                self._app = self._start()
            return self._app

    def _start(self):
        from a2wsgi import ASGIMiddleware

        from search.mcp_server import build_server

        server = build_server(
            _user_from_context, stateless_http=True, transport_security=_security()
        )
        server.streamable_http_app()  # creates the session manager
        manager = server.session_manager
        loop = asyncio.new_event_loop()
        threading.Thread(target=loop.run_forever, name="mcp-loop", daemon=True).start()
        started = threading.Event()

        async def keep_running() -> None:
            async with manager.run():
                started.set()
                await asyncio.Event().wait()  # until the process ends

        asyncio.run_coroutine_threadsafe(keep_running(), loop)
        if not started.wait(10):
            raise RuntimeError("the MCP session manager did not start")

        async def app(scope, receive, send):
            await manager.handle_request(scope, receive, send)

        return ASGIMiddleware(app, loop=loop)

    def __call__(self, environ, start_response):
        path = environ.get("PATH_INFO", "")
        if path != PREFIX and not path.startswith(PREFIX + "/"):
            return self.fallback(environ, start_response)
        refusal = self._authenticate(environ)
        if refusal is not None:
            return refusal(start_response)
        return self._mcp_app()(environ, start_response)

    @staticmethod
    def _authenticate(environ):
        """A bad token is refused before the MCP layer, with the API's 401."""
        from accounts.services import user_for_api_token

        key = _bearer({"authorization": environ.get("HTTP_AUTHORIZATION", "")})
        if key is None or user_for_api_token(key) is not None:
            return None
        body = json.dumps(
            {
                "jsonrpc": "2.0",
                "id": None,
                "error": {"code": -32001, "message": "invalid, expired or revoked API token"},
            }
        ).encode()

        def refuse(start_response):
            start_response(
                "401 Unauthorized",
                [
                    ("Content-Type", "application/json"),
                    ("Content-Length", str(len(body))),
                    ("WWW-Authenticate", 'Bearer realm="reporift"'),
                ],
            )
            return [body]

        return refuse
