"""The probes leave a name typed as the query alone, act on the candidates they are about, and
are summed per kind."""

import math
from types import SimpleNamespace

import pytest

from benchmarks.ranking_probes import by_kind, probes, sweep


def result(kind, streams, path="a.py", start=1, end=10):
    unit = SimpleNamespace(kind=kind, path=path, start_line=start, end_line=end)
    return SimpleNamespace(unit=unit, stream_ranks=dict.fromkeys(streams, 1))


def test_probes_touch_sentences_only_and_their_own_candidates(monkeypatch):
    monkeypatch.setattr("benchmarks.ranking_probes._static_cosine", lambda weight: None)
    found = probes(0.5)
    results = [result("class", ["S4"]), result("class", ["S1", "S4"]), result("method", ["S4"])]
    sentence = SimpleNamespace(query="where do we retry failed calls")
    name = SimpleNamespace(query="Session.send")
    assert found["bm25_only_class"](sentence, results) == [-0.5, 0.0, 0.0]
    assert found["class"](sentence, results) == [-0.5, -0.5, 0.0]
    assert found["bm25_only_class"](name, results) == [0.0, 0.0, 0.0]
    big = [result("class", ["S1"], end=50 * math.e), result("method", ["S1"], end=900)]
    assert found["big_class"](sentence, big) == [pytest.approx(-0.5), 0.0]
    # Three units of a.py among the first 20: each gains for the two others.
    spread = [result("method", ["S1"]), result("method", ["S1"]), result("method", ["S1"], "b.py")]
    spread.insert(0, result("function", ["S1"]))
    assert found["file_evidence"](sentence, spread) == [1.0, 1.0, 1.0, 0.0]


def test_metrics_are_grouped_by_kind():
    rows = [
        (SimpleNamespace(kind="symbol"), [], False),
        (SimpleNamespace(kind="behaviour"), [], False),
    ]
    grouped = by_kind(rows, [{"ndcg@10": 1.0}, {"ndcg@10": 0.5}])
    assert grouped == {"all": [1.0, 0.5], "symbol": [1.0], "behaviour": [0.5]}


def test_a_sweep_changes_one_strength_and_pairs_it_with_the_shipped_rules(monkeypatch):
    from search.ranking.structure import Strengths

    seen = []

    def replay(rows, strengths):
        seen.append(strengths)
        return [{"ndcg@10": 0.5 + strengths.file_topic / 10} for _ in rows]

    monkeypatch.setattr("benchmarks.ranking_probes.replay", replay)
    rows = [(SimpleNamespace(kind="behaviour"), [], False)] * 4
    shipped = Strengths(defines=5.0, same_file=0.1)
    out = sweep({"questions": rows}, shipped, "file_topic", [1.0])
    assert seen[1] == Strengths(defines=5.0, same_file=0.1, file_topic=1.0)
    assert out[0]["questions"]["behaviour"]["ndcg@10"] == 0.6
    assert out[0]["questions"]["all"]["vs_shipped"][0] == pytest.approx(0.1)
