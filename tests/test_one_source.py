"""Each fact and option is written once: copier.yml and includes/ hold it, everything follows.

The proofs here are the recipes of docs/contributing.md run as tests: an ``_exclude`` pattern
that names no template path, a list of libraries typed outside the data, or a CUDA major that
needs more than its matrix entry would each fail one of them.
"""

from __future__ import annotations

import copy
import fnmatch
import os
import re
import runpy
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import (
    ALL_LIBRARIES,
    MAJORS,
    OWNED_TESTS,
    REPO_ROOT,
    Render,
    committed,
    copy_template,
    git,
    snapshot_working_tree,
    update_project,
)
from template_data import exclude_blocks, library_choices, load_computed

MATRIX: dict[str, Any] = load_computed("cuda_matrix")
TEMPLATE = REPO_ROOT / "template"
JINJA_LINE = re.compile(r"^\s*\{%.*%\}\s*$")


def template_paths() -> set[str]:
    """Every path the template tree can render, files and folders, without the .jinja suffix.

    The owned code's tests (tests/owned/) count as the tests/ files they are rendered into.
    """
    paths = set()
    for path in TEMPLATE.rglob("*"):
        rel = path.relative_to(TEMPLATE).as_posix()
        paths.add(rel.removesuffix(".jinja"))
    paths.update(f"tests/{path.name.removesuffix('.jinja')}" for path in OWNED_TESTS.iterdir())
    return paths


def exclude_patterns() -> list[str]:
    """The patterns of every ``_exclude`` block, with their Jinja control lines taken out."""
    return [
        line.strip()
        for block in exclude_blocks()
        for line in block.splitlines()
        if line.strip() and not JINJA_LINE.match(line)
    ]


def test_every_exclude_pattern_names_a_template_path() -> None:
    # A renamed file whose old name stays in _exclude would quietly ship in every render.
    patterns = exclude_patterns()
    assert len(patterns) >= 20
    # `folder/**` excludes a folder's contents and `!path` keeps one of them (docs=none keeps
    # docs/extending.md): both still name a template path.
    # A library's block names its files by pattern (`kernels/cupy_*.py`): each matches one.
    paths = template_paths()
    named = {p: p.strip("/").removeprefix("!").removesuffix("/**") for p in patterns}
    missing = [pattern for pattern, path in named.items() if not fnmatch.filter(paths, path)]
    assert missing == []


def test_every_exclude_block_is_one_condition_around_plain_paths() -> None:
    for block in exclude_blocks():
        lines = [line for line in block.splitlines() if line.strip()]
        assert JINJA_LINE.match(lines[0]), block
        assert lines[0].strip().startswith("{% if "), block
        assert lines[-1].strip() == "{% endif %}", block
        assert not any(JINJA_LINE.match(line) for line in lines[1:-1]), block


def test_no_template_path_carries_a_condition_in_its_name() -> None:
    conditional = [p for p in template_paths() if "{%" in p]
    assert conditional == []


def test_matrix_libraries_are_the_gpu_libraries_choices() -> None:
    assert list(MATRIX["libraries"]) == list(library_choices())
    for major, entry in MATRIX["majors"].items():
        assert list(entry["requirements"]) == ALL_LIBRARIES, major
        assert set(entry["python_min"]) <= set(ALL_LIBRARIES), major


# A hand-typed list of libraries or of their modules: four or more of these names quoted in one
# bracket (a test may still pick two or three libraries as its answers). Such a list is a second
# source of truth that drifts when a library is added.
KNOWN_NAMES = set(ALL_LIBRARIES) | {
    module for library in MATRIX["libraries"].values() for module in library["modules"]
}
QUOTED_LIST = re.compile(r"[\[(]\s*((?:[\"'][\w.-]+[\"'],?\s*(?:#[^\n]*)?\s*){3,})[\])]")


def retyped_lists(text: str) -> list[str]:
    """Every bracketed list that quotes four or more library or CUDA module names."""
    found = []
    for match in QUOTED_LIST.finditer(text):
        names = re.findall(r"[\"']([\w.-]+)[\"']", match.group(1))
        if sum(name in KNOWN_NAMES for name in names) >= 4:
            found.append(", ".join(names))
    return found


