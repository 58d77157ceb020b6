"""Every failure under /api/ answers JSON, `{"detail": ...}`, like the API's own errors: a path
that is no endpoint (404), a method an endpoint does not take (405), a crash (500), whatever
Django or django-ninja answered in HTML or with an empty body. A client parses one shape."""

from __future__ import annotations

from http import HTTPStatus

from django.http import JsonResponse

API_PREFIX = "/api/"
_MESSAGES = {
    404: "no such API endpoint; /api/docs lists them",
    405: "this endpoint does not take {method}; it takes {allowed}",
    500: "the server failed to answer; the error was logged",
}


def _is_json(response) -> bool:
    return response.get("Content-Type", "").startswith("application/json")


def api_json_errors(get_response):
    def middleware(request):
        response = get_response(request)
        if (
            not request.path.startswith(API_PREFIX)
            or response.status_code < 400
            or _is_json(response)
        ):
            return response
        status = response.status_code
        try:
            default = HTTPStatus(status).phrase.lower()
        except ValueError:
            default = "request failed"
        allowed = response.get("Allow", "")
        message = _MESSAGES.get(status, default).format(
            method=request.method, allowed=allowed or "no other"
        )
        answer = JsonResponse({"detail": message}, status=status)
        if allowed:
            answer["Allow"] = allowed
        return answer

    return middleware
