"""`reporift mcp --path` on a working tree of about 300 files, used as a coding agent's MCP client
uses it (issue 33: "first answer within 5 s; an edited function found by the next call").

Each repeat starts from nothing but prepared models:

1. The tree: the first `--files` Python files of an installed package (`--package`), sorted by
   path, copied into a temporary folder (`benchmarks.tree_edits.build_tree`).
2. A fresh data dir (REPORIFT_DATA_DIR, `time_to_answer.fresh_data_dir`): its `models/` is the
   prepared `--models` folder (the ONNX graphs and the distilled static table, as the first
   server start or `make bench-first-answer` builds them); there is no database, no index, no
   secret key and no vector store: `--path` migrates and indexes by itself.
3. t0; the venv's `reporift mcp --path TREE` is started over stdio by the `mcp` SDK's client, as
   Claude Code or Cursor start it; `initialize` (the command indexes the tree before it serves);
   `search_code` with QUERY (`first_answer_s`: t0 to its results), and again (`warm_ms`).
4. Two rounds of edits, each followed by searches: "early" right after the first answer (phase 2
   still embedding in the server's background), "late" once `list_repositories` says the
   transformer answers (`full_s` from t0). In each: a new function appended to an existing file,
   then a search for its name (`added_call_ms`, the call that re-indexes; `added_rank`) and for
   what it does (`added_behaviour_rank`); an existing function's body rewritten, then a search for
   its new behaviour (`changed_call_ms`, `changed_rank`) and `get_code` of it (`changed_seen`:
   the new body is what the index serves); a file deleted, after a search that finds one of its
   functions by name (`deleted_rank_before`), then the same search (`deleted_call_ms`;
   `deleted_gone`: none of its units is returned and `get_code` no longer knows the file).
5. The one-shot CLI on a fresh copy and data dir: `reporift search --path TREE QUERY
   --no-phase2` twice (`cli_cold_*`: the first call indexes; `cli_warm_*`: the second reuses the
   index), timed to its first result line and to its exit. Without `--no-phase2` the answer
   comes as soon; the process then embeds phase 2 before it exits (minutes on one core).

    taskset -c 0 python -m benchmarks.working_tree --models var/models \
        --out docs/eval/working-tree.json [--package crewai --files 300 --repeats 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchmarks.time_to_answer import QUERY, fresh_data_dir, product_env
from benchmarks.tree_edits import (
    ROUNDS,
    Target,
    append_function,
    build_tree,
    pick_functions,
    rank_of,
    replace_body,
)
from benchmarks.working_tree_report import STEPS, TARGET_FIRST_ANSWER_S, section, summary

ROOT = Path(__file__).resolve().parents[1]
REPORIFT = ROOT / ".venv" / "bin" / "reporift"
PACKAGE, FILES = "crewai", 300


class Client:
    """One MCP session's tool calls, timed; a tool error is raised unless `error_ok`."""

    def __init__(self, session) -> None:
        self.session = session

    async def call(self, tool: str, arguments: dict, *, error_ok: bool = False):
        started = time.perf_counter()
        result = await self.session.call_tool(tool, arguments)
        ms = round((time.perf_counter() - started) * 1000, 1)
        if result.isError and not error_ok:
            raise RuntimeError(f"{tool}({arguments}): {result.content[0].text}")
        return (None if result.isError else result.structuredContent), ms

    async def search(self, query: str) -> tuple[list[dict], float]:
        found, ms = await self.call("search_code", {"query": query, "k": 10})
        return found["results"], ms


