"""The examples answer: each worked example brings its files, and nothing names it when it is off.

The files of each example are read from its ``_exclude`` block in copier.yml, not retyped here;
turning an example on and off again with ``copier update --data`` is tested end to end.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from conftest import (
    ALL_EXAMPLES,
    OWNED_TESTS,
    WORKING_TREE_TAG,
    Render,
    committed,
    git,
    project_files,
    update_project,
)
from template_data import exclude_blocks, questions

PACKAGE = "my_gpu_project"
LIBRARIES = ["cupy", "numba"]
# Both libraries that have examples, and the answers whose blocks leave out an example's
# benchmark rows, large and PTX tests, so every file of an example is rendered when it is on.
ANSWERS: dict[str, Any] = {"gpu_libraries": LIBRARIES, "benchmarks": True, "deep_checks": True}


def example_files(example: str) -> list[str]:
    """The project paths the ``examples`` block of ``example`` leaves out when it is off.

    The block also names the example's owned tests (tests/owned/), which only this suite's
    renders carry: they are left out here.
    """
    owned = {f"tests/{path.name.removesuffix('.jinja')}" for path in OWNED_TESTS.iterdir()}
    condition = f"{{% if examples is defined and '{example}' not in examples %}}"
    blocks = [block for block in exclude_blocks() if block.strip().startswith(condition)]
    assert len(blocks) == 1, f"one _exclude block for the {example} example"
    lines = [line.strip() for line in blocks[0].splitlines()[1:-1] if line.strip()]
    paths = [line.replace("{{ package_name }}", PACKAGE) for line in lines]
    return [path for path in paths if path not in owned]


def names_in(project: Path) -> str:
    """Every text file of the render, joined: what a reader of the project could find."""
    texts = []
    for path in sorted(project.rglob("*")):
        if path.is_file() and ".git" not in path.parts:
            texts.append(path.read_text("utf-8", errors="replace"))
    return "\n".join(texts)


def stems(files: list[str]) -> set[str]:
    """The module names of an example's files (``numba_stencil``, ``test_kernels_cupy_stencil``)."""
    return {Path(name).name.split(".")[0] for name in files}


def test_no_example_is_chosen_by_default() -> None:
    assert questions()["examples"]["default"] == []


def test_every_example_brings_at_least_a_module_and_a_test() -> None:
    for example in ALL_EXAMPLES:
        files = example_files(example)
        assert any(name.startswith(f"src/{PACKAGE}/kernels/") for name in files), example
        assert any(name.startswith("tests/test_") for name in files), example


@pytest.fixture(scope="module", params=[[], *([e] for e in ALL_EXAMPLES), ALL_EXAMPLES])
def example_render(request: pytest.FixtureRequest, render: Render) -> tuple[list[str], Path]:
    chosen: list[str] = request.param
    answers: dict[str, Any] = {**ANSWERS, "examples": chosen}
    return chosen, render(answers, name="examples-" + ("-".join(chosen) or "none"))


def test_the_files_of_each_example_follow_the_answer(
    example_render: tuple[list[str], Path],
) -> None:
    chosen, project = example_render
    for example in ALL_EXAMPLES:
        present = {name: (project / name).is_file() for name in example_files(example)}
        assert present == dict.fromkeys(present, example in chosen), example


def test_nothing_in_the_render_names_an_example_that_is_off(
    example_render: tuple[list[str], Path],
) -> None:
    chosen, project = example_render
    text = names_in(project)
    for example in ALL_EXAMPLES:
        if example in chosen:
            continue
        named = {stem for stem in stems(example_files(example)) if re.search(rf"\b{stem}\b", text)}
        assert named == set(), f"the render names the {example} example, which is off"


def test_an_example_turned_on_and_off_again_leaves_the_project_as_it_was(
    render: Render, template_repo: Path
) -> None:
    project = render(ANSWERS, name="examples-toggle")
    committed(project)
    before = project_files(project)

    def update(examples: list[str]) -> None:
        update_project(project, WORKING_TREE_TAG, data={"examples": examples})
        git("add", "-A", cwd=project)
        git("commit", "-q", "--allow-empty", "-m", f"examples={examples}", cwd=project)

    update(ALL_EXAMPLES)
    for example in ALL_EXAMPLES:
        assert all((project / name).is_file() for name in example_files(example)), example
    update([])
    after = project_files(project)
    assert sorted(after) == sorted(before)
    changed = sorted(path for path in before if before[path] != after[path])
    # The answers file records the answer; every other file is byte for byte as rendered.
    assert changed in ([], [".copier-answers.yml"])
