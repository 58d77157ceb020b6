"""Fast mode judged by the files it names, on small trees indexed for real: the file named for
a topic comes first among files of like content, a topic spread over many units of one large
file ranks that file first, a behaviour question ranks the code above a page about it, and a
setup question ranks the page first."""

from __future__ import annotations

import pytest

from indexing.services import index_run_execute, index_run_start, repository_create
from search.services import search

ADAPTER = """// Reads and writes documents of one text format for the store.
const lib = require("{module}");

class Adapter {{
  constructor(options) {{
    this.options = options || {{}};
  }}

  parse(text) {{
    return lib.{load}(text, this.options);
  }}

  stringify(value) {{
    return lib.{dump}(value, this.options);
  }}
}}

module.exports = Adapter;
"""

# A unit elsewhere whose body shares the question's words.
FORMATS = """// Which adapter reads a file: the yaml adapter for .yaml and .yml files, the json
// adapter for .json files, the toml adapter for .toml files.
function adapterFor(file) {
  // yaml files (and yml files) are read by the yaml adapter
  if (file.endsWith(".yaml") || file.endsWith(".yml")) return loadAdapter("yaml");
  // json files are read by the json adapter
  if (file.endsWith(".json")) return loadAdapter("json");
  return loadAdapter("toml");
}

function loadAdapter(name) {
  const Adapter = require(`../adapters/${name}_adapter`);
  return new Adapter();
}

module.exports = { adapterFor };
"""

DATE_PARSE = """/* Reading day, month and year out of text. */
#include "date.h"

int read_day(const char *text, struct tm *out)
{
\treturn sscanf(text, "%d", &out->tm_mday) == 1 ? 0 : -1;
}

int read_month_name(const char *text, struct tm *out)
{
\tfor (int i = 0; i < 12; i++)
\t\tif (!strncasecmp(text, month_names[i], 3)) {
\t\t\tout->tm_mon = i;
\t\t\treturn 0;
\t\t}
\treturn -1;
}

int read_iso(const char *text, struct tm *out)
{
\treturn sscanf(text, "%d-%d-%d", &out->tm_year, &out->tm_mon, &out->tm_mday) == 3 ? 0 : -1;
}
"""

DATE_FORMAT = """/* Writing day, month and year as text. */
#include "date.h"

int write_day(char *buf, const struct tm *tm)
{
\treturn sprintf(buf, "%d", tm->tm_mday);
}

int write_month_name(char *buf, const struct tm *tm)
{
\treturn sprintf(buf, "%s", month_names[tm->tm_mon]);
}

int write_iso(char *buf, const struct tm *tm)
{
\treturn sprintf(buf, "%04d-%02d-%02d", tm->tm_year, tm->tm_mon, tm->tm_mday);
}
"""

CALENDAR = """/* The calendar view. */
#include "date.h"

/* Parse the date the user typed, as ISO or with the month's name, and show its month. */
int calendar_parse_typed_date(const char *typed, struct calendar *cal)
{
\tstruct tm tm;
\tif (read_iso(typed, &tm) && read_month_name(typed, &tm))
\t\treturn -1; /* not a date we can parse */
\tcal->month = tm.tm_mon;
\treturn 0;
}
"""


def _index(write_repo, name: str, files: dict[str, str]):
    repository = repository_create(name=name, source=str(write_repo(files)), is_public=True)
    run = index_run_execute(run=index_run_start(repository=repository, enqueue=False))
    assert run.status == "succeeded", run.error
    repository.refresh_from_db()
    return repository


def _first_files(repository, query: str, n: int = 3) -> list[str]:
    results = search(repository=repository, query=query, k=10).results
    return list(dict.fromkeys(r.unit.path for r in results))[:n]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "query, files, wanted",
    [
        (
            "the yaml adapter",
            {
                "adapters/yaml_adapter.js": ADAPTER.format(
                    module="js-yaml", load="load", dump="dump"
                ),
                "adapters/json_adapter.js": ADAPTER.format(
                    module="./json5", load="parse", dump="stringify"
                ),
                "adapters/toml_adapter.js": ADAPTER.format(
                    module="@iarna/toml", load="parse", dump="stringify"
                ),
                "lib/formats.js": FORMATS,
            },
            "adapters/yaml_adapter.js",
        ),
        (
            "date parsing helpers",
            {
                "src/date_parse.c": DATE_PARSE,
                "src/date_format.c": DATE_FORMAT,
                "src/calendar.c": CALENDAR,
            },
            "src/date_parse.c",
        ),
    ],
    ids=["javascript", "c"],
)
def test_a_topic_phrase_finds_the_file_named_for_it(write_repo, query, files, wanted):
    repository = _index(write_repo, "topic", files)
    assert _first_files(repository, query)[0] == wanted


