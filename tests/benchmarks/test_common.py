"""Helpers the benchmarks share."""

from benchmarks.common import without_packages
from search.evaluation.datasets import Corpus, EvalDataset, EvalQuery, GoldUnit


def _dataset(*names: str) -> EvalDataset:
    keys = [f"/data/packages/{name}@" for name in names]
    return EvalDataset(
        name="dev",
        format="repo",
        corpora={key: Corpus(key=key, kind="repo") for key in keys},
        queries=[
            EvalQuery(query_id=str(i), query="q", corpus=key, gold=[GoldUnit(path="a.py")])
            for i, key in enumerate(keys)
        ],
    )


def test_without_packages_drops_a_package_by_name_not_by_prefix():
    dataset = without_packages(_dataset("pip-23.2.1", "pipx-1.4.0", "rich-13.7.1"), ["pip"])
    assert sorted(dataset.corpora) == ["/data/packages/pipx-1.4.0@", "/data/packages/rich-13.7.1@"]
    assert [q.query_id for q in dataset.queries] == ["1", "2"]


def test_without_packages_keeps_everything_when_nothing_is_named():
    dataset = without_packages(_dataset("pip-23.2.1", "rich-13.7.1"), [])
    assert len(dataset.corpora) == 2 and len(dataset.queries) == 2