def test_retyped_list_detector_sees_a_retyped_list() -> None:
    retyped = 'MODULES = (\n    "cupy",\n    "numba.cuda",  # why\n    "torch",\n    "jax",\n)'
    assert retyped_lists(retyped) == ["cupy, numba.cuda, torch, jax"]
    assert retyped_lists('answers = ["cupy", "numba", "numpy"]') == []


def test_no_file_retypes_the_list_of_libraries_or_cuda_modules() -> None:
    roots = [TEMPLATE, REPO_ROOT / "tests", REPO_ROOT / "tools"]
    files = [p for root in roots for p in root.rglob("*") if p.is_file() and p.suffix != ".pyc"]
    files.append(REPO_ROOT / "noxfile.py")
    offenders = {
        str(path.relative_to(REPO_ROOT)): found
        for path in files
        if (found := retyped_lists(path.read_text("utf-8", errors="replace")))
    }
    assert offenders == {}


def rendered_facts(project: Path) -> dict[str, Any]:
    return runpy.run_path(str(project / "src" / "my_gpu_project" / "gpu" / "_project.py"))


def test_rendered_cuda_modules_are_every_module_of_the_matrix(render: Render) -> None:
    project = render({"gpu_libraries": []}, name="p")
    expected = sorted(m for lib in MATRIX["libraries"].values() for m in lib["modules"])
    assert sorted(rendered_facts(project)["CUDA_MODULES"]) == expected


def test_mypy_overrides_cover_every_module_of_the_matrix(render: Render) -> None:
    project = render({}, name="p")
    config = tomllib.loads((project / "pyproject.toml").read_text("utf-8"))
    overridden = {m for o in config["tool"]["mypy"]["overrides"] for m in o["module"]}
    for library in MATRIX["libraries"].values():
        for module in library["modules"]:
            # mypy's `name.*` matches the module `name` itself and every submodule.
            assert f"{module.split('.')[0]}.*" in overridden, module


def test_cuda_cores_nvml_floors_are_written_in_the_matrix_alone() -> None:
    # The doctor's message and the troubleshooting page read them from the matrix; a copy typed
    # into a comment or a sentence stays behind when a floor moves or a major joins.
    floors = {entry["cuda_core_nvml_bindings"] for entry in MATRIX["majors"].values()}
    files = [*TEMPLATE.rglob("*"), *OWNED_TESTS.iterdir()]
    typed = [
        f"{path.relative_to(REPO_ROOT)}: {floor}"
        for path in files
        if path.is_file()
        for floor in sorted(floors)
        if floor in path.read_text("utf-8", errors="replace")
    ]
    assert typed == []


# --- Adding a CUDA major is an edit to the matrix alone ------------------------------------------

NEW_DRIVER = "612.34.56"


def _next_major_text(text: str, major: int) -> str:
    """``text`` with every stand-alone ``major`` (and ``major + 1``) moved up by one."""
    return re.sub(rf"(?<!\d)({major}|{major + 1})(?!\d)", lambda m: str(int(m.group(1)) + 1), text)


