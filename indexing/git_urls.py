"""Which git URLs a user (not the operator) may ask the server to clone.

Users can make the server connect anywhere a git URL points; without limits that reaches the
server's own loopback services, the private network and its files (`file://`). Operators widen
the defaults by settings; the `index_repo` command, which only operators run, is not limited.
"""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

from django.conf import settings


class GitURLRefused(ValueError):
    pass


def check_user_git_url(url: str) -> None:
    conf = settings.REPORIFT
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    if scheme not in conf["GIT_ALLOWED_SCHEMES"]:
        allowed = ", ".join(conf["GIT_ALLOWED_SCHEMES"])
        raise GitURLRefused(f"git URLs must use {allowed}; {scheme or 'no scheme'} is not allowed")
    if scheme == "file":
        return  # only reachable when the operator allowed the scheme
    host = (parts.hostname or "").lower()
    if not host:
        raise GitURLRefused("the git URL has no host")
    allowed_hosts = conf["GIT_ALLOWED_HOSTS"]
    if allowed_hosts and host not in allowed_hosts:
        raise GitURLRefused(f"git host {host} is not in the allowed list")
    if conf["GIT_ALLOW_PRIVATE_HOSTS"]:
        return
    try:
        addresses = {info[4][0] for info in socket.getaddrinfo(host, parts.port or 443)}
    except (socket.gaierror, UnicodeError) as exc:
        raise GitURLRefused(f"cannot resolve git host {host}") from exc
    for address in addresses:
        ip = ipaddress.ip_address(address.split("%")[0])
        if not ip.is_global:
            raise GitURLRefused(
                f"git host {host} resolves to a private or loopback address ({ip}), "
                "which this server does not clone from"
            )
