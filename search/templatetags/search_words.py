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
