"""Which questions ask for a page or a configuration file rather than code.

A section of documentation or configuration that speaks of a feature is not where the feature
is done (`search.ranking.structure` steps it back), unless the question asks for a page or a
reader's task: installing, setting up, building from source, the default settings, a guide.
"""

from __future__ import annotations

import re

# Words of a question about documentation, installing, building or configuring, where a page of
# prose or a configuration file is the answer: a reader's task ("how do I ...", "install with
# ...", "setting up ...", "default settings") or a page by its kind (a guide, the README). Words
# of configuration or formats alone ("load a yaml config file", "dependency versions") name what
# code does as often as not.
_DOCS_WORDS = re.compile(
    r"\b(docs|documentation|readme|guides|guidelines?|tutorials?|manual|changelog|"
    r"contribut\w*|getting started|quick ?start|release notes?|migration guide|"
    r"(?:build|compile|install)\w* (?:\w+ )?from source|how (?:do|can|should) (?:i|you|we)|"
    r"how to|set up|setting up|install(?:ing|ation)?|default (?:settings?|config\w*|options?)|"
    r"config(?:uration)? options?|options? reference|environment variables?|"
    r"(?:which|what|required|minimum|supported) (?:\w+ )?(?:dependenc(?:y|ies)|versions?))\b",
    re.IGNORECASE,
)
# A question about how the system does something ("how is ...", "how are ...", "how does ..."):
# its code answers, even when what it does is about pages ("how are the docs pages generated").
_ABOUT_SYSTEM = re.compile(r"^\s*how (?:is|are|does|do)\b(?! (?:i|you|we)\b)", re.IGNORECASE)


# The broader words an issue's title about docs or setup uses (`search.locate`, where a title
# such as "yaml config ignored" is about configuration files).
_SETUP_WORDS = re.compile(
    r"\b(docs?|documentation|documented|readme|guide|tutorial|manual|changelog|license|"
    r"contributing|install\w*|set ?up|setups?|configur\w*|config|settings?|env(?:ironment)? "
    r"variables?|build (?:from source|options|instructions)|deploy\w*|docker\w*|yaml|toml|"
    r"json|ini|properties|dependenc(?:y|ies)(?! inject)|requirements?|version(?:s|ing)?|"
    r"release notes?|getting started|quick ?start)\b",
    re.IGNORECASE,
)


def mentions_setup(text: str) -> bool:
    """The text uses a word of docs, setup, configuration or formats."""
    return _SETUP_WORDS.search(text) is not None


def asks_about_docs(query: str) -> bool:
    """The question asks for a page or a configuration file rather than code."""
    return _DOCS_WORDS.search(query) is not None and _ABOUT_SYSTEM.search(query) is None
