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
        build_server(lambda ctx: acting).run(transport="stdio")

    def _serve_working_tree(self, path: str) -> None:
        from indexing.services import IndexingError
        from indexing.working_tree import open_working_tree
        from search.mcp_server import build_server

        try:  # indexed before the server starts: the first call then answers at once
            tree, _ = open_working_tree(path=path, phase2="background")
        except IndexingError as exc:
            raise CommandError(str(exc)) from exc
        build_server(lambda ctx: None, working_tree=tree).run(transport="stdio")
