"""The user's shared fixtures live in tests/project_fixtures.py, which `copier update` leaves alone.

Template v1 renders a project; its user adds a fixture there and a test file that uses it;
template v2 changes both that file and tests/conftest.py; the user updates.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import committed_render, git, snapshot_working_tree, update_project

USERS_FIXTURES = '''"""My fixtures."""

from __future__ import annotations

import numpy as np
import pytest


@pytest.fixture
def prices() -> np.ndarray:
    return np.linspace(1.0, 2.0, 5)
'''
USERS_TEST = """from __future__ import annotations

import numpy as np


def test_prices_come_from_the_shared_fixture(prices: np.ndarray) -> None:
    assert prices.shape == (5,)
"""


@pytest.fixture(scope="module")
def updated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project whose user wrote a shared fixture, updated to a template that changed it."""
    template = snapshot_working_tree(tmp_path_factory.mktemp("fixtures") / "template", tag="v1")
    project = committed_render(template, "v1")

    (project / "tests" / "project_fixtures.py").write_text(USERS_FIXTURES, "utf-8")
    (project / "tests" / "test_prices.py").write_text(USERS_TEST, "utf-8")
    git("add", "-A", cwd=project)
    git("commit", "-q", "-m", "my fixtures", cwd=project)

    tests = template / "template" / "tests"
    for name in ("project_fixtures.py", "conftest.py.jinja"):
        path = tests / name
        path.write_text(path.read_text("utf-8") + "\n# v2 of the template\n", "utf-8")
    git("commit", "-q", "-am", "template v2", cwd=template)
    git("tag", "v2", cwd=template)

    update_project(project, vcs_ref="v2")
    return project


def test_update_leaves_the_users_fixtures_file_as_the_user_wrote_it(updated: Path) -> None:
    assert (updated / "tests" / "project_fixtures.py").read_text("utf-8") == USERS_FIXTURES


def test_update_still_brings_the_templates_conftest(updated: Path) -> None:
    assert "# v2 of the template" in (updated / "tests" / "conftest.py").read_text("utf-8")


def test_update_leaves_no_conflict_marker(updated: Path) -> None:
    marker = re.compile(r"^(<{7}|>{7})( |$)", re.MULTILINE)
    conflicted = [
        str(path.relative_to(updated))
        for path in updated.rglob("*")
        if path.is_file() and ".git" not in path.parts
        if marker.search(path.read_text("utf-8", errors="replace"))
    ]
    assert conflicted == []


def test_a_new_project_gets_the_fixtures_file_and_the_update_guide(updated: Path) -> None:
    from copier import run_copy

    project = updated.parent / "fresh"
    run_copy(str(updated.parent / "template"), project, defaults=True, quiet=True, vcs_ref="v2")
    assert (project / "tests" / "project_fixtures.py").is_file()
    assert "## After an update that conflicts" in (project / "docs" / "updating.md").read_text()


def test_pre_commit_looks_for_conflict_markers_outside_a_git_merge(updated: Path) -> None:
    # Copier writes its conflicts without a merge: the hook checks only during one by default.
    config = yaml.safe_load((updated / ".pre-commit-config.yaml").read_text("utf-8"))
    hooks = {hook["id"]: hook for repo in config["repos"] for hook in repo["hooks"]}
    assert "--assume-in-merge" in hooks["check-merge-conflict"]["args"]


def test_conflict_marker_test_fails_on_a_committed_conflict(updated: Path) -> None:
    # The rendered test, run with this interpreter: it needs pytest and git alone, not the
    # project's conftest.py (which imports the package).
    test = updated / "tests" / "test_no_conflict_markers.py"
    readme = updated / "README.md"
    original = readme.read_text("utf-8")
    # Eight of them, or seven not at a line's start, are no marker.
    lines = ">>>>>>>>\nx = '<<<<<<<'\n<<<<<<< before updating\nmine\n=======\n"
    readme.write_text(original + lines, "utf-8")
    try:
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-p",
                "no:cacheprovider",
                "--noconftest",
                "-q",
                str(test),
            ],
            cwd=updated.parent,
            capture_output=True,
            text=True,
            check=False,
        )
    finally:
        readme.write_text(original, "utf-8")
    assert proc.returncode == 1, proc.stdout
    marked = original.count("\n") + 3
    assert f"README.md:{marked}:<<<<<<< before updating" in proc.stdout
    assert f"README.md:{marked - 1}:" not in proc.stdout
    assert f"README.md:{marked - 2}:" not in proc.stdout
