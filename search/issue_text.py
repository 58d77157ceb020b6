"""Reading an issue: what in a pasted bug report locates code, apart from what narrates.

An issue holds a title, prose, and often the clues a developer reads first: traceback frames
(a file, a line, a function), file paths, the names of functions and types (in backticks, in
code blocks, in prose), the exception and its message, code blocks and commands. `read_issue`
separates them, so that each can be searched with the streams it suits (`search.locate`):
a frame or a path is resolved against the repository's files, a name against its definitions,
a message against the code that says it, and the prose by meaning and by words.

Pure text work, one language-neutral set of patterns: a frame is read the same whether Python,
Node, Java, Go, Rust or a C debugger printed it.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property

# Extensions a path mention may end with: code, docs and configuration a repository indexes.
_EXTENSIONS = [
    "py",
    "pyi",
    "pyx",
    "js",
    "mjs",
    "cjs",
    "jsx",
    "ts",
    "tsx",
    "go",
    "java",
    "kt",
    "kts",
    "scala",
    "cs",
    "php",
    "rb",
    "rs",
    "swift",
    "c",
    "h",
    "cc",
    "cpp",
    "cxx",
    "hpp",
    "hh",
    "hxx",
    "ex",
    "exs",
    "hs",
    "lua",
    "sh",
    "bash",
    "zsh",
    "zig",
    "ps1",
    "psm1",
    "m",
    "mm",
    "jq",
    "md",
    "rst",
    "txt",
    "yml",
    "yaml",
    "toml",
    "json",
    "ini",
    "cfg",
    "conf",
    "html",
    "css",
    "scss",
    "vue",
    "svelte",
    "sql",
    "proto",
    "gradle",
    "xml",
    "csproj",
    "props",
    "targets",
    "properties",
    "erl",
    "clj",
    "dart",
    "r",
    "pl",
]
_EXT = "|".join(sorted(_EXTENSIONS, key=len, reverse=True))
# A path: optional folders, a file name with a known extension (case-sensitive names).
_PATH = re.compile(rf"(?<![\w/.-])((?:[\w.@+-]+/)*[\w.@+-]*[\w-]\.(?:{_EXT}))(?![\w])")
# Frames, in the shapes the common runtimes print them.
_FRAME_PATTERNS = (
    # Python: File "pkg/mod.py", line 12, in func
    re.compile(r'File "(?P<path>[^"]+)", line (?P<line>\d+)(?:, in (?P<func>[\w<>.]+))?'),
    # Java, Kotlin, Scala: at com.pkg.Class.method(Class.java:12)
    re.compile(
        r"at (?P<qual>[\w$.]+)\.(?P<func>[\w$<>]+)\((?P<file>[\w$-]+\.(?:java|kt|scala)):"
        r"(?P<line>\d+)\)"
    ),
    # Node: at func (path/file.js:12:5), at path/file.js:12:5
    re.compile(r"at (?:(?P<func>[\w$.<>\[\] ]+?) \()?(?P<path>[^\s():]+\.\w+):(?P<line>\d+):\d+"),
    # Go, Rust, C, C++, Ruby, compilers: path/file.go:12(:5)
    re.compile(rf"(?P<path>/?(?:[\w.@+-]+/)*[\w.@+-]+\.(?:{_EXT})):(?P<line>\d+)\b"),
)
_FENCE = re.compile(r"^\s*(```|~~~)[^\n]*\n(?P<body>.*?)^\s*\1\s*$", re.M | re.S)
_INLINE_CODE = re.compile(r"`([^`\n]{1,200})`")
# Identifier-like tokens: dotted or scoped names, CamelCase, snake_case, calls.
_TOKEN = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|::|#|->)[A-Za-z_$][\w$]*)*")
_CAMEL = re.compile(r"[a-z][A-Z]|[A-Z]{2}[a-z]|^[A-Z][a-z]+[A-Z]")
# An exception or error line: `ValueError: message`, `error[E0277]: message`, `panic: message`.
_ERROR_LINE = re.compile(
    r"^\W*(?P<type>(?:[\w$]+\.)*[\w$]*(?:Error|Exception|Warning|Fault|Panic|Failure)"
    r"|panic|error(?:\[\w+\])?|fatal|FATAL|ERROR)\s*:\s*(?P<message>\S.{4,300})$",
    re.M,
)
_QUOTED = re.compile(r"""(?<![\w])(?:"([^"\n]{8,200})"|'([^'\n]{8,200})')""")
# Words that look like names in prose but locate nothing.
_COMMON = frozenset(
    [
        "true",
        "false",
        "null",
        "none",
        "nil",
        "self",
        "this",
        "error",
        "errors",
        "exception",
        "warning",
        "todo",
        "fixme",
        "http",
        "https",
        "www",
        "com",
        "org",
        "github",
        "json",
        "yaml",
        "html",
        "api",
        "url",
        "id",
        "ids",
        "ok",
        "etc",
        "e.g",
        "i.e",
    ]
)


