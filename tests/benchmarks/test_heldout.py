"""The held-out projects list as the trainers read it."""

from benchmarks.heldout import is_held_out, list_sha256, read_projects


def test_whole_names_owner_or_name_ignoring_case_and_separators(tmp_path):
    listed = tmp_path / "projects.txt"
    listed.write_text("# one name a line\naiohttp\nzig  # the language\nNewtonsoft.Json\n\n")
    projects = read_projects(listed)
    assert projects == {"aiohttp", "zig", "newtonsoftjson"}
    assert is_held_out(["aiohttp"], projects)
    assert is_held_out(["newtonsoft_json"], projects)
    assert is_held_out(["ziglang/zig"], projects)  # the name of owner/name
    assert is_held_out(["numpy", "AIOHTTP"], projects)  # any of the names given
    # Whole names only: a web server written in Zig is not Zig.
    assert not is_held_out(["karlseguin/http.zig"], projects)
    assert not is_held_out(["aiohttp_retry"], projects)
    assert len(list_sha256(listed)) == 64
