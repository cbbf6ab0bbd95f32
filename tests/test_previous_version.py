"""Against the last release: a render changes only in files the CHANGELOG names.

Each render of the answer matrix is compared file for file with the same answers rendered from
the last release (``LAST_RELEASE`` in tests/conftest.py). Every file that differs is a file a
`copier update` from that release touches, so the CHANGELOG's ``## Unreleased`` section must name
it in backticks: the one list of intended changes, written once per change for the people who
update, and emptied by the release that ships it. Whoever merges a change that alters a render
names its files there; this test says which are missing.

Updates from the release are tested end to end in tests/test_update_history.py (its
``release`` sample): kept user files, no conflict, exactly a fresh render.
"""

from __future__ import annotations

import filecmp
import fnmatch
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import LAST_RELEASE, RENDER_MATRIX, REPO_ROOT, Render, copy_template
from release import UNRELEASED
from template_data import questions


def release_is_available() -> bool:
    probe = subprocess.run(
        ["git", "cat-file", "-e", f"{LAST_RELEASE.commit}^{{commit}}"], cwd=REPO_ROOT, check=False
    )
    return probe.returncode == 0


needs_release = pytest.mark.skipif(
    not release_is_available(),
    reason=f"{LAST_RELEASE.commit[:7]} (v{LAST_RELEASE.version}) is not in this clone's history",
)


def release_file(path: str) -> str:
    """A file of the template as the last release has it."""
    return subprocess.run(
        ["git", "show", f"{LAST_RELEASE.commit}:{path}"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def offered(answers: dict[str, Any], asked: dict[str, Any], majors: list[int]) -> dict[str, Any]:
    """``answers`` less what a version that asked ``asked`` and served ``majors`` did not offer.

    A question it did not ask is left to that version's defaults; a choice it did not offer (a
    newer worked example, library or CUDA major) is dropped from the answer. So a new choice is
    compared with the release on the answers the release knew, and needs no edit here.
    """
    kept: dict[str, Any] = {}
    for key, answer in answers.items():
        if key not in asked:
            continue
        choices = asked[key].get("choices")
        values = majors if key == "cuda_majors" else choices
        if isinstance(values, dict):  # a Jinja string of choices (python_min's) is kept
            values = list(values.values())
        if isinstance(values, list):
            if isinstance(answer, list):
                answer = [value for value in answer if value in values]
            elif answer not in values:
                continue
        kept[key] = answer
    return kept


def release_answers(answers: dict[str, Any]) -> dict[str, Any]:
    """``answers`` as the last release offered them."""
    matrix = yaml.safe_load(release_file("includes/cuda-matrix.yml"))["cuda_matrix"]["default"]
    return offered(
        answers, questions(release_file("copier.yml")), sorted(map(int, matrix["majors"]))
    )


def unreleased_section(changelog: str) -> str:
    """The text under ``## Unreleased``, up to the next release heading."""
    start = UNRELEASED.search(changelog)
    assert start is not None, "CHANGELOG.md has no `## Unreleased` section"
    rest = changelog[start.end() :]
    return re.split(r"^## ", rest, maxsplit=1, flags=re.MULTILINE)[0]


def named_paths(section: str) -> list[str]:
    """The file names and globs a CHANGELOG section spells in backticks (`gpu/_project.py`,
    `src/<package>/kernels/`, `docs/*.md`); a placeholder in angle brackets matches any name."""
    spans = re.findall(r"`([^`\s]+)`", section)
    return [
        re.sub(r"<[^>]+>", "*", span)
        for span in spans
        if "/" in span
        or "." in span.lstrip(".")[1:]
        or span.startswith(".")
        or re.fullmatch(r"[A-Z][a-z]*file", span)  # Dockerfile, Makefile: no suffix
    ]


def is_named(path: str, names: list[str]) -> bool:
    """Whether a rendered path is one of ``names``: the whole path or its tail, a folder it lies
    in (a name ending in ``/``), or a glob over either."""
    for name in names:
        if name.endswith("/"):
            if fnmatch.fnmatch(path, f"{name}*") or fnmatch.fnmatch(path, f"*/{name}*"):
                return True
        elif fnmatch.fnmatch(path, name) or fnmatch.fnmatch(path, f"*/{name}"):
            return True
    return False


def differing_paths(old: Path, new: Path) -> list[str]:
    """Project-relative paths present in only one tree or with different content."""

    def files(root: Path) -> set[str]:
        return {
            p.relative_to(root).as_posix()
            for p in root.rglob("*")
            if p.is_file() and ".git" not in p.parts and p.name != ".copier-answers.yml"
        }

    old_files, new_files = files(old), files(new)
    changed = {
        rel for rel in old_files & new_files if not filecmp.cmp(old / rel, new / rel, shallow=False)
    }
    return sorted(changed | (old_files ^ new_files))


def test_a_name_matches_the_whole_path_its_tail_its_folder_or_a_glob() -> None:
    names = named_paths(
        "`pyproject.toml`, `gpu/_project.py`, `src/<package>/kernels/`, `docs/*.md`, `cuda12`, "
        "`Dockerfile`"
    )
    assert names == [
        "pyproject.toml",
        "gpu/_project.py",
        "src/*/kernels/",
        "docs/*.md",
        "Dockerfile",
    ]
    for path in (
        "pyproject.toml",
        "src/pkg/gpu/_project.py",
        "src/pkg/kernels/numba_kernels.py",
        "docs/gpu.md",
    ):
        assert is_named(path, names), path
    for path in ("src/pkg/gpu/_detect.py", "tests/pyproject.toml.bak", "README.md"):
        assert not is_named(path, names), path


def test_the_release_is_rendered_with_the_choices_it_offered() -> None:
    asked = {
        "examples": {"choices": {"Reductions": "reductions", "Stencil": "stencil"}},
        "cuda_majors": {"choices": "{{ computed from the matrix }}"},
        "license": {"choices": {"MIT": "MIT"}},
        "python_min": {"choices": "{{ computed }}"},
    }
    answers = {
        "examples": ["reductions", "histogram"],
        "cuda_majors": [12, 13, 14],
        "license": "WTFPL",
        "python_min": "3.12",
        "telemetry": True,
    }
    assert offered(answers, asked, [12, 13]) == {
        "examples": ["reductions"],
        "cuda_majors": [12, 13],
        "python_min": "3.12",
    }


@needs_release
@pytest.mark.parametrize("name", sorted(RENDER_MATRIX))
def test_render_differs_from_the_last_release_only_in_files_the_changelog_names(
    name: str, render: Render, tmp_path: Path
) -> None:
    answers: dict[str, Any] = RENDER_MATRIX[name]
    old = copy_template(
        REPO_ROOT, tmp_path / "release", release_answers(answers), LAST_RELEASE.commit
    )
    new = render(answers, name=f"now-{name}")
    names = named_paths(unreleased_section((REPO_ROOT / "CHANGELOG.md").read_text("utf-8")))
    unnamed = [rel for rel in differing_paths(old, new) if not is_named(rel, names)]
    assert unnamed == [], (
        f"these files differ from v{LAST_RELEASE.version}'s render: name each in backticks in "
        "CHANGELOG.md's `## Unreleased` section, where the entry says what changed in it"
    )
