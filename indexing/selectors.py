"""Indexing queries."""

from __future__ import annotations

import copy
from collections.abc import Sequence

from django.db import connections, router
from django.db.models import Exists, OuterRef, Q, QuerySet, Subquery

from indexing.models import CodeUnit, FileVersion, IndexRun, Repository


def repository_list() -> QuerySet[Repository]:
    return Repository.objects.select_related("active_run").order_by("name")


def active_units(*, repository: Repository) -> QuerySet[CodeUnit]:
    """The units of the generation that searches read (none before the first successful run).

    The active generation is read inside the same query rather than from `repository`, so a
    caller holding an old instance still sees the generation that is active now."""
    current = Repository.objects.filter(pk=repository.pk).values("active_run")[:1]
    return CodeUnit.objects.filter(repository=repository, file_version__runs=Subquery(current))


_GENERATION_FIELDS = (
    "id",
    "created_at",
    "embedder_model",
    "phase2_model",
    "phase2_status",
    "phase2_error",
    "phase2_units_total",
    "phase2_units_embedded",
)


# What a search reads of its generation beyond these never changes once the run exists: each
# run is converted once (its creation time parsed) and kept by its id and its creation time as
# the database returned them, so that a database reset that hands out the same id again (a
# test's) meets another key.
_RUNS_KEPT = 1024
_runs: dict[tuple[int, object], IndexRun] = {}
_CHANGING = _GENERATION_FIELDS[2:]  # all but the id and the creation time


def _generation_sql(where: str) -> str:
    run, repo = IndexRun._meta, Repository._meta
    columns = ", ".join(f"r.{run.get_field(f).column}" for f in _GENERATION_FIELDS)
    active = repo.get_field("active_run").column
    # Table and column names come from the models; the values are parameters.
    return (
        f"SELECT {columns}, p.{repo.pk.column} AS searched_repository_id "
        f"FROM {run.db_table} r JOIN {repo.db_table} p "
        f"ON p.{active} = r.{run.pk.column} WHERE p.{repo.pk.column} {where}"
    )


def active_generation(*, repository: Repository) -> IndexRun | None:
    """The run whose generation searches read now (only its id and creation time, which name
    its cached indexes, and the model its vectors belong to), in one query; None before the
    first successful run.

    Written as SQL on a plain cursor: every search asks this first, and the ORM took about 2 ms
    to build the same query (a subquery, a column list, a limit), a raw queryset 0.3 ms more to
    make its row a model, against 0.05 ms for the query itself. A run already seen is copied
    with its changing fields (phase 2's progress) set from the row; its text and numbers need
    no conversion."""
    return active_generations(repositories=[repository]).get(repository.pk)


def active_generations(*, repositories: Sequence[Repository]) -> dict[int, IndexRun]:
    """`active_generation` of each repository (by its primary key; none for a repository with
    no finished run), in one query: a search across sixty repositories asked sixty before."""
    if not repositories:
        return {}
    ids = [r.pk for r in repositories]
    sql = _generation_sql(f"IN ({', '.join(['%s'] * len(ids))})")
    database = router.db_for_read(IndexRun)
    with connections[database].cursor() as cursor:
        cursor.execute(sql, ids)
        rows = cursor.fetchall()
    found = {}
    for row in rows:
        run = _kept_run(row, database)
        if run is not None:
            found[row[-1]] = run
    return found


def _kept_run(row: tuple, database: str) -> IndexRun | None:
    key = (row[0], row[1])
    kept = _runs.get(key)
    if kept is None:
        sql = _generation_sql("= %s")
        rows = list(IndexRun.objects.using(database).raw(sql, [row[-1]]))
        if not rows:  # the repository lost its run between the two reads
            return None
        kept = rows[0]
        if kept.pk != row[0]:  # switched between the two reads: the newer run, not kept
            return kept
        if len(_runs) >= _RUNS_KEPT:
            _runs.clear()
        _runs[key] = kept
        return copy.copy(kept)
    found = copy.copy(kept)
    values = dict(zip(_GENERATION_FIELDS, row, strict=False))
    for name in _CHANGING:
        setattr(found, name, values[name])
    return found


def active_file(*, repository: Repository, path: str) -> FileVersion | None:
    """The version of `path` in the active generation: only paths the index holds exist."""
    current = Repository.objects.filter(pk=repository.pk).values("active_run")[:1]
    return FileVersion.objects.filter(
        repository=repository, path=path, runs=Subquery(current)
    ).first()


