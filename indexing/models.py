"""Repositories, index runs (generations) and the code units they contain.

Units hang off a FileVersion (one path at one content hash), and a generation is the set of file
versions it contains. A re-index therefore creates units and vectors only for new file versions;
an unchanged file is shared by the old and new generation at no cost. Switching
`Repository.active_run` is the one write that makes a new generation visible, so a run that fails
midway leaves the previous generation serving untouched.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from indexing.repository_names import MAX_LENGTH, validate_repository_name


class Repository(models.Model):
    class SourceKind(models.TextChoices):
        LOCAL = "local", "Local directory"
        GIT = "git", "Git URL"
        ARCHIVE = "archive", "Uploaded archive"
        SNIPPETS = "snippets", "Snippet corpus"

    # As the project is named on its code host: `telescope.nvim`, `socket.io`.
    name = models.CharField(
        max_length=MAX_LENGTH, unique=True, validators=[validate_repository_name]
    )
    source_kind = models.CharField(max_length=16, choices=SourceKind.choices)
    source = models.CharField(max_length=1000, help_text="Path, git URL or stored archive path")
    ref = models.CharField(max_length=200, blank=True, help_text="Branch, tag or commit (git)")
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    is_public = models.BooleanField(default=True)
    # Following the git remote (indexing.sync): a schedule, push webhooks, or both.
    sync_every_minutes = models.PositiveIntegerField(
        null=True, blank=True, help_text="Check the remote this often (git only); empty: manual"
    )
    webhook_secret = models.CharField(
        max_length=100, blank=True, help_text="Push webhooks are accepted only when set"
    )
    last_checked_at = models.DateTimeField(null=True, blank=True)
    last_check_error = models.TextField(blank=True)
    sync_failures = models.PositiveIntegerField(default=0)
    next_check_at = models.DateTimeField(null=True, blank=True)
    active_run = models.ForeignKey(
        "IndexRun",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The generation that searches read",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        verbose_name_plural = "repositories"

    def __str__(self) -> str:
        return self.name


class IndexRun(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        SUCCEEDED = "succeeded"
        FAILED = "failed"

    class Phase(models.TextChoices):
        QUEUED = "queued"
        FETCHING = "fetching"
        SCANNING = "scanning"
        PARSING = "parsing"
        EMBEDDING = "embedding"
        STORING = "storing"
        SWITCHING = "switching"
        DONE = "done"

    class Phase2(models.TextChoices):
        """Where the transformer's vectors are; blank: a one-phase run (no static tier)."""

        PENDING = "pending"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"  # the static vectors keep answering; the next run tries again
        SKIPPED = "skipped"  # over REPORIFT_PHASE2_MAX_UNITS: phase 1 answers for good

    repository = models.ForeignKey(Repository, on_delete=models.CASCADE, related_name="runs")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    phase = models.CharField(max_length=16, choices=Phase.choices, default=Phase.QUEUED)
    commit_sha = models.CharField(max_length=64, blank=True)
    # The model whose vectors answer this generation's searches: the static tier's after phase 1,
    # the transformer's once phase 2 has added its vectors (indexing.phase2).
    embedder_model = models.CharField(max_length=100, blank=True)
    phase2_model = models.CharField(max_length=100, blank=True)
    phase2_status = models.CharField(max_length=16, choices=Phase2.choices, blank=True)
    phase2_error = models.TextField(blank=True)
    phase2_units_total = models.PositiveIntegerField(default=0)
    phase2_units_embedded = models.PositiveIntegerField(default=0)
    phase2_finished_at = models.DateTimeField(null=True, blank=True)
    files_total = models.PositiveIntegerField(default=0)
    files_done = models.PositiveIntegerField(default=0)
    files_reused = models.PositiveIntegerField(default=0)
    files_with_errors = models.PositiveIntegerField(default=0)
    units_total = models.PositiveIntegerField(default=0)
    units_embedded = models.PositiveIntegerField(default=0)
    units_to_embed = models.PositiveIntegerField(default=0)
    files_deleted = models.PositiveIntegerField(default=0)
    warnings = models.JSONField(default=list, blank=True)
    error = models.TextField(blank=True)
    file_versions = models.ManyToManyField("FileVersion", related_name="runs", blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # The process running the whole run in itself (the CLI, a server without a broker), so the
    # next start on this host sees at once that it is gone (indexing.run_process); blank for
    # runs on Celery workers, whose chunk leases and heartbeat cover a lost worker.
    runner_host = models.CharField(max_length=255, blank=True)
    runner_pid = models.PositiveIntegerField(null=True, blank=True)
    runner_started = models.CharField(max_length=32, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            # At most one run of a repository is queued or running at a time.
            models.UniqueConstraint(
                fields=["repository"],
                condition=Q(status__in=["queued", "running"]),
                name="one_unfinished_run_per_repository",
            )
        ]

    def __str__(self) -> str:
        return f"{self.repository.name} {self.label} ({self.status})"

    @property
    def label(self) -> str:
        """The one way every surface (command line, pages, admin, logs) names a run: "run 4",
        lower case, by its id, the same id the API's `id` field gives."""
        return f"run {self.pk}"

    @property
    def is_finished(self) -> bool:
        return self.status in (self.Status.SUCCEEDED, self.Status.FAILED)

    @property
    def answering_phase(self) -> int:
        """1 while the static tier's vectors answer (phase 2 pending, running, failed or
        skipped), else 2: the transformer's, or a run that had one phase."""
        return 1 if self.phase2_model and self.embedder_model != self.phase2_model else 2

    @property
    def percent(self) -> int:
        """Rough overall progress: scanning/parsing is the first third, embedding the rest."""
        if self.status == self.Status.SUCCEEDED:
            return 100
        parse = self.files_done / self.files_total if self.files_total else 0.0
        embed = self.units_embedded / self.units_to_embed if self.units_to_embed else 0.0
        if self.phase in (self.Phase.QUEUED, self.Phase.FETCHING, self.Phase.SCANNING):
            return 0
        if self.phase == self.Phase.PARSING:
            return int(30 * parse)
        if self.phase == self.Phase.EMBEDDING:
            return 30 + int(65 * embed)
        return 95


class FileVersion(models.Model):
    """One path of a repository at one content hash; shared by every generation that has it."""

    repository = models.ForeignKey(
        Repository, on_delete=models.CASCADE, related_name="file_versions"
    )
    path = models.CharField(max_length=1000)
    sha256 = models.CharField(max_length=64)
    # Which parser made its units (indexing.parsing.PARSER_VERSION): a file parsed by an older
    # one is parsed again, as a new version, even when its bytes did not change.
    parser_version = models.CharField(max_length=32, blank=True, default="")
    size = models.PositiveIntegerField(default=0)
    # The file's bytes, zlib-compressed: line spans are served from here (MCP, pages), never
    # from the disk, so no request can reach a path outside the indexed repository.
    content = models.BinaryField(default=b"", blank=True)
    parse_warning = models.TextField(blank=True)
    # The embedding models whose vectors of this version's units are in the store: a version
    # carried into a new generation is embedded only under the models it lacks.
    embedded = models.JSONField(default=list, blank=True)
    created_by = models.ForeignKey(
        IndexRun, null=True, on_delete=models.SET_NULL, related_name="created_file_versions"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["repository", "path", "sha256", "parser_version"],
                name="unique_file_version",
            )
        ]

    def __str__(self) -> str:
        return f"{self.path}@{self.sha256[:8]}"

    def data(self) -> bytes | None:
        """The file's bytes; None for versions indexed before contents were kept."""
        import zlib

        return zlib.decompress(bytes(self.content)) if self.content else None

    def text(self) -> str | None:
        data = self.data()
        return None if data is None else data.decode("utf-8", errors="replace")


