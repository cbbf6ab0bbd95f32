"""`nox -s lint` (tools/lint_renders.py): every render of the answer matrix, every check run."""

from __future__ import annotations

from pathlib import Path

import lint_renders
from conftest import RENDER_MATRIX

PYPROJECT = """\
[tool.ruff]
line-length = 100

[tool.mypy]
python_version = "{version}"
strict = true
files = ["mod.py"]
"""


def project(root: Path, name: str, code: str, version: str = "3.11") -> Path:
    """A folder holding one module and the ruff and mypy configuration a render carries."""
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "pyproject.toml").write_text(PYPROJECT.format(version=version), "utf-8")
    (folder / "mod.py").write_text(code, "utf-8")
    return folder


def test_lint_renders_every_answer_set_of_the_suites_matrix() -> None:
    # The no-CuPy render's branch of the GPU module is parsed, linted and type-checked too.
    assert set(RENDER_MATRIX) <= set(lint_renders.answer_sets())
    assert "all-options" in lint_renders.answer_sets()


def test_a_format_slip_does_not_hide_the_type_errors_of_every_render(tmp_path: Path) -> None:
    repo = project(tmp_path, "repo", "VALUE: int = 1\n")
    renders = [
        project(tmp_path / "renders", "slip", "VALUE:int=1\n"),
        project(tmp_path / "renders", "typed", 'VALUE: int = "one"\n', version="3.12"),
        project(tmp_path / "renders", "clean", "VALUE: int = 1\n", version="3.12"),
    ]
    failed = lint_renders.check_all(repo, renders)
    assert failed == ["ruff format (renders)", "mypy (typed)"]


def test_renders_checked_against_one_python_share_a_mypy_cache(tmp_path: Path) -> None:
    renders = [
        project(tmp_path, "a", "", version="3.12"),
        project(tmp_path, "b", "", version="3.11"),
        project(tmp_path, "c", "", version="3.12"),
    ]
    groups = lint_renders.check_groups(tmp_path / "repo", renders)
    caches = {
        cwd.name: next(arg for arg in command if arg.startswith("--cache-dir="))
        for group in groups
        for name, command, cwd in group
        if name.startswith("mypy (") and cwd in renders
    }
    assert caches["a"] == caches["c"] != caches["b"]
