"""The label agents' tests use a scripted in-process LLM (tests.support.scripted_llm); the
embedded model's own test is in test_embedded.py."""

from __future__ import annotations

import pytest

from tests.support.scripted_llm import ScriptedLLM


@pytest.fixture
def scripted():
    return ScriptedLLM
