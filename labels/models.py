"""A label run: one `reporift label` over one repository, its progress and its outcome. The
labels themselves live in the run's output directory (CoSQA+'s files and the trail)."""

from django.db import models

from indexing.models import Repository


class LabelRun(models.Model):
    class Status(models.TextChoices):
        RUNNING = "running"
        SUCCEEDED = "succeeded"
        FAILED = "failed"
        INTERRUPTED = "interrupted"

    repository = models.ForeignKey(Repository, on_delete=models.CASCADE, related_name="label_runs")
    out_dir = models.CharField(max_length=1000, unique=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.RUNNING)
    method = models.CharField(max_length=16)
    model = models.CharField(max_length=200, blank=True)
    sandbox = models.CharField(max_length=50, blank=True)
    queries = models.PositiveIntegerField(default=0)
    pairs_total = models.PositiveIntegerField(default=0)
    pairs_done = models.PositiveIntegerField(default=0)
    positives = models.PositiveIntegerField(default=0)
    pair_errors = models.PositiveIntegerField(default=0)
    tests_run = models.PositiveIntegerField(default=0)
    tests_executable = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    started_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-started_at"]

    def __str__(self) -> str:
        return f"{self.repository.name} -> {self.out_dir} ({self.status})"
