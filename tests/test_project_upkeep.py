"""A default render on its second day: the user's shared fixtures load, the first plain pytest says
where its skipped kernel tests run, and the strict docs build survives a module going away."""

from __future__ import annotations

import os
import subprocess

import pytest
from conftest import Built, Render, build_and_install, git, run_pytest_of

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def project(render: Render) -> Built:
    """A default render, built, in a git repository (hatch-vcs reads the version from it)."""
    built = build_and_install(render({}, name="upkeep"), {})
    git("init", "-q", "-b", "main", cwd=built.project)
    git("add", "-A", cwd=built.project)
    git("commit", "-q", "-m", "render", cwd=built.project)
    return built


def nox(built: Built, *args: str) -> subprocess.CompletedProcess[str]:
    """Run the project's own nox (from its dev group) with a private envdir."""
    envdir = built.project.parent / "nox-envs"
    cmd = [str(built.venv_python), "-m", "nox", "--envdir", str(envdir), *args]
    return subprocess.run(
        cmd, cwd=built.project, env=dict(os.environ), capture_output=True, text=True, check=False
    )


def test_a_fixture_in_project_fixtures_serves_the_users_test_files(project: Built) -> None:
    tests = project.project / "tests"
    fixtures = tests / "project_fixtures.py"
    original = fixtures.read_text("utf-8")
    fixture = "\n\n@pytest.fixture\ndef answer() -> int:\n    return 42\n"
    fixtures.write_text(
        original.replace("annotations\n", "annotations\n\nimport pytest\n") + fixture
    )
    users = [tests / "test_one.py", tests / "test_two.py"]
    for path in users:
        path.write_text(
            f"def test_{path.stem}_gets_it(answer: int) -> None:\n    assert answer == 42\n"
        )
    try:
        out = run_pytest_of(project, "-q", *map(str, users))
    finally:
        fixtures.write_text(original, "utf-8")
        for path in users:
            path.unlink()
    assert "2 passed" in out


def test_plain_pytest_says_where_its_skipped_kernel_tests_run(project: Built) -> None:
    out = run_pytest_of(project, "-q")
    (line,) = [line for line in out.splitlines() if "skipped here. Where they run:" in line]
    assert "`nox -s tests_sim`" in line
    assert "`nox -s tests_gpu`" in line


def test_docs_session_builds_after_a_module_goes_away(project: Built) -> None:
    module = project.project / "src" / project.answer("package_name") / "leaving.py"
    module.write_text('"""A module that is renamed tomorrow."""\n\nVALUE = 1\n', "utf-8")
    try:
        first = nox(project, "-s", "docs")
        assert first.returncode == 0, first.stderr[-3000:]
        assert list((project.project / "docs" / "generated").glob("*.leaving.*"))
    finally:
        module.unlink()
    # A fresh session: what it installs is the package as it is now, without the module.
    second = nox(project, "-s", "docs")
    assert second.returncode == 0, second.stderr[-3000:]
    assert not list((project.project / "docs" / "generated").glob("*.leaving.*"))