class CodeUnit(models.Model):
    class Kind(models.TextChoices):
        FUNCTION = "function"
        METHOD = "method"
        CLASS = "class"
        MODULE = "module"  # module-level code between definitions
        # A part of a file that holds no code units: a Markdown section, a config key or block,
        # a SQL statement, a stylesheet's rules (named by its heading or key).
        SECTION = "section"

    file_version = models.ForeignKey(FileVersion, on_delete=models.CASCADE, related_name="units")
    # Denormalised from the file version: every search result needs them.
    repository = models.ForeignKey(Repository, on_delete=models.CASCADE, related_name="units")
    path = models.CharField(max_length=1000)
    # The file's language or format (indexing.languages): "python", "go", "markdown", "yaml"...
    language = models.CharField(max_length=32, default="python")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    name = models.CharField(max_length=300)
    qualname = models.CharField(max_length=1000)
    parent_qualname = models.CharField(max_length=1000, blank=True)
    class_name = models.CharField(max_length=1000, blank=True)
    # First sentences of the enclosing class's and the module's docstrings: context for search.
    class_summary = models.CharField(max_length=300, blank=True)
    module_summary = models.CharField(max_length=300, blank=True)
    start_line = models.PositiveIntegerField()
    end_line = models.PositiveIntegerField()
    signature = models.TextField(blank=True)
    docstring = models.TextField(blank=True)
    code = models.TextField()
    decorators = models.JSONField(default=list, blank=True)
    # Names the unit binds: its own name, or a module block's assigned names ("defines the
    # queried name" is a ranking signal).
    defines = models.JSONField(default=list, blank=True)
    is_async = models.BooleanField(default=False)

    class Meta:
        indexes = [
            models.Index(fields=["repository", "path"]),
            # Definitions by name (search's S7) on every query that is a name.
            models.Index(fields=["repository", "name"]),
        ]

    def __str__(self) -> str:
        return f"{self.path}:{self.qualname}"

    @property
    def vector_id(self) -> str:
        return str(self.pk)