@dataclass(frozen=True)
class Frame:
    """A traceback frame: the path as printed (absolute, relative, or a bare file name), its
    line, and its function when the runtime prints one."""

    path: str
    line: int
    function: str = ""
    # A Java frame's class, dotted (`com.pkg.Class`): its package is a folder path.
    qualifier: str = ""


@dataclass
class IssueClues:
    title: str
    prose: str  # the narrative: the text without code blocks and tracebacks
    frames: list[Frame] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)  # path mentions outside frames, in order
    # Names by how strongly the issue points at them: in code (backticks, blocks) or prose.
    code_names: Counter[str] = field(default_factory=Counter)
    prose_names: Counter[str] = field(default_factory=Counter)
    errors: list[tuple[str, str]] = field(default_factory=list)  # (type, message)
    messages: list[str] = field(default_factory=list)  # quoted strings and error messages
    code_blocks: list[str] = field(default_factory=list)

    @cached_property
    def names(self) -> list[str]:
        """Every name, strongest first."""
        weighted = Counter({n: 2 * c for n, c in self.code_names.items()})
        weighted.update(self.prose_names)
        return [name for name, _ in weighted.most_common()]


def _frames(text: str) -> list[Frame]:
    found: list[tuple[int, Frame]] = []
    taken: list[tuple[int, int]] = []
    for pattern in _FRAME_PATTERNS:
        for match in pattern.finditer(text):
            if any(a <= match.start() < b for a, b in taken):
                continue  # a more specific pattern read it already
            groups = match.groupdict()
            qualifier = groups.get("qual") or ""
            path = groups.get("path") or groups.get("file") or ""
            if not path or path.startswith(("http:", "https:")) or "://" in path:
                continue
            frame = Frame(path, int(groups["line"]), groups.get("func") or "", qualifier)
            found.append((match.start(), frame))
            taken.append((match.start(), match.end()))
    return [frame for _, frame in sorted(found, key=lambda item: item[0])]


def _is_name(token: str) -> bool:
    bare = token.strip("$")
    if len(bare) < 3 or bare.lower() in _COMMON or bare.isdigit():
        return False
    return bool(
        _CAMEL.search(bare)
        or "_" in bare.strip("_")
        or any(sep in bare for sep in (".", "::", "#", "->"))
    )


def _names_in(text: str, *, loose: bool) -> list[str]:
    """Names in `text`: tokens shaped like code (CamelCase, snake_case, dotted or scoped, a
    call); `loose` (a short inline code span, which is usually one name) takes every
    identifier of three or more characters too."""
    names = []
    for match in _TOKEN.finditer(text):
        token = match.group(0)
        if token.lower() in _COMMON or len(token.strip("$_")) < 3:
            continue
        called = text[match.end() : match.end() + 1] == "("
        if loose or called or _is_name(token):
            names.append(token)
    return names


