import os
import sys

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "reporift.settings")

# Celery's Django fixup puts the current folder first on sys.path. RepoRift is installed, and
# `reporift mcp --path "$PWD"` runs in the folder of the project being searched, whose top-level
# modules (an `mcp`, an `accounts`, an `examples`) must not replace ours or our dependencies'.
path = list(sys.path)
app = Celery("reporift")
sys.path[:] = path
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