async def edit_round(
    client: Client, *, tree: Path, repository: str, spec: dict, targets: list[Target]
) -> dict[str, Any]:
    """Add, rewrite, delete (`targets`: the function to rewrite, the file to add to, the file
    to delete and its function that is searched for), each followed by the next calls."""
    changed, host, doomed = targets
    row: dict[str, Any] = {"changed": f"{changed.path}:{changed.name}", "deleted": doomed.path}
    name = spec["added"].split("def ", 1)[1].split("(", 1)[0]
    append_function(path=tree / host.path, source=spec["added"])
    found, row["added_call_ms"] = await client.search(name)
    row["added_rank"] = rank_of(found, path=host.path, qualname=name)
    found, row["added_behaviour_ms"] = await client.search(spec["added_query"])
    row["added_behaviour_rank"] = rank_of(found, path=host.path, qualname=name)

    replace_body(path=tree / changed.path, name=changed.name, body=spec["changed"])
    found, row["changed_call_ms"] = await client.search(spec["changed_query"])
    row["changed_rank"] = rank_of(found, path=changed.path, qualname=changed.name)
    unit, _ = await client.call(
        "get_code", {"repository": repository, "path": changed.path, "qualname": changed.name}
    )
    row["changed_seen"] = spec["changed_marker"] in unit["code"]

    # The deletion's check must be able to fail: the file's function is found before.
    found, _ = await client.search(doomed.name)
    row["deleted_rank_before"] = rank_of(found, path=doomed.path, qualname=doomed.name)
    (tree / doomed.path).unlink()
    found, row["deleted_call_ms"] = await client.search(doomed.name)
    stale, _ = await client.call(
        "get_code", {"repository": repository, "path": doomed.path}, error_ok=True
    )
    row["deleted_gone"] = stale is None and all(r["path"] != doomed.path for r in found)
    return row


async def until_phase2(client: Client, *, t0: float, timeout_s: float) -> float | None:
    """Seconds from t0 until the transformer answers (phase 2 done), or None at the timeout."""
    while time.perf_counter() - t0 < timeout_s:
        listed, _ = await client.call("list_repositories", {})
        if listed["repositories"][0]["index_phase"] == 2:
            return round(time.perf_counter() - t0, 2)
        await asyncio.sleep(1.0)
    return None


def cpu_s(pid: int) -> float:
    """A process's CPU seconds so far, user and system: on a machine shared with other jobs, about
    what its wall time would be on a core of its own (its work is mostly one thread)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return round((int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"), 2)


def server_pid() -> int:
    """The MCP server: the SDK's client starts it as a child of this process."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[1]) == os.getpid() and b"mcp" in (stat.parent / "cmdline").read_bytes():
                return int(stat.parent.name)
        except (OSError, ValueError):  # a process that ended meanwhile
            continue
    raise RuntimeError("the MCP server process was not found")


async def mcp_session(*, tree: Path, env: dict, log: Path, timeout_s: float) -> dict[str, Any]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    targets = pick_functions(tree=tree, count=6)
    params = StdioServerParameters(
        command=str(REPORIFT), args=["mcp", "--path", str(tree)], env=env, cwd=str(tree)
    )
    row: dict[str, Any] = {}
    with log.open("w") as errlog:
        t0 = time.perf_counter()
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            row["initialized_s"] = round(time.perf_counter() - t0, 2)
            pid = server_pid()
            row["initialized_cpu_s"] = cpu_s(pid)
            client = Client(session)
            found, _ = await client.search(QUERY)
            row["first_answer_s"] = round(time.perf_counter() - t0, 2)
            # Phase 2's thread, started before serving, is counted too.
            row["first_answer_cpu_s"] = cpu_s(pid)
            if not found:
                raise RuntimeError(f"no result for {QUERY!r}")
            row["first_top"] = f"{found[0]['path']}:{found[0]['qualname']}"
            _, row["warm_ms"] = await client.search(QUERY)
            listed, _ = await client.call("list_repositories", {})
            repository = listed["repositories"][0]
            row |= {"units": repository["units"], "first_phase": repository["index_phase"]}
            for i, (name, spec) in enumerate(ROUNDS.items()):
                if name == "late":
                    row["full_s"] = await until_phase2(client, t0=t0, timeout_s=timeout_s)
                edits = targets[3 * i : 3 * i + 3]
                row[name] = await edit_round(
                    client, tree=tree, repository=repository["name"], spec=spec, targets=edits
                )
                listed, _ = await client.call("list_repositories", {})
                row[name]["phase_after"] = listed["repositories"][0]["index_phase"]
    return row


def cli_call(*, tree: Path, env: dict, timeout_s: float) -> dict[str, Any]:
    """`reporift search --path TREE QUERY`: seconds to its first result line and to its exit."""
    command = [str(REPORIFT), "search", "--path", str(tree), QUERY, "--no-phase2"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True
    ) as process:
        first = process.stdout.readline()
        answer_s = time.perf_counter() - started
        _, errors = process.communicate(timeout=timeout_s)
        exit_s = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if process.returncode or not first.strip():
        raise RuntimeError(f"{shlex.join(command)}: exit {process.returncode}: {errors[-2000:]}")
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return {
        "answer_s": round(answer_s, 2),
        "exit_s": round(exit_s, 2),
        "cpu_s": round(cpu, 2),
        "top": first.split()[1],
    }