def _without_frames(text: str) -> str:
    for pattern in _FRAME_PATTERNS:
        text = pattern.sub(" ", text)
    return text


# What an issue template puts in every issue of a project: its instructions (HTML comments),
# its headings ("**Describe the bug**", "## Expected behaviour", "Steps to reproduce") and
# checklists. They say nothing about this issue, and every issue of the project shares them
# with the templates themselves.
_TEMPLATE_COMMENT = re.compile(r"<!--.*?-->", re.S)
_TEMPLATE_LINE = re.compile(
    r"^\s*(?:#{1,6}\s*|\*\*|__)?\s*(?:describe the bug|bug description|description|expected "
    r"behaviou?r|actual behaviou?r|observed behaviou?r|current behaviou?r|steps to reproduce|"
    r"to reproduce|reproduction|minimal reproduction|additional context|environment|version|"
    r"versions|screenshots?|system info(?:rmation)?|your environment|context|possible "
    r"solution|is your feature request related to a problem\??(?: please describe\.?)?|"
    r"describe the solution you'?d like|describe alternatives you'?ve considered|checklist|"
    r"what happened\??|what did you expect to happen\??)\s*:?\s*(?:\*\*|__)?\s*:?\s*$",
    re.I | re.M,
)
_CHECKBOX = re.compile(r"^\s*[-*]\s*\[[ xX]\].*$", re.M)


def without_template(text: str) -> str:
    """The issue without its template's instructions, headings and checklists."""
    text = _TEMPLATE_COMMENT.sub("", text)
    text = _CHECKBOX.sub("", text)
    return _TEMPLATE_LINE.sub("", text)


def read_issue(text: str) -> IssueClues:
    """The clues of an issue's text (any length; nothing is cut)."""
    text = without_template(text.replace("\r\n", "\n"))
    lines = text.strip().split("\n")
    title = lines[0].strip() if lines else ""
    blocks = [m.group("body") for m in _FENCE.finditer(text)]
    outside = _FENCE.sub("\n", text)
    frames = _frames(text)
    frame_paths = {f.path for f in frames}
    paths = []
    for match in _PATH.finditer(text):
        path = match.group(1).removeprefix("./")
        # A diff's a/ and b/ prefixes are not folders.
        if path.startswith(("a/", "b/")) and text[match.start() - 4 : match.start()] in (
            "--- ",
            "+++ ",
            "git ",
        ):
            path = path[2:]
        if path not in frame_paths and path not in paths and not re.fullmatch(r"[\d.]+", path):
            paths.append(path)
    code_names: Counter[str] = Counter()
    for block in blocks:
        code_names.update(_names_in(_without_frames(block), loose=False))
    for snippet in _INLINE_CODE.findall(outside):
        code_names.update(_names_in(snippet, loose=len(snippet) <= 40))
    code_names.update(f.function for f in frames if f.function and not f.function.startswith("<"))
    prose_text = _INLINE_CODE.sub(" ", outside)
    prose_names = Counter(_names_in(_without_frames(prose_text), loose=False))
    errors = [(m.group("type"), m.group("message").strip()) for m in _ERROR_LINE.finditer(text)]
    messages = [message for _, message in errors]
    for match in _QUOTED.finditer(text):
        quoted = (match.group(1) or match.group(2)).strip()
        if " " in quoted and quoted not in messages:
            messages.append(quoted)
    prose_lines = [
        line
        for line in outside.split("\n")
        if not any(p.search(line) for p in _FRAME_PATTERNS[:3]) and not line.startswith("    ")
    ]
    return IssueClues(
        title=title,
        prose=" ".join(" ".join(prose_lines).split()),
        frames=frames,
        paths=paths,
        code_names=code_names,
        prose_names=prose_names,
        errors=errors,
        messages=messages,
        code_blocks=[b.strip() for b in blocks if b.strip()],
    )
