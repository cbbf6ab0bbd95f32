"""`copier update` end to end: template v1, render, user edits, template v2, update."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from conftest import git, snapshot_working_tree


@pytest.fixture(scope="module")
def updated_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project rendered from v1, edited by its user, then updated to v2 of the template."""
    from copier import run_copy, run_update

    template = snapshot_working_tree(tmp_path_factory.mktemp("update") / "template", tag="v1")
    project = template.parent / "project"
    run_copy(str(template), project, defaults=True, unsafe=False, vcs_ref="v1", quiet=True)
    git("init", "-q", "-b", "main", cwd=project)
    git("add", "-A", cwd=project)
    git("commit", "-q", "-m", "render v1", cwd=project)

    # The user: a file of their own, an edit the template never touches, an edit that overlaps.
    (project / "src" / "my_gpu_project" / "science.py").write_text('"""Mine."""\n', "utf-8")
    gitignore = project / ".gitignore"
    gitignore.write_text("# my scratch space\nscratch/\n" + gitignore.read_text("utf-8"), "utf-8")
    readme = project / "README.md"
    readme.write_text(readme.read_text("utf-8").replace("# My GPU Project", "# Renamed"), "utf-8")
    git("add", "-A", cwd=project)
    git("commit", "-q", "-m", "user edits", cwd=project)

    # The template: a new line at the end of .gitignore and a new README title.
    tpl_gitignore = template / "template" / ".gitignore"
    tpl_gitignore.write_text(tpl_gitignore.read_text("utf-8") + "\n# v2\n*.v2\n", "utf-8")
    tpl_readme = template / "template" / "README.md.jinja"
    tpl_readme.write_text(
        tpl_readme.read_text("utf-8").replace(
            "# {{ project_name }}\n", "# {{ project_name }} (v2 title)\n"
        ),
        "utf-8",
    )
    git("commit", "-q", "-am", "template v2", cwd=template)
    git("tag", "v2", cwd=template)

    run_update(
        project,
        defaults=True,
        overwrite=True,
        unsafe=False,
        vcs_ref="v2",
        quiet=True,
        conflict="inline",
    )
    return project


def test_update_records_the_new_template_version(updated_project: Path) -> None:
    answers = yaml.safe_load((updated_project / ".copier-answers.yml").read_text("utf-8"))
    assert answers["_commit"] == "v2"


def test_update_brings_the_template_change(updated_project: Path) -> None:
    assert "*.v2" in (updated_project / ".gitignore").read_text("utf-8").splitlines()


def test_update_keeps_the_users_edit_and_own_files(updated_project: Path) -> None:
    assert (updated_project / ".gitignore").read_text("utf-8").startswith("# my scratch space\n")
    science = updated_project / "src" / "my_gpu_project" / "science.py"
    assert science.read_text("utf-8") == '"""Mine."""\n'


def test_overlapping_edit_shows_as_an_inline_conflict(updated_project: Path) -> None:
    readme = (updated_project / "README.md").read_text("utf-8")
    assert "<<<<<<<" in readme
    assert "# Renamed" in readme
    assert "# My GPU Project (v2 title)" in readme
