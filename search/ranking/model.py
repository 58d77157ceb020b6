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
class LearnedRanker:
    booster: object
    manifest: dict

    def score(self, features: np.ndarray) -> np.ndarray:
        if len(features) == 0:
            return np.zeros(0)
        # One thread: a request's 100-odd rows are too few to share out.
        return self.booster.predict(features, num_threads=1)

    def contributions(self, features: np.ndarray) -> np.ndarray:
        """Per row, each feature's part of the score and, last, the bias (they add up to
        `score`): what `search.ranking.explain` turns into words."""
        if len(features) == 0:
            return np.zeros((0, features.shape[1] + 1))
        return self.booster.predict(features, num_threads=1, pred_contrib=True)


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
    return LearnedRanker(booster, manifest)


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
