"""Render the projects `nox -s lint` checks: the defaults and every option, owned tests laid in.

`python tools/lint_renders.py DIR` renders the working tree (uncommitted edits included) into a
folder of DIR per answer set (DIR/defaults, DIR/all-options), each with tests/owned/ beside the
project's own tests as the suite's `render_suite` fixture lays them, and writes
DIR/typing-requirements.txt: what each render's pre-commit mypy hook installs, the packages mypy
needs to read its imports. Nothing is built or installed, so an edit to template/ meets ruff and
mypy in well under a minute.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
MYPY_HOOK = "https://github.com/pre-commit/mirrors-mypy"


def answer_sets() -> dict[str, dict[str, Any]]:
    """The default answers and every option on, the compiled extension included."""
    from conftest import ALL_OPTIONS

    return {"defaults": {}, "all-options": {**ALL_OPTIONS, "extension": "cuda-cpp"}}


def typing_requirements(project: Path) -> list[str]:
    """What the render's pre-commit mypy hook installs beside mypy."""
    config = yaml.safe_load((project / ".pre-commit-config.yaml").read_text("utf-8"))
    (hook,) = (h for repo in config["repos"] if repo["repo"] == MYPY_HOOK for h in repo["hooks"])
    return list(hook.get("additional_dependencies", []))


def render_all(dst: Path) -> list[Path]:
    """Render each answer set into ``dst`` and return the projects."""
    sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tools")]
    from conftest import WORKING_TREE_TAG, copy_template, isolation, snapshot_working_tree

    dst.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="lint-template-") as tmp:
        os.environ.update(isolation(Path(tmp)))
        template = snapshot_working_tree(Path(tmp) / "repo", owned_tests=True)
        return [
            copy_template(template, dst / name, answers, WORKING_TREE_TAG)
            for name, answers in answer_sets().items()
        ]


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python tools/lint_renders.py DIR", file=sys.stderr)
        return 2
    dst = Path(argv[0]).resolve()
    projects = render_all(dst)
    needed = sorted({req for project in projects for req in typing_requirements(project)})
    (dst / "typing-requirements.txt").write_text("".join(f"{r}\n" for r in needed), "utf-8")
    for project in projects:
        print(f"rendered {project}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
