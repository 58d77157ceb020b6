"""The learned ranker: a LightGBM LambdaRank model over `search.ranking.features.FEATURES`.

`make train-ranker` (`python -m benchmarks.train_ranker`) fits it on the package benchmark's
`train` packages only and writes two committed files: the model (LightGBM's text format) and a
manifest with the model's sha256, its feature names, the data it was fitted on and the command.
A model whose hash or feature list does not match is refused: search then orders candidates by
weighted reciprocal-rank fusion and says so.
"""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from reporift.model_files import ModelFileError, check_file
from search.ranking.features import FEATURES

logger = logging.getLogger(__name__)
DEFAULT_MODEL = Path(__file__).resolve().parent / "ranker.txt"


class RankerUnavailable(RuntimeError):
    """No usable ranker model: missing, altered, or built for other features."""


def manifest_path(model_path: Path) -> Path:
    return model_path.with_suffix(".json")


@dataclass
class LeafTables:
    """A model's trees as tables over their leaves: what a row's leaf in each tree adds to its
    score, and how that amount splits over the features met on the way to it (Saabas's path
    attribution: each split's feature gets the change in the node's value across it)."""

    values: np.ndarray  # (trees, leaves): each leaf's output
    parts: np.ndarray  # (trees, leaves, features): the leaf's output less the root's, by feature
    bias: float  # the roots' outputs added up: what every row starts from

    def __post_init__(self) -> None:
        # Row-major offsets of each tree's leaves: one flat gather per search instead of a
        # gather over two index arrays (half the time at a search's 100-odd rows).
        trees, width = self.values.shape
        self.offsets = np.arange(trees, dtype=np.int64) * width
        self.flat_values = self.values.ravel()
        self.flat_parts = self.parts.reshape(trees * width, -1)


def leaf_tables(booster, features: int) -> LeafTables:
    trees = booster.dump_model()["tree_info"]
    width = max(tree["num_leaves"] for tree in trees)
    values = np.zeros((len(trees), width))
    parts = np.zeros((len(trees), width, features))
    bias = 0.0
    for t, tree in enumerate(trees):
        root = tree["tree_structure"]
        if "leaf_index" in root:  # a tree of one leaf: all of it is bias
            values[t, 0] = root["leaf_value"]
            bias += root["leaf_value"]
            parts[t, 0] = 0.0
            continue
        bias += root["internal_value"]
        stack = [(root, np.zeros(features))]
        while stack:
            node, path = stack.pop()
            for side in ("left_child", "right_child"):
                child = node[side]
                leaf = "leaf_index" in child
                step = path.copy()
                value = child["leaf_value"] if leaf else child["internal_value"]
                step[node["split_feature"]] += value - node["internal_value"]
                if leaf:
                    values[t, child["leaf_index"]] = value
                    parts[t, child["leaf_index"]] = step
                else:
                    stack.append((child, step))
    return LeafTables(values, parts, bias)


@dataclass
class Scored:
    scores: np.ndarray  # one per row
    leaves: np.ndarray  # (rows, trees), int64: the leaf each row reached in each tree


@dataclass
class LearnedRanker:
    booster: object
    manifest: dict
    tables: LeafTables

    def scored(self, features: np.ndarray) -> Scored:
        """The rows' scores, from one pass through the trees: the leaves each row reaches,
        whose outputs add up to the model's prediction (and give `contributions` for free)."""
        trees = self.tables.values.shape[0]
        if len(features) == 0:
            return Scored(np.zeros(0), np.zeros((0, trees), dtype=np.int64))
        # One thread: a request's 100-odd rows are too few to share out.
        leaves = self.booster.predict(features, num_threads=1, pred_leaf=True).astype(np.int64)
        scores = self.tables.flat_values[leaves + self.tables.offsets].sum(axis=1)
        return Scored(scores, leaves)

    def score(self, features: np.ndarray) -> np.ndarray:
        return self.scored(features).scores

    def contributions(self, leaves: np.ndarray) -> np.ndarray:
        """Per row of `Scored.leaves`, each feature's part of the score and, last, the bias
        (they add up to the score): what `search.ranking.explain` turns into words. Path
        attribution costs a table lookup where LightGBM's SHAP values (`pred_contrib`) cost
        more than scoring every candidate; both split the score exactly."""
        features = self.tables.parts.shape[2]
        if len(leaves) == 0:
            return np.zeros((0, features + 1))
        parts = self.tables.flat_parts[leaves + self.tables.offsets].sum(axis=1)
        return np.hstack([parts, np.full((len(leaves), 1), self.tables.bias)])


def load_ranker(model_path: Path) -> LearnedRanker:
    import lightgbm

    manifest_file = manifest_path(model_path)
    try:
        manifest = json.loads(manifest_file.read_text())
    except (OSError, ValueError) as exc:
        raise RankerUnavailable(f"ranker manifest {manifest_file} unreadable: {exc}") from exc
    try:
        check_file(model_path, sha256=manifest.get("sha256"))
    except ModelFileError as exc:
        raise RankerUnavailable(str(exc)) from exc
    if tuple(manifest.get("features", ())) != FEATURES:
        raise RankerUnavailable(
            f"{model_path} was trained on other features than this version computes; "
            "rebuild it with `make train-ranker`"
        )
    try:
        booster = lightgbm.Booster(model_file=str(model_path))
    except lightgbm.basic.LightGBMError as exc:
        raise RankerUnavailable(f"{model_path} is not a LightGBM model: {exc}") from exc
    if tuple(booster.feature_name()) != FEATURES:
        raise RankerUnavailable(f"{model_path} names other features than its manifest")
    return LearnedRanker(booster, manifest, leaf_tables(booster, len(FEATURES)))


_loaded: dict[str, LearnedRanker | RankerUnavailable] = {}
_lock = threading.Lock()


def get_ranker() -> LearnedRanker:
    """The configured ranker, loaded and checked once per process (per path). A refusal is
    remembered too: re-reading and re-hashing a bad file on every search would cost each query
    the same I/O for the same answer (replacing the file needs a restart either way)."""
    from django.conf import settings

    configured = settings.REPORIFT["SEARCH"]["RANKER"]
    if not configured:
        raise RankerUnavailable("the learned ranker is turned off (REPORIFT_RANKER)")
    with _lock:
        if configured not in _loaded:
            try:
                _loaded[configured] = load_ranker(Path(configured))
            except RankerUnavailable as exc:
                _loaded[configured] = exc
        loaded = _loaded[configured]
    if isinstance(loaded, RankerUnavailable):
        raise RankerUnavailable(str(loaded))
    return loaded
