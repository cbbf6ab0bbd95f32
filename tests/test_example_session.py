"""`nox -s example` (tools/render_example.py): a render for a look that never lands on edits."""

from __future__ import annotations

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
    with pytest.raises(render_example.ExampleError, match="is the template checkout or holds it"):
        render_example.check_destination(tmp_path, root=checkout)


def test_a_folder_of_other_files_is_refused(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine", "utf-8")
    with pytest.raises(render_example.ExampleError, match="is not an earlier render"):
        render_example.check_destination(tmp_path, root=REPO_ROOT)


def test_an_earlier_render_or_an_empty_folder_is_rendered_over(tmp_path: Path) -> None:
    render_example.check_destination(tmp_path / "new", root=REPO_ROOT)
    render_example.check_destination(tmp_path, root=REPO_ROOT)
    (tmp_path / ".copier-answers.yml").write_text("_commit: v1\n", "utf-8")
    (tmp_path / "README.md").write_text("rendered", "utf-8")
    render_example.check_destination(tmp_path, root=REPO_ROOT)


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
def test_answers_reach_the_render(tmp_path: Path) -> None:
    assert render_example.main([str(tmp_path / "demo"), "project_name=Demo Arrays"]) == 0
    answers = yaml.safe_load((tmp_path / "demo" / ".copier-answers.yml").read_text("utf-8"))
    assert (answers["project_name"], answers["package_name"]) == ("Demo Arrays", "demo_arrays")


def test_the_session_tests_pass_on_a_checkout_with_an_uncommitted_edit(tmp_path: Path) -> None:
    checkout = snapshot_working_tree(tmp_path / "checkout")
    readme = checkout / "template" / "README.md.jinja"
    readme.write_text(readme.read_text("utf-8") + "\nAn edit not yet committed.\n", "utf-8")
    assert run(["git", "status", "--porcelain"], cwd=checkout).strip()
    this = Path(__file__).relative_to(REPO_ROOT).as_posix()
    selected = f"{this}::test_answers_reach_the_render"
    out = run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", selected], checkout)
    assert "1 passed" in out
