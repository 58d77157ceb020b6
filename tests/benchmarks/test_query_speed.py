"""The per-query speed run against semble: each repository's figures from the two reports its
two commands wrote, timed under the same load."""

import json

from benchmarks import query_speed


def _report(latencies: list[float], *, ours: bool) -> dict:
    per_query = [
        {"id": f"git-{i}", "latency_ms": ms}
        | ({"timings_ms": {"S1": 1.0 + i, "order": 5.0}} if ours else {})
        for i, ms in enumerate(latencies)
    ]
    figures = {"all": {"first_file_ndcg@10": {"mean": 0.6 if ours else 0.5}}}
    return {"per_query": per_query, "per_repository": figures} | (
        {"corpus_units": {"git": 37876}, "warm_ups": {"git": {"complete": True}}} if ours else {}
    )


def test_a_repository_is_timed_by_both_systems_and_compared(tmp_path, monkeypatch):
    commands = []

    def run(command, env):
        commands.append(command)
        out = command[command.index("--out") + 1]
        ours = "evaluate" in command
        latencies = [10.0, 20.0, 30.0] if ours else [5.0, 10.0, 60.0]
        with open(out, "w") as handle:
            json.dump(_report(latencies, ours=ours), handle)
        assert env["REPORIFT_PHASE2_MAX_UNITS"] == "1"  # phase 1 is what is measured
        return 1.0

    monkeypatch.setattr(query_speed, "_run", run)
    rows = tmp_path / "git.jsonl"
    figures = query_speed.measure(rows, part="tune", semble=["py", "-m", "s"], work=tmp_path)
    # Ours first (warmed, phase 1), then semble on the same rows.
    assert "--warm" in commands[0] and "--phase" in commands[0]
    assert commands[1][:3] == ["py", "-m", "s"] and str(rows) in commands[1]
    assert figures["units"] == 37876
    assert figures["ours"]["p50_ms"] == 20.0 and figures["semble"]["p50_ms"] == 10.0
    assert figures["ratio_p50"] == 2.0
    assert figures["our_stages_p50_ms"] == {"S1": 2.0, "order": 5.0}
    assert figures["file_ndcg@10"] == {"ours": 0.6, "semble": 0.5}
    assert len(figures["ours"]["load"]) == 3 and len(figures["semble"]["load"]) == 3
