"""Read the template's facts from where they are written: copier.yml and includes/.

Tests, tools and the noxfile ask here for the option lists, the CUDA majors and the computed
values instead of typing them again, so adding a major or a library is an edit to the data alone.
"""

from __future__ import annotations

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
def copier_documents() -> tuple[dict[str, Any], ...]:
    """Every YAML document of copier.yml, in order (the includes left out)."""
    documents = yaml.load_all(COPIER_YML.read_text("utf-8"), _CopierYamlLoader)
    return tuple(doc for doc in documents if isinstance(doc, dict))


def questions() -> dict[str, Any]:
    """The questions copier.yml asks, in order (settings and computed values left out)."""
    return {
        key: spec
        for document in copier_documents()
        for key, spec in document.items()
        if not key.startswith("_") and spec.get("when") is not False
    }


def computed_names() -> list[str]:
    """The computed (``when: false``) values copier.yml defines itself, in order."""
    return [
        key
        for document in copier_documents()
        for key, spec in document.items()
        if not key.startswith("_") and spec.get("when") is False
    ]


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
