"""Keep every library offline and quiet: no telemetry, no model hub, no version checks.

Imported first by settings, before chromadb, crewai or tokenizers can read their environment.
"""

import os

OFFLINE_ENVIRONMENT = {
    "ANONYMIZED_TELEMETRY": "False",
    "CHROMA_TELEMETRY": "False",
    "OTEL_SDK_DISABLED": "true",
    "CREWAI_DISABLE_TELEMETRY": "true",
    "CREWAI_DISABLE_TRACKING": "true",
    "CREWAI_TRACING_ENABLED": "false",
    "CREWAI_DISABLE_VERSION_CHECK": "true",
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "DO_NOT_TRACK": "1",
    "TOKENIZERS_PARALLELISM": "false",
}

for key, value in OFFLINE_ENVIRONMENT.items():
    os.environ.setdefault(key, value)
