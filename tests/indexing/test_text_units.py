"""Documentation and configuration files cut into named `section` units (indexing.text_units)."""

import json
import textwrap

import pytest

from indexing.parsing import SECTION
from indexing.text_units import (
    MAX_CHARS,
    MAX_LINES,
    is_documentation_page,
    parse_text_file,
    text_format_for_path,
)


def parse(path: str, text: str):
    source = textwrap.dedent(text).lstrip("\n").encode()
    parsed = parse_text_file(source, path=path)
    assert parsed is not None
    assert_covered(parsed, source)
    return parsed


def assert_covered(parsed, source: bytes) -> None:
    """Every line in exactly one unit, in order; qualnames unique; every unit sized."""
    lines = source.decode("utf-8", errors="replace").split("\n")
    if lines[-1] == "":
        lines.pop()
    covered = [n for u in parsed.units for n in range(u.start_line, u.end_line + 1)]
    assert covered == list(range(1, len(lines) + 1))
    qualnames = [u.qualname for u in parsed.units]
    assert len(set(qualnames)) == len(qualnames), qualnames
    for unit in parsed.units:
        assert unit.kind == SECTION
        assert unit.end_line - unit.start_line + 1 <= MAX_LINES
        assert unit.code == "\n".join(lines[unit.start_line - 1 : unit.end_line])
        if unit.end_line > unit.start_line:
            assert len(unit.code) <= MAX_CHARS


def names(parsed) -> list[tuple[str, str, int, int]]:
    return [(u.name, u.qualname, u.start_line, u.end_line) for u in parsed.units]


@pytest.mark.parametrize(
    ("path", "fmt"),
    [
        ("README.md", "markdown"),
        ("docs/guide.mdx", "markdown"),
        ("docs/index.rst", "rst"),
        ("docs/modules/ROOT/pages/dependencies.adoc", "asciidoc"),
        ("doc/manual.asciidoc", "asciidoc"),
        (".github/workflows/ci.yml", "yaml"),
        ("pyproject.toml", "toml"),
        ("package.json", "json"),
        ("setup.cfg", "ini"),
        ("conf/app.properties", ".properties" and "ini"),
        (".env.example", "ini"),
        ("Dockerfile", "dockerfile"),
        ("docker/Dockerfile.dev", "dockerfile"),
        ("api.dockerfile", "dockerfile"),
        ("Containerfile", "dockerfile"),
        ("Makefile", "makefile"),
        ("GNUmakefile", "makefile"),
        ("rules.mk", "makefile"),
        ("src/Serilog/Serilog.csproj", "xml"),
        ("Directory.Build.props", "xml"),
        ("build/pack.targets", "xml"),
        ("pom.xml", "xml"),
        ("db/schema.sql", "sql"),
        ("templates/base.html", "html"),
        ("templates/mail.jinja", "html"),
        ("views/show.html.erb", "html"),
        ("static/site.scss", "css"),
        ("static/site.less", "css"),
    ],
)
def test_format_by_name(path, fmt):
    assert text_format_for_path(path) == fmt


@pytest.mark.parametrize(
    "path",
    [
        "package-lock.json",
        "yarn.lock",
        "pnpm-lock.yaml",
        "Cargo.lock",
        "poetry.lock",
        "a.py",
        "App.vue",
        "notes.txt",
        "logo.png",
        "res/layout/main.xml",  # only build files are read as XML
    ],
)
def test_not_a_text_format(path):
    assert text_format_for_path(path) is None
    assert parse_text_file(b"x", path=path) is None


def test_markdown_sections_by_heading():
    parsed = parse(
        "README.md",
        """
        [![build](https://ci/badge.svg)](https://ci)

        # RepoRift

        Finds code by meaning. Reads every file.

        ## Usage

        Run `reporift search`.

        ### Install from source

        ```bash
        # not a heading: inside a fence
        pip install .
        ```

        Configuration
        -------------

        Set `REPORIFT_MAX_FILES`.
        """,
    )
    assert parsed.language == "markdown"
    assert parsed.module_summary == "RepoRift"
    assert names(parsed) == [
        ("README.md", "README.md", 1, 2),
        ("RepoRift", "RepoRift", 3, 6),
        ("Usage", "Usage", 7, 10),
        ("Install from source", "Usage > Install from source", 11, 17),
        ("Configuration", "Configuration", 18, 21),
    ]
    usage = parsed.units[2]
    assert usage.signature == "## Usage"
    assert usage.docstring == "Run `reporift search`."
    assert parsed.units[1].docstring == "Finds code by meaning. Reads every file."
    assert parsed.units[4].signature == "Configuration"


