"""`nox -s example` (tools/render_example.py): a render for a look that never lands on edits."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import render_example
import yaml
from conftest import REPO_ROOT, run, snapshot_working_tree


def test_the_checkout_itself_is_refused_before_anything_is_written(
    capsys: pytest.CaptureFixture[str],
) -> None:
    readme = (REPO_ROOT / "README.md").read_bytes()
    assert render_example.main([str(REPO_ROOT)]) == 2
    assert "is the template checkout" in capsys.readouterr().err
    assert (REPO_ROOT / "README.md").read_bytes() == readme


def test_a_folder_holding_the_checkout_is_refused(tmp_path: Path) -> None:
    checkout = tmp_path / "cuda-template"
    checkout.mkdir()
    with pytest.raises(render_example.ExampleError, match="is the template checkout, holds it"):
        render_example.check_destination(tmp_path, root=checkout)


def test_a_folder_inside_the_checkout_is_refused(tmp_path: Path) -> None:
    # Under template/ the render would ride along in every later render.
    checkout = tmp_path / "cuda-template"
    (checkout / "template").mkdir(parents=True)
    with pytest.raises(render_example.ExampleError, match="lies inside it"):
        render_example.check_destination(checkout / "template" / "demo", root=checkout)


def test_the_default_folder_lies_outside_the_checkout() -> None:
    destination, _ = render_example.parse([])
    assert not destination.resolve().is_relative_to(REPO_ROOT)


def test_an_answer_given_first_is_refused_instead_of_becoming_the_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)  # where a folder named `dask=true` would appear
    assert render_example.main(["dask=true"]) == 2
    said = capsys.readouterr().err
    assert "'dask=true' is an answer, not a folder: give the folder first" in said
    assert list(tmp_path.iterdir()) == []


def test_a_folder_of_other_files_is_refused(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine", "utf-8")
    with pytest.raises(render_example.ExampleError, match="is not an example render of"):
        render_example.check_destination(tmp_path, root=REPO_ROOT)


def test_a_project_rendered_from_another_template_source_is_refused(tmp_path: Path) -> None:
    # A real project: its answers name the published template, not this checkout.
    answers = {"_src_path": "gh:example/cuda-template", "_commit": "v1"}
    (tmp_path / ".copier-answers.yml").write_text(yaml.safe_dump(answers), "utf-8")
    with pytest.raises(render_example.ExampleError, match="is not an example render of"):
        render_example.check_destination(tmp_path, root=REPO_ROOT)


def _example_render(folder: Path) -> Path:
    folder.mkdir()
    answers = {"_src_path": str(REPO_ROOT), "_commit": "v1"}
    (folder / ".copier-answers.yml").write_text(yaml.safe_dump(answers), "utf-8")
    (folder / "README.md").write_text("rendered", "utf-8")
    return folder


def test_an_example_render_with_uncommitted_edits_is_refused_and_keeps_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = _example_render(tmp_path / "demo")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-C", str(project)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "render"], check=True)
    (project / "README.md").write_text("my edit", "utf-8")
    assert render_example.main([str(project)]) == 2
    assert "has uncommitted changes" in capsys.readouterr().err
    assert (project / "README.md").read_text("utf-8") == "my edit"


def test_an_earlier_example_render_or_an_empty_folder_is_rendered_over(tmp_path: Path) -> None:
    render_example.check_destination(tmp_path / "new", root=REPO_ROOT)
    render_example.check_destination(tmp_path, root=REPO_ROOT)
    render_example.check_destination(_example_render(tmp_path / "demo"), root=REPO_ROOT)


def test_an_answer_without_an_equals_sign_is_refused_with_the_form(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert render_example.main([str(tmp_path / "demo"), "name"]) == 2
    said = capsys.readouterr().err
    assert "'name' is not an answer: write KEY=VALUE" in said
    assert not (tmp_path / "demo").exists()


# The session renders the checkout's HEAD with its uncommitted edits, on purpose, and Copier warns
# that it does: under the suite's `filterwarnings = error` the warning would fail this test on
# any working tree with an edit in it, the one a maintainer runs the suite on.
@pytest.mark.filterwarnings("ignore::copier.errors.DirtyLocalWarning")
def test_answers_reach_the_render_and_a_second_render_replaces_it(tmp_path: Path) -> None:
    assert render_example.main([str(tmp_path / "demo"), "project_name=Demo Arrays"]) == 0
    answers = yaml.safe_load((tmp_path / "demo" / ".copier-answers.yml").read_text("utf-8"))
    assert (answers["project_name"], answers["package_name"]) == ("Demo Arrays", "demo_arrays")
    assert render_example.main([str(tmp_path / "demo"), "project_name=Other"]) == 0


def test_the_session_tests_pass_on_a_checkout_with_an_uncommitted_edit(tmp_path: Path) -> None:
    checkout = snapshot_working_tree(tmp_path / "checkout")
    readme = checkout / "template" / "README.md.jinja"
    readme.write_text(readme.read_text("utf-8") + "\nAn edit not yet committed.\n", "utf-8")
    assert run(["git", "status", "--porcelain"], cwd=checkout).strip()
    this = Path(__file__).relative_to(REPO_ROOT).as_posix()
    selected = f"{this}::test_answers_reach_the_render_and_a_second_render_replaces_it"
    out = run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", selected], checkout)
    assert "1 passed" in out
