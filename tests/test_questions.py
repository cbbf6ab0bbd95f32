"""Every validator in copier.yml refuses bad answers with a message that says what to do."""

from __future__ import annotations

import keyword
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO_ROOT, WORKING_TREE_TAG, copier_questions, copy_template
from template_data import load_computed


def refusal(template_repo: Path, tmp_path: Path, answers: dict[str, Any]) -> str:
    """Render with answers that must be refused; return the message and check nothing was left."""
    dst = tmp_path / "refused"
    with pytest.raises(ValueError, match="Validation error") as info:
        copy_template(template_repo, dst, answers, WORKING_TREE_TAG)
    assert not dst.exists(), "a refused render left files behind"
    return " ".join(str(info.value).split())


@pytest.mark.parametrize(
    ("answers", "message"),
    [
        ({"project_name": "  "}, "The project name cannot be empty."),
        (
            {"package_name": "my-pkg"},
            "'my-pkg' is not a valid import name: use lowercase letters, digits and underscores, "
            "starting with a letter (write 'my_pkg'; "
            "the dashed form belongs in distribution_name).",
        ),
        (
            {"package_name": "MyPkg"},
            "'MyPkg' is not a valid import name: use lowercase letters, digits and underscores, "
            "starting with a letter.",
        ),
        (
            {"package_name": "2fast"},
            "'2fast' is not a valid import name: use lowercase letters, digits and underscores, "
            "starting with a letter.",
        ),
        (
            {"package_name": "lambda"},
            "'lambda' is a Python keyword and cannot be imported; try 'lambda_gpu'.",
        ),
        (
            {"package_name": "json"},
            "'json' is a standard-library module; your package would shadow it. Try 'json_gpu'.",
        ),
        (
            {"package_name": "cupy"},
            "'cupy' is a library the generated package depends on; your package would shadow it. "
            "Try 'my_cupy'.",
        ),
        (
            {"distribution_name": "-bad-"},
            "'-bad-' is not a valid distribution name: use letters, digits, '.', '_' and '-', "
            "starting and ending with a letter or digit (PEP 508), for example 'my-gpu-project'.",
        ),
        ({"description": ""}, "The description cannot be empty."),
        (
            {"description": 'say "hi"'},
            'The description cannot contain double quotes ("); use single quotes instead.',
        ),
        ({"author_name": 'A "B" C'}, 'The author name cannot contain double quotes (").'),
        (
            {"author_email": "not-an-address"},
            "'not-an-address' is not an e-mail address of the form name@example.org.",
        ),
        (
            {"python_min": "3.10", "gpu_libraries": ["cupy", "jax"], "cuda_major": 13},
            "jax[cuda13]>=0.8 for CUDA 13 needs Python >= 3.11, but python_min is 3.10. "
            "Raise python_min to 3.11 or drop jax.",
        ),
    ],
    ids=[
        "empty-project-name",
        "dash-in-package",
        "uppercase-package",
        "digit-first-package",
        "keyword-package",
        "stdlib-package",
        "dependency-package",
        "bad-distribution",
        "empty-description",
        "quote-in-description",
        "quote-in-author",
        "bad-email",
        "python-floor-below-jax",
    ],
)
def test_bad_answer_is_refused_with_a_hint_and_writes_nothing(
    template_repo: Path, tmp_path: Path, answers: dict[str, Any], message: str
) -> None:
    assert message in refusal(template_repo, tmp_path, answers)


def test_multiline_description_is_refused(template_repo: Path, tmp_path: Path) -> None:
    message = refusal(template_repo, tmp_path, {"description": "one\ntwo"})
    assert "The description must be a single line; put longer text in the README." in message


def test_every_free_text_question_has_a_validator() -> None:
    for name, spec in copier_questions().items():
        assert spec.get("help"), f"{name} has no help text"
        assert "default" in spec, f"{name} has no default"
        if spec.get("type") == "str" and "choices" not in spec:
            assert spec.get("validator"), f"{name} accepts anything"


def test_template_needs_no_trust() -> None:
    # Copier asks for --trust when a template has tasks, migrations or extra Jinja extensions.
    text = (REPO_ROOT / "copier.yml").read_text("utf-8")
    for setting in ("_tasks", "_migrations", "_jinja_extensions", "_external_data"):
        assert setting not in text


def test_stdlib_list_covers_the_running_interpreter() -> None:
    listed = set(load_computed("stdlib_modules"))
    public = {name for name in sys.stdlib_module_names if not name.startswith("_")}
    assert public - listed == set()


def test_keyword_list_is_pythons() -> None:
    assert sorted(load_computed("python_keywords")) == sorted(keyword.kwlist)