class ExactChunk(models.Model):
    """A run of a file version's lines for exact search (`indexing.exact_index`): the database's
    trigram index (SQLite FTS5's `trigram` tokenizer, PostgreSQL's pg_trgm) finds the chunks
    that may hold a literal or a pattern, and RE2 checks each of their lines. Shared, like the
    version, by every generation that has it, and deleted with it."""

    file_version = models.ForeignKey(
        FileVersion, on_delete=models.CASCADE, related_name="exact_chunks"
    )
    first_line = models.PositiveIntegerField()  # 1-based number of the chunk's first line
    text = models.TextField()  # its lines joined by "\n", as the file has them

    def __str__(self) -> str:
        return f"{self.file_version_id}:{self.first_line}"


class IndexChunk(models.Model):
    """Some of a run's new file versions, parsed and embedded by one task on any worker. The
    worker holding it renews `heartbeat_at`; a stale one lets another worker take it over."""

    class Status(models.TextChoices):
        PENDING = "pending"
        RUNNING = "running"
        DONE = "done"

    run = models.ForeignKey(IndexRun, on_delete=models.CASCADE, related_name="chunks")
    number = models.PositiveIntegerField()
    version_ids = models.JSONField(default=list)
    # Versions carried over from a generation made by another embedder: their units stay (the
    # serving generation shares them), only their vectors are made again under this run's model.
    embed_only = models.BooleanField(default=False)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    worker = models.CharField(max_length=200, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["run", "number"]

    def __str__(self) -> str:
        return f"run {self.run_id} chunk {self.number} ({self.status})"


class DocumentChunk(models.Model):
    """A paragraph of the repository's README or docs, kept for the research agent's RAG tool."""

    run = models.ForeignKey(IndexRun, on_delete=models.CASCADE, related_name="document_chunks")
    path = models.CharField(max_length=1000)
    text = models.TextField()

    def __str__(self) -> str:
        return f"{self.path}: {self.text[:40]}"


class CachedVector(models.Model):
    """A text's vector under one embedding model. Identical units (forks, branches, vendored
    copies, the same package indexed under two names, a re-index after a crash) are embedded
    once. `model_id` names the weights and their cut-off, so a changed model never reuses a
    vector."""

    model_id = models.CharField(max_length=100)
    text_sha256 = models.CharField(max_length=64)
    vector = models.BinaryField()  # float32, little-endian

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["model_id", "text_sha256"], name="unique_cached_vector")
        ]

    def __str__(self) -> str:
        return f"{self.model_id} {self.text_sha256[:12]}"


class WebhookDelivery(models.Model):
    """A push delivery already acted on: a provider that delivers it again is answered without
    a second sync."""

    repository = models.ForeignKey(Repository, on_delete=models.CASCADE, related_name="+")
    provider = models.CharField(max_length=16)
    delivery_id = models.CharField(max_length=200)
    received_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["provider", "delivery_id"], name="unique_webhook_delivery"
            )
        ]

    def __str__(self) -> str:
        return f"{self.provider} {self.delivery_id}"
