"""The benchmarks option: the harness a new project starts without, and `--data` adds or drops.

Rendering only. The benchmarks run in the build suite (test_kernels.py, test_build.py,
test_sessions.py); test_update_history.py updates a project from before the question.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
import yaml
from conftest import WORKING_TREE_TAG, Render, committed, update_project
from test_ci_files import rendered_noxfile

# What the option brings to a default render (CuPy and Numba): the scripts, and the table of GPUs'
# peak bandwidth that only benchmarks/kernels.py reads.
BENCHMARK_FILES = ["benchmarks/README.md", "benchmarks/import_cost.py", "benchmarks/kernels.py"]
PEAKS = "src/my_gpu_project/gpu/_devices.py"


def recorded(project: Path) -> object:
    return yaml.safe_load((project / ".copier-answers.yml").read_text("utf-8"))["benchmarks"]


def mypy_files(project: Path) -> list[str]:
    pyproject = tomllib.loads((project / "pyproject.toml").read_text("utf-8"))
    files: list[str] = pyproject["tool"]["mypy"]["files"]
    return files


def test_a_new_project_starts_without_the_benchmarks(render: Render) -> None:
    project = render({}, name="benchmarks-default")
    assert recorded(project) is False
    assert not (project / "benchmarks").exists()
    assert not (project / PEAKS).exists()
    assert "benchmarks" not in mypy_files(project)  # mypy fails on a path that does not exist


def test_the_answer_brings_the_benchmarks_and_their_type_check(render: Render) -> None:
    project = render({"benchmarks": True}, name="benchmarks-on")
    assert recorded(project) is True
    found = sorted(p.relative_to(project).as_posix() for p in (project / "benchmarks").iterdir())
    assert found == BENCHMARK_FILES
    assert (project / PEAKS).is_file()
    assert "benchmarks" in mypy_files(project)


def test_answers_given_on_a_copy_leave_the_benchmarks_off(render: Render) -> None:
    # A copy's answers given as data are not answers recorded before.
    project = render({"license": "BSD-3-Clause", "docker": False}, name="benchmarks-data")
    assert recorded(project) is False


class Skipped(Exception):
    """nox's ``session.skip``."""


class Session:
    """Stands in for nox's session: without benchmarks/, ``bench`` installs and runs nothing."""

    def __init__(self) -> None:
        self.posargs: list[str] = []

    def skip(self, reason: str) -> None:
        raise Skipped(reason)


def test_bench_session_without_benchmarks_skips_naming_the_answer(
    render: Render, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = render({}, name="benchmarks-session")
    noxfile = rendered_noxfile(project)
    monkeypatch.chdir(project)
    with pytest.raises(Skipped, match=r"`copier update --data benchmarks=true` adds it"):
        noxfile.bench(Session())


def test_an_update_with_benchmarks_false_removes_them(render: Render) -> None:
    # What the CHANGELOG tells a project that does not want them.
    project = render({"benchmarks": True}, name="benchmarks-dropped")
    committed(project)
    update_project(project, WORKING_TREE_TAG, {"benchmarks": False})
    assert recorded(project) is False
    assert not (project / "benchmarks").exists()
    assert "benchmarks" not in mypy_files(project)


def test_the_gpu_bandwidth_table_comes_only_with_the_benchmark_that_reads_it(
    render: Render,
) -> None:
    project = render({"gpu_libraries": ["cupy"], "benchmarks": True}, name="bench-cupy-only")
    assert not (project / "benchmarks" / "kernels.py").exists()
    assert not list(project.glob("src/*/gpu/_devices.py"))
