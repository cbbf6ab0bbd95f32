"""`nox -s template_update` in a rendered project, against a local template that gains a release.

The rendered CI job (GitHub's workflow, GitLab's scheduled job) runs this session and acts on the
report it writes, so these tests prove what the job would push: the branch, its one commit, and
the files named when the update conflicts with the user's edits.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import WORKING_TREE_TAG, committed, copy_template, git, snapshot_working_tree, tool

pytestmark = pytest.mark.slow

TITLE = "# {{ project_name_md }}\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A render of v0.0.0 with the session's answer, committed as a user's first commit."""
    template = snapshot_working_tree(tmp_path / "template")
    project = copy_template(
        template, tmp_path / "project", {"template_updates": True}, WORKING_TREE_TAG
    )
    return committed(project, f"render {WORKING_TREE_TAG}")


def release(project: Path, version: str, title: str) -> None:
    """Tag a new template release whose README's title line is ``title`` instead."""
    template = project.parent / "template"
    readme = template / "template" / "README.md.jinja"
    text = readme.read_text("utf-8")
    assert text.count(TITLE) == 1  # after the Jinja imports, if any
    readme.write_text(text.replace(TITLE, title), encoding="utf-8")
    git("commit", "-q", "-am", f"Release {version}", cwd=template)
    git("tag", version, cwd=template)


def template_update(project: Path) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    report = project.parent / "report.json"
    proc = subprocess.run(
        [tool("nox"), "-s", "template_update"],
        cwd=project,
        env={**os.environ, "TEMPLATE_UPDATE_REPORT": str(report)},
        capture_output=True,
        text=True,
        check=False,
    )
    return proc, json.loads(report.read_text("utf-8")) if report.exists() else {}


def test_a_new_release_is_committed_on_a_branch_named_after_it(project: Path) -> None:
    release(project, "v0.0.1", "# {{ project_name_md }}, updated\n")
    proc, report = template_update(project)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert report["status"] == "updated"
    assert report["branch"] == "template-update/v0.0.1"
    assert git("branch", "--show-current", cwd=project).strip() == "template-update/v0.0.1"
    assert git("log", "-1", "--format=%s", cwd=project).strip() == (
        "Update from cuda-template 0.0.0 to 0.0.1"
    )
    changed = git("show", "--name-only", "--format=", "HEAD", cwd=project).split()
    assert set(changed) == {"README.md", ".copier-answers.yml"}
    assert (project / "README.md").read_text("utf-8").startswith("# My GPU Project, updated\n")
    assert git("status", "--porcelain", cwd=project) == ""


def test_a_project_on_the_newest_release_is_left_alone(project: Path) -> None:
    head = git("rev-parse", "HEAD", cwd=project)
    proc, report = template_update(project)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert report["status"] == "current"
    assert git("rev-parse", "HEAD", cwd=project) == head
    assert "template-update/" not in git("branch", "--list", cwd=project)


def test_an_update_that_conflicts_fails_naming_the_files_and_commits_nothing(
    project: Path,
) -> None:
    readme = project / "README.md"
    readme.write_text("# Our own title\n" + readme.read_text("utf-8").split("\n", 1)[1], "utf-8")
    git("commit", "-q", "-am", "Our title", cwd=project)
    head = git("rev-parse", "HEAD", cwd=project)
    release(project, "v0.0.1", "# {{ project_name_md }}, updated\n")
    proc, report = template_update(project)
    assert proc.returncode != 0
    assert report["status"] == "conflicts"
    assert report["conflicts"] == ["README.md"]
    assert "README.md" in proc.stdout + proc.stderr
    assert git("rev-parse", "HEAD", cwd=project) == head


def test_a_dirty_tree_is_refused_before_anything_changes(project: Path) -> None:
    (project / "README.md").write_text("edited\n", encoding="utf-8")
    release(project, "v0.0.1", "# {{ project_name_md }}, updated\n")
    proc, report = template_update(project)
    assert proc.returncode != 0
    assert "commit or stash your changes first" in proc.stdout + proc.stderr
    assert report == {}
    assert git("branch", "--show-current", cwd=project).strip() == "main"
