from benchmarks.first_queries import QUERIES, percentiles, questions


def test_the_queries_are_sixty_different_questions_of_the_three_packages_in_turn():
    asked = questions()
    assert len(asked) == QUERIES == len(set(asked))
    assert questions(("kombu",), n=3) == questions(("kombu", "celery"), n=5)[0::2][:3]


def test_percentiles_read_the_first_query_apart_from_the_rest():
    row = percentiles([500.0, *[10.0] * 55, *[40.0] * 4])
    assert row == {"p50_ms": 10.0, "p95_ms": 40.0, "max_ms": 500.0, "first_ms": 500.0}