def test_markdown_front_matter_is_not_a_heading():
    parsed = parse("docs/post.md", "---\ntitle: x\n---\n\n# Post\n\nText.\n")
    assert [u.name for u in parsed.units] == ["post.md", "Post"]


def test_rst_sections_by_underline_style():
    parsed = parse(
        "docs/index.rst",
        """
        =====
        Guide
        =====

        Intro paragraph.

        Install
        -------

        Text.

        From source
        ~~~~~~~~~~~

        More text.

        Usage
        -----

        Use it.
        """,
    )
    assert parsed.language == "rst"
    assert [(n, q) for n, q, _, _ in names(parsed)] == [
        ("Guide", "Guide"),
        ("Install", "Install"),
        ("From source", "Install > From source"),
        ("Usage", "Usage"),
    ]
    assert parsed.units[0].docstring == "Intro paragraph."


def test_asciidoc_sections_by_both_heading_styles_never_inside_blocks():
    parsed = parse(
        "docs/guide.adoc",
        """
        = Guide

        Intro text.

        == Install
        Get it with:

        [source,bash]
        ----
        == not a heading, inside a listing
        ----

        ```java
        == nor inside a fence
        ```

        === From source
        Build it.

        Older style
        -----------
        Two-line headings, underlined.

        Deeper
        ~~~~~~
        Under it.
        """,
    )
    assert parsed.language == "asciidoc"
    assert [u.qualname for u in parsed.units] == [
        "Guide",
        "Install",
        "Install > From source",
        "Older style",
        "Older style > Deeper",
    ]
    install = parsed.units[1]
    assert install.docstring == "Get it with:" and "inside a listing" in install.code


def test_yaml_top_level_keys_and_children_of_a_large_key():
    steps = "".join(
        f"      - name: step {n}\n        run: |\n          echo {n}\n          key: not a key\n"
        for n in range(20)
    )
    text = (
        "name: CI\n"
        "on:\n  push:\n    branches: [main]\n"
        "jobs:\n"
        "  test:\n    runs-on: ubuntu-latest\n    steps:\n" + steps + "  lint:\n    runs-on: x\n"
    )
    parsed = parse(".github/workflows/ci.yml", text)
    assert parsed.language == "yaml" and not parsed.has_errors
    qualnames = [u.qualname for u in parsed.units]
    assert qualnames[:2] == ["name", "on"]
    assert "jobs.test.runs-on" in qualnames or "jobs.test" in qualnames
    assert "jobs.test.steps[0]" in qualnames
    assert "jobs.lint" in qualnames
    assert not any("key" in q for q in qualnames)  # a block scalar's lines are not keys
    lint = next(u for u in parsed.units if u.qualname == "jobs.lint")
    assert lint.name == "jobs.lint" and lint.signature == "lint:"


def test_yaml_small_file_is_one_unit_per_key():
    parsed = parse("docker-compose.yml", "version: '3'\nservices:\n  web:\n    image: x\n")
    assert [u.name for u in parsed.units] == ["version", "services"]


def test_toml_tables():
    parsed = parse(
        "pyproject.toml",
        """
        [project]
        name = "x"
        dependencies = [
          "[not a table]",
        ]

        # Lint settings
        [tool.ruff]
        line-length = 100

        [[tool.mypy.overrides]]
        module = "a"
        """,
    )
    assert names(parsed) == [
        ("project", "project", 1, 6),
        ("tool.ruff", "tool.ruff", 7, 10),
        ("tool.mypy.overrides", "tool.mypy.overrides", 11, 12),
    ]
    assert parsed.units[1].signature == "[tool.ruff]"


def test_json_top_level_keys_and_one_liners_merged():
    data = {"name": "x", "version": "1.0.0", "scripts": {"build": "tsc", "test": "jest"}}
    parsed = parse("package.json", json.dumps(data, indent=2) + "\n")
    assert [u.name for u in parsed.units] == ["name, version", "scripts"]
    assert parsed.units[1].signature == '"scripts": {'


def test_json_large_key_cut_at_its_keys():
    data = {"name": "x", "config": {f"k{n}": list(range(8)) for n in range(12)}}
    parsed = parse("settings.json", json.dumps(data, indent=2) + "\n")
    qualnames = [u.qualname for u in parsed.units]
    assert "config.k0" in qualnames and "config.k11" in qualnames


