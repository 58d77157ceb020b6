"""RepoRift settings: embedded defaults that need no server, each overridable from the environment.

| variable | default |
| --- | --- |
| REPORIFT_DATA_DIR | ./var (SQLite file, Chroma data, uploads, work dirs) |
| DATABASE_URL | sqlite:///$REPORIFT_DATA_DIR/db.sqlite3 |
| CHROMA_HOST / CHROMA_PORT | unset: embedded Chroma in $REPORIFT_DATA_DIR/chroma |
| CELERY_BROKER_URL or REDIS_URL | unset: tasks run inline (eager) |
"""

import json
import os
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from reporift import offline  # noqa: F401  (sets the offline environment before anything loads)


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    return int(value) if value not in (None, "") else default


DEFAULT_EMBEDDER = "indexing.embedding.OnnxMiniLMEmbedder"
# The tuned delta committed in indexing/embedders/: on the dev packages fast mode's MRR +0.036
# [+0.010, +0.062] over plain MiniLM, on CoSQA dev within the noise and not below it
# (docs/BENCHMARKS.md, "Embedding"). An index made by another embedder
# is re-embedded on its next run; until then the home page marks it and only its lexical
# streams answer (vectors of two models never meet).
DEFAULT_EMBEDDER_DELTA = "shipped"
# The graph that embeds queries ("" : the documents' own); see indexing.embedding.
DEFAULT_EMBEDDER_QUERY_VARIANT = ""


def embedder_settings(environ) -> dict:
    """REPORIFT_EMBEDDER names the class; its options come from REPORIFT_EMBEDDER_OPTIONS (JSON),
    e.g. '{"model": "text-embedding-3-small", "dimension": 1536, "base_url": "..."}' for
    indexing.embedding.OpenAIEmbedder. The default takes REPORIFT_EMBED_THREADS,
    REPORIFT_EMBEDDER_DELTA and REPORIFT_EMBEDDER_QUERY_VARIANT."""
    cls = environ.get("REPORIFT_EMBEDDER", DEFAULT_EMBEDDER)
    raw = environ.get("REPORIFT_EMBEDDER_OPTIONS", "")
    options = {}
    if raw:
        try:
            options = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise ImproperlyConfigured(f"REPORIFT_EMBEDDER_OPTIONS is not JSON: {exc}") from exc
        if not isinstance(options, dict):
            raise ImproperlyConfigured("REPORIFT_EMBEDDER_OPTIONS must be a JSON object")
    if cls == DEFAULT_EMBEDDER:
        # The JSON's options over the defaults: `{"variant": "fp32"}` alone keeps the tuned
        # delta and the other settings.
        options = {
            "threads": int(environ.get("REPORIFT_EMBED_THREADS") or 0),
            # The tuned delta committed with RepoRift (indexing/embedders/); "" serves the base
            # all-MiniLM-L6-v2, a path serves another manifest.
            "delta": environ.get("REPORIFT_EMBEDDER_DELTA", DEFAULT_EMBEDDER_DELTA),
            "query_variant": environ.get(
                "REPORIFT_EMBEDDER_QUERY_VARIANT", DEFAULT_EMBEDDER_QUERY_VARIANT
            ),
        } | options
    return {"CLASS": cls, "OPTIONS": options}


def sandbox_settings(environ) -> dict:
    """REPORIFT_SANDBOX: "bubblewrap" (default), "docker" or "podman" (with
    REPORIFT_SANDBOX_IMAGE, a Python image already pulled). Limits per run of untrusted code."""
    engine = environ.get("REPORIFT_SANDBOX", "bubblewrap").strip().lower()
    if engine == "bubblewrap":
        backend = {"CLASS": "sandbox.bubblewrap.BubblewrapSandbox", "OPTIONS": {}}
    elif engine in ("docker", "podman"):
        image = environ.get("REPORIFT_SANDBOX_IMAGE", "python:3.11-slim")
        backend = {
            "CLASS": "sandbox.container.ContainerSandbox",
            "OPTIONS": {"engine": engine, "image": image},
        }
    else:
        raise ImproperlyConfigured(
            f"REPORIFT_SANDBOX must be bubblewrap, docker or podman, not {engine!r}"
        )

    def number(name: str, default: float) -> float:
        value = environ.get(name)
        return float(value) if value not in (None, "") else default

    limits = {
        "cpu_s": int(number("REPORIFT_SANDBOX_CPU_S", 10)),
        "wall_s": number("REPORIFT_SANDBOX_WALL_S", 20),
        "memory_mb": int(number("REPORIFT_SANDBOX_MEMORY_MB", 1024)),
        "file_size_mb": int(number("REPORIFT_SANDBOX_FILE_MB", 16)),
        "processes": int(number("REPORIFT_SANDBOX_PROCESSES", 32)),
    }
    return {"BACKEND": backend, "LIMITS": limits}


