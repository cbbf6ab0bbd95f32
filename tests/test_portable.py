"""The portable pattern in a render: one ``array_namespace`` body is tested on every library.

Renders the defaults with a user's module and test added in new files, as the docs say, builds
and installs it, and runs the project's tests of portable code: each ``xp`` test runs on NumPy,
array-api-strict and the fake GPU, and only a body that keeps to the standard passes them all.
"""

from __future__ import annotations

import re
import subprocess

import pytest
import yaml
from conftest import Render, build_and_install

pytestmark = pytest.mark.slow

MODULE = '''\
"""A user's portable functions."""

from __future__ import annotations

from typing import Any

from {package}.gpu import array_namespace


def spread(x: Any) -> Any:
    """The range of ``x``, with the array API standard's functions only."""
    xp = array_namespace(x)
    return xp.max(x) - xp.min(x)


def spread_with_methods(x: Any) -> Any:
    """The range of ``x`` by NumPy's methods, which the standard does not have."""
    return x.max() - x.min()
'''

TEST = """\
from __future__ import annotations

from types import ModuleType

from {package}.gpu import to_cpu
from {package}.spread import spread, spread_with_methods


def test_spread(xp: ModuleType) -> None:
    assert float(to_cpu(spread(xp.asarray([1.0, 4.0])))) == 3.0


def test_spread_with_methods(xp: ModuleType) -> None:
    assert float(to_cpu(spread_with_methods(xp.asarray([1.0, 4.0])))) == 3.0
"""


@pytest.fixture(scope="module")
def outcomes(render: Render) -> dict[str, str]:
    """Each test of the project's portable code and of the user's, by id, and its outcome."""
    project = render({}, name="portable")
    answers = yaml.safe_load((project / ".copier-answers.yml").read_text("utf-8"))
    package = answers["package_name"]
    (project / "src" / package / "spread.py").write_text(MODULE.format(package=package), "utf-8")
    (project / "tests" / "test_spread.py").write_text(TEST.format(package=package), "utf-8")
    built = build_and_install(project, {})
    tests = ["tests/test_portable.py", "tests/test_spread.py"]
    cmd = [str(built.venv_python), "-m", "pytest", "-p", "no:cacheprovider", "-v", *tests]
    proc = subprocess.run(cmd, cwd=project, capture_output=True, text=True, check=False)
    found = dict(re.findall(r"^(tests/\S+) (PASSED|FAILED|SKIPPED|ERROR)", proc.stdout, re.M))
    assert found, proc.stdout + proc.stderr
    return found


def test_the_projects_portable_tests_pass_on_numpy_array_api_strict_and_the_fake_gpu(
    outcomes: dict[str, str],
) -> None:
    own = {name: result for name, result in outcomes.items() if "/test_portable.py::" in name}
    assert {name.partition("[")[2] for name in own} == {
        "numpy]",
        "array_api_strict]",
        "fake_gpu]",
        "cupy]",  # a gpu test: skipped here, run by GPU CI
    }
    assert {name: result for name, result in own.items() if result != "PASSED"} == {
        name: "SKIPPED" for name in own if name.endswith("[cupy]")
    }


def test_a_users_portable_function_is_tested_on_every_library_by_taking_xp(
    outcomes: dict[str, str],
) -> None:
    assert {name: result for name, result in outcomes.items() if "::test_spread[" in name} == {
        "tests/test_spread.py::test_spread[numpy]": "PASSED",
        "tests/test_spread.py::test_spread[array_api_strict]": "PASSED",
        "tests/test_spread.py::test_spread[fake_gpu]": "PASSED",
        "tests/test_spread.py::test_spread[cupy]": "SKIPPED",
    }


def test_a_body_that_leaves_the_standard_fails_on_array_api_strict_only(
    outcomes: dict[str, str],
) -> None:
    failed = {name for name, result in outcomes.items() if result != "PASSED"}
    assert {name for name in failed if not name.endswith("[cupy]")} == {
        "tests/test_spread.py::test_spread_with_methods[array_api_strict]"
    }
