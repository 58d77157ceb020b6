"""What the pages say of runs, in the words the API and the command line use."""

from django import template

from indexing.selectors import nothing_to_read_message

register = template.Library()


@register.filter
def nothing_to_read(run) -> str:
    return nothing_to_read_message(run)