def next_major_entry(matrix: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """A copy of the newest major's entry, renamed for the next major, with a new driver."""
    newest = max(int(m) for m in matrix["majors"])
    entry = copy.deepcopy(matrix["majors"][str(newest)])
    entry = yaml.safe_load(_next_major_text(yaml.safe_dump(entry), newest))
    entry["min_driver_linux"] = NEW_DRIVER
    entry["torch_index_tag"] = f"{newest + 1}0"
    return newest + 1, entry


def major_tokens(major: int, entry: dict[str, Any]) -> list[str]:
    """Text that belongs to one major only: a render for another major must not contain it."""
    return [
        f"cuda{major}]",
        f"[cuda{major}",
        f"--extra cuda{major}",
        f"cuda{major}x",
        f"[cu{major}]",
        f"cuda-toolkit=={major}.",
        entry["image"],
        f"CUDA {entry['toolkit_range']}",
        f"driver >= {entry['min_driver_linux']}",
    ]


ALL_OPTIONS = {
    "gpu_libraries": ALL_LIBRARIES,
    "python_min": "3.12",
    "docker": True,
    "ci": "github",
    "docs": "sphinx",
    "dask": True,
}


def assert_render_follows_majors(
    project: Path, served: dict[int, dict[str, Any]], others: dict[int, dict[str, Any]]
) -> None:
    """Every major-dependent fact of ``project`` is that of a major it serves, and no other's."""
    pyproject = tomllib.loads((project / "pyproject.toml").read_text("utf-8"))
    extras = pyproject["project"]["optional-dependencies"]
    own = [lib for lib in ALL_LIBRARIES if MATRIX["libraries"][lib]["own_extra"]]
    dockerfile = (project / "Dockerfile").read_text("utf-8")
    readme = (project / "README.md").read_text("utf-8")
    gpu_page = (project / "docs" / "gpu.md").read_text("utf-8")
    workflow = (project / ".github" / "workflows" / "gpu.yml").read_text("utf-8")
    for major, entry in served.items():
        assert (
            extras[f"cuda{major}"]
            == [
                req for lib in ALL_LIBRARIES if lib not in own for req in entry["requirements"][lib]
            ]
            + entry["dask"]["requirements"]
            + entry["guard_requirements"]
        )
        assert f"FROM {entry['image']} AS cuda{major}-base\n" in dockerfile
        assert f"| >= {entry['min_driver_linux']} | {entry['toolkit_range']} |" in readme
        assert f'[cuda{major}]"` |' in readme
        assert entry["min_driver_linux"] in gpu_page
        assert entry["min_driver_linux"] in workflow
    newest = max(served)
    facts = rendered_facts(project)
    assert facts["CUDA_MAJORS"] == tuple(sorted(served))
    assert (facts["CUDA_MAJOR"], facts["MIN_DRIVER"]) == (
        newest,
        served[newest]["min_driver_linux"],
    )
    assert facts["GPU_EXTRAS"] == {major: f"cuda{major}" for major in sorted(served)}
    leftovers = []
    for path in sorted(project.rglob("*")):
        rel = path.relative_to(project)
        if not path.is_file() or rel.parts[0] in {"tests", ".git"}:
            continue
        # The one table of every major's driver, kept for advice about other builds.
        if rel.name == "_project.py":
            continue
        text = path.read_text("utf-8")
        for other, other_entry in others.items():
            leftovers += [f"{rel}: {t}" for t in major_tokens(other, other_entry) if t in text]
    assert leftovers == []


REAL_MAJORS = {int(m): e for m, e in MATRIX["majors"].items()}


@pytest.fixture(scope="module")
def next_major_template(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[int, dict[str, Any], Path]:
    """The template at v0.0.0, and at v0.0.1 with one more major added to the matrix file."""
    template = snapshot_working_tree(tmp_path_factory.mktemp("next-major") / "template")
    matrix_file = template / "includes" / "cuda-matrix.yml"
    data = yaml.safe_load(matrix_file.read_text("utf-8"))
    major, entry = next_major_entry(data["cuda_matrix"]["default"])
    data["cuda_matrix"]["default"]["majors"][str(major)] = entry
    matrix_file.write_text(yaml.safe_dump(data, sort_keys=False), "utf-8")
    git("commit", "-q", "-am", f"add CUDA {major} to the matrix", cwd=template)
    git("tag", "v0.0.1", cwd=template)
    return major, entry, template


@pytest.fixture(scope="module")
def next_major_render(
    next_major_template: tuple[int, dict[str, Any], Path],
) -> tuple[int, dict[str, Any], Path]:
    """A new project of the template with the added major: no answer about majors."""
    major, entry, template = next_major_template
    project = copy_template(template, template.parent / "project", ALL_OPTIONS, "v0.0.1")
    return major, entry, project


def test_a_major_added_to_the_matrix_alone_joins_a_new_project(
    next_major_render: tuple[int, dict[str, Any], Path],
) -> None:
    major, _, project = next_major_render
    answers = yaml.safe_load((project / ".copier-answers.yml").read_text("utf-8"))
    assert answers["cuda_every_major"] is True
    assert "cuda_majors" not in answers  # computed from the matrix at every update
    assert rendered_facts(project)["CUDA_MAJORS"] == (*sorted(REAL_MAJORS), major)


def test_a_major_added_to_the_matrix_reads_as_a_list_in_the_docs(
    next_major_render: tuple[int, dict[str, Any], Path],
) -> None:
    major, _, project = next_major_render
    listed = ", ".join(map(str, sorted(REAL_MAJORS))) + f" and {major}"  # "12, 13 and 14"
    assert f"serves **CUDA {listed}**," in (project / "docs" / "gpu.md").read_text("utf-8")
    troubleshooting = (project / "docs" / "troubleshooting.md").read_text("utf-8")
    assert f"serves CUDA {listed}, one extra each" in troubleshooting


@pytest.mark.parametrize(
    ("items", "expected"),
    [([], ""), ([12], "12"), ([12, 13], "12 and 13"), ([12, 13, 14], "12, 13 and 14")],
)
def test_a_list_in_prose_is_written_with_commas_and_one_and(
    items: list[int], expected: str
) -> None:
    from jinja2 import Environment, FileSystemLoader

    env = Environment(loader=FileSystemLoader(REPO_ROOT), autoescape=False)
    template = env.from_string("{% from 'includes/prose.jinja' import listed %}{{ listed(items) }}")
    assert template.render(items=items) == expected


def test_a_major_added_to_the_matrix_alone_reaches_every_rendered_fact(
    next_major_render: tuple[int, dict[str, Any], Path],
) -> None:
    major, entry, project = next_major_render
    assert_render_follows_majors(project, {**REAL_MAJORS, major: entry}, {})


def test_a_major_added_to_the_matrix_alone_advises_the_previous_ones_extra(
    next_major_render: tuple[int, dict[str, Any], Path],
) -> None:
    major, _, project = next_major_render
    # The advice for a driver too old for this build, as the rendered module words it.
    advice = subprocess.run(
        [
            sys.executable,
            "-c",
            f"from my_gpu_project.gpu import _detect; print(_detect._advice(35, {major}))",
        ],
        cwd=project,
        env={**os.environ, "PYTHONPATH": str(project / "src")},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert f"install the cuda{major - 1} extra in its place" in advice


def _updated(template: Path, dst: Path, answers: dict[str, Any]) -> Path:
    """A project rendered before the new major, committed, then updated to the template with it."""
    project = copy_template(template, dst, answers, "v0.0.0")
    committed(project)
    update_project(project, "v0.0.1")
    return project


def test_a_major_added_to_the_matrix_reaches_a_project_serving_every_major_on_update(
    next_major_template: tuple[int, dict[str, Any], Path], tmp_path: Path
) -> None:
    major, entry, template = next_major_template
    project = _updated(template, tmp_path / "every", ALL_OPTIONS)
    assert_render_follows_majors(project, {**REAL_MAJORS, major: entry}, {})
    assert "<<<<<<<" not in (project / "pyproject.toml").read_text("utf-8")


def test_a_major_added_to_the_matrix_leaves_a_project_with_chosen_majors_as_it_was(
    next_major_template: tuple[int, dict[str, Any], Path], tmp_path: Path
) -> None:
    major, entry, template = next_major_template
    chosen = {**ALL_OPTIONS, "cuda_majors": sorted(REAL_MAJORS)}
    project = _updated(template, tmp_path / "chosen", chosen)
    assert_render_follows_majors(project, REAL_MAJORS, {major: entry})


@pytest.mark.parametrize("major", MAJORS)
def test_each_real_major_alone_reaches_every_rendered_fact(major: int, render: Render) -> None:
    project = render({**ALL_OPTIONS, "cuda_majors": [major]}, name=f"p{major}")
    others = {m: e for m, e in REAL_MAJORS.items() if m != major}
    assert_render_follows_majors(project, {major: REAL_MAJORS[major]}, others)
