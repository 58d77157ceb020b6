"""Per-family rates of the mixed-language scale benchmark: units over the family's seconds."""

from benchmarks.time_to_answer import families


def row(family, units, parse_s, static_s, sampled, sample_s):
    return {"family": family, "files": 1, "units": units, "parse_s": parse_s,
            "phase1_static_s": static_s, "phase2_sample_units": sampled,
            "phase2_sample_s": sample_s}  # fmt: skip


def test_a_family_sums_its_languages_units_and_seconds():
    rows = {
        "go": row("Go/Rust/C", 100, 1.0, 0.1, 10, 1.0),
        "rust": row("Go/Rust/C", 300, 1.0, 0.1, 10, 4.0),
        "python": row("Python", 50, 0.5, 0.05, 10, 0.5),
    }
    out = families(rows)
    assert list(out) == ["Go/Rust/C", "Python"]
    go_rust = out["Go/Rust/C"]
    assert go_rust["languages"] == ["go", "rust"] and go_rust["units"] == 400
    assert go_rust["parse_units_per_s"] == 200.0
    assert go_rust["phase1_static_units_per_s"] == 2000.0
    assert go_rust["phase2_units_per_s"] == 4.0  # 20 sampled units in 5 s
