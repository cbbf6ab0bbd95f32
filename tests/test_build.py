"""Each render of the matrix builds, installs and passes its own checks, as a user would run them.

These tests build real distributions with uv and install them into a venv of the project's
minimum Python; they are marked ``slow`` (`nox -s tests_quick` leaves them out).
"""

from __future__ import annotations

import sys
import zipfile

import pytest
from conftest import Built, run

pytestmark = pytest.mark.slow


def test_ruff_check_passes_on_the_rendered_code(built: Built) -> None:
    run([sys.executable, "-m", "ruff", "check", "--no-cache", "."], cwd=built.project)


def test_ruff_format_leaves_the_rendered_code_unchanged(built: Built) -> None:
    run([sys.executable, "-m", "ruff", "format", "--check", "--no-cache", "."], cwd=built.project)


def test_mypy_strict_passes_on_package_tests_and_noxfile(built: Built) -> None:
    out = run(
        [str(built.venv_python), "-m", "mypy", "--no-incremental", "--cache-dir=/dev/null"],
        cwd=built.project,
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
    out = run(
        [str(built.venv_python), "benchmarks/import_cost.py", "--runs", "1"], cwd=built.project
    )
    assert "CuPy not installed" in out
    for row in ("import numpy", "first is_cuda_available()", "cached is_cuda_available()"):
        assert row in out


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
    assert " passed" in out
    assert " failed" not in out
