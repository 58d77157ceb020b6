"""Settings read from the environment fail early and clearly."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def load_settings(**env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", "import reporift.settings"],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_endpoint_without_a_model_name_is_a_start_up_error(tmp_path):
    done = load_settings(
        OPENAI_BASE_URL="http://127.0.0.1:11434/v1", REPORIFT_DATA_DIR=str(tmp_path)
    )
    assert done.returncode != 0
    assert "OPENAI_BASE_URL is set but REPORIFT_LLM_MODEL is not" in done.stderr


def test_endpoint_with_a_model_name_loads(tmp_path):
    done = load_settings(
        OPENAI_BASE_URL="http://127.0.0.1:11434/v1",
        REPORIFT_LLM_MODEL="qwen2.5-coder:1.5b",
        REPORIFT_DATA_DIR=str(tmp_path),
    )
    assert done.returncode == 0, done.stderr
