"""The other-language question sets' corpora: download each source package named in the
manifest (benchmarks/questions/languages/corpora.json), unpack it, and check that its corpus
root is the copy the rows were written against.

    python -m benchmarks.corpora fetch [--into var/corpora] [--only knex mobx]
    python -m benchmarks.corpora check [--into var/corpora]
    python -m benchmarks.corpora record [--only NAME ...]   # after adding a corpus by hand

npm packages come from `npm pack`, Debian packages from `apt-get download` and `dpkg-deb -x`,
PyPI source distributions from `pip download --no-binary :all:`, a git repository (`package`
is `owner/name` on GitHub, `version` the full commit) from a local mirror of it
(`<mirrors>/<owner>+<name>/repo`, a bare git directory: --mirrors or REPORIFT_GIT_MIRRORS) or
else a clone from GitHub; each is unpacked into `<into>/<ecosystem>/<package>-<version>/`.
Benchmark tooling only: nothing in the product downloads or needs these.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from search.evaluation.corpus_manifest import (
    CorpusEntry,
    corpora_dir,
    fingerprint,
    read_manifest,
)

MANIFEST = Path(__file__).resolve().parent / "questions" / "languages" / "corpora.json"


def _run(command: list[str], cwd: Path) -> None:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr.strip()[-2000:]}")


def _only_file(folder: Path, pattern: str) -> Path:
    found = sorted(folder.glob(pattern))
    if len(found) != 1:
        raise SystemExit(f"expected one {pattern} in {folder}, found {[f.name for f in found]}")
    return found[0]


def _untar(archive: Path, into: Path) -> None:
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")  # no paths out of `into`, no device files


def _git_dir(entry: CorpusEntry, mirrors: Path | None, work: Path) -> Path:
    """A git directory holding the entry's commit: the local mirror, else a fresh clone."""
    if mirrors is not None:
        mirror = mirrors / entry.package.replace("/", "+") / "repo"
        if mirror.is_dir():
            return mirror
    clone = work / "clone.git"
    _run(
        ["git", "clone", "--bare", "--quiet", f"https://github.com/{entry.package}", str(clone)],
        work,
    )
    return clone


def download_and_unpack(entry: CorpusEntry, target: Path, mirrors: Path | None = None) -> None:
    """The package of `entry`, unpacked into `target` (made fresh)."""
    with tempfile.TemporaryDirectory(prefix=f"corpus-{entry.name}-") as scratch:
        work = Path(scratch)
        unpacked = work / "unpacked"
        unpacked.mkdir()
        if entry.ecosystem == "npm":
            _run(["npm", "pack", f"{entry.package}@{entry.version}", "--silent"], work)
            _untar(_only_file(work, "*.tgz"), unpacked)
        elif entry.ecosystem == "debian":
            _run(["apt-get", "download", f"{entry.package}={entry.version}"], work)
            _run(["dpkg-deb", "-x", str(_only_file(work, "*.deb")), str(unpacked)], work)
        elif entry.ecosystem == "pypi-sdist":
            _run(
                [
                    sys.executable,
                    "-m",
                    "pip",
                    "download",
                    "--no-deps",
                    "--no-binary",
                    ":all:",
                    f"{entry.package}=={entry.version}",
                    "-d",
                    str(work / "dl"),
                ],
                work,
            )
            _untar(_only_file(work / "dl", "*.tar.gz"), unpacked)
        elif entry.ecosystem == "git":
            git_dir = _git_dir(entry, mirrors, work)
            archive = work / "tree.tar"
            _run(
                ["git", f"--git-dir={git_dir}", "archive", "-o", str(archive), entry.version], work
            )
            _untar(archive, unpacked)
        else:
            raise SystemExit(f"{entry.name}: unknown ecosystem {entry.ecosystem!r}")
        if target.exists():
            shutil.rmtree(target)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(unpacked), str(target))


def verify(entry: CorpusEntry, corpora: Path) -> str:
    """'ok', or what is wrong with the unpacked copy."""
    root = entry.directory(corpora)
    if not root.is_dir():
        return f"missing ({root})"
    if not entry.sha256:
        return "no fingerprint recorded in the manifest (run `record`)"
    found, files = fingerprint(root)
    if found != entry.sha256:
        return f"differs: fingerprint {found[:12]} over {files} files, manifest {entry.sha256[:12]}"
    return "ok"


def chosen(entries: dict[str, CorpusEntry], only: list[str] | None) -> list[CorpusEntry]:
    unknown = sorted(set(only or ()) - set(entries))
    if unknown:
        raise SystemExit(f"not in the manifest: {', '.join(unknown)}")
    return [e for name, e in entries.items() if not only or name in only]


def fetch(
    entries: list[CorpusEntry], corpora: Path, *, force: bool, mirrors: Path | None = None
) -> int:
    failed = 0
    for entry in entries:
        if not force and verify(entry, corpora) == "ok":
            print(f"{entry.name}: already there, ok")
            continue
        print(f"{entry.name}: {entry.ecosystem} {entry.package} {entry.version} ...", flush=True)
        download_and_unpack(entry, entry.unpacked(corpora), mirrors)
        status = verify(entry, corpora)
        print(f"{entry.name}: {status}")
        failed += status != "ok"
    return 1 if failed else 0


def record(manifest: Path, entries: list[CorpusEntry], corpora: Path) -> None:
    """Write the fingerprints of the unpacked copies into the manifest (for a new corpus)."""
    data = json.loads(manifest.read_text())
    for entry in entries:
        root = entry.directory(corpora)
        if not root.is_dir():
            raise SystemExit(f"{entry.name}: {root} is missing")
        digest, files = fingerprint(root)
        data[entry.name] |= {"sha256": digest, "files": files}
        print(f"{entry.name}: {files} files, {digest[:12]}")
    manifest.write_text(json.dumps(data, indent=1) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("fetch", "check", "record"))
    parser.add_argument("--manifest", type=Path, default=MANIFEST)
    parser.add_argument(
        "--into", help="the corpora folder (default: REPORIFT_CORPORA, else var/corpora)"
    )
    parser.add_argument(
        "--mirrors",
        type=Path,
        default=os.environ.get("REPORIFT_GIT_MIRRORS"),
        help="a folder of bare git mirrors, <owner>+<name>/repo (default: REPORIFT_GIT_MIRRORS)",
    )
    parser.add_argument("--only", nargs="+", help="these corpora only")
    parser.add_argument("--force", action="store_true", help="fetch again even when ok")
    args = parser.parse_args(argv)
    corpora = corpora_dir(args.into)
    entries = chosen(read_manifest(args.manifest), args.only)
    if args.command == "fetch":
        mirrors = Path(args.mirrors) if args.mirrors else None
        return fetch(entries, corpora, force=args.force, mirrors=mirrors)
    if args.command == "record":
        record(args.manifest, entries, corpora)
        return 0
    statuses = {entry.name: verify(entry, corpora) for entry in entries}
    for name, status in statuses.items():
        print(f"{name}: {status}")
    return 0 if all(s == "ok" for s in statuses.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
