"""The template_updates option: the weekly workflow a new project starts without, and `--data`
adds or drops. `nox -s template_update` and `nox -s update_check` stay in every render.

Rendering only. The workflow's jobs are checked in test_ci_files.py, the session it runs in
test_template_update.py; test_update_history.py updates a project from before the question.
"""

from __future__ import annotations

from pathlib import Path

import yaml
from conftest import WORKING_TREE_TAG, Render, committed, update_project

WORKFLOW = ".github/workflows/template-update.yml"


def answers(project: Path) -> dict[str, object]:
    loaded: dict[str, object] = yaml.safe_load((project / ".copier-answers.yml").read_text("utf-8"))
    return loaded


def test_a_new_project_starts_without_the_workflow_and_keeps_both_sessions(
    render: Render,
) -> None:
    project = render({}, name="template-updates-default")
    assert answers(project)["template_updates"] is False
    assert not (project / WORKFLOW).exists()
    noxfile = (project / "noxfile.py").read_text("utf-8")
    for session in ("template_update", "update_check"):
        assert f"def {session}(session" in noxfile
    assert (project / "tools" / "update_check.py").is_file()


def test_the_question_is_not_asked_without_github_actions(render: Render) -> None:
    project = render({"ci": "gitlab"}, name="template-updates-gitlab")
    assert "template_updates" not in answers(project)
    assert not (project / ".github").exists()


def test_an_update_with_template_updates_false_removes_the_workflow(render: Render) -> None:
    # What the CHANGELOG tells a project that does not want it.
    project = render({"template_updates": True}, name="template-updates-dropped")
    assert (project / WORKFLOW).is_file()
    committed(project)
    update_project(project, WORKING_TREE_TAG, {"template_updates": False})
    assert answers(project)["template_updates"] is False
    assert not (project / WORKFLOW).exists()
