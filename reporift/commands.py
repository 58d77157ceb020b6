"""The management commands `reporift` runs under short names, and what each needs first: the
CLI (reporift.cli) runs them in its own process, its warm search server (reporift.cli_server) in
one that stays up."""

from __future__ import annotations

import os

# Django's own options (settings module, traceback, colours...) work but stay out of the help:
# a user of a `reporift` command meets only the options that change the answer.
DJANGO_OPTIONS = {
    "--version",
    "--verbosity",
    "--settings",
    "--pythonpath",
    "--traceback",
    "--no-color",
    "--force-color",
    "--skip-checks",
}

COMMANDS = {
    "index": "index_repo",
    "search": "search",
    "grep": "grep",
    "locate": "locate",
    "evaluate": "evaluate",
    "mcp": "mcp",
    "token": "create_api_token",
    "sync": "sync",
    "label": "label",
    "phase2": "phase2",
}


def django_setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "reporift.settings")
    import django

    django.setup()


def _migrated() -> None:
    """A data dir used for the first time (`REPORIFT_DATA_DIR` pointed somewhere new) gets its
    tables before the command runs, rather than a "no such table" traceback."""
    from django.core.management import call_command
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connection)
    if executor.migration_plan(executor.loader.graph.leaf_nodes()):
        call_command("migrate", interactive=False, verbosity=0)


def prepare() -> None:
    """Django set up on a migrated data dir: what every command needs first."""
    django_setup()
    _migrated()


def run_command(argv: list[str]) -> None:
    """`reporift NAME ARGS...` in this process; a failure exits as Django's commands do."""
    from django.core.management import get_commands, load_command_class

    name, rest = argv[0], argv[1:]
    command = load_command_class(get_commands()[COMMANDS[name]], COMMANDS[name])
    # Named as the user typed it, so that usage lines read `reporift search ...`.
    command.run_from_argv(["reporift", name, *rest])
