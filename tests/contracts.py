"""Contract tests, one class per seam: a backend's test class inherits the contract and provides
the fixture (`embedder_backend`, `vector_store_backend`). Every backend must pass all of it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from indexing.embedding import Embedder
from indexing.store import VectorRecord, VectorStore


class EmbedderContract:
    @pytest.fixture
    def embedder_backend(self) -> Embedder:
        raise NotImplementedError

    def test_satisfies_protocol(self, embedder_backend):
        assert isinstance(embedder_backend, Embedder)
        assert embedder_backend.model_id
        assert embedder_backend.dimension > 0

    def test_shape_dtype_and_unit_length(self, embedder_backend):
        vectors = embedder_backend.embed(["def add(a, b): return a + b", "", "x" * 20_000])
        assert vectors.shape == (3, embedder_backend.dimension)
        assert vectors.dtype == np.float32
        assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)

    def test_empty_input(self, embedder_backend):
        assert embedder_backend.embed([]).shape == (0, embedder_backend.dimension)

    def test_order_is_kept_and_progress_reported(self, embedder_backend):
        texts = [f"function number {i} computes {w}" for i, w in enumerate("abcdefghij" * 3)]
        calls: list[tuple[int, int]] = []
        together = embedder_backend.embed(texts, progress=lambda d, t: calls.append((d, t)))
        alone = np.stack([embedder_backend.embed([t])[0] for t in texts[:3]])
        assert np.allclose(together[:3], alone, atol=1e-3)
        assert calls[-1] == (len(texts), len(texts))


class VectorStoreContract:
    @pytest.fixture
    def vector_store_backend(self) -> VectorStore:
        raise NotImplementedError

    @staticmethod
    def _unit(i: int, dim: int = 8) -> np.ndarray:
        v = np.zeros(dim, dtype=np.float32)
        v[i % dim] = 1.0
        v[(i + 1) % dim] = 0.1
        return v / np.linalg.norm(v)

    def _fill(self, store, repository_id=1, n=6):
        records = [
            VectorRecord(
                f"{repository_id}-{i}", repository_id, "class" if i == 0 else "function", f"m{i}.py"
            )
            for i in range(n)
        ]
        store.upsert(records, np.stack([self._unit(i) for i in range(n)]))
        return records

    def test_satisfies_protocol(self, vector_store_backend):
        assert isinstance(vector_store_backend, VectorStore)

    def test_query_ranks_by_cosine_and_filters_repository(self, vector_store_backend):
        self._fill(vector_store_backend, repository_id=1)
        self._fill(vector_store_backend, repository_id=2)
        hits = vector_store_backend.query(self._unit(3), repository_id=1, n=3)
        assert next(h.vector_id for h in hits) == "1-3"
        assert all(h.vector_id.startswith("1-") for h in hits)
        assert hits[0].score == pytest.approx(1.0, abs=1e-4)
        assert hits[0].score >= hits[1].score >= hits[2].score

    def test_kind_filter(self, vector_store_backend):
        self._fill(vector_store_backend)
        classes = vector_store_backend.query(self._unit(3), repository_id=1, n=5, kinds=["class"])
        assert [h.vector_id for h in classes] == ["1-0"]
        functions = vector_store_backend.query(
            self._unit(0), repository_id=1, n=10, kinds=["function", "method"]
        )
        assert "1-0" not in {h.vector_id for h in functions}

    def test_upsert_replaces_and_delete_removes(self, vector_store_backend):
        self._fill(vector_store_backend)
        vector_store_backend.upsert(
            [VectorRecord("1-1", 1, "function", "m1.py")], np.stack([self._unit(5)])
        )
        hits = vector_store_backend.query(self._unit(5), repository_id=1, n=2)
        assert {h.vector_id for h in hits} == {"1-1", "1-5"}
        vector_store_backend.delete(["1-5", "does-not-exist"], repository_id=1)
        assert vector_store_backend.count(repository_id=1) == 5

    def test_fields_are_separate_indexes(self, vector_store_backend):
        records = self._fill(vector_store_backend)
        # The header field holds other vectors for the same ids: unit i's header is unit i+2.
        headers = np.stack([self._unit(i + 2) for i in range(len(records))])
        vector_store_backend.upsert(records, headers, field="header")
        code_hit = vector_store_backend.query(self._unit(4), repository_id=1, n=1)
        header_hit = vector_store_backend.query(self._unit(4), repository_id=1, n=1, field="header")
        assert code_hit[0].vector_id == "1-4" and header_hit[0].vector_id == "1-2"
        assert vector_store_backend.count(repository_id=1, field="header") == len(records)
        vector_store_backend.delete(["1-2"], repository_id=1)
        assert vector_store_backend.count(repository_id=1, field="header") == len(records) - 1
        assert vector_store_backend.count(repository_id=1) == len(records) - 1
        with pytest.raises(ValueError, match="unknown vector field"):
            vector_store_backend.query(self._unit(1), repository_id=1, n=1, field="body")

    def test_scores_of_given_ids(self, vector_store_backend):
        self._fill(vector_store_backend)
        scores = vector_store_backend.scores(
            self._unit(3), ["1-3", "1-0", "missing"], repository_id=1
        )
        assert set(scores) == {"1-3", "1-0"}
        assert scores["1-3"] == pytest.approx(1.0, abs=1e-4)
        assert scores["1-0"] == pytest.approx(float(self._unit(0) @ self._unit(3)), abs=1e-4)
        assert vector_store_backend.scores(self._unit(3), ["1-3"], repository_id=99) == {}
        # Every id known (a search's usual case), one of them twice.
        known = vector_store_backend.scores(self._unit(2), ["1-2", "1-5", "1-2"], repository_id=1)
        assert set(known) == {"1-2", "1-5"}
        assert known["1-2"] == pytest.approx(1.0, abs=1e-4)
        assert known["1-5"] == pytest.approx(float(self._unit(5) @ self._unit(2)), abs=1e-4)

    def test_all_vectors_of_a_repository_field(self, vector_store_backend):
        vector_store_backend._BATCH = 4  # Chroma's are read in pages: several here
        records = self._fill(vector_store_backend, n=10)
        self._fill(vector_store_backend, repository_id=2)
        ids, matrix = vector_store_backend.all_vectors(repository_id=1)
        assert sorted(ids) == sorted(r.vector_id for r in records)
        for row, vector_id in enumerate(ids):
            expected = self._unit(int(vector_id.split("-")[1]))
            assert np.allclose(matrix[row], expected, atol=1e-3)
        assert vector_store_backend.all_vectors(repository_id=1, field="header")[0] == []
        assert vector_store_backend.all_vectors(repository_id=404)[0] == []

    def test_unknown_repository_answers_nothing(self, vector_store_backend):
        assert vector_store_backend.query(self._unit(1), repository_id=404, n=3) == []
        assert vector_store_backend.count(repository_id=404) == 0
        vector_store_backend.delete(["x"], repository_id=404)
        vector_store_backend.delete_repository(404)

    def test_delete_repository(self, vector_store_backend):
        self._fill(vector_store_backend, repository_id=1)
        self._fill(vector_store_backend, repository_id=2)
        vector_store_backend.delete_repository(1)
        assert vector_store_backend.count(repository_id=1) == 0
        assert vector_store_backend.count(repository_id=2) == 6
        assert vector_store_backend.query(self._unit(1), repository_id=1, n=3) == []
        self._fill(vector_store_backend, repository_id=1, n=2)  # usable again afterwards
        assert vector_store_backend.count(repository_id=1) == 2

    def test_mismatched_lengths_refused(self, vector_store_backend):
        with pytest.raises(ValueError):
            vector_store_backend.upsert(
                [VectorRecord("x", 1, "function", "a.py")], np.zeros((2, 8))
            )


class SourceContract:
    """A source puts a repository's files in a directory: the same two files, whatever the
    transport. `source_backend(files, tmp_path)` returns a source holding `files`."""

    FILES = {"pkg/__init__.py": "", "pkg/core.py": "def answer():\n    return 42\n"}

    @pytest.fixture
    def source_backend(self):
        raise NotImplementedError

    def test_satisfies_protocol(self, source_backend, tmp_path):
        from indexing.sources import Source

        assert isinstance(source_backend(self.FILES, tmp_path), Source)

    def test_fetch_puts_the_files_under_root(self, source_backend, tmp_path):
        source = source_backend(self.FILES, tmp_path)
        work = tmp_path / "work"
        work.mkdir()
        fetched = source.fetch(work)
        found = {
            p.relative_to(fetched.root).as_posix()
            for p in fetched.root.rglob("*.py")
            if ".git" not in p.parts
        }
        assert found == set(self.FILES)
        assert (fetched.root / "pkg/core.py").read_text() == self.FILES["pkg/core.py"]
        assert isinstance(fetched.warnings, list)

    def test_missing_source_is_a_source_error(self, source_backend, tmp_path):
        from indexing.sources import SourceError

        source = source_backend(self.FILES, tmp_path)
        self.break_source(source, tmp_path)
        work = tmp_path / "work2"
        work.mkdir()
        with pytest.raises(SourceError):
            source.fetch(work)

    def break_source(self, source, tmp_path) -> None:
        """Make the source point at nothing."""
        raise NotImplementedError


class LLMClientContract:
    """`llm_client_backend` answers "hello" to any prompt it is sent (a fake endpoint told so,
    or a real model asked to)."""

    @pytest.fixture
    def llm_client_backend(self):
        raise NotImplementedError

    def ask(self, client, **kwargs):
        return client.complete(
            [{"role": "user", "content": "Reply with the single word: hello"}],
            purpose="contract",
            prompt_version="contract.v1",
            **kwargs,
        )

    def test_satisfies_protocol(self, llm_client_backend):
        from agents.llm import LLMClient

        assert isinstance(llm_client_backend, LLMClient) and llm_client_backend.model

    def test_completion_is_text_and_logged(self, llm_client_backend):
        from agents.models import LLMCall

        before = LLMCall.objects.count()
        completion = self.ask(llm_client_backend, max_tokens=8)
        assert "hello" in completion.text.lower()
        assert completion.model == llm_client_backend.model
        assert LLMCall.objects.count() == before + 1

    def test_first_token_log_probabilities(self, llm_client_backend):
        completion = self.ask(llm_client_backend, max_tokens=1, top_logprobs=5)
        assert completion.first_token_logprobs
        assert all(v <= 0 for v in completion.first_token_logprobs.values())


class AugmenterContract:
    """`augmenter_backend` is an augmenter whose LLM describes the query on topic."""

    @pytest.fixture
    def augmenter_backend(self):
        raise NotImplementedError

    def test_satisfies_protocol(self, augmenter_backend):
        from agents.augment import Augmenter

        assert isinstance(augmenter_backend, Augmenter)

    def test_keeps_the_query_and_adds_a_description(self, augmenter_backend):
        seen: list[str] = []
        result = augmenter_backend.augment(
            "retry failed http calls",
            search_docs=lambda q: seen.append(q) or ["README.md: requests retry with backoff."],
        )
        assert not result.error, result.error
        assert result.text.startswith("retry failed http calls. ")
        assert len(result.text) > len("retry failed http calls. ") + 10
        assert seen and seen[0] == "retry failed http calls"


class RerankerContract:
    """`reranker_backend(answer)` is a reranker whose LLM answers as told: `answer` names the
    candidate to put first (its 0-based index), or None for an LLM that fails."""

    @pytest.fixture
    def reranker_backend(self):
        raise NotImplementedError

    @staticmethod
    def candidates(n: int):
        from agents.rerank import Candidate

        return [Candidate(key=f"k{i}", text=f"def f{i}(): pass") for i in range(n)]

    def test_satisfies_protocol(self, reranker_backend):
        from agents.rerank import Reranker

        assert isinstance(reranker_backend(2), Reranker)

    def test_moves_the_chosen_candidate_up_and_keeps_every_one(self, reranker_backend):
        result = reranker_backend(2).rerank("q", self.candidates(4))
        assert sorted(result.order) == ["k0", "k1", "k2", "k3"]
        assert result.order.index("k2") < 2
        assert not result.error

    def test_failure_keeps_the_retrieval_order(self, reranker_backend):
        result = reranker_backend(None).rerank("q", self.candidates(4))
        assert result.order == ["k0", "k1", "k2", "k3"]
        assert result.error

    def test_one_candidate_is_left_alone(self, reranker_backend):
        assert reranker_backend(0).rerank("q", self.candidates(1)).order == ["k0"]


class SandboxContract:
    """What every sandbox must stop and report; `tmp_path` holds a directory the sandboxed code
    must not change (its files are also the `code_dir` it reads)."""

    LIMITS = None  # set in sandbox_limits: a short wall clock and small limits keep this quick

    @pytest.fixture
    def sandbox_backend(self):
        raise NotImplementedError

    @pytest.fixture
    def sandbox_limits(self):
        from sandbox.base import Limits

        return Limits(cpu_s=2, wall_s=6, memory_mb=512, file_size_mb=4, processes=16)

    @pytest.fixture
    def code_dir(self, tmp_path):
        code = tmp_path / "repo"
        (code / "shop").mkdir(parents=True)
        (code / "shop" / "__init__.py").write_text("")
        (code / "shop" / "text.py").write_text("def slug(t):\n    return '-'.join(t.split())\n")
        code.chmod(0o700)  # as a temporary directory is: the sandbox's user must still read it
        return code

    def snapshot(self, root):
        return {p: p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}

    def test_satisfies_protocol(self, sandbox_backend):
        from sandbox.base import Sandbox

        assert isinstance(sandbox_backend, Sandbox)
        assert sandbox_backend.unavailable_reason() is None

    def test_runs_a_standalone_snippet(self, sandbox_backend, sandbox_limits):
        done = sandbox_backend.run("print(sum(range(10)))", limits=sandbox_limits)
        assert done.passed and done.stdout.strip() == "45"

    def test_imports_the_code_read_only(self, sandbox_backend, sandbox_limits, code_dir):
        before = self.snapshot(code_dir)
        program = (
            "from shop.text import slug\nassert slug('a b') == 'a-b'\nimport shop.text\n"
            "open(shop.text.__file__, 'w').write('broken')\n"
        )
        done = sandbox_backend.run(program, code_dir=code_dir, limits=sandbox_limits)
        assert done.status == "failed" and "Read-only file system" in done.stderr
        assert self.snapshot(code_dir) == before

    def test_failed_assert_is_a_failure_not_a_limit(self, sandbox_backend, sandbox_limits):
        done = sandbox_backend.run("assert 1 == 2, 'nope'", limits=sandbox_limits)
        assert done.status == "failed" and done.limit == "" and "AssertionError" in done.stderr

    def test_no_network(self, sandbox_backend, sandbox_limits):
        program = (
            "import socket\n"
            "socket.create_connection(('1.1.1.1', 53), timeout=3)\n"
            "print('connected')\n"
        )
        done = sandbox_backend.run(program, limits=sandbox_limits)
        assert done.status == "failed" and "connected" not in done.stdout
        assert "unreachable" in done.stderr.lower() or "Errno" in done.stderr

    def test_fork_bomb_is_stopped(self, sandbox_backend, sandbox_limits):
        done = sandbox_backend.run("import os\nwhile True:\n    os.fork()\n", limits=sandbox_limits)
        assert done.status == "stopped" and done.limit in ("processes", "wall-clock")
        assert done.duration_s < sandbox_limits.wall_s + 10

    def test_writes_outside_its_directory_change_nothing(
        self, sandbox_backend, sandbox_limits, tmp_path, code_dir
    ):
        outside = tmp_path / "outside.txt"
        outside.write_text("original")
        before = self.snapshot(tmp_path)
        program = (
            "import os\nresults = []\n"
            f"for path in ({str(outside)!r}, '/usr/evil', '/etc/evil', '/sandbox/code/evil'):\n"
            "    try:\n"
            "        open(path, 'w').write('changed')\n"
            "        results.append(path)\n"
            "    except OSError:\n"
            "        pass\n"
            "open('mine.txt', 'w').write('a file of its own is fine')\n"
            "print(results)\n"
        )
        done = sandbox_backend.run(program, code_dir=code_dir, limits=sandbox_limits)
        assert done.passed, done.stderr
        # A path that does not exist in the sandbox's own root may be created there (a tmpfs or
        # an empty root), but never on this machine.
        assert self.snapshot(tmp_path) == before
        assert not Path("/usr/evil").exists() and not Path("/etc/evil").exists()

    def test_memory_hog_is_stopped(self, sandbox_backend, sandbox_limits):
        done = sandbox_backend.run("x = bytearray(4 * 1024 ** 3)\n", limits=sandbox_limits)
        assert done.status == "stopped" and done.limit == "memory"

    def test_endless_loop_is_stopped(self, sandbox_backend, sandbox_limits):
        done = sandbox_backend.run("while True:\n    pass\n", limits=sandbox_limits)
        assert done.status == "stopped" and done.limit in ("cpu time", "wall-clock")

    def test_sleeper_is_stopped_by_the_wall_clock(self, sandbox_backend, sandbox_limits):
        done = sandbox_backend.run("import time\ntime.sleep(600)\n", limits=sandbox_limits)
        assert done.status == "stopped" and done.limit == "wall-clock"
        assert done.duration_s < sandbox_limits.wall_s + 10

    def test_file_size_limit(self, sandbox_backend, sandbox_limits):
        program = "f = open('big', 'wb')\nwhile True:\n    f.write(b'x' * 1024 * 1024)\n"
        done = sandbox_backend.run(program, limits=sandbox_limits)
        assert done.status == "stopped" and done.limit == "file size"

    def test_endless_output_is_bounded(self, sandbox_backend, sandbox_limits):
        done = sandbox_backend.run("while True:\n    print('x' * 1000)\n", limits=sandbox_limits)
        assert done.status == "stopped"
        assert len(done.stdout) <= sandbox_limits.output_chars + 100
