"""An example of found code: a short program an LLM wrote that imports one unit from its
repository, calls it and checks what came back, run in the sandbox. One per unit version
(its code and the repository's commit) and model: asked again, the same example answers."""

from django.conf import settings
from django.db import models

from indexing.models import Repository


class UnitExample(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        PASSED = "passed"  # it ran and every check held
        CHECK_FAILED = "check_failed"  # it ran to its checks and one failed
        ERROR = "error"  # no program ran to its checks: why is in `error`
        CANCELLED = "cancelled"

    FINISHED = (Status.PASSED, Status.CHECK_FAILED, Status.ERROR, Status.CANCELLED)

    repository = models.ForeignKey(Repository, on_delete=models.CASCADE, related_name="examples")
    path = models.CharField(max_length=1000)
    qualname = models.CharField(max_length=1000)
    code_sha256 = models.CharField(max_length=64)
    commit_sha = models.CharField(max_length=64, blank=True)
    model = models.CharField(max_length=200)
    prompt_version = models.CharField(max_length=50)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    program = models.TextField(blank=True)  # the last program run
    stdout = models.TextField(blank=True)
    stderr = models.TextField(blank=True)
    # Every program tried and how its run ended: the trail of repairs.
    attempts = models.JSONField(default=list, blank=True)
    error = models.TextField(blank=True)
    sandbox = models.CharField(max_length=50, blank=True)
    seconds = models.FloatField(default=0.0)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)  # when a worker claimed it
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["repository", "path", "qualname", "code_sha256", "commit_sha", "model"],
                name="one_example_per_unit_version_and_model",
            )
        ]

    def __str__(self) -> str:
        return f"{self.repository.name}:{self.path}:{self.qualname} ({self.status})"

    @property
    def is_finished(self) -> bool:
        return self.status in self.FINISHED