def profile_cli(*, tree: Path, models: str, timeout_s: float) -> dict[str, Any]:
    """A cold `search --path` under cProfile (the same steps as `mcp --path` before its first
    answer, in the main thread where cProfile sees them): the cumulative seconds of STEPS and
    of the whole command, with the profiler's overhead in every figure."""
    import pstats

    data = fresh_data_dir(models=models, prefix="reporift-wt-data-")
    try:
        out = data / "cli.prof"
        # -P: the current folder stays off the path, as for the console script itself.
        command = [str(REPORIFT.parent / "python"), "-P", "-m", "cProfile", "-o", str(out)]
        command += [str(REPORIFT), "search", "--path", str(tree), QUERY, "--no-phase2"]
        started = time.perf_counter()
        subprocess.run(
            command,
            env=product_env(data=data),
            cwd=tree,
            check=True,
            capture_output=True,
            timeout=timeout_s,
        )
        wall = time.perf_counter() - started
        stats = pstats.Stats(str(out)).stats
    finally:
        shutil.rmtree(data, ignore_errors=True)
    steps = {}
    for label, (suffix, name, _) in STEPS.items():
        times = [v[3] for (f, _, n), v in stats.items() if f.endswith(suffix) and n == name]
        steps[label] = round(max(times, default=0.0), 2)
    return {"wall_s": round(wall, 2), "steps_s": steps}


def repeat(source: Path, args: argparse.Namespace) -> dict[str, Any]:
    scratch = Path(tempfile.mkdtemp(prefix="reporift-wt-"))
    try:
        tree = scratch / source.name
        row: dict[str, Any] = build_tree(source=source, dest=tree, files=args.files)
        row["loadavg_1min_before"] = round(os.getloadavg()[0], 2)
        data = fresh_data_dir(models=args.models, prefix="reporift-wt-data-")
        try:
            log = scratch / "server.log"
            session = mcp_session(tree=tree, env=product_env(data=data), log=log, timeout_s=900)
            row |= asyncio.run(session)
        except Exception:
            print((scratch / "server.log").read_text()[-3000:], file=sys.stderr)
            raise
        finally:
            shutil.rmtree(data, ignore_errors=True)
        fresh = scratch / "cli" / source.name
        build_tree(source=source, dest=fresh, files=args.files)
        data = fresh_data_dir(models=args.models, prefix="reporift-wt-data-")
        try:
            env = product_env(data=data)
            for name in ("cli_cold", "cli_warm"):
                for key, value in cli_call(tree=fresh, env=env, timeout_s=900).items():
                    row[f"{name}_{key}"] = value
        finally:
            shutil.rmtree(data, ignore_errors=True)
        return row
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", required=True, help="the prepared models folder")
    parser.add_argument("--out", type=Path, required=True, help="the JSON report to write")
    parser.add_argument("--package", default=PACKAGE, help="the installed package to copy")
    parser.add_argument("--files", type=int, default=FILES)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-section", action="store_true", help="leave BENCHMARKS.md alone")
    args = parser.parse_args(argv)
    if not REPORIFT.is_file():
        parser.error(f"{REPORIFT} is missing: run `make setup`")
    from benchmarks.common import machine_line, package_dir, write_section
    from search.evaluation.questions import installed_version

    source = package_dir(args.package)
    rows = []
    for _ in range(args.repeats):
        rows.append(repeat(source, args))
        print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    with tempfile.TemporaryDirectory(prefix="reporift-wt-") as scratch:
        tree = Path(scratch) / source.name
        build_tree(source=source, dest=tree, files=args.files)
        profile = profile_cli(tree=tree, models=args.models, timeout_s=900)
    report = {
        "package": args.package,
        "version": installed_version(args.package),
        "source": str(source),
        "query": QUERY,
        "target_first_answer_s": TARGET_FIRST_ANSWER_S,
        "summary": summary(rows),
        "profile": profile,
        "repeats": rows,
        "machine": machine_line(),
        "cpu_affinity": sorted(os.sched_getaffinity(0)),
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": shlex.join(["python", "-m", "benchmarks.working_tree", *argv]),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n")
    if not args.no_section:
        write_section("working-tree", section(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
