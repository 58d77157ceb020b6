"""What the LLM layer remembers: a cache of completions and a log of every call."""

from django.db import models


class CompletionCacheEntry(models.Model):
    """A completion keyed by (endpoint model, messages, parameters): a repeated query is free."""

    key = models.CharField(max_length=64, unique=True)
    model = models.CharField(max_length=200)
    text = models.TextField()
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    # {token: log-probability} of the answer's first token, when they were asked for.
    first_token_logprobs = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.model} {self.key[:12]}"


class LLMCall(models.Model):
    model = models.CharField(max_length=200)
    purpose = models.CharField(max_length=50)  # augment, codegen, rerank, ...
    prompt_version = models.CharField(max_length=50)
    latency_ms = models.FloatField(default=0)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    cached = models.BooleanField(default=False)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["purpose", "created_at"])]

    def __str__(self) -> str:
        return f"{self.purpose} {self.model} {self.latency_ms:.0f} ms"
