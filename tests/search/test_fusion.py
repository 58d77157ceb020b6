import pytest

from search.fusion import reciprocal_rank_fusion


def test_rrf_by_hand():
    fused = reciprocal_rank_fusion({"S1": ["a", "b", "c"], "S4": ["b", "d"]}, k=60)
    scores = {h.key: h.score for h in fused}
    assert scores["b"] == pytest.approx(1 / 62 + 1 / 61)
    assert scores["a"] == pytest.approx(1 / 61)
    assert scores["d"] == pytest.approx(1 / 62)
    # b: 1/62 + 1/61; a: 1/61; d: 1/62; c: 1/63
    assert [h.key for h in fused] == ["b", "a", "d", "c"]
    assert fused[0].ranks == {"S1": 2, "S4": 1}
    assert fused[0].streams == ["S1", "S4"]


def test_weights_change_the_order():
    rankings = {"S1": ["a", "b"], "S4": ["b", "a"]}
    assert reciprocal_rank_fusion(rankings, weights={"S1": 1.0, "S4": 0.2})[0].key == "a"
    assert reciprocal_rank_fusion(rankings, weights={"S1": 0.2, "S4": 1.0})[0].key == "b"


def test_zero_weight_still_records_provenance():
    fused = reciprocal_rank_fusion({"S1": ["a"], "S4": ["a", "z"]}, weights={"S4": 0.0})
    assert fused[0].key == "a" and fused[0].streams == ["S1", "S4"]
    assert fused[1].key == "z" and fused[1].score == 0.0


def test_limit_duplicates_and_empty():
    fused = reciprocal_rank_fusion({"S1": ["a", "a", "b", "c"]}, limit=2)
    assert [h.key for h in fused] == ["a", "b"]
    assert fused[0].ranks == {"S1": 1}
    assert reciprocal_rank_fusion({}) == []
    assert reciprocal_rank_fusion({"S1": []}) == []
