"""The suite's tiers hold what they promise: nothing that builds is in the quick tier, and the
README's tier still builds, installs and tests the defaults, every option and one major.

Membership is read from the tests themselves, as each nox session selects them (noxfile.py's
TIERS), not timed: `tests/conftest.py`'s `builds` follows each test's function and fixtures to
the helpers that build or install a render. A new test that builds falls out of the quick tier
here with the marker to add.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import release
from conftest import ALL_LIBRARIES, BUILT_IN_TESTS, MAJORS, RENDER_MATRIX, REPO_ROOT, TIER_REPORT


def noxfile_constant(name: str) -> Any:
    """A literal assigned at the top of noxfile.py, read without running the file (running it
    would register its sessions with nox in this process, beside a render's)."""
    tree = ast.parse((REPO_ROOT / "noxfile.py").read_text("utf-8"))
    (value,) = (
        node.value
        for node in tree.body
        if isinstance(node, ast.Assign) and [ast.unparse(t) for t in node.targets] == [name]
    )
    return ast.literal_eval(value)


TIERS: dict[str, list[str]] = noxfile_constant("TIERS")


def collected(tier: str, tmp_path: Path) -> list[dict[str, Any]]:
    """Each test `nox -s <tier>` selects, with its markers and what builds in it."""
    report = tmp_path / f"{tier}.json"
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"]
        + TIERS[tier],
        cwd=REPO_ROOT,
        env={**os.environ, TIER_REPORT: str(report)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    rows: list[dict[str, Any]] = json.loads(report.read_text("utf-8"))
    return rows


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    return collected("tests_quick", tmp_path_factory.mktemp("tiers"))


@pytest.fixture(scope="module")
def readme_tier(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    return collected("tests", tmp_path_factory.mktemp("tiers"))


def test_the_quick_tier_builds_and_installs_nothing(quick: list[dict[str, Any]]) -> None:
    builders = [f"{row['nodeid']} ({row['builds']})" for row in quick if row["builds"]]
    assert builders == [], (
        "these tests build or install a render: mark each @pytest.mark.slow (run by nox -s "
        "tests) or @pytest.mark.full (nox -s tests_full only)"
    )


@pytest.mark.parametrize("name", BUILT_IN_TESTS)
def test_the_readme_tier_builds_installs_and_tests_the_render(
    readme_tier: list[dict[str, Any]], name: str
) -> None:
    assert name in RENDER_MATRIX
    ran = {row["nodeid"] for row in readme_tier}
    for test in (
        "test_generated_tests_pass_against_the_installed_wheel",
        "test_mypy_strict_passes_on_package_tests_and_noxfile",
    ):
        assert f"tests/test_build.py::{test}[{name}]" in ran


def test_the_readme_tier_runs_the_owned_suite_on_every_library_and_on_one_major(
    readme_tier: list[dict[str, Any]],
) -> None:
    ran = {row["nodeid"] for row in readme_tier}
    test = "tests/test_build.py::test_owned_code_tests_pass_beside_the_projects_own"
    answers = [answers for name, answers in RENDER_MATRIX.items() if f"{test}[{name}]" in ran]
    assert any(a.get("gpu_libraries") == ALL_LIBRARIES for a in answers)
    assert any(len(a.get("cuda_majors", MAJORS)) == 1 for a in answers)


def test_the_quick_and_readme_tiers_run_on_two_workers_of_an_installed_xdist() -> None:
    assert noxfile_constant("PARALLEL") == ["-n", "2"]
    assert noxfile_constant("ON_WORKERS") == ("tests_quick", "tests")
    assert importlib.util.find_spec("xdist") is not None, "the test group installs pytest-xdist"


def test_the_full_tier_selects_by_no_marker_and_draws_the_full_hypothesis_profile() -> None:
    assert "-m" not in TIERS["tests_full"]
    assert "--hypothesis-profile=full" in TIERS["tests_full"]


def test_a_release_runs_the_full_tier() -> None:
    assert ["-m", "pytest", *TIERS["tests_full"], "-q"] == release.FULL_SUITE
