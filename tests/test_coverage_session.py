"""The rendered project's coverage session measures the user's code the same way everywhere.

A default render gets the files of its guides (docs/extending.md, the template's docs/guide.md)
and a realistic module of a user's own, written the guide's way (tests/user_code/: Black-Scholes
prices with a CuPy ``ElementwiseKernel``, payoffs with a Numba CUDA kernel, each with a parallel
CPU twin, and the tests the guide prescribes), then runs ``nox -s coverage`` as a user does.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import Built, Render, build_and_install, git
from test_guide import guide_files_of

pytestmark = pytest.mark.slow

USER_CODE = Path(__file__).resolve().parent / "user_code"
FLOOR = 90  # fail_under in the rendered pyproject.toml


@pytest.fixture(scope="module")
def project(render: Render) -> Built:
    """A render with the guides' files and the user's pricing module, in a git repo.

    With the deep checks: the long guide's tests import their helpers.
    """
    answers = {"deep_checks": True}
    project = render(answers, name="coverage-user-code")
    for rel, body in guide_files_of(project).items():
        (project / rel).write_text(body, "utf-8")
    shutil.copytree(USER_CODE, project, dirs_exist_ok=True)
    built = build_and_install(project, answers)
    git("init", "-q", "-b", "main", cwd=project)  # hatch-vcs reads the version from git
    git("add", "-A", cwd=project)
    git("commit", "-q", "-m", "render, the guide's files and the user's", cwd=project)
    return built


def nox(built: Built, *args: str) -> subprocess.CompletedProcess[str]:
    """Run the project's own nox (from its dev group) with a private envdir.

    Never reused (``-r``): a reused environment keeps the package as first installed, without
    a module added since.
    """
    envdir = built.project.parent / "nox-envs"
    cmd = [str(built.venv_python), "-m", "nox", "--envdir", str(envdir), *args]
    return subprocess.run(
        cmd, cwd=built.project, env=dict(os.environ), capture_output=True, text=True, check=False
    )


def percent_by_file(built: Built, tmp_path: Path) -> dict[str, float]:
    """Each measured file's coverage, from the data the session combined."""
    report = tmp_path / "coverage.json"
    subprocess.run(
        [str(built.venv_python), "-m", "coverage", "json", "-q", "-o", str(report)],
        cwd=built.project,
        check=True,
    )
    files = json.loads(report.read_text("utf-8"))["files"]
    return {Path(name).name: data["summary"]["percent_covered"] for name, data in files.items()}


def test_user_module_is_realistic() -> None:
    module = USER_CODE / "src" / "my_gpu_project" / "pricing.py"
    assert len(module.read_text("utf-8").splitlines()) >= 50
    assert module.read_text("utf-8").count("\ndef ") >= 6


def test_guide_examples_and_a_users_kernel_module_hold_the_floor(
    project: Built, tmp_path: Path
) -> None:
    result = nox(project, "-s", "coverage")
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    # Only your code counts: the package's own modules, not the template's subpackages.
    assert "/gpu/" not in result.stdout
    assert "/kernels/" not in result.stdout
    percents = percent_by_file(project, tmp_path)
    mine = ["pricing.py", "_pricing_cuda.py"]
    guides = ["stats.py", "ops.py", "my_kernels.py", "_my_kernels_cuda.py", "my_cupy_kernels.py"]
    guides += ["my_random.py", "_my_random_cuda.py"]  # the long form's
    assert {name: percents.get(name, 0.0) for name in mine + guides} == pytest.approx(
        dict.fromkeys(mine + guides, 100.0), abs=100 - FLOOR
    )


def test_coverage_ignores_data_an_earlier_run_left(project: Built, tmp_path: Path) -> None:
    # A module no test imports, and stale data from a run that executed all of it: a session
    # that combined what it found would pass.
    package = project.project / "src" / "my_gpu_project"
    untested = package / "untested.py"
    # Big enough to sink the total below the floor: the project has some 200 lines of its own.
    body = "".join(f"    total += {i}\n" for i in range(80))
    untested.write_text(f"def add() -> int:\n    total = 0\n{body}    return total\n", "utf-8")
    stale = tmp_path / "earlier_run.py"
    stale.write_text("from my_gpu_project import untested\n\nuntested.add()\n", "utf-8")
    env = {**os.environ, "PYTHONPATH": str(project.project / "src")}
    try:
        subprocess.run(
            [str(project.venv_python), "-m", "coverage", "run", "-p", str(stale)],
            cwd=project.project,
            env=env,
            check=True,
        )
        assert list(project.project.glob(".coverage.*"))
        result = nox(project, "-s", "coverage")
    finally:
        untested.unlink()
    assert result.returncode != 0
    assert "untested.py" in result.stdout
    assert "is less than fail-under=90" in result.stdout