def indexed_with_another_embedder(*, repository: Repository, model_id: str) -> str:
    """The embedder that made the active generation's vectors when it is not `model_id` (the
    one serving queries now), else "". Such a repository's vector streams find nothing (its
    vectors live under the other model, and never meet this model's query vectors) until its
    next run embeds it again."""
    run = repository.active_run
    if run is None or not model_id or not run.embedder_model or run.embedder_model == model_id:
        return ""
    return run.embedder_model


def latest_run(*, repository: Repository) -> IndexRun | None:
    return repository.runs.order_by("-created_at", "-id").first()


def units_by_vector_id(*, repository: Repository, vector_ids: list[str]) -> dict[str, CodeUnit]:
    """Resolve store hits to units of the active generation. Ids of other generations (a run
    still building, or leftovers of a crashed one) are dropped here, which is what keeps a
    half-built generation invisible."""
    pks = [int(v) for v in vector_ids if v.isdigit()]
    units = active_units(repository=repository).filter(pk__in=pks)
    return {unit.vector_id: unit for unit in units}


def _failed_first_index() -> Q:
    """A repository whose every run failed: nothing to search, and its reason is for the one
    who can fix it. Its owner and staff still see it, marked failed, with a re-index button."""
    runs = IndexRun.objects.filter(repository=OuterRef("pk"))
    return (
        Q(active_run__isnull=True)
        & Exists(runs.filter(status=IndexRun.Status.FAILED))
        & ~Exists(runs.exclude(status=IndexRun.Status.FAILED))
    )


def repositories_visible_to(user) -> QuerySet[Repository]:
    """Public repositories, the user's own, and everything for staff; a public one whose first
    index failed only to its owner and staff."""
    queryset = repository_list()
    if user is not None and user.is_authenticated and user.is_staff:
        return queryset
    public = Q(is_public=True) & ~_failed_first_index()
    if user is not None and user.is_authenticated:
        return queryset.filter(public | Q(owner=user))
    return queryset.filter(public)


def shows_source(*, user, repository: Repository) -> bool:
    """A git URL is for everyone who sees the repository; a folder or stored archive is a path
    on the server, for its owner and staff alone."""
    return repository.source_kind == Repository.SourceKind.GIT or can_manage(
        user=user, repository=repository
    )


NOTHING_TO_READ = "no files RepoRift can read"


def nothing_to_read_message(run: IndexRun | None) -> str:
    """What a finished run that found no file of a known language or format says, wherever
    the user looks (run status, search notices, the command line's exit message); "" otherwise."""
    if run is None or run.status != IndexRun.Status.SUCCEEDED or run.units_total:
        return ""
    return NOTHING_TO_READ


def nothing_to_read_notices(repositories) -> list[str]:
    """For a search: each repository whose index holds nothing, said so (instead of "nothing
    matched", which would send the user to try other words)."""
    return [
        f"{repository.name} has {NOTHING_TO_READ}"
        for repository in repositories
        if nothing_to_read_message(repository.active_run)
    ]


def can_manage(*, user, repository: Repository) -> bool:
    """Re-indexing and deleting: the owner and staff."""
    return bool(
        user is not None
        and user.is_authenticated
        and (user.is_staff or repository.owner_id == user.pk)
    )


class RepositoryRefused(Exception):
    """`user` may not manage the repository. `status` is what an HTTP answer says: 404 when
    they cannot see it (a private one looks missing), 403 when they can see but not change it."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def repository_for_management(*, user, name: str) -> Repository:
    """The repository when `user` may re-index or delete it; RepositoryRefused otherwise."""
    repository = repositories_visible_to(user).filter(name=name).first()
    if repository is None:
        raise RepositoryRefused(404, f"no repository named {name!r}")
    if not can_manage(user=user, repository=repository):
        raise RepositoryRefused(403, "only the owner or staff may change this repository")
    return repository


def with_latest_runs(
    repositories: QuerySet[Repository],
) -> list[tuple[Repository, IndexRun | None]]:
    """Each repository with its newest run, in two queries whatever the number of repositories."""
    newest = IndexRun.objects.filter(repository=OuterRef("pk")).order_by("-created_at", "-id")
    rows = list(repositories.annotate(latest_run_pk=Subquery(newest.values("pk")[:1])))
    runs = IndexRun.objects.in_bulk([r.latest_run_pk for r in rows if r.latest_run_pk])
    return [(r, runs.get(r.latest_run_pk)) for r in rows]


def vector_models(*, repository: Repository) -> set[str]:
    """Every embedding model that may hold vectors of the repository: those its file versions
    record and those its runs were built for (a run that died before recording any)."""
    models: set[str] = set()
    for embedded in FileVersion.objects.filter(repository=repository).values_list(
        "embedded", flat=True
    ):
        models.update(embedded)
    for pair in repository.runs.values_list("embedder_model", "phase2_model"):
        models.update(pair)
    return models - {""}
