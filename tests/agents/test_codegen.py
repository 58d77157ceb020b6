import pytest

from agents.codegen import extract_code, generate_code, split_components
from tests.agents.conftest import Reply

pytestmark = pytest.mark.django_db
GOOD = """```python
def read_file(path):
    with open(path) as f:
        return f.read()


class Cache:
    def get(self, key):
        def inner():
            return key
        return inner()
```
This reads."""


def test_extract_and_split():
    code = extract_code(GOOD)
    assert code.startswith("def read_file") and "This reads" not in code
    components, clean = split_components(code)
    assert clean
    assert [c.splitlines()[0] for c in components] == [
        "def read_file(path):",
        "def get(self, key):",
    ]
    assert extract_code("def a():\n    return 1") == "def a():\n    return 1"


def test_generate(fake_client, fake_llm):
    fake_llm.answer(GOOD)
    result = generate_code("read a file", client=fake_client)
    assert len(result.components) == 2 and not result.repaired and not result.dropped_reason


def test_repaired_once(fake_client, fake_llm):
    fake_llm.answer(
        "```python\ndef broken(:\n    pass\n```", "```python\ndef fixed():\n    pass\n```"
    )
    result = generate_code("x", client=fake_client)
    assert result.repaired and result.code.startswith("def fixed")
    assert len(fake_llm.requests) == 2


def test_dropped_with_reason(fake_client, fake_llm):
    fake_llm.answer(Reply("```python\ndef broken(:\n```"))
    result = generate_code("x", client=fake_client)
    assert result.code == "" and result.components == []
    assert "even after one repair" in result.dropped_reason


def test_no_code(fake_client, fake_llm):
    fake_llm.answer("")
    assert generate_code("x", client=fake_client).dropped_reason == "the model returned no code"


def test_budget_bounds_the_stage(fake_client, fake_llm):
    import time

    from agents.errors import LLMError

    fake_llm.answer(Reply("```python\ndef slow():\n    pass\n```", delay_s=3))
    start = time.monotonic()
    with pytest.raises(LLMError, match="timed out"):
        generate_code("x", client=fake_client, budget_s=0.5)
    assert time.monotonic() - start < 1.5  # not the client's own 2 s, not the server's 3 s


def test_short_style_asks_for_one_function(fake_client, fake_llm):
    fake_llm.answer("```python\ndef reverse(s):\n    return s[::-1]\n```")
    result = generate_code("reverse a string", client=fake_client, style="short")
    assert result.components == ["def reverse(s):\n    return s[::-1]"]
    assert "at most 15 lines" in fake_llm.requests[0]["messages"][0]["content"]
    assert fake_llm.requests[0]["max_tokens"] == 200
