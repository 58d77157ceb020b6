import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "reporift.settings")
django_application = get_wsgi_application()

from search.mcp_http import MCPMount  # noqa: E402  (needs Django set up)
from search.warmup import warm_up  # noqa: E402

# /mcp is the MCP server for coding agents (streamable HTTP); everything else is Django.
application = MCPMount(django_application)
# Before the worker takes its first request (gunicorn loads the application first): its first
# searches are then as fast as its later ones.
warm_up()
