"""An LLM's suspects for an issue: parsed and checked, garbage refused; and full mode's locate
uses them, reporting a model that fails (a scripted model stands in for the LLM here)."""

import pytest

from agents.errors import LLMError
from agents.suspects import name_suspects, parse_suspects


def test_a_json_answer_gives_suspects_and_prose_around_it_is_ignored():
    found = parse_suspects(
        'Sure! {"files": ["shop/inventory.py"], "symbols": ["Stock.reserve", 3], '
        '"concepts": ["stock reservation"]} Hope this helps.'
    )
    assert found.files == ["shop/inventory.py"] and found.symbols == ["Stock.reserve"]
    assert found.concepts == ["stock reservation"]


@pytest.mark.parametrize(
    "answer", ["I think it is in the inventory.", '{"files": []}', '{"files": "x"', "[1, 2]"]
)
def test_garbage_is_refused_as_an_llm_error(answer):
    with pytest.raises(LLMError):
        parse_suspects(answer)


class Scripted:
    def __init__(self, text):
        self.text, self.prompts = text, []

    def complete(self, messages, **options):
        from agents.llm import Completion

        self.prompts.append(messages)
        return Completion(self.text, "scripted", 1.0)


def test_the_prompt_holds_the_issue_as_data_and_a_sample_of_paths():
    client = Scripted('{"files": ["a.py"]}')
    found = name_suspects(issue="x" * 7000, paths=[f"p{n}.py" for n in range(400)], client=client)
    user = client.prompts[0][1]["content"]
    assert "<<<DATA" in user and "p0.py" in user and user.count(".py") <= 160
    assert found.cut and found.model == "scripted"
