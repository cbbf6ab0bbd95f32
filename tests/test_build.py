"""Each render of the matrix builds, installs and passes its own checks, as a user would run them.

These tests build real distributions with uv and install them into a venv of the project's
minimum Python; they are marked ``slow`` (`nox -s tests_quick` leaves them out).
"""

from __future__ import annotations

import re
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import OWNED_SUITE_IN_TESTS, Built, built_params, run

pytestmark = pytest.mark.slow


def suite_of(built: Built) -> Path:
    """The render with the template-owned code's tests beside the project's own."""
    assert built.suite is not None, "the matrix renders are built with their suite"
    return built.suite


def test_ruff_check_passes_on_the_rendered_code(built: Built) -> None:
    run([sys.executable, "-m", "ruff", "check", "--no-cache", "."], cwd=built.project)


def test_ruff_check_passes_on_the_owned_code_tests(built: Built) -> None:
    run([sys.executable, "-m", "ruff", "check", "--no-cache", "tests"], cwd=suite_of(built))


def test_ruff_format_leaves_the_rendered_code_unchanged(built: Built) -> None:
    for where in (built.project, suite_of(built)):
        run([sys.executable, "-m", "ruff", "format", "--check", "--no-cache", "."], cwd=where)


def test_mypy_strict_passes_on_package_tests_and_noxfile(built: Built) -> None:
    # The suite render is the project plus the owned code's tests: one run checks both.
    out = run(
        [str(built.venv_python), "-m", "mypy", "--no-incremental", "--cache-dir=/dev/null"],
        cwd=suite_of(built),
    )
    assert "Success: no issues found" in out


def test_sdist_and_wheel_pass_twine_check_strict(built: Built) -> None:
    out = run(
        [sys.executable, "-m", "twine", "check", "--strict", str(built.sdist), str(built.wheel)],
        cwd=built.project,
    )
    assert out.count("PASSED") == 2


def test_pyproject_passes_validate_pyproject(built: Built) -> None:
    run([sys.executable, "-m", "validate_pyproject", "pyproject.toml"], cwd=built.project)


def test_wheel_holds_the_package_its_type_marker_and_license(built: Built) -> None:
    package = built.answer("package_name")
    names = zipfile.ZipFile(built.wheel).namelist()
    assert f"{package}/__init__.py" in names
    assert f"{package}/py.typed" in names
    assert any(name.endswith(".dist-info/licenses/LICENSE") for name in names)


def test_import_benchmark_prints_its_table(built: Built) -> None:
    if not built.answer("benchmarks"):
        pytest.skip("rendered without the benchmarks answer (tests/test_slice_options.py)")
    out = run(
        [str(built.venv_python), "benchmarks/import_cost.py", "--runs", "1"], cwd=built.project
    )
    assert "CuPy not installed" in out
    for row in ("import numpy", "first is_cuda_available()", "cached is_cuda_available()"):
        assert row in out


def passed(out: str) -> int:
    found = re.search(r"(\d+) passed", out)
    return int(found.group(1)) if found else 0


def test_generated_tests_pass_against_the_installed_wheel(built: Built) -> None:
    package = built.answer("package_name")
    where = run(
        [str(built.venv_python), "-c", f"import {package}; print({package}.__file__)"],
        cwd=built.project.parent,
    )
    assert "site-packages" in where  # the wheel is what runs, not the source tree
    out = run(
        [str(built.venv_python), "-m", "pytest", "-p", "no:cacheprovider", "-q"],
        cwd=built.project,
    )
    assert passed(out) > 0
    assert " failed" not in out


@pytest.mark.parametrize("built", built_params(OWNED_SUITE_IN_TESTS), indirect=True)
def test_owned_code_tests_pass_beside_the_projects_own(built: Built) -> None:
    # The exhaustive tests of the GPU module, the doctor and the kernel machinery, against the
    # same installed wheel: more tests than the project's own, and none of them fails.
    cmd = [str(built.venv_python), "-m", "pytest", "-p", "no:cacheprovider", "-q"]
    collected = re.search(r"(\d+) tests? collected", run([*cmd, "--co"], cwd=built.project))
    assert collected, "the project's own tests could not be counted"
    out = run(cmd, cwd=suite_of(built))
    assert passed(out) > int(collected.group(1))
    assert " failed" not in out


def test_rapids_doctor_finds_the_doctor_through_the_installed_wheels_entry_point(
    built: Built,
) -> None:
    # rapids-cli loads every `rapids_doctor_check` entry point and calls it with verbose=; the
    # wheel must register one that loads and runs here, with no GPU and no rapids-cli.
    package = built.answer("package_name")
    probe = (
        "from importlib.metadata import entry_points\n"
        "found = [e for e in entry_points(group='rapids_doctor_check')]\n"
        "print([e.name for e in found])\n"
        "check = found[0].load()\n"
        "try:\n"
        "    print('value:', check(verbose=True))\n"
        "except Exception as exc:\n"
        "    print('failed:', type(exc).__name__, exc)\n"
    )
    out = run([str(built.venv_python), "-c", probe], cwd=built.project.parent)
    assert f"['{package}']" in out
    # No driver here: the doctor reports that as a warning or an error, never a crash.
    assert "value: healthy" in out or "failed: DoctorError" in out
