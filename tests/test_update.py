"""`copier update` end to end: template v1, render, user edits, template v2, update."""

from __future__ import annotations

import fnmatch
import os
import shlex
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import (
    LAST_RELEASE,
    MAJORS,
    OLDEST_MAJOR,
    REPO_ROOT,
    WORKING_TREE_TAG,
    Render,
    committed,
    committed_render,
    copy_template,
    copy_working_tree,
    git,
    snapshot_working_tree,
    update_project,
)
from template_data import python_support
from test_docs import toctree_entries


@pytest.fixture(scope="module")
def updated_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project rendered from v1, edited by its user, then updated to v2 of the template."""
    template = snapshot_working_tree(tmp_path_factory.mktemp("update") / "template", tag="v1")
    project = committed_render(template, "v1")

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
            "# {{ project_name_md }}\n", "# {{ project_name_md }} (v2 title)\n"
        ),
        "utf-8",
    )
    git("commit", "-q", "-am", "template v2", cwd=template)
    git("tag", "v2", cwd=template)

    update_project(project, "v2")
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


def readme_render_command() -> str:
    """The render command of README's quick start, as a user would paste it."""
    readme = (REPO_ROOT / "README.md").read_text("utf-8")
    quick_start = readme.split("## Quick start", 1)[1].split("```console", 1)[1].split("```")[0]
    command = next(line for line in quick_start.splitlines() if "copier copy" in line)
    return command.split("  #", 1)[0].strip()


def next_steps(message: str) -> list[str]:
    """The indented commands of the first block after 'Next steps:' in Copier's message."""
    block = message.split("Next steps:\n", 1)[1].split("\n\n", 1)[0]
    return [line.strip() for line in block.splitlines() if line.startswith("  ")]


def shell(script: str, cwd: Path) -> str:
    # The test runs inside nox's venv; the user's shell has none. nox also points uv's project
    # environment at its venv, and `uv sync` would then replace the test's own packages.
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"VIRTUAL_ENV", "UV_PROJECT_ENVIRONMENT"}
    }
    proc = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, f"{script}\n--- stdout\n{proc.stdout}\n--- stderr\n{proc.stderr}"
    return proc.stdout + proc.stderr


@dataclass(frozen=True)
class QuickStart:
    """A project rendered and set up exactly as README and the printed next steps say."""

    project: Path
    status_after_next_steps: str


@pytest.fixture(scope="module")
def quick_started(tmp_path_factory: pytest.TempPathFactory) -> QuickStart:
    """README's command from inside a clone, the next steps as printed, a tagged template change,
    then `copier update` from inside the project."""
    template = snapshot_working_tree(tmp_path_factory.mktemp("quick") / "cuda-template", tag="v1")
    copier = f"{shlex.quote(sys.executable)} -m copier"
    command = readme_render_command()
    assert command.startswith("uvx copier copy ")
    printed = shell(command.replace("uvx copier", copier, 1), cwd=template)
    steps = next_steps(printed)
    assert steps[0].startswith("cd ")
    shell("\n".join(steps), cwd=template)
    project = (template / shlex.split(steps[0])[1]).resolve()
    status = git("status", "--porcelain", cwd=project)

    tpl_gitignore = template / "template" / ".gitignore"
    tpl_gitignore.write_text(tpl_gitignore.read_text("utf-8") + "\n# v2\n*.v2\n", "utf-8")
    git("commit", "-q", "-am", "template v2", cwd=template)
    git("tag", "v2", cwd=template)
    shell(f"{copier} update --defaults", cwd=project)
    return QuickStart(project, status)


@pytest.mark.slow
def test_quick_start_records_an_absolute_template_path(quick_started: QuickStart) -> None:
    answers = (quick_started.project / ".copier-answers.yml").read_text("utf-8")
    assert Path(yaml.safe_load(answers)["_src_path"]).is_absolute()


@pytest.mark.slow
def test_next_steps_leave_everything_committed(quick_started: QuickStart) -> None:
    assert quick_started.status_after_next_steps == ""


@pytest.mark.slow
def test_update_from_inside_a_quick_start_project_brings_the_change(
    quick_started: QuickStart,
) -> None:
    gitignore = (quick_started.project / ".gitignore").read_text("utf-8")
    assert "*.v2" in gitignore.splitlines()


# --- changing which CUDA majors a project serves ----------------------------------------------


