"""What the pages say of runs, in the words the API and the command line use."""

from django import template

from indexing.selectors import nothing_to_read_message
from reporift.words import elide_middle

register = template.Library()


@register.filter
def nothing_to_read(run) -> str:
    return nothing_to_read_message(run)


@register.filter
def elided(name: str, width: int = 80) -> str:
    """A long qualified name cut in the middle (the page shows it whole on hover)."""
    return elide_middle(name, width)


@register.simple_tag
def issue_char_limit() -> int:
    """How long a pasted issue may be: the limit every client is held to, read where it is set."""
    from search.retrieval import search_config

    return search_config()["MAX_ISSUE_CHARS"]


@register.filter
def thousands(number: int) -> str:
    """32000 as 32,000, as the refusals write it."""
    return f"{number:,}"
