"""Against the previous template version: renders change only where we meant, updates still work.

``PREVIOUS`` is the last commit before this round of changes (the template has no release tags
yet). Each render of the answer matrix is compared file for file with the same answers rendered
from ``PREVIOUS``; every difference must be listed in ``INTENDED`` with its reason. Move
``PREVIOUS`` forward (and empty ``INTENDED``) when a release is tagged.
"""

from __future__ import annotations

import filecmp
import fnmatch
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import (
    RENDER_MATRIX,
    REPO_ROOT,
    Render,
    copy_template,
    copy_working_tree,
    git,
    update_project,
)

PREVIOUS = "d06a7ecf09033d91152e7ef215c593a2294745a5"

# Rendered paths that differ from PREVIOUS on purpose. Patterns are fnmatch globs over the
# project-relative path; the CHANGELOG tells users what each means for `copier update`.
INTENDED: dict[str, str] = {
    "src/*/gpu/_facts.py": "new: the project's CUDA major, drivers, extra, modules, overrides",
    "src/*/gpu/*": "GPU module: never raises on a broken CuPy, fork-safe, device-aware dispatch",
    "src/*/kernels/*": "kernels: validated once, overlaps refused, numba-cuda-mlir, grid caps",
    "src/*/doctor/*": "doctor: one facts record, registered checks, a CLI apart, new findings",
    "src/*/__init__.py": "package docstring: a fixed first line, the description escaped below",
    "tests/*": "generated tests follow the package; a fake CuPy that refuses implicit copies",
    "benchmarks/*.py": "kernel benchmark times launches only; docstrings escape free text",
    "pyproject.toml": "matrix-derived mypy overrides, repo-review settings, lint/build/docs groups",
    "noxfile.py": "script header, default= sessions, pinned tools, Sphinx docs session",
    ".pre-commit-config.yaml": "the Scientific Python guide's hooks, revisions from the pins",
    ".github/workflows/*.yml": "release.yml (trusted publishing); nox pinned; Sphinx docs job",
    ".gitlab-ci.yml": "build and publish jobs on tags (trusted publishing); nox pinned",
    "Dockerfile": "installs from uv.lock (uv sync --locked); a valid lowercase image name",
    "README.md": "release section, uv.lock, Sphinx, escaped free text, no extra without a library",
    "docs/gpu.md": "the mixed-majors example names the project's own CuPy wheel",
    "docs/troubleshooting.md": "a section per doctor finding; numba-cuda-mlir; no phantom extra",
    "mkdocs.yml": "docs: Material for MkDocs is retired; the site is Sphinx (docs/conf.py)",
    "docs/conf.py": "docs: the Sphinx configuration that replaces mkdocs.yml",
    "docs/index.md": "docs: a toctree lists the pages",
    "docs/api.md": "docs: automodule directives for every public module, for Sphinx",
    ".gitignore": "docs: Sphinx builds into docs/_build/, not site/",
    ".dockerignore": "docs: Sphinx builds into docs/_build/, not site/",
    "src/*/scale/*": "new, dask option: the package's functions chunk by chunk on a Dask cluster",
    "docs/scale-out.md": "new, dask option: when and how to scale out, chunks against GPU memory",
}


def previous_is_available() -> bool:
    probe = subprocess.run(
        ["git", "cat-file", "-e", f"{PREVIOUS}^{{commit}}"], cwd=REPO_ROOT, check=False
    )
    return probe.returncode == 0


needs_previous = pytest.mark.skipif(
    not previous_is_available(), reason=f"{PREVIOUS[:7]} is not in this clone's history"
)


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


@needs_previous
@pytest.mark.parametrize("name", sorted(RENDER_MATRIX))
def test_render_differs_from_the_previous_version_only_where_intended(
    name: str, render: Render, tmp_path: Path
) -> None:
    answers: dict[str, Any] = RENDER_MATRIX[name]
    old = copy_template(REPO_ROOT, tmp_path / "previous", answers, PREVIOUS)
    new = render(answers, name=f"now-{name}")
    unexplained = [
        rel
        for rel in differing_paths(old, new)
        if not any(fnmatch.fnmatch(rel, pattern) for pattern in INTENDED)
    ]
    assert unexplained == []


@pytest.fixture(scope="module")
def updated_from_previous(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project rendered by PREVIOUS, edited by its user, then updated to this working tree."""
    from copier import run_copy

    root = tmp_path_factory.mktemp("from-previous")
    template = root / "template"
    git("clone", "-q", "--no-hardlinks", str(REPO_ROOT), str(template), cwd=root)
    git("tag", "v1", PREVIOUS, cwd=template)
    project = root / "project"
    run_copy(str(template), project, defaults=True, unsafe=False, vcs_ref="v1", quiet=True)
    git("init", "-q", "-b", "main", cwd=project)
    git("add", "-A", cwd=project)
    git("commit", "-q", "-m", "render v1", cwd=project)
    science = project / "src" / "my_gpu_project" / "science.py"
    science.write_text('"""Mine."""\n', "utf-8")
    git("add", "-A", cwd=project)
    git("commit", "-q", "-m", "user code", cwd=project)

    # v2: exactly this working tree, on top of the history that holds v1.
    git("checkout", "-q", "-B", "next", cwd=template)
    git("rm", "-rq", ".", cwd=template)
    copy_working_tree(template)
    git("add", "-A", cwd=template)
    git("commit", "-q", "--allow-empty", "-m", "this working tree", cwd=template)
    git("tag", "v2", cwd=template)
    update_project(project, "v2")
    shutil.rmtree(template)  # the update must not need the template afterwards
    return project


@needs_previous
def test_update_from_the_previous_version_records_the_new_one(
    updated_from_previous: Path,
) -> None:
    answers = yaml.safe_load((updated_from_previous / ".copier-answers.yml").read_text("utf-8"))
    assert answers["_commit"] == "v2"


@needs_previous
def test_update_from_the_previous_version_brings_new_files_and_keeps_the_users(
    updated_from_previous: Path,
) -> None:
    package = updated_from_previous / "src" / "my_gpu_project"
    assert (package / "gpu" / "_facts.py").is_file()
    assert (package / "science.py").read_text("utf-8") == '"""Mine."""\n'


@needs_previous
def test_update_from_the_previous_version_replaces_the_mkdocs_site_with_sphinx(
    updated_from_previous: Path,
) -> None:
    # The previous default answer, docs: mkdocs, is kept and now renders the Sphinx site.
    answers = yaml.safe_load((updated_from_previous / ".copier-answers.yml").read_text("utf-8"))
    assert answers["docs"] == "mkdocs"
    assert not (updated_from_previous / "mkdocs.yml").exists()
    assert (updated_from_previous / "docs" / "conf.py").is_file()


@needs_previous
def test_update_from_the_previous_version_leaves_no_conflict(
    updated_from_previous: Path,
) -> None:
    # The user edited nothing the template writes, so nothing may conflict.
    marked = [
        p.relative_to(updated_from_previous).as_posix()
        for p in updated_from_previous.rglob("*")
        if p.is_file()
        and ".git" not in p.parts
        and (p.suffix == ".rej" or "<<<<<<< " in p.read_text("utf-8", errors="replace"))
    ]
    assert marked == []