BASE_DIR = Path(__file__).resolve().parent.parent
DATA_DIR = Path(os.environ.get("REPORIFT_DATA_DIR", BASE_DIR / "var")).resolve()
DATA_DIR.mkdir(parents=True, exist_ok=True)

DEBUG = env_bool("DJANGO_DEBUG", False)
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "")
if not SECRET_KEY:
    # A per-installation key kept in the data dir, so that sessions survive restarts without
    # anyone committing a secret.
    key_file = DATA_DIR / "secret_key"
    if not key_file.exists():
        from django.core.management.utils import get_random_secret_key

        key_file.write_text(get_random_secret_key())
        key_file.chmod(0o600)
    SECRET_KEY = key_file.read_text().strip()

ALLOWED_HOSTS = [
    h.strip() for h in os.environ.get("DJANGO_ALLOWED_HOSTS", "127.0.0.1,localhost").split(",")
]
CSRF_TRUSTED_ORIGINS = [
    o.strip() for o in os.environ.get("DJANGO_CSRF_TRUSTED_ORIGINS", "").split(",") if o.strip()
]

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    # Its Swagger UI and ReDoc files, so /api/docs works with no internet.
    "ninja",
    "accounts",
    "indexing",
    "search",
    "agents",
    "labels",
    "tryouts",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Outermost but one, so it sees the final answer to every /api/ request, crashes included.
    "reporift.api_errors.api_json_errors",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "reporift.urls"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ]
        },
    }
]
WSGI_APPLICATION = "reporift.wsgi.application"

DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{DATA_DIR / 'db.sqlite3'}", conn_max_age=60
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Index runs write while pages read: WAL and a busy timeout keep SQLite from "database is
    # locked" errors between the web process and a worker. Transactions take the write lock
    # when they begin: a deferred one that read first and then writes while another process
    # writes fails at once ("database is locked") instead of waiting, which two chunk workers
    # hit within seconds (two Celery workers indexing one tree).
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 30,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
    if os.environ.get("REPORIFT_TEST_SQLITE_FILE"):
        DATABASES["default"]["TEST"] = {"NAME": os.environ["REPORIFT_TEST_SQLITE_FILE"]}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = DATA_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
MEDIA_ROOT = DATA_DIR / "uploads"
FILE_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
DATA_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024

# Celery: eager (inline) unless a broker is configured.
CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL") or os.environ.get("REDIS_URL") or None
CELERY_TASK_ALWAYS_EAGER = CELERY_BROKER_URL is None
CELERY_TASK_EAGER_PROPAGATES = False
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# `celery -A reporift beat` ticks once a minute; each repository's own schedule (and back-off)
# lives in the database (indexing.sync), so beat keeps no state and needs no extra package.
CELERY_BEAT_SCHEDULE = {
    "sync-due-repositories": {"task": "indexing.tasks.sync_due_task", "schedule": 60.0}
}
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("REPORIFT_CELERY_QUEUE", "reporift")
# A task a dead worker took is delivered again after this long (Redis); longer than any chunk.
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": env_int("REPORIFT_CELERY_VISIBILITY_TIMEOUT_S", 600)
}

CHROMA_HOST = os.environ.get("CHROMA_HOST", "")
CHROMA_PORT = env_int("CHROMA_PORT", 8000)