# One file of many small string helpers (a utilities file no name points at) and three small
# files, each with one function about the same topic in its own words.
KIT = '''"""Small helpers used across the project."""


def trim_whitespace(text):
    """Remove leading and trailing whitespace from a string."""
    return text.strip()


def collapse_whitespace(text):
    """Turn every run of whitespace inside a string into one space."""
    return " ".join(text.split())


def strip_trailing_whitespace(text):
    """Remove the whitespace at the end of every line of a string."""
    return "\\n".join(line.rstrip() for line in text.splitlines())


def normalise_line_endings(text):
    """Turn Windows and old Mac line endings into newlines."""
    return text.replace("\\r\\n", "\\n").replace("\\r", "\\n")


def expand_tabs_to_spaces(text, size=4):
    """Replace tabs with spaces, keeping columns aligned."""
    return text.expandtabs(size)


def dedent_block(text):
    """Remove the whitespace indentation common to every line of a block of text."""
    import textwrap

    return textwrap.dedent(text)


def indent_block(text, prefix="    "):
    """Add whitespace indentation in front of every line of a block of text."""
    return "".join(prefix + line for line in text.splitlines(True))


def is_blank(text):
    """True for a string that holds only whitespace."""
    return not text.strip()
'''

HEADER = '''def clean_header_value(value):
    """Header values lose the whitespace around them and folded lines become one."""
    return " ".join(value.split())
'''

ARGS = '''def normalise_argument(argument):
    """Command-line arguments are trimmed of surrounding whitespace before parsing."""
    return argument.strip()
'''

MESSAGE = '''def tidy_message(message):
    """A log message keeps no trailing whitespace or blank lines at its end."""
    return message.rstrip()
'''


@pytest.mark.django_db
def test_a_topic_spread_over_many_units_of_one_file_ranks_that_file_first(write_repo):
    repository = _index(
        write_repo,
        "kit",
        {
            "project/kit.py": KIT,
            "project/http/header.py": HEADER,
            "project/cli/args.py": ARGS,
            "project/log/message.py": MESSAGE,
        },
    )
    assert _first_files(repository, "whitespace cleanup of strings and lines of text")[0] == (
        "project/kit.py"
    )


GENERATOR = '''"""Render the API reference: one HTML page per module, from its source comments."""

import ast
import html


def module_comments(source):
    """The docstrings of a module's functions and classes, by name."""
    tree = ast.parse(source)
    return {
        node.name: ast.get_docstring(node) or ""
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.ClassDef))
    }


def render_page(module_name, source):
    """One HTML page listing every function and class of the module with its comment."""
    items = "".join(
        f"<h2>{html.escape(name)}</h2><p>{html.escape(text)}</p>"
        for name, text in sorted(module_comments(source).items())
    )
    return f"<html><h1>{html.escape(module_name)}</h1>{items}</html>"


def render_site(modules, out_dir):
    """Write every module's page under `out_dir`."""
    for name, source in modules.items():
        (out_dir / f"{name}.html").write_text(render_page(name, source))
'''

PAGE = """# The API reference

## How the reference pages are rendered

The API reference is rendered from source comments: every module gets one HTML page, and each
function and class of the module is listed on its page with its comment. The pages are rendered
again whenever a module's source comments change.

## Installing the generator

Install it with `pip install refgen`, then run `refgen build src/ site/` to render the pages
for the first time. It needs Python 3.10 or later.
"""


@pytest.fixture
def generator_repo(db, write_repo):
    return _index(write_repo, "refgen", {"refgen/render.py": GENERATOR, "docs/reference.md": PAGE})


@pytest.mark.parametrize(
    "query, wanted",
    [
        # Behaviour questions: the code, though the page speaks of it in the question's words.
        pytest.param(
            "render the api reference pages from source comments",
            "refgen/render.py",
            id="behaviour",
        ),
        # A page's section whose heading restates the question: a page of prose steps back
        # further than a configuration file (docs/BENCHMARKS.md, "Pages of prose after code").
        pytest.param(
            "how are the reference pages rendered from comments",
            "refgen/render.py",
            id="how-behaviour",
        ),
        # Setup questions: the page.
        pytest.param(
            "install the generator and run it for the first time", "docs/reference.md", id="setup"
        ),
        pytest.param(
            "how do I install the reference generator", "docs/reference.md", id="how-do-i"
        ),
    ],
)
def test_code_before_pages_unless_the_question_asks_for_setup(generator_repo, query, wanted):
    assert _first_files(generator_repo, query)[0] == wanted
