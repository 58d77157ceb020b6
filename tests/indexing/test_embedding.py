import json

import numpy as np
import pytest

from indexing.embedder_delta import SHIPPED
from indexing.embedding import EmbedderUnavailable, OnnxMiniLMEmbedder
from tests.contracts import EmbedderContract


class TestOnnxMiniLMEmbedder(EmbedderContract):
    @pytest.fixture
    def embedder_backend(self, embedder):
        return embedder

    def test_is_the_default(self, embedder):
        # MiniLM with the tuned delta committed in indexing/embedders/, merged and checked.
        shipped = json.loads(SHIPPED.read_text())["delta_sha256"][:10]
        assert isinstance(embedder, OnnxMiniLMEmbedder)
        assert embedder.dimension == 384
        assert embedder.notice == ""
        assert embedder.model_id == f"all-MiniLM-L6-v2-{shipped}-fp32-128"

    def test_meaning_not_spelling(self, embedder):
        query, related, unrelated = embedder.embed(
            [
                "retry a failed http request",
                "def fetch_with_retries(url):\n    for attempt in range(3):\n"
                "        try:\n            return requests.get(url)\n"
                "        except ConnectionError:\n            continue",
                "def slugify(title):\n    return '-'.join(title.lower().split())",
            ]
        )
        assert float(query @ related) > float(query @ unrelated) + 0.1

    def test_paraphrase_beats_topic_neighbour(self, embedder):
        a, paraphrase, neighbour = embedder.embed(
            [
                "A man is eating food.",
                "A man is eating a piece of bread.",
                "A man is riding a horse.",
            ]
        )
        assert float(a @ paraphrase) > float(a @ neighbour) + 0.2


@pytest.mark.slow
def test_graph_variants_agree_with_the_wheels_own(tmp_path):
    """The derived graphs (built once into the data dir) compute the same model: the folded
    fp32 graph to float precision, the dynamically quantised one closely."""
    texts = [
        "def add(a, b):\n    return a + b",
        "retry a failed http request with exponential backoff",
        "class Cache:\n    def get(self, key):\n        return self._items.get(key)",
    ]
    models = str(tmp_path / "models")
    wheel = OnnxMiniLMEmbedder(variant="int8-weights", max_tokens=256, models_dir=models)
    reference = wheel.embed(texts)
    ids = {wheel.model_id}
    for variant, least in (("fp32", 0.9999), ("int8-dynamic", 0.97)):
        embedder = OnnxMiniLMEmbedder(variant=variant, max_tokens=256, models_dir=models)
        ids.add(embedder.model_id)
        agreement = (embedder.embed(texts) * reference).sum(axis=1)
        assert agreement.min() > least, (variant, agreement)
    assert len(ids) == 3  # each graph has its own vectors and collections
    built = sorted(p.name for p in (tmp_path / "models").iterdir() if p.suffix == ".onnx")
    assert built == ["minilm-fp32.onnx", "minilm-int8-dynamic.onnx"]
    with pytest.raises(EmbedderUnavailable, match="unknown ONNX variant"):
        OnnxMiniLMEmbedder(variant="int4", models_dir=models)


def test_missing_model_file_is_a_clear_error(tmp_path):
    with pytest.raises(EmbedderUnavailable, match="not found"):
        OnnxMiniLMEmbedder(model_path=str(tmp_path / "missing.onnx"))


def test_deterministic(embedder):
    first = embedder.embed(["parse a configuration file"])
    second = embedder.embed(["parse a configuration file"])
    assert np.array_equal(first, second)


@pytest.mark.slow
class TestOpenAIEmbedderAgainstLlamaCpp(EmbedderContract):
    """A real OpenAI-compatible /v1/embeddings endpoint: llama.cpp serving the embedded GGUF in
    embedding mode on loopback (not a retrieval model, but a real server speaking the API)."""

    @pytest.fixture(scope="class")
    def server(self):
        import xllamacpp

        from agents.local_model import _free_port, embedded_model_file

        params = xllamacpp.CommonParams()
        params.model.path = str(embedded_model_file())
        params.embedding = True
        params.pooling_type = xllamacpp.llama_pooling_type.LLAMA_POOLING_TYPE_MEAN
        params.n_ctx = 2048
        params.n_batch = params.n_ubatch = 2048
        params.hostnames = ["127.0.0.1"]
        params.port = _free_port()
        params.model_alias = "local-embed"
        params.verbosity = 0
        server = xllamacpp.Server(params)
        yield f"http://127.0.0.1:{params.port}/v1"
        del server

    @pytest.fixture
    def embedder_backend(self, server):
        from indexing.embedding import OpenAIEmbedder

        return OpenAIEmbedder(model="local-embed", dimension=896, base_url=server, batch_size=4)

    def test_wrong_dimension_is_a_clear_error(self, server):
        from indexing.embedding import EmbedderUnavailable, OpenAIEmbedder

        with pytest.raises(EmbedderUnavailable, match="expected"):
            OpenAIEmbedder(model="local-embed", dimension=384, base_url=server).embed(["x"])


