import argparse
import json

from benchmarks.embedder_eval import CONFIGS, KEYS, compare


def _run(label, scores):
    """A run file as `embedder_eval run` writes it: every configuration's per-query metrics."""
    rows = {}
    for config, values in scores.items():
        mean = sum(values) / len(values)
        rows[config] = {
            "metrics": {key: mean for key in KEYS},
            "ci95": {key: [mean, mean] for key in KEYS},
            "per_query": {key: values for key in KEYS},
        }
    return {
        "label": label,
        "model_id": label,
        "excluded_packages": [],
        "sets": {"cosqa": {"queries": len(next(iter(scores.values()))), "rows": rows}},
    }


def test_compare_pairs_each_configuration_and_the_product_against_the_plain_model(tmp_path):
    n = 40
    base = _run("base", {"S1 only": [0.0] * n, "fast mode": [0.5] * n})
    tuned = _run("tuned", {"S1 only": [0.5] * n, "fast mode": [1.0] * n})
    paths = []
    for run in (base, tuned):
        path = tmp_path / f"{run['label']}.json"
        path.write_text(json.dumps(run))
        paths.append(path)
    out = tmp_path / "compare.json"
    compare(argparse.Namespace(base=paths[0], tuned=paths[1], out=out, manifest=None))
    report = json.loads(out.read_text())["sets"]["cosqa"]
    assert set(report["rows"]) == set(CONFIGS)
    assert report["rows"]["fast mode"]["tuned_vs_base"]["mrr"]["difference"] == 0.5
    overall = report["fast_mode_tuned_vs_S1_only_base"]["mrr"]
    assert overall["difference"] == 1.0 and overall["significant"]
