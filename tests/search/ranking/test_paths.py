"""A file's path as evidence: its words, their rarity among the repository's paths, and how well
a path names a question's topic."""

from __future__ import annotations

import pytest

from search.ranking.paths import (
    count_path_words,
    path_topic,
    path_words,
    same_stem,
    split_words,
    topic_words,
)


def test_names_split_at_separators_and_case_changes():
    assert split_words("XMLConfigBuilder") == ["xml", "config", "builder"]
    assert split_words("yaml_adapter") == ["yaml", "adapter"]
    assert split_words("parse-options") == ["parse", "options"]


def test_path_words_leave_out_layout_and_name_a_folder_file_by_its_folder():
    assert path_words("adapters/yaml_adapter.js") == (
        frozenset({"yaml", "adapter"}),
        frozenset({"adapters"}),
    )
    assert path_words("src/cargo/core/resolver/mod.rs") == (
        frozenset({"resolver"}),
        frozenset({"cargo"}),
    )
    assert path_words("lib/XUtils.java")[0] == frozenset({"x"})
    # An extensionless script is named by itself, even when its name is a folder file's.
    assert path_words("plugins/git/functions")[0] == frozenset({"functions"})


@pytest.mark.parametrize(
    "asked, path_word, same",
    [
        ("parsing", "parse", True),
        ("validation", "validator", True),
        ("translating", "translate", True),
        ("adapters", "adapter", True),
        ("io", "io", True),
        ("request", "require", False),
        ("keys", "keystate", False),
        ("db", "dbs", False),
    ],
)
def test_one_stem(asked, path_word, same):
    assert same_stem(asked, path_word) is same


def test_the_file_named_for_the_topic_scores_highest():
    counts = count_path_words(
        [
            "adapters/yaml_adapter.js",
            "adapters/json_adapter.js",
            "adapters/toml_adapter.js",
            "lib/formats.js",
            "lib/loader.js",
        ]
    )
    words = topic_words({"the", "yaml", "adapter"})
    assert words == {"yaml", "adapter"}
    scores = {
        path: path_topic(path, words, counts)
        for path in ("adapters/yaml_adapter.js", "adapters/json_adapter.js", "lib/formats.js")
    }
    assert scores["adapters/yaml_adapter.js"] == pytest.approx(1.0)
    assert 0 < scores["adapters/json_adapter.js"] < 0.6
    assert scores["lib/formats.js"] == 0.0


def test_a_long_sentence_with_one_word_of_a_name_names_it_little():
    counts = count_path_words(["thor/command.rb", "thor/invocation.rb", "thor/runner.rb"])
    typed = "typing only the first few letters of a command name still runs the right command"
    sentence = topic_words(typed.split(" "))
    assert 0 < path_topic("thor/command.rb", sentence, counts) < 0.35
    assert path_topic("thor/command.rb", topic_words({"command"}), counts) == pytest.approx(1.0)


def test_common_words_weigh_less_than_rare_ones():
    paths = [f"rules/{name}_rule.js" for name in ("indent", "quotes", "semi", "eqeqeq")]
    counts = count_path_words([*paths, "lib/indent_helpers.js"])
    assert counts.rarity("eqeqeq") > counts.rarity("rule")
    # "indent" is asked for; "rule" is in every rule's name, so the rare word decides.
    words = topic_words({"indent"})
    assert path_topic("rules/indent_rule.js", words, counts) > 0.5
    assert path_topic("rules/quotes_rule.js", words, counts) == 0.0