REPORIFT = {
    "EMBEDDER": embedder_settings(os.environ),
    "VECTOR_STORE": {
        "CLASS": "indexing.store.ChromaVectorStore",
        "OPTIONS": (
            {"host": CHROMA_HOST, "port": CHROMA_PORT}
            if CHROMA_HOST
            else {"path": str(DATA_DIR / "chroma")}
        )
        | {"collection_prefix": os.environ.get("REPORIFT_CHROMA_COLLECTION_PREFIX", "reporift")},
    },
    # Phase 1 of indexing embeds with a static table distilled from the transformer (searchable
    # in seconds); phase 2 brings the transformer's vectors (indexing.phases). Off: one phase.
    "STATIC_TIER": env_bool("REPORIFT_STATIC_TIER", True),
    # Unit rows (and the words the ranker compares with a query) a process keeps, read at its
    # start (search.warmup): about 10 KB a unit with its words, 570 MB at 60,000. A repository
    # larger than this pays a database read and about a millisecond of word splitting for each
    # candidate it has not met yet, every search (docs/BENCHMARKS.md, "Per-query speed on
    # large repositories").
    "CACHED_UNITS": env_int("REPORIFT_CACHED_UNITS", 60_000),
    # Units whose words (what the ranker compares with a query) a process keeps packed, about
    # 240 bytes a unit (search.ranking.word_memo): every unit's, read from what indexing saved,
    # and those it meets; a search over more units than CACHED_UNITS then reads rows but splits
    # no code into words. 0: none kept, and indexing saves none.
    "WORD_MEMO_UNITS": env_int("REPORIFT_WORD_MEMO_UNITS", 500_000),
    # Repositories with more units than this stop at phase 1 (0: no limit).
    "PHASE2_MAX_UNITS": env_int("REPORIFT_PHASE2_MAX_UNITS", 0),
    # A run of a repository the transformer serves, with at most this many units to embed
    # under it, does so before its switch (about 3 s on 2 cores): an edit never steps back to
    # the static vectors' answers.
    "PHASE2_INLINE_UNITS": env_int("REPORIFT_PHASE2_INLINE_UNITS", 100),
    # Where the static tier's vectors live: numpy segment files in the data dir (fast to write,
    # searched exactly), or the vector store above when Chroma is a server that workers on other
    # machines share (indexing.segment_store says why).
    "STATIC_VECTOR_STORE": (
        None
        if CHROMA_HOST
        else {
            "CLASS": "indexing.segment_store.SegmentVectorStore",
            "OPTIONS": {
                "path": os.environ.get("REPORIFT_STATIC_VECTORS_DIR")
                or str(DATA_DIR / "static-vectors")
            },
        }
    ),
    "WORK_DIR": str(DATA_DIR / "work"),
    "MAX_FILE_BYTES": env_int("REPORIFT_MAX_FILE_BYTES", 2 * 1024 * 1024),
    # Each indexed file's lines under the database's trigram index, for exact search (literals,
    # regular expressions); off: no such index, and exact search says it has none.
    "EXACT_INDEX": env_bool("REPORIFT_EXACT_INDEX", True),
    # Files indexed from one tree at most; the rest are left out, with a warning that counts them.
    "MAX_FILES": env_int("REPORIFT_MAX_FILES", 50_000),
    "MAX_ARCHIVE_FILES": env_int("REPORIFT_MAX_ARCHIVE_FILES", 20_000),
    "MAX_ARCHIVE_BYTES": env_int("REPORIFT_MAX_ARCHIVE_BYTES", 500 * 1024 * 1024),
    "MAX_COMPRESSION_RATIO": env_int("REPORIFT_MAX_COMPRESSION_RATIO", 200),
    "GIT_TIMEOUT_S": env_int("REPORIFT_GIT_TIMEOUT_S", 300),
    # Git URLs that users (web page, API) may submit. The CLI is the operator's and unlimited.
    "GIT_ALLOWED_SCHEMES": [
        s.strip() for s in os.environ.get("REPORIFT_GIT_SCHEMES", "https").split(",") if s.strip()
    ],
    "GIT_ALLOWED_HOSTS": [
        h.strip().lower() for h in os.environ.get("REPORIFT_GIT_HOSTS", "").split(",") if h.strip()
    ],
    "GIT_ALLOW_PRIVATE_HOSTS": env_bool("REPORIFT_GIT_ALLOW_PRIVATE_HOSTS", False),
    # Searches per user (or per address for anonymous callers), on the page, the API and MCP
    # alike; full mode, which calls the LLM, also counts against its own limits. 0 = off.
    "LIMITS": {
        "SEARCH_RATE_PER_MINUTE": env_int("REPORIFT_SEARCH_RATE_PER_MINUTE", 120),
        "FULL_RATE_PER_MINUTE": env_int("REPORIFT_FULL_RATE_PER_MINUTE", 6),
        "LLM_DAILY_BUDGET": env_int("REPORIFT_LLM_DAILY_BUDGET", 200),
    },
    # Work that spends the LLM (full-mode searches, running an example) is for signed-in users;
    # 1 opens it to anonymous callers too, under the limits above.
    "LLM_FOR_ANONYMOUS": env_bool("REPORIFT_LLM_FOR_ANONYMOUS", False),
    # The user `manage.py mcp` (stdio) acts as, unless --user is given.
    "MCP_USER": os.environ.get("REPORIFT_MCP_USER", ""),
    # Reverse proxies whose X-Forwarded-For is believed (addresses or networks, comma-separated).
    "TRUSTED_PROXIES": [
        p.strip() for p in os.environ.get("REPORIFT_TRUSTED_PROXIES", "").split(",") if p.strip()
    ],
    "EMBED_BATCH_UNITS": env_int("REPORIFT_EMBED_BATCH_UNITS", 256),
    # A run's new files are parsed and embedded in chunks of this many files, each a task any
    # worker may take; a worker renews its chunk's lease as it goes, and a chunk whose lease is
    # this old is taken over (its worker died).
    "INDEX_CHUNK_FILES": env_int("REPORIFT_INDEX_CHUNK_FILES", 100),
    "INDEX_CHUNK_LEASE_S": env_int("REPORIFT_INDEX_CHUNK_LEASE_S", 120),
    "MAX_WARNINGS_STORED": 500,
    "MAX_UPLOAD_BYTES": env_int("REPORIFT_MAX_UPLOAD_BYTES", 100 * 1024 * 1024),
    # Without a broker, runs started from the web execute in a background thread.
    "EAGER_IN_THREAD": env_bool("REPORIFT_EAGER_IN_THREAD", True),
    "LLM": {
        "BASE_URL": os.environ.get("OPENAI_BASE_URL", ""),
        "API_KEY": os.environ.get("OPENAI_API_KEY", ""),
        "MODEL": os.environ.get("REPORIFT_LLM_MODEL", ""),
        # With no endpoint configured, serve a local model on loopback: a GGUF file the operator
        # names, else a model of the catalog (agents.model_catalog).
        "EMBEDDED": env_bool("REPORIFT_EMBEDDED_LLM", True),
        "EMBEDDED_MODEL": os.environ.get(
            "REPORIFT_LLM_EMBEDDED_MODEL", "qwen2.5-coder-0.5b-instruct"
        ),
        "GGUF": os.environ.get("REPORIFT_LLM_GGUF", ""),
        "THREADS": env_int("REPORIFT_LLM_THREADS", 1),
        "TIMEOUT_S": float(os.environ.get("REPORIFT_LLM_TIMEOUT_S", "60")),
        "MAX_RETRIES": env_int("REPORIFT_LLM_MAX_RETRIES", 1),
        # A SearxNG-compatible JSON search API for the research agent; unset = no web search.
        "WEB_SEARCH_URL": os.environ.get("REPORIFT_WEB_SEARCH_URL", ""),
    },
    "SANDBOX": sandbox_settings(os.environ),
    "AGENTS": {
        # "crewai": the research agent of the paper; "prompt": the same prompt, one completion.
        "AUGMENTER": os.environ.get("REPORIFT_AUGMENTER", "crewai"),
        "PER_MODEL": {
            # A model never measured here gets the paper's stages: all of them, with a listwise
            # reranker trusted about as much as retrieval (30 candidates of 600 characters).
            # Whether they help with a given endpoint is for `python -m benchmarks.llm_stages`
            # to show; the README says so.
            "default": {
                # "suspects": full mode on an issue asks the LLM where the fix goes.
                "STAGES": ["S2", "S3", "S5", "rerank", "suspects"],
                "CODEGEN": "full",
                "RERANKER": "listwise",
                "RERANK_WEIGHT": 0.5,
                "RERANK_CANDIDATES": 30,
                "RERANK_CHARS": 600,
                # How the pointwise reranker's judgements meet the retrieval order: "ranks"
                # (weighted reciprocal ranks) or "scores" (standardised score and log-odds).
                "RERANK_BLEND": "ranks",
                # The pointwise judge's prompt version (agents/prompts.py: 2 puts the candidate
                # first, 3 the query, so llama.cpp reuses the shared prefix) and what it reads of
                # each candidate: "text" (the unit from its start) or "excerpt" (its signature
                # and the lines that match the query).
                "RERANK_PROMPT": 2,
                "RERANK_READS": "text",
                # Each stage's time budget: past it, the stage stops and search goes on with
                # what it has (the research agent's too: REPORIFT_AUGMENT_BUDGET_S).
                "AUGMENT_BUDGET_S": float(os.environ.get("REPORIFT_AUGMENT_BUDGET_S", "30")),
                "CODEGEN_BUDGET_S": 30,
                "RERANK_BUDGET_S": 60,
            },
            # Measured on this project's dev sets (docs/BENCHMARKS.md, "Do the LLM stages
            # help?"): a stage is on only where its figures beat fast mode beyond the interval.
            # SmolLM2-135M made every stage worse in an earlier round (reports removed with it
            # from the default install); it stays off.
            "smollm2-135m-instruct": {
                "STAGES": [],
                "RERANK_WEIGHT": 0.0,
                "RERANK_CANDIDATES": 10,
                "RERANK_CHARS": 300,
            },
            # Qwen2.5-Coder-0.5B: no stage beat fast mode on both dev sets (pointwise rerank at
            # 0.3 changed no first place; at 0.5 and above, HyDE and augmentation lost; blended
            # by scores, MRR +0.008 and +0.007, the second within the noise); naming an issue's
            # suspects, 19 of 40 answers unusable, 14 s each, MRR -0.007 (noise). The
            # rest is what its stages use when named explicitly (evaluate --stages ...).
            "qwen2.5-coder-0.5b-instruct": {
                "STAGES": [],
                "CODEGEN": "short",
                "RERANKER": "pointwise",
                "RERANK_WEIGHT": 0.3,
                "RERANK_CANDIDATES": 10,
                "RERANK_CHARS": 800,
                # Budgets that keep full mode's p50 within 30 s on 2 cores.
                "AUGMENT_BUDGET_S": 8,
                "CODEGEN_BUDGET_S": 10,
                "RERANK_BUDGET_S": 12,
                # Labelling (labels/): asked for a verdict in words it says MATCH to every pair,
                # and its P(yes) sits between 0.77 and 0.90 for relevant and irrelevant code
                # alike. Threshold and screening band (30% of pairs tested) chosen on 200 CoSQA
                # dev pairs (docs/eval/judge-calibration-qwen2-5-coder-0-5b-instruct.json).
                # Its test programs rarely run to their asserts (asserts repeated until the
                # token limit, none at all): the agents did not label better than one
                # judgement (docs/BENCHMARKS.md, "Labels from agents"), so it judges.
                "LABEL": {"METHOD": "judge", "THRESHOLD": 0.848, "SCREEN_BAND": [0.836, 0.865]},
            },
            # Qwen2.5-Coder-1.5B (opt-in, `make models-large`): its yes/no judgements of the
            # first 10, as log-odds blended at 0.3 with the standardised retrieval score, beat
            # fast mode's MRR beyond the interval on both dev sets (+0.029 and +0.018; Success@1
            # +4.2 and +1.7 points, within the noise). Blended by ranks the same judgements
            # changed no first place; HyDE and augmentation did not help. Rerank p50 16 s.
            # Prompt v3 with excerpts, or on the first 6 only, gained within the noise on 209
            # package queries (docs/BENCHMARKS.md, "LLM stages"): v2 and text stay.
            "qwen2.5-coder-1.5b-instruct": {
                "STAGES": ["rerank"],
                "CODEGEN": "short",
                "RERANKER": "pointwise",
                "RERANK_BLEND": "scores",
                "RERANK_WEIGHT": 0.3,
                "RERANK_CANDIDATES": 10,
                "RERANK_CHARS": 800,
                "AUGMENT_BUDGET_S": 15,
                "CODEGEN_BUDGET_S": 15,
                "RERANK_BUDGET_S": 30,
                # Labelling: threshold and screening band (30% of pairs tested) chosen on the
                # same 200 CoSQA dev pairs as the 0.5B's
                # (docs/eval/judge-calibration-qwen2-5-coder-1-5b-instruct.json). On 120 pairs of
                # other queries it held (0.575 at 0.63, 0.558 at 0.5), and the agents were
                # within the noise of one judgement (+0.017) at six times its cost: it judges.
                "LABEL": {"METHOD": "judge", "THRESHOLD": 0.63, "SCREEN_BAND": [0.51, 0.696]},
            },
        },
    },
    "SEARCH": {
        # Hits each stream contributes: fast mode's S1, S6 and S4 gather the learned ranker's
        # candidates (at least k each); the paper uses 3 for S1/S2. 40 rather than 50, then
        # 30 rather than 40: each time the same answers within a narrow noise on the dev
        # sets, a fifth fewer candidates to order (docs/eval/vector-graph-quality.json,
        # docs/eval/stream-depth.json).
        "DEPTH": {"S1": 30, "S6": 30, "S4": 30, "S2": 3, "S3": 1, "S5": 10},
        # The query streams ask an HNSW graph over the process's in-memory copy of the vectors
        # (indexing.vector_mirror) instead of Chroma once it is built: a third of the time.
        "VECTOR_GRAPH": env_bool("REPORIFT_VECTOR_GRAPH", True),
        # Reciprocal-rank-fusion weights per stream: the order when the learned ranker is off or
        # unusable, and full mode's LLM streams against the ranker's order; docs/BENCHMARKS.md
        # says how they were set.
        "WEIGHTS": {
            "S1": 1.0,
            "S6": 0.5,
            "S4": 0.05,
            # Full mode: the LLM streams' votes against the learned ranker's order.
            "ranker": 1.0,
            "S2": 0.5,
            "S3": 0.5,
            "S5": 0.5,
        },
        "RRF_K": 60,
        # The learned ranker's model file (its manifest sits beside it); empty turns it off.
        "RANKER": os.environ.get(
            "REPORIFT_RANKER", str(BASE_DIR / "search" / "ranking" / "ranker.txt")
        ),
        # The code cosine's weight beside the ranker's score (search.ranking.order), chosen on
        # both dev sets (docs/eval/ranker-refit.json): 0 since the ranker learned web questions
        # from CoSQA's training pairs too; the ranker fitted on package rows alone needed 1.5 to
        # stay near S1 alone on CoSQA.
        "RANKER_CODE_WEIGHT": 0.0,
        # The repository's shape after the ranker (search.ranking.structure), in units of the
        # ranker's standardised score; chosen on the developer questions' tuning part
        # (docs/BENCHMARKS.md, "Developer questions").
        "STRUCTURE": {
            "defines": 5.0,
            "mentioned": 0.0,
            "file_topic": 0.25,
            "same_file": 0.2,
            "module": 1.0,
            # Questions that ask how a part works (search.ranking.files): one unit per file
            # first, a file weighed by its share of the first 30 candidates, its opening lines
            # not held back (docs/eval/files-to-read-tune.json); the opening lines for every
            # question since (docs/eval/opening-lines-every-question.json).
            "broad_same_file": 3.0,
            "file_mass": 0.5,
            "opening": 1.0,
            # Prose and configuration after code unless the question asks about docs or setup;
            # benchmarks, examples and fixtures after the definitions. same_file 0.2 (between
            # 0.1, where Python's behaviour questions had their second answer in one file, and
            # 0.3, which spread the other languages' files most): docs/BENCHMARKS.md,
            # "Languages".
            "prose": 1.0,
            # A section of a page of prose (Markdown, reStructuredText, AsciiDoc) a further
            # step: a guide tells a feature in the question's words, a configuration file only
            # names it (docs/eval/ranker-page-step.json; docs/BENCHMARKS.md, "Pages of prose
            # after code").
            "page": 1.0,
            "auxiliary": 1.0,
            # An interface in a file of its own after its implementation (C#'s `IFoo.cs`),
            # unless it defines the name asked for: docs/eval/langs-interfaces.json.
            "interface": 1.0,
            # Questions in words: a file whose path names the question's topic, a file whose
            # units together match its words (a central file), and the first results spread
            # over files (a step of 1.5 per further unit of a file): chosen by the file figure
            # on the large-repository, languages and developer questions' tuning parts
            # (docs/eval/file-evidence-replay.json, docs/BENCHMARKS.md).
            "path_topic": 1.0,
            "sentence_same_file": 1.5,
            "lexical_file_mass": 0.25,
        },
        # Units that define a name typed as the query, gathered even when no stream found them.
        "DEFINITIONS": 20,
        "CANDIDATES": 30,  # size of the ordered candidate set handed to the reranker (full mode)
        "MAX_K": 100,
        "MAX_QUERY_CHARS": 1000,
        # An issue pasted whole (search.locate): a bug report with its traceback and snippets.
        "MAX_ISSUE_CHARS": 32_000,
        # How long full mode's LLM may take to name an issue's suspects (search.locate).
        "LOCATE_LLM_BUDGET_S": env_int("REPORIFT_LOCATE_LLM_BUDGET_S", 60),
        # Ask for suspects whatever the model's measured stages say (benchmarks.issue_suspects).
        "LOCATE_SUSPECTS_FORCED": env_bool("REPORIFT_LOCATE_SUSPECTS", False),
        # Code to code (search.similar): how deep the code vectors and BM25 over the snippet's
        # words each gather candidates (20 found what 50 found on the vendored-copy set, at
        # less cost), and the weights of the similarities that order them, chosen on that
        # set's tuning half (docs/BENCHMARKS.md, "Code to code").
        "SIMILAR": {
            "DEPTH": 20,
            "WEIGHTS": {"vector": 1.0, "words": 0.5, "shape": 1.0},
            "MAX_CODE_CHARS": 20000,
            # Under this likeness the best match is called "no close match". On the demo
            # repository unrelated snippets (six: a matrix product, a model class, argparse...)
            # best scored 0.25 to 0.45, renamed copies of its functions 0.49 to 0.86.
            "CLOSE": 0.47,
        },
        # A question in words over many repositories (search.across_routing): how many of
        # them are ranked in full, picked by one pass over all their static vectors and word
        # counts; how many of each one's best units its closeness averages; the weight of its
        # words' CORI belief beside that; how much a repository's evidence falling below the
        # likeliest one's costs its units in the merged order (search.across.merge). Chosen
        # on the large-repository dev set's tuning part, every question asked over all 20
        # repositories (docs/eval/across-quality*.json; docs/BENCHMARKS.md,
        # "All repositories at once: routed"). REPOSITORIES 0 ranks every repository.
        "ACROSS": {
            "REPOSITORIES": env_int("REPORIFT_ACROSS_REPOSITORIES", 2),
            "EVIDENCE_UNITS": 3,
            "WORDS": 16.0,
            "EVIDENCE_WEIGHT": 12.0,
        },
        # Exact search (search.exact): lines shown at most, lines counted at most (a count
        # beyond is "at least"), and the characters a pattern with no trigram to look up may
        # read before it stops and says so.
        "EXACT": {
            "MAX_HITS": env_int("REPORIFT_EXACT_MAX_HITS", 500),
            "MAX_COUNT": 10_000,
            "SCAN_CHARS": env_int("REPORIFT_EXACT_SCAN_CHARS", 64 * 2**20),
            "CONTEXT_LINES": 2,
        },
    },
}

RATELIMIT_USE_CACHE = "default"
if REPORIFT["LLM"]["BASE_URL"] and not REPORIFT["LLM"]["MODEL"]:
    # A guessed default model name would fail later, far from the cause, or silently bill a
    # model the operator never chose.
    raise ImproperlyConfigured(
        "OPENAI_BASE_URL is set but REPORIFT_LLM_MODEL is not: name the model the endpoint "
        "serves (for example REPORIFT_LLM_MODEL=qwen2.5-coder:1.5b for Ollama)"
    )

CACHES = {
    "default": (
        {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": os.environ["REDIS_URL"],
        }
        if os.environ.get("REDIS_URL")
        else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    )
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("REPORIFT_LOG_LEVEL", "INFO")},
    "loggers": {
        "chromadb": {"level": "WARNING"},
        "httpx": {"level": "WARNING"},
        # It tells, at every start, which of its CPU builds it could not find before it loads one.
        "faiss": {"level": "WARNING"},
    },
}
