"""Running untrusted code: repository code and LLM-written test programs, isolated.

One seam (`sandbox.base.Sandbox`), two implementations: bubblewrap (Debian's `bubblewrap`
package, the default) and a container engine (Docker or podman, when the operator configures
one with REPORIFT_SANDBOX). Nothing here runs code in the calling process.
"""

from __future__ import annotations

from django.conf import settings

from reporift.backends import build_backend, once
from sandbox.base import Execution, Limits, Sandbox, SandboxUnavailable

__all__ = ["Execution", "Limits", "Sandbox", "SandboxUnavailable", "get_sandbox", "limits"]


@once
def get_sandbox() -> Sandbox:
    return build_backend(settings.REPORIFT["SANDBOX"]["BACKEND"])


def limits() -> Limits:
    return Limits(**settings.REPORIFT["SANDBOX"]["LIMITS"])
