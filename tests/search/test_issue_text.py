"""Reading an issue: frames, paths, names, messages and code blocks apart from the prose."""

from search.issue_text import read_issue

PYTHON_TRACEBACK = """Dataset.to_json_dict fails when suppress_invalid_tags=True

I call `Dataset.to_json_dict(suppress_invalid_tags=True)` and still get an error.

```
Traceback (most recent call last):
  File "dicom.py", line 143, in create_dict
    json_ds = ds.to_json_dict(suppress_invalid_tags=True)
  File "/usr/lib/python3/dist-packages/pydicom/dataset.py", line 2495, in to_json_dict
    data_element = self[key]
TypeError: Could not convert value to integer without loss
```
"""


def test_a_python_traceback_gives_frames_names_and_the_error():
    clues = read_issue(PYTHON_TRACEBACK)
    assert clues.title.startswith("Dataset.to_json_dict fails")
    assert [(f.path, f.line, f.function) for f in clues.frames] == [
        ("dicom.py", 143, "create_dict"),
        ("/usr/lib/python3/dist-packages/pydicom/dataset.py", 2495, "to_json_dict"),
    ]
    assert ("TypeError", "Could not convert value to integer without loss") in clues.errors
    assert "Dataset.to_json_dict" in clues.names and "to_json_dict" in clues.code_names
    # Frame lines are not prose, nor their words names.
    assert "File" not in clues.names and "dist-packages" not in clues.prose


def test_frames_of_other_runtimes_are_read_the_same_way():
    text = """Crash on start
    at com.acme.store.Cart.total(Cart.java:42)
    at render (src/views/list.js:12:5)
thread 'main' panicked at src/parser/lexer.rs:88:9:
goroutine 1 [running]:
main.run()
\t/home/u/app/internal/server/server.go:57 +0x1d
"""
    frames = {(f.path, f.line) for f in read_issue(text).frames}
    assert ("Cart.java", 42) in frames and ("src/views/list.js", 12) in frames
    assert ("src/parser/lexer.rs", 88) in frames
    assert ("/home/u/app/internal/server/server.go", 57) in frames
    java = next(f for f in read_issue(text).frames if f.path == "Cart.java")
    assert java.qualifier == "com.acme.store.Cart" and java.function == "total"


def test_paths_from_prose_and_diffs_quoted_messages_and_code_blocks():
    text = """Docs for nth are wrong

See src/builtin.jq and `docs/manual.yml`; the error says "nth doesn't support negative indices".

```diff
--- a/src/builtin.jq
+++ b/src/builtin.jq
-def nth($n; g): last(limit($n + 1; g));
```
"""
    clues = read_issue(text)
    assert clues.paths[:2] == ["src/builtin.jq", "docs/manual.yml"]
    assert "a/src/builtin.jq" not in clues.paths
    assert "nth doesn't support negative indices" in clues.messages
    assert len(clues.code_blocks) == 1 and "limit" in clues.code_names


def test_plain_prose_yields_no_names_from_ordinary_words():
    clues = read_issue("The ring around the rank should take a colour option like the title")
    assert clues.names == [] and clues.frames == [] and clues.paths == []


def test_an_issue_templates_instructions_and_headings_are_not_read():
    text = """Ring colour cannot be changed

<!-- READ THIS FIRST! Usage questions go to the forum. -->
**Describe the bug**
The ring around the rank keeps its default colour.

**Expected behavior**
It takes `ring_color`.

- [x] I searched the existing issues
"""
    clues = read_issue(text)
    assert "READ THIS FIRST" not in clues.prose and "Describe the bug" not in clues.prose
    assert "searched the existing issues" not in clues.prose
    assert "keeps its default colour" in clues.prose and "ring_color" in clues.names
