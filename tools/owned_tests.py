"""Run the template-owned code's tests on one render: `nox -s owned -- -k detection`.

The loop for an edit to code the template maintains (the GPU module, the doctor, the kernel
machinery): render the working tree (uncommitted edits included) with ``tests/owned/`` laid in,
build and install it as the ``tests`` tier does (tests/conftest.py's ``build_and_install``, uv
installing from its cache), and run the owned tests there, with the arguments given to pytest.

    nox -s owned -- -k detection                 # on every library and major (all-majors)
    nox -s owned -- --render=cuda12 -x -k doctor  # another render of the answer matrix

The render stays in build/owned/<render>/project for a look; the next run replaces it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUTPUT = ROOT / "build" / "owned"
# Every library and example on every major: the render where the most owned tests apply.
DEFAULT_RENDER = "all-majors"


def owned_test_files(project: Path) -> list[str]:
    """The owned test modules the render holds (an option's are left out with its files)."""
    from conftest import OWNED_TESTS

    names = {path.name.removesuffix(".jinja") for path in OWNED_TESTS.glob("test_*.py*")}
    return sorted(f"tests/{name}" for name in names if (project / "tests" / name).is_file())


def split(argv: list[str]) -> tuple[str, list[str]]:
    """The render's name (``--render=NAME``) and the arguments for pytest."""
    name, rest = DEFAULT_RENDER, []
    for arg in argv:
        if arg.startswith("--render="):
            name = arg.removeprefix("--render=")
        else:
            rest.append(arg)
    return name, rest


def main(argv: list[str]) -> int:
    sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tools")]
    from conftest import (
        RENDER_MATRIX,
        WORKING_TREE_TAG,
        build_and_install,
        copy_template,
        isolation,
        snapshot_working_tree,
    )

    name, pytest_args = split(argv)
    if name not in RENDER_MATRIX:
        known = ", ".join(sorted(RENDER_MATRIX))
        print(
            f"error: no render {name!r} in the answer matrix; pick one of {known}", file=sys.stderr
        )
        return 2
    work = OUTPUT / name
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    os.environ.update(isolation(work))
    template = snapshot_working_tree(work / "template", owned_tests=True)
    answers = RENDER_MATRIX[name]
    project = copy_template(template, work / "project", answers, WORKING_TREE_TAG)
    built = build_and_install(project, dict(answers))
    command = [str(built.venv_python), "-m", "pytest", "-p", "no:cacheprovider"]
    print(f"owned tests of the {name} render, in {project}", flush=True)
    selected = [*command, *owned_test_files(project), *pytest_args]
    return subprocess.run(selected, cwd=project, check=False).returncode


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
