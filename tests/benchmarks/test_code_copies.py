import ast

from benchmarks.code_copies import renamed, reordered

SOURCE = '''
    def fetch(self, url, retries=2, *, timeout=None):
        """Fetch a URL."""
        session = self.session
        headers = {"accept": "json"}
        for attempt in range(retries):
            response = session.get(url, headers=headers, timeout=timeout)
            if response.ok:
                return response
        return None
'''


def run(code: str, *args):
    namespace: dict = {}
    exec(compile(ast.parse(code), "<copy>", "exec"), namespace)
    name = next(k for k in namespace if k != "__builtins__")
    return namespace[name]


def test_renamed_copy_changes_every_local_name_and_behaves_the_same():
    copy = renamed(SOURCE)
    assert "session" not in copy.replace("self.session", "").replace("session.get", "")
    assert "def fetch(self, a0, a1=2, *, a2=None):" in copy and "Fetch a URL" not in copy
    assert "headers=v" in copy  # keyword names at call sites stay: they are the callee's
    assert "timeout=a2" in copy

    class Ok:
        ok = True

    class Session:
        def get(self, url, headers, timeout):
            return (url, headers["accept"], timeout) and Ok()

    owner = type("Owner", (), {"session": Session()})()
    for code in (SOURCE, copy):
        assert isinstance(run(__import__("textwrap").dedent(code))(owner, "u"), Ok)


def test_reordered_copy_swaps_only_independent_statements():
    copy = reordered(SOURCE)
    lines = [line.strip() for line in copy.splitlines()]
    assert lines.index("headers = {'accept': 'json'}") < lines.index("session = self.session")
    # The call reads both names: it stays after them.
    assert lines.index("session = self.session") < lines.index(
        "response = session.get(url, headers=headers, timeout=timeout)"
    )


def test_nothing_to_do_or_not_one_function_gives_none():
    assert renamed("def f():\n    return 1\n") is None
    assert reordered("def f(a):\n    b = a\n    return b\n") is None
    assert renamed("x = 1\ny = 2\n") is None
    assert reordered("def broken(:\n") is None
