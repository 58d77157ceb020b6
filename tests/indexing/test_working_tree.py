"""A working tree searched with no setup (`search --path`, `mcp --path`): indexed on first use,
its edits seen by the next call."""

from __future__ import annotations

import asyncio
import io
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.core.management import call_command
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from indexing.models import IndexRun, Repository
from indexing.working_tree import fingerprint, refresh, working_tree_repository
from tests.conftest import SAMPLE_FILES
from tests.support.workers import manage_env

ROOT = Path(__file__).resolve().parents[2]
INVOICE = '''

def compute_invoice_tax(invoice, rate):
    """Sales tax owed on an invoice's total."""
    return round(invoice.total * rate, 2)
'''

REFUND = """

def refund_invoice(invoice):
    return invoice.total - invoice.refunded
"""


@pytest.fixture(autouse=True)
def spawned(monkeypatch) -> list[list[str]]:
    """The detached processes `search --path` starts, recorded instead of started."""
    calls: list[list[str]] = []
    monkeypatch.setattr("indexing.working_tree._spawn", calls.append)
    return calls


def cli_search(*args: str) -> str:
    out = io.StringIO()
    call_command("search", *args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


@pytest.mark.django_db
def test_search_path_sees_an_edit(write_repo):
    root = write_repo(SAMPLE_FILES)
    first = cli_search("--path", str(root), "retry a failed http call")
    assert first.splitlines()[0].split()[1] == "retry_http_call"
    tree = Repository.objects.get()
    assert not tree.is_public and tree.source == str(root.resolve())
    before = tree.active_run_id

    assert refresh(tree) is None  # nothing changed: no run
    with open(root / "shop" / "payments.py", "a") as out:
        out.write(INVOICE)
    second = cli_search("--path", str(root), "tax owed on an invoice")
    assert second.splitlines()[0].split()[1] == "compute_invoice_tax"
    tree.refresh_from_db()
    assert tree.active_run_id != before
    assert tree.active_run.files_reused == 2  # only the edited file was parsed again

    (root / "shop" / "payments.py").unlink()
    third = cli_search("--path", str(root), "tax owed on an invoice")
    assert "payments.py" not in third


@pytest.mark.django_db
def test_search_path_answers_and_exits_and_the_next_call_continues_phase2(write_repo, spawned):
    root = write_repo(SAMPLE_FILES)
    first = cli_search("--path", str(root), "retry a failed http call")
    assert first.splitlines()[0].split()[1] == "retry_http_call"
    tree = Repository.objects.get()
    run = tree.active_run
    # Answered and returned: phase 2 is not done, and is a detached process's to do.
    assert run.phase2_status == IndexRun.Phase2.PENDING
    assert spawned == [["phase2", tree.name]]

    # That process never got to it (killed, say): the next call starts it again.
    cli_search("--path", str(root), "retry a failed http call")
    assert spawned == [["phase2", tree.name]] * 2
    run.refresh_from_db()
    assert run.phase2_status == IndexRun.Phase2.PENDING

    # What the detached process runs; after it, a call answers with phase 2, starting nothing.
    call_command("phase2", tree.name, stdout=io.StringIO())
    run.refresh_from_db()
    assert run.phase2_status == IndexRun.Phase2.DONE
    err = io.StringIO()
    call_command(
        "search", "--path", str(root), "retry a failed http call", stderr=err, stdout=io.StringIO()
    )
    assert "phase 2," in err.getvalue() and len(spawned) == 2


def test_fingerprint_changes_with_edits_not_reads(write_repo):
    root = write_repo(SAMPLE_FILES)
    seen = fingerprint(root)
    (root / "shop" / "text.py").read_text()
    assert fingerprint(root) == seen
    (root / "shop" / "new.py").write_text("x = 1\n")
    assert fingerprint(root) != seen


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_mcp_path_serves_the_tree_and_its_edits(write_repo):
    root = write_repo(SAMPLE_FILES)
    other = write_repo(SAMPLE_FILES)
    working_tree_repository(path=other)  # another tree: not reachable from this server
    env = manage_env()
    params = StdioServerParameters(
        command=sys.executable, args=["manage.py", "mcp", "--path", str(root)], env=env, cwd=ROOT
    )

    async def session_calls() -> tuple:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            listed = await session.call_tool("list_repositories", {})
            first = await session.call_tool("search_code", {"query": "retry a failed http call"})
            with open(root / "shop" / "payments.py", "a") as out:
                out.write(INVOICE)
            second = await session.call_tool("search_code", {"query": "tax owed on an invoice"})
            with open(root / "shop" / "payments.py", "a") as out:
                out.write(REFUND)
            # Read back without a search between: the tree is brought up to date all the same.
            read = await session.call_tool(
                "get_code",
                {
                    "repository": second.structuredContent["results"][0]["repository"],
                    "path": "shop/payments.py",
                    "qualname": "refund_invoice",
                },
            )
            return listed, first, second, read

    listed, first, second, read = asyncio.run(session_calls())
    repositories = listed.structuredContent["repositories"]
    assert [r["name"] for r in repositories] == [working_tree_repository(path=root).name]
    assert first.structuredContent["results"][0]["qualname"] == "retry_http_call"
    assert second.structuredContent["results"][0]["qualname"] == "compute_invoice_tax"
    assert "return invoice.total - invoice.refunded" in read.structuredContent["code"]


def _open_session(root, env) -> subprocess.Popen:
    """`mcp --path` speaking MCP over pipes, initialised as a client would."""
    server = subprocess.Popen(
        [sys.executable, "manage.py", "mcp", "--path", str(root)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=ROOT,
    )
    client = {"name": "t", "version": "1"}
    hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": client}
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ]
    for message in messages:
        server.stdin.write((json.dumps(message) + "\n").encode())
        server.stdin.flush()
    assert json.loads(server.stdout.readline())["id"] == 1
    return server


def _phase2_of(root) -> IndexRun:
    return working_tree_repository(path=root).active_run


def _until(condition, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.2)


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_a_session_closed_during_phase_2_exits_cleanly_and_the_next_finishes_it(write_repo):
    # Enough units that phase 2 is still under way when the agent closes its session.
    functions = "".join(
        f"def handler_{n}(request):\n    return request.reply({n}, 'handled by {n}')\n\n\n"
        for n in range(400)
    )
    root = write_repo({"app/handlers.py": functions})
    env = manage_env() | {"REPORIFT_EMBED_BATCH_UNITS": "16"}
    first = _open_session(root, env)
    _until(lambda: (_phase2_of(root).phase2_units_embedded or 0) > 0, 120)
    first.stdin.close()  # the client leaves, as an agent closing its session does
    assert first.wait(timeout=5) == 0
    assert b"terminate called" not in first.stderr.read()
    run = _phase2_of(root)
    # Its claim is handed back at once, not after the lease runs out.
    assert run.phase2_status == IndexRun.Phase2.PENDING
    assert 0 < run.phase2_units_embedded < run.phase2_units_total
    second = _open_session(root, env)
    _until(lambda: _phase2_of(root).phase2_status == IndexRun.Phase2.DONE, 180)
    second.send_signal(signal.SIGTERM)  # the way a client that waited no more ends it
    assert second.wait(timeout=5) == 0
