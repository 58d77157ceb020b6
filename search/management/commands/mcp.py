from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError


class Command(BaseCommand):
    help = (
        "Serve RepoRift's MCP tools over stdio for a coding agent (Claude Code, Cursor, VS Code), "
        "acting as one user: what they may see is what the agent may search."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--user",
            default=settings.REPORIFT["MCP_USER"],
            help="the user the agent acts as (default: REPORIFT_MCP_USER); without one, only "
            "public repositories are visible",
        )

    def handle(self, *args, user, **options):
        from search.mcp_server import build_server

        acting = None
        if user:
            acting = get_user_model().objects.filter(username=user, is_active=True).first()
            if acting is None:
                raise CommandError(f"no active user named {user!r}")
        # stdout belongs to the protocol: nothing else may be written there.
        build_server(lambda ctx: acting).run(transport="stdio")