def test_jsonc_with_comments_is_read():
    parsed = parse("tsconfig.json", '{\n  // strict\n  "compilerOptions": {"strict": true,},\n}\n')
    assert not parsed.has_errors
    assert [u.name for u in parsed.units] == ["compilerOptions"]


def test_ini_sections_and_properties_blocks():
    parsed = parse("setup.cfg", "[metadata]\nname = x\n\n; tests\n[tool:pytest]\naddopts = -q\n")
    assert [u.name for u in parsed.units] == ["metadata", "tool:pytest"]
    env = parse(".env.example", "DEBUG=1\nPORT=80\n\n# database\nDB_URL=postgres://\n")
    assert [u.name for u in env.units] == ["DEBUG", "DB_URL"]
    assert env.units[1].start_line == 4  # with its comment


def test_dockerfile_stages():
    parsed = parse(
        "Dockerfile",
        """
        ARG PYTHON=3.11
        # build the wheel
        FROM python:${PYTHON} AS build
        RUN pip wheel .

        FROM gcr.io/distroless/python3
        COPY --from=build /w /w
        """,
    )
    assert names(parsed) == [
        ("Dockerfile", "Dockerfile", 1, 1),
        ("build", "build", 2, 5),
        ("gcr.io/distroless/python3", "gcr.io/distroless/python3", 6, 7),
    ]
    assert parsed.language == "dockerfile"


def test_makefile_targets():
    parsed = parse(
        "Makefile",
        """
        PYTHON := python3

        .PHONY: test lint
        # Run the tests
        test: setup
        \t$(PYTHON) -m pytest -q

        lint:
        \truff check .

        OUT = dist
        clean:
        \trm -rf $(OUT)
        """,
    )
    assert [u.name for u in parsed.units] == ["PYTHON", "test", "lint", "OUT", "clean"]
    test = parsed.units[1]
    assert test.signature == "test: setup" and test.start_line == 4


def _project(children: int) -> str:
    """An MSBuild project whose root holds `children` property groups of 12 lines each."""
    group = "".join(f"    <Item{n}>value</Item{n}>\n" for n in range(10))
    body = "".join(
        f'  <PropertyGroup Label="Group{n}">\n{group}  </PropertyGroup>\n' for n in range(children)
    )
    return f"<Project>\n{body}</Project>\n"


def test_msbuild_project_blocks_at_the_root_children():
    parsed = parse(
        "Directory.Build.props",
        """
        <Project>
          <!-- The version every package of the solution is packed with. -->
          <PropertyGroup>
            <VersionPrefix>4.3.2</VersionPrefix>
          </PropertyGroup>
          <Target Name="Pack" DependsOnTargets="Build"
                  Condition=" '$(Configuration)' == 'Release' ">
            <Exec Command="dotnet pack" />
          </Target>
        </Project>
        """,
    )
    # A small file is one unit, named after its first block; its comment is in it.
    assert names(parsed) == [("PropertyGroup", "PropertyGroup", 1, 10)]
    assert "version every package" in parsed.units[0].code
    large = parse("Serilog.csproj", _project(8))
    # Too large for one unit: blocks packed while they fit, each unit named after its first.
    found = [u.name for u in large.units]
    assert len(found) > 1 and found[0] == "PropertyGroup Group0"
    assert all(name.startswith("PropertyGroup Group") for name in found)


def test_maven_project_blocks_never_inside_comments_or_cdata():
    dependencies = "  <dependencies>\n" + "    <dependency/>\n" * 40 + "  </dependencies>\n"
    parsed = parse(
        "pom.xml",
        "<project>\n  <modelVersion>4.0.0</modelVersion>\n"
        + "  <!-- <dependencies> in a comment opens nothing -->\n"
        + "  <description><![CDATA[ <build> ]]></description>\n"
        + dependencies * 2
        + "</project>\n",
    )
    # The comment's and the CDATA's tags open no block; the second `<dependencies>` does.
    assert [(u.name, u.start_line) for u in parsed.units] == [
        ("modelVersion", 1),
        ("dependencies", 47),
    ]