def test_embedder_chosen_from_the_environment():
    from django.core.exceptions import ImproperlyConfigured

    from indexing.embedding import OpenAIEmbedder
    from reporift.backends import build_backend
    from reporift.settings import DEFAULT_EMBEDDER_DELTA, embedder_settings

    assert embedder_settings({"REPORIFT_EMBED_THREADS": "2"}) == {
        "CLASS": "indexing.embedding.OnnxMiniLMEmbedder",
        "OPTIONS": {"threads": 2, "delta": DEFAULT_EMBEDDER_DELTA, "query_variant": ""},
    }
    fast_queries = embedder_settings({"REPORIFT_EMBEDDER_QUERY_VARIANT": "int8-dynamic"})
    assert fast_queries["OPTIONS"]["query_variant"] == "int8-dynamic"
    base = embedder_settings({"REPORIFT_EMBEDDER_DELTA": ""})
    assert base["OPTIONS"]["delta"] == ""
    config = embedder_settings(
        {
            "REPORIFT_EMBEDDER": "indexing.embedding.OpenAIEmbedder",
            "REPORIFT_EMBEDDER_OPTIONS": '{"model": "m", "dimension": 8, "base_url": "http://127.0.0.1:9/v1"}',
        }
    )
    embedder = build_backend(config)
    assert isinstance(embedder, OpenAIEmbedder) and embedder.dimension == 8
    with pytest.raises(ImproperlyConfigured, match="not JSON"):
        embedder_settings({"REPORIFT_EMBEDDER_OPTIONS": "{model"})
    with pytest.raises(ImproperlyConfigured, match="JSON object"):
        embedder_settings({"REPORIFT_EMBEDDER_OPTIONS": '["fp32"]'})
    # Options named in JSON go over the default's, which stay (the tuned delta above all).
    another_graph = embedder_settings(
        {"REPORIFT_EMBEDDER_OPTIONS": '{"variant": "fp32", "max_tokens": 256}'}
    )["OPTIONS"]
    assert another_graph["variant"] == "fp32" and another_graph["max_tokens"] == 256
    assert another_graph["delta"] == DEFAULT_EMBEDDER_DELTA


def test_a_query_variant_embeds_queries_only(embedder):
    from indexing.embedding import _models_dir, query_vector

    fast = OnnxMiniLMEmbedder(
        delta="shipped", query_variant="int8-dynamic", models_dir=str(_models_dir())
    )
    # The stored vectors' model, so the collections and caches stay the documents' own.
    assert fast.model_id == embedder.model_id
    text = "retry a failed http request"
    document = fast.embed([text])[0]
    np.testing.assert_array_equal(document, embedder.embed([text])[0])
    query = query_vector(fast, text)
    assert not np.array_equal(query, document)  # another graph answered
    assert float(query @ document) > 0.98  # of the same weights


def test_a_query_variant_that_cannot_load_leaves_the_documents_graph_answering(embedder):
    from indexing.embedding import _models_dir, query_vector

    # the wheel's int8 graph cannot carry the tuned delta
    fallback = OnnxMiniLMEmbedder(
        delta="shipped", query_variant="int8-weights", models_dir=str(_models_dir())
    )
    assert "int8-weights" in fallback.notice and not hasattr(fallback, "query_embedder")
    text = "parse a date"
    np.testing.assert_array_equal(query_vector(fallback, text), embedder.embed([text])[0])


def test_the_graph_is_loaded_at_the_first_embedding_not_before(embedder):
    from indexing.embedding import _models_dir

    # A process that reads only the static tier (phase 1) makes the embedder for its model id
    # and never embeds with it: it must not pay for the graph.
    fresh = OnnxMiniLMEmbedder(delta="shipped", models_dir=str(_models_dir()))
    assert fresh.model_id == embedder.model_id
    assert fresh._loaded is None
    np.testing.assert_array_equal(fresh.embed(["parse a date"]), embedder.embed(["parse a date"]))
    assert fresh._loaded is not None


def test_the_static_table_is_distilled_from_the_fp32_graph_whatever_embeds_documents(embedder):
    """A faster graph for phase 2 leaves phase 1's table as the fp32 graph makes it: the token
    states it distils from are the fp32 graph's, and its recipe says so (a table distilled
    before, from the faster graph itself, is made again)."""
    from indexing.embedding import _models_dir

    fast = OnnxMiniLMEmbedder(
        delta="shipped", variant="int8-dynamic", max_tokens=64, models_dir=str(_models_dir())
    )
    assert fast.model_id != embedder.model_id
    rows = np.array([[102, 7592, 101], [102, 2000, 101]])  # [SEP] token [CLS], as distil asks
    with fast.distilling():
        states = fast.mean_states(rows)
    with embedder.distilling():
        np.testing.assert_allclose(states, embedder.mean_states(rows), rtol=1e-5, atol=1e-6)
    with pytest.raises(RuntimeError, match="inside distilling"):
        fast.mean_states(rows)  # the fp32 graph is let go once the table is made
    own = (
        fast._session[0]
        .run(
            ["last_hidden_state"],
            {"input_ids": rows, "attention_mask": np.ones_like(rows), "token_type_ids": 0 * rows},
        )[0]
        .mean(axis=1)
    )
    assert not np.allclose(own, states, atol=1e-4)  # the int8 graph would have given others
    assert fast.distil_recipe == {"distilled_from": "fp32"} and embedder.distil_recipe == {}
