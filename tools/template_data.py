"""Read the template's facts from where they are written: copier.yml and includes/.

Tests, tools and the noxfile ask here for the option lists, the CUDA majors and the computed
values instead of typing them again, so adding a major or a library is an edit to the data alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
COPIER_YML = ROOT / "copier.yml"
INCLUDES = ROOT / "includes"


class _CopierYamlLoader(yaml.SafeLoader):
    """Reads copier.yml, leaving its ``!include`` lines unresolved (includes are read apart)."""


_CopierYamlLoader.add_constructor("!include", lambda loader, node: None)


@cache
def copier_documents(text: str | None = None) -> tuple[dict[str, Any], ...]:
    """Every YAML document of copier.yml (or of ``text``, another version's), in order (the
    includes left out)."""
    documents = yaml.load_all(text or COPIER_YML.read_text("utf-8"), _CopierYamlLoader)
    return tuple(doc for doc in documents if isinstance(doc, dict))


def questions(text: str | None = None) -> dict[str, Any]:
    """The questions copier.yml (or ``text``) asks, in order (settings and computed values left
    out)."""
    return {
        key: spec
        for document in copier_documents(text)
        for key, spec in document.items()
        if not key.startswith("_") and spec.get("when") is not False
    }


def own_prefixes() -> dict[str, str]:
    """The prefixes of the modules a project grows by itself, refused as package names."""
    (prefixes,) = (
        d["project_own_prefixes"] for d in copier_documents() if "project_own_prefixes" in d
    )
    return dict(prefixes["default"])


def exclude_blocks() -> list[str]:
    """Every ``_exclude`` entry of copier.yml (Jinja text, one pattern per rendered line)."""
    return [entry for document in copier_documents() for entry in document.get("_exclude", [])]


@cache
def load_computed(name: str) -> Any:
    """The default of a computed value kept in ``includes/`` (the CUDA matrix, the pins...)."""
    for path in sorted(INCLUDES.glob("*.yml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        if name in data:
            return data[name]["default"]
    raise KeyError(f"no computed value named {name!r} in includes/")


def library_choices() -> dict[str, str]:
    """The ``gpu_libraries`` choices as value -> short label ("CuPy", "PyTorch interop")."""
    choices: dict[str, str] = questions()["gpu_libraries"]["choices"]
    return {value: label.split(" (")[0] for label, value in choices.items()}


def example_choices() -> list[str]:
    """The ``examples`` choices (worked kernel examples beyond axpy), in copier.yml's order."""
    choices: dict[str, str] = questions()["examples"]["choices"]
    return list(choices.values())


def cuda_majors() -> list[int]:
    """Every CUDA major the matrix offers, oldest first."""
    return sorted(int(major) for major in load_computed("cuda_matrix")["majors"])


def python_floors(matrix: Mapping[str, Any], major: str) -> dict[str, str]:
    """Each library's oldest Python for a CUDA major, and dask-cuda's under ``"dask"``.

    The matrix names a floor only where one is above the GPU stack's (``python_range.oldest``):
    a floor every offered Python meets says nothing, and the rest take the stack's.
    """
    entry = matrix["majors"][major]
    oldest: str = matrix["python_range"]["oldest"]
    floors = {library: entry["python_min"].get(library, oldest) for library in matrix["libraries"]}
    return {**floors, "dask": entry["dask"].get("python_min", oldest)}


@dataclass(frozen=True)
class PythonSupport:
    """The Pythons a project may support, as copier.yml's computed ``python`` derives them.

    ``versions``: released by the table's ``as_of``, before their end of life, within the GPU
    stack's range (the matrix's ``python_range``). ``choices``: ``python_min``'s, every version but
    the newest. ``spec0``: its default, the oldest choice released within ``support_years`` of
    ``as_of``. ``retired``: the released Pythons below ``versions``, each with why.
    """

    versions: list[str]
    choices: list[str]
    spec0: str
    retired: dict[str, str]


def _number(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def python_support(
    table: dict[str, Any] | None = None, python_range: dict[str, str] | None = None
) -> PythonSupport:
    """Derive ``python`` from a release table and a stack range (by default the template's own).

    Dates compare as text, as the Jinja does: an end of life given as a month ("2026-10") sorts
    before every day of that month, so a Python retires on its first day.
    """
    table = table or load_computed("python_releases")
    python_range = python_range or load_computed("cuda_matrix")["python_range"]
    as_of: str = table["as_of"]
    window = f"{int(as_of[:4]) - table['support_years']}{as_of[4:]}"
    rows: list[dict[str, str]] = []
    retired: dict[str, str] = {}
    for row in table["releases"]:
        if row["released"] > as_of:
            continue
        if row["end_of_life"] <= as_of:
            retired[row["version"]] = f"reached its end of life in {row['end_of_life']}"
        elif _number(row["version"]) < _number(python_range["oldest"]):
            retired[row["version"]] = "is older than the GPU libraries install on"
        elif _number(row["version"]) <= _number(python_range["newest"]):
            rows.append(row)
    choices = rows[:-1]
    if not choices:
        raise ValueError(
            f"as of {as_of}, includes/python-releases.yml and the matrix's python_range "
            f"{python_range} leave {len(rows)} supported Python(s), and python_min needs two: "
            "add the newer releases to the table or widen the range"
        )
    recent = [row for row in choices if row["released"] >= window]
    return PythonSupport(
        versions=[row["version"] for row in rows],
        choices=[row["version"] for row in choices],
        spec0=(recent[0] if recent else choices[-1])["version"],
        retired=retired,
    )