@pytest.fixture
def every_major_project(render: Render) -> Path:
    """A project that serves every major (the default), committed as its user would."""
    return committed(render({}, name="every-major"))


def _served(project: Path) -> tuple[bool, list[int] | None, list[str]]:
    answers = yaml.safe_load((project / ".copier-answers.yml").read_text("utf-8"))
    pyproject = tomllib.loads((project / "pyproject.toml").read_text("utf-8"))
    extras = [e for e in pyproject["project"]["optional-dependencies"] if e.startswith("cuda")]
    return answers["cuda_every_major"], answers.get("cuda_majors"), extras


def test_answering_cuda_majors_moves_a_project_to_that_set_and_back(
    every_major_project: Path,
) -> None:
    assert _served(every_major_project) == (True, None, [f"cuda{m}" for m in MAJORS])
    update_project(every_major_project, WORKING_TREE_TAG, {"cuda_majors": [OLDEST_MAJOR]})
    # The old yes fails the validator beside the new set, so Copier asks it again: no.
    assert _served(every_major_project) == (False, [OLDEST_MAJOR], [f"cuda{OLDEST_MAJOR}"])
    git("add", "-A", cwd=every_major_project)
    git("commit", "-q", "-m", "one major", cwd=every_major_project)
    update_project(every_major_project, WORKING_TREE_TAG, {"cuda_every_major": True})
    assert _served(every_major_project) == (True, None, [f"cuda{m}" for m in MAJORS])


def test_every_major_and_a_chosen_set_together_are_refused_with_what_to_answer(
    template_repo: Path, tmp_path: Path
) -> None:
    answers = {"cuda_every_major": True, "cuda_majors": [OLDEST_MAJOR]}
    with pytest.raises(ValueError, match="answer both: --data cuda_every_major=false"):
        copy_template(template_repo, tmp_path / "project", answers, WORKING_TREE_TAG)
    assert not (tmp_path / "project" / "pyproject.toml").exists()


def test_answering_every_major_no_keeps_the_majors_it_served(every_major_project: Path) -> None:
    update_project(every_major_project, WORKING_TREE_TAG, {"cuda_every_major": False})
    every, chosen, extras = _served(every_major_project)
    assert (every, sorted(chosen or []), extras) == (False, MAJORS, [f"cuda{m}" for m in MAJORS])


def test_the_old_cuda_major_answer_on_update_serves_that_major_alone(
    every_major_project: Path,
) -> None:
    # As on a copy (the CHANGELOG's "the old spelling still works"), and as the CLI passes it.
    update_project(every_major_project, WORKING_TREE_TAG, {"cuda_major": str(OLDEST_MAJOR)})
    assert _served(every_major_project) == (False, [OLDEST_MAJOR], [f"cuda{OLDEST_MAJOR}"])


# --- an answer changed on update that would invalidate another ----------------------------------
# Copier validates each answer a project has against the new ones, and under --defaults replaces
# one that fails by its default, in silence (a project's JAX and PyCUDA become CuPy and Numba,
# dask turns off and scale/ goes). The earlier question refuses the change instead.


# (the project's answers, the change given with --data, what the refusal says)
RESETTING_CHANGES: dict[str, tuple[dict[str, Any], dict[str, Any], str]] = {
    # As the command line passes it: YAML text, not a list.
    "libraries-without-the-extensions-cupy": (
        {"extension": "cuda-cpp"},
        {"gpu_libraries": "[numba]"},
        "Add cupy to gpu_libraries or answer none to extension. The gpu_libraries given",
    ),
    "github-actions-for-a-gitlab-subgroup": (
        {"ci": "gitlab", "repository_url": "https://gitlab.com/lab/gpu/arrays"},
        {"ci": "github"},
        "A GitHub repository has an owner and a name, nothing more",
    ),
}


@pytest.mark.parametrize(
    ("answers", "change", "message"), RESETTING_CHANGES.values(), ids=RESETTING_CHANGES.keys()
)
def test_a_change_that_would_reset_another_answer_is_refused_and_changes_nothing(
    render: Render, answers: dict[str, Any], change: dict[str, Any], message: str
) -> None:
    project = committed(render(answers, name="resetting"))
    recorded = (project / ".copier-answers.yml").read_text("utf-8")
    with pytest.raises(ValueError, match="Validation error") as refused:
        update_project(project, WORKING_TREE_TAG, change)
    assert message in " ".join(str(refused.value).split())
    assert (project / ".copier-answers.yml").read_text("utf-8") == recorded
    assert git("status", "--porcelain", cwd=project) == ""


