"""The `reporift` command: the management commands under short names, and `serve`.

    reporift index SOURCE [--name NAME] [--ref REF]       = manage.py index_repo
    reporift search NAME "QUERY" [--k 10] [--mode fast|full] [--json] [--files PATH]
                    [--kind KIND] [--lang LANG] [--exclude-tests]
                                                      or: reporift search --path DIR "QUERY"
    reporift grep NAME PATTERN [-F] [-i] [--words W] [--limit 100] [--group file] [--json]
                  [--files PATH] [--lang LANG]      matching lines, each in its function
                                                      or: reporift grep --path DIR PATTERN
    reporift locate NAME --issue FILE [--k 10] [--json]    an issue's files to change (or stdin;
                                                      or: reporift locate --path DIR --issue FILE)
    reporift evaluate DATASET [--format ...] [--ablate] [--out report.json]
    reporift mcp [--user NAME]                             MCP over stdio for coding agents
    reporift token USERNAME [--name NAME]                  = manage.py create_api_token
    reporift sync [NAME ...] [--every 15m] [--schedule 15m|manual]   follow git remotes
    reporift label NAME (--queries FILE | --generate N) --out DIR   CoSQA+-style labels
    reporift phase2 NAME                                   the transformer's vectors still missing
    reporift serve [--bind 127.0.0.1:8000] [--workers 1] [--threads 8]

Each takes exactly the options of the management command it names (`reporift search --help`).
`reporift search` and `reporift grep` are answered by a warm server process that the first search
starts and that exits after 15 idle minutes (reporift.cli_server says why); REPORIFT_CLI_SERVER=0
turns it off.
"""

from __future__ import annotations

import argparse
import os
import sys

from reporift import cli_server
from reporift.commands import COMMANDS, django_setup, prepare, run_command


def serve(argv: list[str]) -> int:
    """Migrate, collect static files, then run gunicorn as `make run` does."""
    parser = argparse.ArgumentParser(prog="reporift serve")
    parser.add_argument("--bind", default="127.0.0.1:8000")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--threads", type=int, default=8)
    args = parser.parse_args(argv)
    django_setup()
    from django.core.management import call_command

    call_command("migrate", interactive=False, verbosity=0)
    call_command("collectstatic", interactive=False, verbosity=0)
    gunicorn = os.path.join(os.path.dirname(sys.executable), "gunicorn")
    command = [
        gunicorn,
        "reporift.wsgi:application",
        "--bind",
        args.bind,
        "--workers",
        str(args.workers),
        "--threads",
        str(args.threads),
        "--timeout",
        "600",
        # gunicorn's default (4094) answers a long GET query with its own HTML 414 before the
        # application can give its JSON error; raised to the most gunicorn allows.
        "--limit-request-line",
        "8190",
        "--access-logfile",
        "-",
    ]
    os.execv(gunicorn, command)
    return 0  # not reached


# How long `reporift index` waits for the warm search server it starts.
READY_WAIT_S = 60.0


def _served(name: str, rest: list[str]) -> bool:
    """Answered by the warm server: searches, and issues read from a file (the server does not
    see this process's standard input)."""
    if name in ("search", "grep"):
        return True
    return name == "locate" and "--issue" in rest and rest[rest.index("--issue") + 1 :][:1] != ["-"]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(__doc__.strip())
        return 0
    name, rest = argv[0], argv[1:]
    if name == "serve":
        return serve(rest)
    if name not in COMMANDS:
        print(f"reporift: unknown command {name!r}; see `reporift --help`", file=sys.stderr)
        return 2
    if _served(name, rest) and cli_server.enabled():
        code = cli_server.ask(argv)
        if code is not None:
            return code
    # Named by the environment as the user's next `reporift search` sees it, before Django's
    # setup adds its own variables.
    server = cli_server.socket_path()
    prepare()
    run_command(argv)
    if name == "index" and cli_server.enabled() and "--help" not in rest:
        # The next search, an agent's first question, finds a server warm with this index: it
        # is started and waited for here, where indexing took seconds anyway.
        started = cli_server.start(server) is not None
        if started and cli_server.wait_ready(server, timeout_s=READY_WAIT_S):
            print("search server ready: `reporift search` answers at once", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
