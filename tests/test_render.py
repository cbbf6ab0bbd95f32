"""What every render must look like, before anything is built: files, syntax, answers."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import OLDEST_MAJOR, RENDER_MATRIX, Render, copier_questions, parse_structured
from packaging.requirements import Requirement
from template_data import load_computed

# `${{ ... }}` is GitHub Actions syntax, not Jinja; anything else opening a Jinja tag is a leak.
JINJA_MARKERS = re.compile(r"(?<!\$)\{\{|\{%|\{#|%\}|#\}")


def rendered_files(project: Path) -> list[Path]:
    return sorted(p for p in project.rglob("*") if p.is_file() and ".git" not in p.parts)


@pytest.fixture(scope="module", params=sorted(RENDER_MATRIX))
def rendered(request: pytest.FixtureRequest, render: Render) -> tuple[dict[str, Any], Path]:
    answers = RENDER_MATRIX[request.param]
    return answers, render(answers, name=request.param)


# Sphinx's own Jinja templates (the API reference's page layout), copied as they are.
SPHINX_TEMPLATES = "docs/_templates/"


def test_no_jinja_marker_is_left_in_any_file_or_name(rendered: tuple[dict[str, Any], Path]) -> None:
    _, project = rendered
    leftovers = [
        str(path.relative_to(project))
        for path in rendered_files(project)
        if JINJA_MARKERS.search(str(path.relative_to(project)))
        or (
            not path.relative_to(project).as_posix().startswith(SPHINX_TEMPLATES)
            and JINJA_MARKERS.search(path.read_text(encoding="utf-8"))
        )
    ]
    assert leftovers == []


def test_every_toml_yaml_and_python_file_parses(rendered: tuple[dict[str, Any], Path]) -> None:
    _, project = rendered
    checked = 0
    for path in rendered_files(project):
        checked += parse_structured(path)
    assert checked >= 5  # pyproject, answers, pre-commit, noxfile, package: at the least


def test_package_lives_under_src_with_its_type_marker(
    rendered: tuple[dict[str, Any], Path],
) -> None:
    _, project = rendered
    package = yaml.safe_load((project / ".copier-answers.yml").read_text("utf-8"))["package_name"]
    assert (project / "src" / package / "__init__.py").is_file()
    assert (project / "src" / package / "py.typed").is_file()


def test_optional_files_follow_the_answers(rendered: tuple[dict[str, Any], Path]) -> None:
    _, project = rendered
    answers = yaml.safe_load((project / ".copier-answers.yml").read_text("utf-8"))
    expected = {
        "Dockerfile": answers["docker"],
        "compose.yaml": answers["docker"],
        ".dockerignore": answers["docker"],
        ".github/workflows/ci.yml": answers["ci"] == "github",
        ".gitlab-ci.yml": answers["ci"] == "gitlab",
        "docs/conf.py": answers["docs"] != "none",
        "docs/index.md": answers["docs"] != "none",
    }
    present = {name: (project / name).is_file() for name in expected}
    assert present == expected


def test_license_file_matches_the_chosen_license(rendered: tuple[dict[str, Any], Path]) -> None:
    _, project = rendered
    answers = yaml.safe_load((project / ".copier-answers.yml").read_text("utf-8"))
    first_line = {
        "MIT": "MIT License",
        "BSD-3-Clause": "BSD 3-Clause License",
        "Apache-2.0": "Apache License",
    }[answers["license"]]
    assert first_line in (project / "LICENSE").read_text("utf-8").splitlines()[0]
    pyproject = tomllib.loads((project / "pyproject.toml").read_text("utf-8"))
    assert pyproject["project"]["license"] == answers["license"]


def test_answers_file_records_every_question_and_no_computed_value(render: Render) -> None:
    project = render({}, name="answers")
    answers = yaml.safe_load((project / ".copier-answers.yml").read_text("utf-8"))
    # cuda_majors is asked only of a project that does not serve every major.
    assert set(answers) == set(copier_questions()) - {"cuda_majors"} | {"_commit", "_src_path"}
    chosen = render({"cuda_majors": [OLDEST_MAJOR]}, name="answers-majors")
    answers = yaml.safe_load((chosen / ".copier-answers.yml").read_text("utf-8"))
    assert (answers["cuda_every_major"], answers["cuda_majors"]) == (False, [OLDEST_MAJOR])


def test_defaults_derive_names_from_the_project_name(render: Render) -> None:
    project = render({"project_name": "Fast Fourier-Things 2"}, name="derived")
    answers = yaml.safe_load((project / ".copier-answers.yml").read_text("utf-8"))
    assert answers["package_name"] == "fast_fourier_things_2"
    assert answers["distribution_name"] == "fast-fourier-things-2"
    assert (project / "src" / "fast_fourier_things_2" / "__init__.py").is_file()


# Where a render names an extra of its own distribution: `pip install "name[extra,...]"`,
# `--extra extra`, the `extra` extra, `GPU_EXTRA = "extra"`, uv's `extra = "extra"`.
def extras_named(project: Path, distribution: str) -> set[str]:
    patterns = [
        re.escape(distribution) + r"\[([a-z0-9,-]+)\]",
        r"--extra[ =]([a-z0-9-]+)",
        r"`?\b(cuda\d+|pycuda)`? extra\b",
        r"GPU_EXTRA(?:: [^=]+)? = \"([a-z0-9-]+)\"",
        r"\bextra = \"([a-z0-9-]+)\"",
    ]
    named: set[str] = set()
    for path in rendered_files(project):
        text = path.read_text("utf-8")
        for pattern in patterns:
            for match in re.finditer(pattern, text):
                named.update(match.group(1).split(","))
    return named


def test_every_extra_a_render_names_exists(rendered: tuple[dict[str, Any], Path]) -> None:
    _, project = rendered
    pyproject = tomllib.loads((project / "pyproject.toml").read_text("utf-8"))
    defined = set(pyproject["project"].get("optional-dependencies", {}))
    assert extras_named(project, pyproject["project"]["name"]) <= defined


def test_a_render_without_gpu_libraries_names_no_cuda_extra(render: Render) -> None:
    project = render({"gpu_libraries": [], "ci": "github"}, name="no-gpu-extra")
    # cudaNN alone (not cupy-cuda13x, jax-cuda13-plugin or numba-cuda[cu13]): the extra's name.
    mentions = [
        f"{path.relative_to(project)}: {line.strip()}"
        for path in rendered_files(project)
        for line in path.read_text("utf-8").splitlines()
        if re.search(r"(?<![\w-])cuda\d\d(?![\w-])", line)
    ]
    assert mentions == []


def test_each_tool_has_one_version_in_every_place_it_is_pinned(render: Render) -> None:
    project = render({"ci": "github"}, name="tool-pins")
    tools = load_computed("pins")["tools"]
    groups = tomllib.loads((project / "pyproject.toml").read_text("utf-8"))["dependency-groups"]
    grouped = [Requirement(req) for req in groups["lint"] + groups["build"]]
    hooks = yaml.safe_load((project / ".pre-commit-config.yaml").read_text("utf-8"))["repos"]
    pinned = {
        **{req.name: str(req.specifier).removeprefix("==") for req in grouped},
        # the hooks of the tools above (other hooks are pinned in pins.hooks alone)
        **{
            name: hook["rev"].lstrip("v")
            for hook in hooks
            if "rev" in hook
            and (name := hook["repo"].rsplit("/", 1)[1].removesuffix("-pre-commit")) in tools
        },
    }
    workflows = (project / ".github/workflows/ci.yml").read_text("utf-8")
    pinned["nox"] = re.findall(r"uvx nox@(\S+)", workflows)[0]
    noxfile = (project / "noxfile.py").read_text("utf-8")
    pinned["copier"] = re.findall(r'COPIER = "(\S+)"', noxfile)[0]
    assert pinned == tools
