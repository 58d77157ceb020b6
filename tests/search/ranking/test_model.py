"""The committed ranker loads and scores; a model that is not the one its manifest describes is
refused, never used."""

import hashlib
import json

import numpy as np
import pytest

from search.ranking.features import FEATURES
from search.ranking.model import DEFAULT_MODEL, RankerUnavailable, load_ranker, manifest_path


def test_committed_model_matches_its_manifest_and_scores():
    ranker = load_ranker(DEFAULT_MODEL)
    manifest = ranker.manifest
    assert tuple(manifest["features"]) == FEATURES
    assert manifest["trained_on"]["rows"].endswith("train.jsonl")  # never the dev packages
    assert manifest["command"] == "make train-ranker"
    rng = np.random.default_rng(0)
    features = rng.random((20, len(FEATURES))).astype(np.float32)
    scores = ranker.score(features)
    assert scores.shape == (20,) and np.isfinite(scores).all()
    assert (ranker.score(features) == scores).all()  # deterministic
    assert DEFAULT_MODEL.stat().st_size < 2_000_000  # small enough to commit


def copy(tmp_path, text=None, manifest=None):
    model = tmp_path / "ranker.txt"
    model.write_text(DEFAULT_MODEL.read_text() if text is None else text)
    data = json.loads(manifest_path(DEFAULT_MODEL).read_text())
    data.update(manifest or {})
    manifest_path(model).write_text(json.dumps(data))
    return model


def test_a_changed_byte_is_refused(tmp_path):
    text = DEFAULT_MODEL.read_text()
    model = copy(tmp_path, text=text.replace("leaf_value=", "leaf_value=1", 1))
    with pytest.raises(RankerUnavailable, match="not the expected model"):
        load_ranker(model)


def test_other_features_are_refused(tmp_path):
    model = copy(tmp_path, manifest={"features": list(FEATURES[:-1])})
    with pytest.raises(RankerUnavailable, match="other features"):
        load_ranker(model)


def test_not_a_model_is_refused(tmp_path):
    text = "this is not a LightGBM model\n"
    model = copy(
        tmp_path, text=text, manifest={"sha256": hashlib.sha256(text.encode()).hexdigest()}
    )
    with pytest.raises(RankerUnavailable, match="not a LightGBM model"):
        load_ranker(model)


def test_missing_manifest_is_refused(tmp_path):
    model = tmp_path / "ranker.txt"
    model.write_text(DEFAULT_MODEL.read_text())
    with pytest.raises(RankerUnavailable, match="manifest"):
        load_ranker(model)


def test_one_pass_gives_lightgbms_scores_and_contributions_that_add_up_to_them():
    ranker = load_ranker(DEFAULT_MODEL)
    rng = np.random.default_rng(1)
    # Realistic spreads: cosines, ranks among a hundred candidates, BM25 scores, shares, flags.
    features = rng.random((60, len(FEATURES))) * rng.choice([1, 5, 100], len(FEATURES))
    scored = ranker.scored(features)
    assert np.allclose(scored.scores, ranker.booster.predict(features), atol=1e-9)
    parts = ranker.contributions(scored.leaves[:10])
    assert parts.shape == (10, len(FEATURES) + 1)
    assert np.allclose(parts.sum(axis=1), scored.scores[:10], atol=1e-9)
    # A feature no split of a row's path tests gets nothing of its score.
    unused = [i for i, name in enumerate(FEATURES) if not ranker.booster.feature_importance()[i]]
    assert all(np.allclose(parts[:, i], 0.0) for i in unused)
    assert ranker.scored(features[:0]).scores.shape == (0,)