def test_sql_statements():
    parsed = parse(
        "db/schema.sql",
        """
        -- Accounts
        CREATE TABLE IF NOT EXISTS users (
          id serial primary key,
          name text -- ; not the end
        );
        CREATE OR REPLACE FUNCTION touch() RETURNS trigger AS $$
        BEGIN
          NEW.updated = now();
          RETURN NEW;
        END;
        $$ LANGUAGE plpgsql;
        INSERT INTO users (name) VALUES ('a;b');
        INSERT INTO users (name) VALUES ('c');
        CREATE INDEX users_name ON users (name);
        """,
    )
    assert names(parsed) == [
        ("users", "users", 1, 5),
        ("touch", "touch", 6, 11),
        ("INSERT INTO users", "INSERT INTO users", 12, 13),
        ("users_name", "users_name", 14, 14),
    ]
    assert parsed.units[0].signature == "CREATE TABLE IF NOT EXISTS users ("


def test_html_template_blocks_and_css_rules_sized():
    body = "".join(f"  <p>line {n}</p>\n" for n in range(58))
    parsed = parse(
        "templates/page.html",
        "{% extends 'base.html' %}\n{% block head %}\n<title>x</title>\n{% endblock %}\n"
        "{% block content %}\n" + body + "{% endblock %}\n",
    )
    assert [u.name for u in parsed.units][:2] == ["head", "content"]
    rules = "".join(f".c{n},\n.d{n} {{\n  color: red;\n}}\n" for n in range(40))
    css = parse("static/site.css", "@charset 'utf-8';\n/* buttons */\n" + rules)
    assert css.language == "css"
    assert len(css.units) > 1
    assert css.units[1].name.startswith(".c") and css.units[1].signature.startswith(".c")


def test_long_section_split_into_named_parts():
    text = "# Guide\n\n## Reference\n\n" + "".join(f"Line {n} of text.\n\n" for n in range(100))
    parsed = parse("docs/guide.md", text)
    parts = [u for u in parsed.units if u.name.startswith("Reference")]
    assert [u.name for u in parts] == [
        "Reference",
        "Reference (2)",
        "Reference (3)",
        "Reference (4)",
    ]
    assert [u.qualname for u in parts][1] == "Reference (2)"
    assert parts[0].docstring and not parts[1].docstring
    huge = parse("big.md", "# One\n" + "x" * 10 + "\n" + ("y" * 500 + "\n") * 20)
    assert len(huge.units) > 1


def test_same_heading_twice_gets_unique_qualnames():
    parsed = parse("CHANGES.md", "## Fixed\n\na\n\n## Fixed\n\nb\n")
    assert [u.qualname for u in parsed.units] == ["Fixed", "Fixed (2)"]


@pytest.mark.parametrize(
    ("path", "text", "line"),
    [
        ("broken.json", '{\n  "a": 1,\n  "b": ,\n}\n', 3),
        ("broken.toml", "[a]\nx = 1\ny = = 2\n", 3),
        ("broken.yaml", "a: 1\nb: [unclosed\nc: 2\n", 4),
    ],
)
def test_unreadable_file_falls_back_to_flagged_windows(path, text, line):
    parsed = parse(path, text)
    assert parsed.has_errors
    assert parsed.error_lines and 1 <= parsed.error_lines[0] <= line
    assert [u.name for u in parsed.units] == [path]


def test_templated_yaml_is_not_flagged():
    parsed = parse("chart/templates/deploy.yaml", "kind: {{ .Values.kind }}\nspec:\n  a: 1\n")
    assert not parsed.has_errors
    assert [u.name for u in parsed.units] == ["kind", "spec"]


def test_invalid_utf8_and_empty_files():
    parsed = parse_text_file(b"# Title\n\nbad \xff byte\n", path="README.md")
    assert parsed.decoded_with_replacement and [u.name for u in parsed.units] == ["Title"]
    assert parse_text_file(b"", path="README.md").units == []
    assert parse_text_file(b"\n\n", path="a.yml").units == []


def test_crlf_and_no_final_newline():
    parsed = parse_text_file(b"# A\r\ntext\r\n# B\r\nmore", path="x.md")
    assert names(parsed) == [("A", "A", 1, 2), ("B", "B", 3, 4)]
    assert parsed.units[0].code == "# A\ntext"


def test_pages_of_prose_are_told_from_configuration_and_build_files():
    for page in ("README.md", "docs/guide.rst", "docs/modules/ROOT/pages/install.adoc"):
        assert is_documentation_page(page), page
    for other in ("Directory.Version.props", "config.yaml", "Makefile", "pom.xml", "a.py", "x"):
        assert not is_documentation_page(other), other
