"""Keeping git repositories fresh: one sync, whatever triggers it (a push webhook, the schedule,
`reporift sync`, a person).

A sync asks the remote for the indexed ref's head (`git ls-remote`, with the same URL checks as
indexing and HTTP redirects off), compares it with the commit of the active generation, and
starts an index run only when it moved. The run is incremental (unchanged files are carried
over) and the previous generation serves until it is published. Triggers that arrive together
coalesce: at most one run per repository is queued or running, and a run still queued fetches
the newest head when it starts. A failed check is recorded on the repository and retried later
and later (doubling, up to a day), so a dead remote costs little.
"""

from __future__ import annotations

import logging
import os
import secrets
import subprocess
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from indexing.git_urls import GitURLRefused, check_user_git_url
from indexing.models import IndexRun, Repository
from indexing.services import index_run_start
from reporift.dispatch import send_task

logger = logging.getLogger(__name__)

MAX_BACKOFF = timedelta(hours=24)
_FULL_SHA = 40


class SyncError(Exception):
    """The remote could not be asked; the message is meant for people."""


@dataclass(frozen=True)
class SyncOutcome:
    repository: str
    state: str  # "started", "queued already", "up to date", "pinned", "failed", "not git"
    remote_head: str = ""
    run_id: int | None = None
    detail: str = ""


def _is_commit(ref: str) -> bool:
    return len(ref) >= 7 and all(c in "0123456789abcdef" for c in ref.lower())


def remote_head(repository: Repository) -> str:
    """The commit the remote's indexed ref (its default branch when none is set) points at."""
    url, ref = repository.source, repository.ref
    if url.startswith("-") or ref.startswith("-"):
        raise SyncError("git URL and ref may not start with '-'")
    command = ["git", "-c", "core.symlinks=false"]
    if repository.owner_id is not None:  # user-submitted: checked now, as on every fetch
        try:
            check_user_git_url(url)
        except GitURLRefused as exc:
            raise SyncError(str(exc)) from exc
        command += ["-c", "http.followRedirects=false"]
    patterns = [f"refs/heads/{ref}", f"refs/tags/{ref}", f"refs/tags/{ref}^{{}}"] if ref else []
    command += ["ls-remote", "--", url, *(patterns or ["HEAD"])]
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "echo"}
    try:
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=settings.REPORIFT["GIT_TIMEOUT_S"],
            env=env,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise SyncError("git ls-remote timed out") from exc
    if done.returncode != 0:
        message = " ".join(done.stderr.strip().splitlines()[-2:]) or "no answer"
        raise SyncError(f"git ls-remote failed: {message}")
    heads = dict(reversed(line.split("\t", 1)) for line in done.stdout.splitlines() if "\t" in line)
    # An annotated tag's own object is not a commit; `^{}` names the commit it tags.
    for name in (f"refs/tags/{ref}^{{}}", f"refs/heads/{ref}", f"refs/tags/{ref}", "HEAD"):
        if name in heads and len(heads[name]) == _FULL_SHA:
            return heads[name]
    raise SyncError(f"the remote has no ref {ref or 'HEAD'!r}")


def repository_sync(*, repository: Repository, trigger: str, enqueue: bool = True) -> SyncOutcome:
    """One sync of `repository` (see the module docstring). Never raises for the remote's
    failures: they are recorded on the repository and in the outcome. With `enqueue=False` a
    run it starts is left for the caller to execute (the CLI does, to show progress)."""
    repository.refresh_from_db()
    name = repository.name
    if repository.source_kind != Repository.SourceKind.GIT:
        return SyncOutcome(name, "not git", detail="only git repositories follow a remote")
    if _is_commit(repository.ref):
        _checked(repository, error="")
        return SyncOutcome(name, "pinned", detail=f"pinned to commit {repository.ref}")
    unfinished = repository.runs.filter(
        status__in=[IndexRun.Status.QUEUED, IndexRun.Status.RUNNING]
    ).first()
    if unfinished is not None and unfinished.status == IndexRun.Status.QUEUED:
        # It has not fetched yet: it will index the newest head.
        return SyncOutcome(name, "queued already", run_id=unfinished.pk)
    try:
        head = remote_head(repository)
    except SyncError as exc:
        _checked(repository, error=str(exc))
        logger.warning("sync of %s (%s) failed: %s", name, trigger, exc)
        return SyncOutcome(name, "failed", detail=str(exc))
    _checked(repository, error="")
    active = repository.active_run
    if active is not None and active.commit_sha == head:
        return SyncOutcome(name, "up to date", remote_head=head)
    if unfinished is not None and unfinished.commit_sha and unfinished.commit_sha != head:
        # The running run fetched an older head: look again as soon as a pass comes by (the
        # beat's minute, or cron's `reporift sync`), when that run has finished.
        Repository.objects.filter(pk=repository.pk).update(next_check_at=timezone.now())
    run = index_run_start(repository=repository, enqueue=enqueue)
    logger.info("sync of %s (%s): remote at %s, run %s", name, trigger, head[:10], run.pk)
    state = "started" if run.status == IndexRun.Status.QUEUED else "queued already"
    return SyncOutcome(name, state, remote_head=head, run_id=run.pk)


def _checked(repository: Repository, *, error: str) -> None:
    now = timezone.now()
    failures = repository.sync_failures + 1 if error else 0
    if error:
        every = timedelta(minutes=repository.sync_every_minutes or 5)
        wait = min(every * 2 ** min(failures - 1, 16), MAX_BACKOFF)
    elif repository.sync_every_minutes:
        wait = timedelta(minutes=repository.sync_every_minutes)
    else:
        wait = None
    Repository.objects.filter(pk=repository.pk).update(
        last_checked_at=now,
        last_check_error=error[:2000],
        sync_failures=failures,
        next_check_at=now + wait if wait else None,
    )


def due_repositories(*, now=None):
    """Git repositories whose schedule says: check now, or that asked to be checked again (a
    failed check's back-off, a push that came while a run was busy with an older head)."""
    now = now or timezone.now()
    scheduled = Q(sync_every_minutes__isnull=False, next_check_at__isnull=True)
    return Repository.objects.filter(source_kind=Repository.SourceKind.GIT).filter(
        scheduled | Q(next_check_at__lte=now)
    )


def sync_due(*, trigger: str = "schedule", enqueue: bool = True) -> list[SyncOutcome]:
    """One pass over the due repositories (cron, `reporift sync`, Celery beat)."""
    return [
        repository_sync(repository=r, trigger=trigger, enqueue=enqueue) for r in due_repositories()
    ]


def sync_request(*, repository: Repository, trigger: str) -> None:
    """Ask for a sync without waiting for the remote: on a Celery worker when there is one,
    beside the request otherwise (as index runs are)."""
    from django.db import transaction

    transaction.on_commit(lambda: _enqueue_sync(repository.pk, trigger))


def _enqueue_sync(repository_id: int, trigger: str) -> None:
    send_task("indexing.tasks.sync_repository_task", repository_id, trigger)


def webhook_secret_rotate(*, repository: Repository) -> str:
    """A new secret for the repository's push webhooks; the caller shows it once."""
    secret = secrets.token_urlsafe(32)
    Repository.objects.filter(pk=repository.pk).update(webhook_secret=secret)
    repository.webhook_secret = secret
    return secret
