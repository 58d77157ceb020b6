"""`make bench`: the first part of docs/BENCHMARKS.md (today's figures), one section per concern,
each rewritten from the committed reports under docs/eval/ that it names. One is not rendered
here: "indexing" is written by `benchmarks.indexing` when it measures.

    python -m benchmarks.run                  # the quick measurements, then every section
    python -m benchmarks.run --from-reports   # every section from the committed reports only

The quick measurements (indexing, load) take minutes; the others take hours and are run by the
command each section names."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path

from benchmarks.common import ROOT, difference, run_module, write_section

EVAL = ROOT / "docs" / "eval"
# (module, its arguments): each writes what the sections below read, or its own section.
QUICK = [("benchmarks.indexing", ()), ("benchmarks.load", ())]


def report(name: str):
    return json.loads((EVAL / name).read_text())


def _ci(low: float, high: float) -> str:
    return f"[{low:.3f}, {high:.3f}]"


def quality() -> str:
    today = report("embedder-today.json")
    lines = [
        "Command: `python -m benchmarks.embedder_eval run` once per embedder (plain MiniLM, the "
        'tuned delta), then `compare` (history: "Embedding"); report '
        "`docs/eval/embedder-today.json`.",
        "",
        "| dev set | queries | plain embedder (S1 only): S@1 / MRR / NDCG@10 | fast mode | "
        "Δ MRR [95%] | Δ NDCG@10 [95%] |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for key, label in (("packages", "dev packages"), ("cosqa", "CoSQA dev")):
        if key not in today["sets"]:
            continue
        data = today["sets"][key]
        base = data["rows"]["S1 only"]["base"]["metrics"]
        fast = data["rows"]["fast mode"]["tuned"]["metrics"]
        paired = data["fast_mode_tuned_vs_S1_only_base"]
        cells = " / ".join(f"{base[m]:.3f}" for m in ("success@1", "mrr", "ndcg@10"))
        fast_cells = " / ".join(f"{fast[m]:.3f}" for m in ("success@1", "mrr", "ndcg@10"))
        lines.append(
            f"| {label} | {data['queries']} | {cells} | {fast_cells} | {difference(paired['mrr'])} "
            f"| {difference(paired['ndcg@10'])} |"
        )
    return "\n".join(lines)


# The question sets measured by `make bench-questions`: report name, label, rows.
FILE_SETS = (
    ("langs-files", "languages", "benchmarks/questions/languages/dev"),
    ("questions-files", "Python developer questions", "benchmarks/questions/dev"),
    ("large-files", "large repositories", "benchmarks/questions/large/dev"),
)
KINDS = ("symbol", "behaviour", "architecture")


def _paired(figure: dict, *, interval: bool = True) -> str:
    low, high = figure["ci95"]
    cell = f"{figure['difference']:+.3f}" + (f" [{low:+.3f}, {high:+.3f}]" if interval else "")
    return f"**{cell}**" if figure["significant"] else cell


def _set_row(name: str, label: str, part: str) -> str:
    semble = report(f"{name}-compare-semble-{part}.json")
    bm25 = report(f"{name}-compare-bm25-{part}.json")
    ours, theirs = semble["all"]["per_repository"], bm25["all"]["per_repository"]
    files, spans = ours["first_file_ndcg@10"], ours["ndcg@10"]
    # A set whose targets are all files scores spans as files: the same figure twice.
    same = all(files[side] == spans[side] for side in ("base", "new"))
    label = label.replace("{note}", ", every target a file" if same else "")
    return (
        f"| {label} | {semble['all']['n_queries']} | {ours['n_repositories']} "
        f"| {files['new']:.3f} | {files['base']:.3f} "
        f"| {theirs['first_file_ndcg@10']['base']:.3f} | {_paired(files)} "
        f"| {_paired(theirs['first_file_ndcg@10'])} | {spans['new']:.3f} / "
        f"{spans['base']:.3f} / {theirs['ndcg@10']['base']:.3f} | {_paired(spans)} |"
    )


def question_files() -> str:
    """Each question set's deciding figure (file NDCG@10 per repository) for phase 1, semble
    given our table and BM25, and phase 1 - semble per language, from the comparisons and
    summaries `benchmarks.bench_questions` writes."""
    rows, languages, commits, below = [], [], set(), []
    for name, label, rows_dir in FILE_SETS:
        if not (EVAL / f"{name}-summary-tune.json").is_file():
            continue
        commits.add(report(f"{name}-summary-tune.json")["commit"][:7])
        semble = report(f"{name}-compare-semble-tune.json")
        rows.append(_set_row(name, f"{label}{{note}} (`{rows_dir}`)", "tune"))
        # The held-apart fifth, looked at once at the end of the round: it decides nothing.
        if (EVAL / f"{name}-summary-final.json").is_file():
            commits.add(report(f"{name}-summary-final.json")["commit"][:7])
            rows.append(_set_row(name, f"{label}, held-apart fifth (looked at once)", "final"))
            final = report(f"{name}-compare-semble-final.json")
            below += [
                f"{group} ({label}, {row['n_queries']} questions) {_paired(figure)}"
                for group, row in final.items()
                if (figure := row["per_repository"]["first_file_ndcg@10"])["significant"]
                and figure["difference"] < 0
            ]
        by_group = [
            f"{group} {_paired(row['per_repository']['first_file_ndcg@10'], interval=False)}"
            for group, row in semble.items()
            if group != "all"
        ]
        languages.append(f"{label}: {', '.join(by_group)}")
    if not rows:
        return (
            "Not measured yet: `make bench-questions` writes `docs/eval/*-files-summary-tune.json`."
        )
    return "\n".join(
        [
            "**The deciding figure of every question set**: file NDCG@10, a result gaining the "
            "first time a target's file appears (primary 1, secondary 0.5), averaged per "
            "repository, then over repositories; intervals resample questions within "
            "repositories; the span NDCG@10 (the same averaging) beside it (guide: "
            '`benchmarks/questions/README.md`, "Scoring"). Phase 1 (`evaluate --phase 1`), BM25 '
            "alone (`--stages S4`) on the same index, semble 0.7.0 given our static table, one "
            "run per set: `make bench-questions SET=<rows>` (`python -m "
            f"benchmarks.bench_questions`), 2 cores, commit {', '.join(sorted(commits))}, "
            "tuning parts, and each held-apart fifth looked at once at the end of the round "
            "(`--part final`; it decides nothing); per language with intervals: "
            "`docs/eval/<set>-summary-<part>.md`. "
            "Phase 1 - semble on files by language and kind, tuning parts (bold: beyond the "
            "noise): " + "; ".join(languages) + ". On the held-apart fifths, below semble "
            "beyond the noise: " + ("; ".join(below) or "none") + ".",
            "",
            "| set | n | repos | phase 1 | semble | BM25 | phase 1 - semble [95%] "
            "| phase 1 - BM25 [95%] | span: phase 1 / semble / BM25 | span: phase 1 - semble |",
            "|---|---|---|---|---|---|---|---|---|---|",
            *rows,
        ]
    )


FILE = "first_file_ndcg@10"


def languages() -> str:
    """Per language of the languages set: both phases by the deciding file figure against
    semble given our table and BM25, the span figure beside, from the reports of one
    `bench_questions --phase2` run (`--name langs-phase2`, on all the set's corpora or those
    named)."""
    name = "langs-phase2"
    if not (EVAL / f"{name}-compare-phase2-phase1-tune.json").is_file():
        return "Not measured yet: `make bench-questions PHASE2=1 NAME=langs-phase2` writes it."
    summary = report(f"{name}-summary-tune.json")
    corpora = len(json.loads((ROOT / "benchmarks/questions/languages/corpora.json").read_text()))
    measured = len(summary["only"]) or corpora
    semble, bm25 = (
        report(f"{name}-compare-semble-tune.json"),
        report(f"{name}-compare-bm25-tune.json"),
    )
    phase2 = report(f"{name}-compare-phase2-phase1-tune.json")
    phase2_semble = report(f"{name}-compare-phase2-semble-tune.json")
    lines = [
        "Command: `make bench-questions PHASE2=1 NAME=langs-phase2` (`python -m "
        "benchmarks.bench_questions --set benchmarks/questions/languages/dev --phase2`, a data "
        f"dir of its own), on {measured} of the set's {corpora} corpora (every language; "
        "`only` in the summary names them), "
        f"{summary['machine']}, commit {summary['commit'][:7]}, tuning part; both phases on one "
        "index, semble 0.7.0 given our static table and BM25 alone on the same trees; reports "
        f"`docs/eval/{name}-*-tune.json`. File NDCG@10 averaged per repository (the deciding "
        "figure), the span NDCG@10 beside; bold: beyond the noise (paired 95% intervals, "
        "questions resampled within repositories).",
        "",
        "| questions | n | phase 1 | phase 2 | semble | BM25 | phase 1 - semble "
        "| phase 2 - semble | phase 2 - phase 1 [95%] | span: phase 1 / phase 2 / semble |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for group, row in semble.items():
        first, second = row["per_repository"], phase2[group]["per_repository"]
        against_semble = phase2_semble[group]["per_repository"]
        lines.append(
            f"| {group} | {row['n_queries']} | {first[FILE]['new']:.3f} "
            f"| {second[FILE]['new']:.3f} | {first[FILE]['base']:.3f} "
            f"| {bm25[group]['per_repository'][FILE]['base']:.3f} "
            f"| {_paired(first[FILE], interval=False)} "
            f"| {_paired(against_semble[FILE], interval=False)} | {_paired(second[FILE])} "
            f"| {first['ndcg@10']['new']:.3f} / {second['ndcg@10']['new']:.3f} / "
            f"{first['ndcg@10']['base']:.3f} |"
        )
    return "\n".join(lines)


def speed() -> str:
    tta, load = report("first-answer-new.json"), report("load.json")
    trees = {Path(t["tree"]).name: t for t in tta["trees"]}
    lines = [
        "Time to first answer: `make bench-first-answer` (`python -m benchmarks.time_to_answer`), "
        f"{tta['machine']}, one core; report `docs/eval/first-answer-new.json`.",
        "",
        "| tree | units | first answer (s) | all phases (s) | semble index (s) |",
        "| --- | --- | --- | --- | --- |",
    ]
    for name, row in trees.items():
        full = row.get("time_to_full_s")
        label = "django + openai + chromadb" if row["units"] > 20000 else name
        lines.append(
            f"| {label} | {row['units']:,} | {row['time_to_first_answer_s']} "
            f"| {full if full is not None else 'not waited for'} | {row['semble_index_s']} |"
        )
    lines += ["", *against_semble(report("speed.json"))]
    ours, base = load["summary"]["this checkout"], load["summary"].get("baseline")
    against = (
        f" (the build at {load['baseline_commit']} in the same run: "
        f"{base['throughput_rps']:.1f} req/s)"
        if base
        else ""
    )
    lines += [
        "",
        f"Load: `python -m benchmarks.load --clients 20 --seconds 60` (part of `make bench`), "
        f"{load['machine']}, {load['units']} units; report `docs/eval/load.json`: "
        f"{ours['throughput_rps']:.1f} req/s, p50 {ours['p50_ms']:.0f} ms, "
        f"p95 {ours['p95_ms']:.0f} ms, "
        f"{ours['errors']} errors{against}.",
        "",
        "Indexing throughput (both phases, every unit embedded): the scale section's units/s.",
    ]
    return "\n".join(lines)


def against_semble(run: dict) -> list[str]:
    """The three speed figures against semble on the same trees, from one run."""
    load = f"1-minute load {run['load_before'][0]} before, {run['load_after'][0]} after"
    lines = [
        "The three figures against semble on the same trees, in one run: `make bench-speed` "
        f"(`python -m benchmarks.speed`), {run['machine']}, {load}; "
        "report `docs/eval/speed.json`. Fast mode, phase 1; semble 0.7.0 given our static table.",
        "",
        "| tree | units | first answer (s), ours / semble | per query p50 (ms), ours / semble "
        "| p95 (ms), ours / semble | ratio p50 / p95 |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for name, row in run["trees"].items():
        lines.append(
            f"| {name} | {row['units']:,} | {row['first_answer_s']} / "
            f"{row['semble_first_answer_s']} | {row['query_p50_ms']} / "
            f"{row['semble_query_p50_ms']} | {row['query_p95_ms']} / "
            f"{row['semble_query_p95_ms']} | {row['query_ratio_p50']} / "
            f"{row['query_ratio_p95']} |"
        )
    across = run["across"]
    lines += [
        "",
        f"All {across['repositories']} repositories at once ({across['units']:,} units, "
        f"{across['queries']} questions, one process warmed as a server warms): the first search "
        f"{across['first_ms']} ms, then p50 {across['next_p50_ms']} ms and p95 "
        f"{across['next_p95_ms']} ms (every repository ranked: p50 "
        f"{across['every_repository_ranked_p50_ms']} ms). semble searches one repository at a "
        f"time: asking each in turn costs the sum of its medians, "
        f"{across['semble_every_repository_in_turn_ms']} ms.",
    ]
    return lines


def scale() -> str:
    lines = [
        "`make bench-scale` (`python -m benchmarks.scale`, hours); report `docs/eval/scale.json`.",
        "",
        "| units | index (s) | units/s | indexing peak RSS (MiB) | fast p50 / p95 (ms) "
        "| serving RSS (MiB) | disk: SQL / Chroma / lexical (MiB) |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for row in report("scale.json"):
        disk = row["disk_mib"]
        lines.append(
            f"| {row['units']:,} | {row['index_s']} | {row['units_per_s']} "
            f"| {row['index_peak_rss_mib']:,} | {row['fast_ms']['p50']} / {row['fast_ms']['p95']} "
            f"| {row['serving_rss_mib']:,} | {disk['sql']} / {disk['chroma']} / {disk['lexical']} |"
        )
    return "\n".join(lines)


LLM_STAGES = ("augment", "codegen", "rerank")
LLM_ROWS = {
    "llm-stages-qwen2-5-coder-0-5b-instruct.json": (
        "Qwen2.5-Coder-0.5B (default)",
        [
            "+ pointwise rerank, weight 0.3",
            "+ S2: one short generated function (HyDE)",
            "+ S5: augmented query (one completion)",
        ],
    ),
    "llm-stages-qwen2-5-coder-1-5b-instruct-scores.json": (
        "Qwen2.5-Coder-1.5B (opt-in)",
        ["+ pointwise rerank, score blend 0.3"],
    ),
}


def llm_stages() -> str:
    lines = [
        "`python -m benchmarks.llm_stages --cosqa $COSQA/cosqa-retrieval-dev-500.json` with the "
        'model served (samples of the dev sets; the history, "LLM stages", has every row and '
        "its paired interval). MRR, fast mode → with the stage:",
        "",
        "| model | stage | dev packages MRR | CoSQA dev MRR | p50 of the stage | report |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for name, (model, configs) in LLM_ROWS.items():
        data = report(name)
        packages, cosqa = data["packages (dev)"], data["CoSQA dev"]
        fast = "fast: learned ranker, no LLM"
        for config in configs:
            stage = _stage_p50(packages, config)
            lines.append(
                f"| {model} | {config.lstrip('+ ')} | {packages[fast]['mrr']:.3f} → "
                f"{packages[config]['mrr']:.3f} "
                f"| {cosqa[fast]['mrr']:.3f} → {cosqa[config]['mrr']:.3f} "
                f"| {stage} "
                f"| `docs/eval/{name}` |"
            )
    return "\n".join(lines)


def _stage_p50(rows: dict, config: str) -> str:
    """The p50 of the LLM stages a configuration adds. Configurations that share a stage reuse
    the first one's cached answers (their own p50 is near 0), so each stage's figure is from the
    first configuration that ran it."""
    stages = [k for k, v in rows[config]["stage_latency_p50_ms"].items() if k in LLM_STAGES]
    cells = []
    for stage in stages:
        ran = (row["stage_latency_p50_ms"].get(stage, 0) for row in rows.values())
        cells.append(f"{stage} {next((v for v in ran if v), 0) / 1000:.1f} s")
    return ", ".join(cells)


def labels_tryouts() -> str:
    lines = [
        "Labels: one LLM judgement per pair against WebQueryTest's human labels "
        "(`python -m benchmarks.judge_quality --cosqa $COSQA --methods judge`); tryouts: an "
        "example written and run in the sandbox for the first unit found for a developer question "
        "(`python -m benchmarks.found_examples --model MODEL --n 100`).",
        "",
        "| model | label accuracy [95%] (pairs) | examples whose check passed [95%] (results) "
        "| reports |",
        "| --- | --- | --- | --- |",
    ]
    for model, slug in (
        ("qwen2.5-coder-0.5b-instruct", "qwen2-5-coder-0-5b-instruct"),
        ("qwen2.5-coder-1.5b-instruct", "qwen2-5-coder-1-5b-instruct"),
    ):
        judge = report(f"judge-quality-single-{slug}.json")["by_set"]["webquery"]["judge"]
        examples = report(f"examples-{model}.json")
        share, low, high = examples["passed_share"]
        accuracy, a_low, a_high = judge["accuracy"]
        lines.append(
            f"| {model} | {accuracy:.3f} {_ci(a_low, a_high)} ({judge['pairs']}) "
            f"| {share:.0%} [{low:.0%}, {high:.0%}] ({examples['results']}) "
            f"| `docs/eval/judge-quality-single-{slug}.json`, `docs/eval/examples-{model}.json` |"
        )
    return "\n".join(lines)


SECTIONS: dict[str, Callable[[], str]] = {
    "quality": quality,
    "question-files": question_files,
    "languages": languages,
    "speed": speed,
    "scale": scale,
    "llm-stages": llm_stages,
    "labels-tryouts": labels_tryouts,
}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--from-reports", action="store_true", help="measure nothing")
    args = parser.parse_args(argv)
    if not args.from_reports:
        for module, module_args in QUICK:
            run_module(module, *module_args)
    for name, render in SECTIONS.items():
        write_section(name, render())


if __name__ == "__main__":
    main()
