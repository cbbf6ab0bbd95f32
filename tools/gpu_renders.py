"""The template's own GPU check: the renders `nox -s lint` checks, tested on a GPU.

`python tools/gpu_renders.py majors` prints the CUDA majors of includes/cuda-matrix.yml as a JSON
list: .github/workflows/gpu.yml runs one leg per major and answer set from it, so that a new
major is a new leg without an edit to the workflow.

`python tools/gpu_renders.py run NAME` (`nox -s tests_gpu -- NAME`) renders the answer set NAME
(`defaults` or `all-options`, two of tools/lint_renders.py's) from the working tree into
build/gpu/NAME, owned tests laid in, and runs the render's own `nox -s tests_gpu` (the doctor's
probe, then every test with REQUIRE_GPU=1) and `nox -s bench` for the major in CUDA_MAJOR, as a
project's GPU job does. The benchmark tables are kept in build/gpu/bench-NAME-cudaNN.txt. A
driver too old for the major skips both sessions with a notice (the render's noxfile decides).
Needs an NVIDIA GPU.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from template_data import ROOT, load_computed

OUT = ROOT / "build" / "gpu"
# Of the answer sets `nox -s lint` checks, the two a GPU tests: the defaults and every option.
RENDERS = ("defaults", "all-options")
USAGE = "usage: python tools/gpu_renders.py majors | run NAME  (NAME: defaults, all-options)"


def majors() -> list[str]:
    """The CUDA majors of the matrix, oldest first."""
    return sorted(load_computed("cuda_matrix")["majors"], key=int)


def render(name: str, out: Path = OUT) -> Path:
    """Answer set ``name`` rendered into ``out``/NAME and committed, as a user's project."""
    sys.path[:0] = [str(ROOT / "tests")]
    from conftest import WORKING_TREE_TAG, copy_template, git, isolation, snapshot_working_tree
    from lint_renders import answer_sets

    answers = {key: value for key, value in answer_sets().items() if key in RENDERS}
    if name not in answers:
        raise SystemExit(f"{name!r} is not an answer set: give one of {', '.join(answers)}")
    project = out / name
    shutil.rmtree(project, ignore_errors=True)
    outer = dict(os.environ)
    with tempfile.TemporaryDirectory(prefix="gpu-template-") as tmp:
        # No Copier settings or git configuration of the user's reaches the render.
        os.environ.update(isolation(Path(tmp)))
        template = snapshot_working_tree(Path(tmp) / "repo", owned_tests=True)
        copy_template(template, project, answers[name], WORKING_TREE_TAG)
        git("init", "-q", "-b", "main", cwd=project)
        git("add", "-A", cwd=project)
        git("commit", "-q", "-m", f"render {name}", cwd=project)
    os.environ.clear()
    os.environ.update(outer)
    return project


def run(name: str, out: Path = OUT) -> int:
    """Render ``name``, then run its tests_gpu and, when they pass, its bench (figures kept)."""
    major = os.environ.get("CUDA_MAJOR", "")
    if major not in majors():
        raise SystemExit(f"set CUDA_MAJOR to one of the matrix's majors: {', '.join(majors())}")
    project = render(name, out)
    nox = [sys.executable, "-m", "nox", "--non-interactive"]
    env = {**os.environ, "REQUIRE_GPU": "1"}
    tests = subprocess.run([*nox, "-s", "tests_gpu"], cwd=project, env=env, check=False)
    if tests.returncode != 0:
        return tests.returncode
    figures = out / f"bench-{name}-cuda{major}.txt"
    with subprocess.Popen(
        [*nox, "-s", "bench"], cwd=project, env=env, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    ) as bench, figures.open("w", encoding="utf-8") as kept:  # fmt: skip
        assert bench.stdout is not None
        for line in bench.stdout:  # shown as it comes, and kept
            sys.stdout.write(line)
            kept.write(line)
    return bench.returncode


def main(argv: list[str]) -> int:
    if argv == ["majors"]:
        print(json.dumps(majors()))
        return 0
    if len(argv) == 2 and argv[0] == "run":
        return run(argv[1])
    print(USAGE, file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
