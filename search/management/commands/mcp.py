import contextlib
import os
import signal
import sys

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from reporift.commands import DJANGO_OPTIONS


class Command(BaseCommand):
    help = (
        "Serve RepoRift's MCP tools over stdio for a coding agent (Claude Code, Cursor, VS Code), "
        "acting as one user: what they may see is what the agent may search."
    )
    suppressed_base_arguments = DJANGO_OPTIONS
    requires_system_checks = []  # checks run with `reporift serve` (migrate), not per command

    def add_arguments(self, parser):
        parser.add_argument(
            "--user",
            default=settings.REPORIFT["MCP_USER"],
            help="the user the agent acts as (default: REPORIFT_MCP_USER); without one, only "
            "public repositories are visible",
        )
        parser.add_argument(
            "--path",
            help="serve this working tree (indexed at first use, kept up to date at every call) "
            "instead of the indexed repositories",
        )

    def handle(self, *args, user, path=None, **options):
        from search.mcp_server import build_server

        if path:
            return self._serve_working_tree(path)
        acting = None
        if user:
            acting = get_user_model().objects.filter(username=user, is_active=True).first()
            if acting is None:
                raise CommandError(f"no active user named {user!r}")
        # stdout belongs to the protocol: nothing else may be written there.
        _serve(build_server(lambda ctx: acting))

    def _serve_working_tree(self, path: str) -> None:
        from indexing.services import IndexingError
        from indexing.working_tree import open_working_tree
        from search.mcp_server import build_server

        try:  # indexed before the server starts: the first call then answers at once
            tree, _ = open_working_tree(path=path, phase2="background")
        except IndexingError as exc:
            raise CommandError(str(exc)) from exc
        _serve(build_server(lambda ctx: None, working_tree=tree))


def _serve(server) -> None:
    """Serve over stdio until the client closes the session, Ctrl-C or SIGTERM; then stop a
    phase 2 under way at a safe point (its claim handed back for the next session) and exit
    with status 0. An agent opens and closes sessions all day."""
    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, _end)
    server.run(transport="stdio")  # returns when the client closes the session's input
    _end()


def _end(*_signal) -> None:
    """Leave now: in a signal handler the transport's reader thread may still wait on an open
    input, and phase 2's thread may be inside the model for seconds (an MCP client sends
    SIGTERM two seconds after it closes the input); neither may meet the interpreter's
    shutdown. What phase 2 did is kept, its claim handed back (`stop_and_wait`)."""
    from indexing.phase2 import stop_and_wait

    stop_and_wait(timeout_s=STOP_WAIT_S)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # the client closed it
            stream.flush()
    os._exit(0)


# How long a closing session waits for phase 2 to reach a safe point.
STOP_WAIT_S = 1.0