# --- a project on a Python the template retired -------------------------------------------------

RELEASED, RETIRING = "v1.0.0", "v1.1.0"


@pytest.fixture(scope="module")
def release_then_working_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The last release (which offered Python 3.10), then this working tree, both tagged."""
    if subprocess.run(
        ["git", "cat-file", "-e", f"{LAST_RELEASE.commit}^{{commit}}"], cwd=REPO_ROOT, check=False
    ).returncode:
        pytest.skip(f"the last release ({LAST_RELEASE.commit[:7]}) is not in this clone's history")
    template = tmp_path_factory.mktemp("retiring") / "template"
    template.mkdir()
    git("init", "-q", "-b", "main", cwd=template)
    archive = subprocess.run(
        ["git", "archive", "--format=tar", LAST_RELEASE.commit],
        cwd=REPO_ROOT,
        capture_output=True,
        check=True,
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(template)], input=archive, check=True)
    git("add", "-A", "--force", cwd=template)
    git("commit", "-q", "-m", "the last release", cwd=template)
    git("tag", RELEASED, cwd=template)
    git("rm", "-rq", ".", cwd=template)
    copy_working_tree(template)
    git("add", "-A", "--force", cwd=template)
    git("commit", "-q", "-m", "this working tree", cwd=template)
    git("tag", RETIRING, cwd=template)
    return template


@pytest.fixture
def retired_floor_project(release_then_working_tree: Path, tmp_path: Path) -> tuple[Path, str]:
    """A project the last release rendered on a Python this working tree retired, committed."""
    retired = sorted(python_support().retired)[-1]
    project = copy_template(
        release_then_working_tree, tmp_path / "project", {"python_min": retired}, RELEASED
    )
    committed(project)
    return project, retired


def test_an_update_of_a_project_on_a_retired_python_stops_with_the_floor_to_pass(
    retired_floor_project: tuple[Path, str],
) -> None:
    # Copier drops an answer that is no longer a valid choice and takes the default in silence:
    # the project would jump to SPEC 0's floor. It stops instead, and changes nothing.
    project, retired = retired_floor_project
    recorded = (project / ".copier-answers.yml").read_text("utf-8")
    with pytest.raises(ValueError, match="Invalid choice for 'python_min'") as refused:
        update_project(project, RETIRING)
    message = " ".join(str(refused.value).split())
    assert f"Python {retired} {python_support().retired[retired]}" in message
    oldest = python_support().choices[0]
    assert f"copier update --defaults --data python_min={oldest}" in message
    assert (project / ".copier-answers.yml").read_text("utf-8") == recorded
    assert git("status", "--porcelain", cwd=project) == ""


def test_the_update_with_the_floor_it_names_raises_the_projects_python(
    retired_floor_project: tuple[Path, str],
) -> None:
    project, _ = retired_floor_project
    oldest = python_support().choices[0]
    update_project(project, RETIRING, {"python_min": oldest})
    recorded = yaml.safe_load((project / ".copier-answers.yml").read_text("utf-8"))
    assert recorded["python_min"] == oldest
    pyproject = tomllib.loads((project / "pyproject.toml").read_text("utf-8"))
    assert pyproject["project"]["requires-python"] == f">={oldest}"


# --- the pre-update check: what Copier would delete or reset, on a scratch clone ---------------


@pytest.fixture(scope="module")
def edited_numba_project(render: Render) -> Path:
    """A CuPy and Numba project whose user added a test to a template file, committed."""
    project = committed(render({"gpu_libraries": ["cupy", "numba"]}, name="update-check"))
    numba_tests = project / "tests" / "test_kernels_numba.py"
    numba_tests.write_text(numba_tests.read_text("utf-8") + "\n# my own test\n", "utf-8")
    git("commit", "-q", "-am", "my test", cwd=project)
    return project


def update_check(project: Path, *data: str) -> subprocess.CompletedProcess[str]:
    args = [arg for pair in data for arg in ("--data", pair)]
    return subprocess.run(
        [sys.executable, "tools/update_check.py", "--vcs-ref", WORKING_TREE_TAG, *args],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
    )


def test_update_check_names_the_edited_file_an_update_would_delete(
    edited_numba_project: Path,
) -> None:
    checked = update_check(edited_numba_project, "gpu_libraries=[cupy]")
    assert checked.returncode == 1, checked.stdout + checked.stderr
    lines = checked.stdout.splitlines()
    deletes = "DELETES tests/test_kernels_numba.py, which you changed: move your code into a file"
    assert any(line.startswith(deletes) for line in lines), lines
    # Files the user never touched are listed as such, and the work tree is left as it was.
    assert any(
        line.startswith("deletes tests/test_kernels_numba_cudasim.py (unchanged") for line in lines
    )
    assert git("status", "--porcelain", cwd=edited_numba_project) == ""


def test_update_check_passes_an_update_that_loses_nothing(edited_numba_project: Path) -> None:
    checked = update_check(edited_numba_project, "license=BSD-3-Clause")
    assert (checked.returncode, checked.stdout.strip()) == (0, "The update loses nothing of yours.")


def test_update_check_refuses_a_list_answer_given_as_a_word_without_a_traceback(
    edited_numba_project: Path,
) -> None:
    checked = update_check(edited_numba_project, "examples=stencil")
    assert checked.returncode == 1, checked.stdout + checked.stderr
    assert "copier update would stop here, changing nothing" in checked.stdout
    assert "Not a YAML list: 'stencil'" in checked.stdout
    assert "Traceback" not in checked.stderr


def test_update_check_names_a_misspelt_data_key_the_update_would_ignore(
    edited_numba_project: Path,
) -> None:
    checked = update_check(edited_numba_project, "daks=true")
    assert checked.returncode == 1, checked.stdout + checked.stderr
    assert "copier update ignores --data daks" in checked.stdout


def test_update_check_takes_a_data_key_these_answers_do_not_ask(
    edited_numba_project: Path,
) -> None:
    # gpu_ci is a question, skipped when ci is none: Copier records no answer for it.
    checked = update_check(edited_numba_project, "ci=none", "gpu_ci=none")
    assert checked.returncode in (0, 1), checked.stderr  # 1: what the update deletes or resets
    assert "would stop here" not in checked.stdout, checked.stdout
    assert "no question by that name" not in checked.stdout, checked.stdout


def add_user_page(project: Path, page: str) -> None:
    (project / page).write_text("# Results\n\nWhat our kernels measured.\n", "utf-8")


def test_a_users_page_in_docs_guide_is_listed_and_an_update_adding_pages_leaves_it_alone(
    render: Render,
) -> None:
    # The reproduction: a project with one page of its own, then `--data dask=true`,
    # which adds the template's scale-out page to the index's toctree.
    project = render({"docs": "sphinx"}, name="user-page")
    add_user_page(project, "docs/guide/results.md")
    committed(project)
    update_project(project, WORKING_TREE_TAG, {"dask": True})
    index = (project / "docs" / "index.md").read_text("utf-8")
    assert "<<<<<<<" not in index
    entries = toctree_entries(index)
    assert "scale-out" in entries
    assert any(fnmatch.fnmatchcase("guide/results", entry) for entry in entries), entries
    assert ":glob:" in index  # Sphinx expands `guide/*` only under this option
    assert git("status", "--porcelain", "--", "docs/guide", cwd=project) == ""


def test_update_check_names_the_file_an_update_would_leave_conflicted(render: Render) -> None:
    # The old way: the page listed in the index's toctree, beside the lines dask adds there.
    project = render({"docs": "sphinx"}, name="conflicted-page")
    add_user_page(project, "docs/results.md")
    index = project / "docs" / "index.md"
    index.write_text(index.read_text("utf-8").replace("\ngpu\n", "\ngpu\nresults\n"), "utf-8")
    committed(project)
    checked = update_check(project, "dask=true")
    assert checked.returncode == 1, checked.stdout + checked.stderr
    assert "CONFLICTS docs/index.md: your lines and the template's" in checked.stdout
    assert "The update loses nothing of yours." not in checked.stdout


def test_answering_the_majors_again_leaves_the_projects_changelog_as_it_was(
    every_major_project: Path,
) -> None:
    changelog = (every_major_project / "CHANGELOG.md").read_text("utf-8")
    update_project(every_major_project, WORKING_TREE_TAG, {"cuda_majors": [OLDEST_MAJOR]})
    assert (every_major_project / "CHANGELOG.md").read_text("utf-8") == changelog
