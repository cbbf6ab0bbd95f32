"""docs/contributing.md's runbooks, followed in a scratch clone: a new worked example and a new
CUDA major touch the places they name and nothing else, and the quick tier's checks of those
places pass.

The clone carries this working tree (uncommitted edits included) on top of the repository's
history, so the comparison with the last release runs there too. Marked ``slow``: it runs a
dozen renders in a pytest of its own (about two minutes on two cores).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import REPO_ROOT, copy_working_tree, git
from test_one_source import next_major_entry

pytestmark = pytest.mark.slow

MARKER = (
    "# Maintained by cuda-template (copier update). "
    "Add your code in new files: see docs/extending.md.\n"
)
# The example's files, where they land in the template tree; the runbook's minimum: a module and
# its test.
EXAMPLE_FILES = {
    "template/src/{{ package_name }}/kernels/numba_histogram.py": MARKER
    + '"""A made-up worked example: counts of values in equal bins, on the CPU."""\n\n'
    + "from __future__ import annotations\n\n"
    + "import numpy as np\n"
    + "import numpy.typing as npt\n\n"
    + '__all__ = ["histogram"]\n\n\n'
    + "def histogram(x: npt.NDArray[np.float64], bins: int) -> npt.NDArray[np.intp]:\n"
    + '    """Counts of ``x`` in ``bins`` equal bins between its least and greatest value."""\n'
    + "    counts, _ = np.histogram(x, bins=bins)\n"
    + "    return counts.astype(np.intp)\n",
    "template/tests/test_kernels_numba_histogram.py.jinja": '"""The made-up example on the CPU."""'
    + "\n\nfrom __future__ import annotations\n\n"
    + "import numpy as np\n\n"
    + "from {{ package_name }}.kernels.numba_histogram import histogram\n\n\n"
    + "def test_every_value_is_counted_once() -> None:\n"
    + "    assert int(histogram(np.arange(10.0), bins=3).sum()) == 10\n",
}
EXAMPLE_BLOCK = """\
  - |
    {% if examples is defined and 'histogram' not in examples %}
    src/{{ package_name }}/kernels/numba_histogram.py
    tests/test_kernels_numba_histogram.py
    {% endif %}
"""
CHANGELOG_ENTRY = """\
### Added: a histogram example and CUDA 14

- `examples=histogram` renders `src/<package>/kernels/numba_histogram.py` and
  `tests/test_kernels_numba_histogram.py`. Projects serving every major gain the `cuda14` extra
  (`pyproject.toml`, `README.md`, `Dockerfile`, `compose.yaml`, `docs/*.md`, `.github/`,
  `.gitlab-ci.yml`, `noxfile.py`, `src/<package>/gpu/_project.py`, `tests/`, `.devcontainer/`).

"""
# The quick tier's tests of the places the runbooks name; the line budgets apart (below).
CHECKS = [
    "tests/test_examples_option.py",
    "tests/test_previous_version.py",
    "tests/test_one_source.py::test_every_exclude_pattern_names_a_template_path",
    "tests/test_one_source.py::test_each_real_major_alone_reaches_every_rendered_fact",
    "tests/test_questions.py::test_every_name_a_render_puts_on_sys_path_is_refused_as_the_package_name",
    "tests/test_render.py::test_every_toml_yaml_and_python_file_parses",
]


def scratch_clone(dst: Path) -> Path:
    """This repository's history with the working tree on top, committed."""
    git("clone", "-q", str(REPO_ROOT), str(dst), cwd=REPO_ROOT)
    copy_working_tree(dst)
    git("add", "-A", cwd=dst)
    git("commit", "-q", "--allow-empty", "-m", "the working tree", cwd=dst)
    return dst


def add_example(repo: Path) -> None:
    """The runbook "Add a worked example": its choice, its _exclude block, its files."""
    copier = repo / "copier.yml"
    text = copier.read_text("utf-8")
    choice = '    "Histogram: counts in equal bins (made up)": histogram\n'
    anchor = (
        "  default: []\n  when: \"{{ 'numba' in gpu_libraries or 'cupy' in gpu_libraries }}\"\n"
    )
    assert text.count(anchor) == 1
    text = text.replace(anchor, choice + anchor)
    anchor = "  - |\n    {% if examples is defined and 'reductions' not in examples %}\n"
    assert text.count(anchor) == 1
    copier.write_text(text.replace(anchor, EXAMPLE_BLOCK + anchor), "utf-8")
    for path, content in EXAMPLE_FILES.items():
        (repo / path).write_text(content, "utf-8")


def add_major(repo: Path) -> None:
    """The runbook "Add a CUDA major": a copy of the newest major's entry, renamed."""
    matrix_file = repo / "includes" / "cuda-matrix.yml"
    data = yaml.safe_load(matrix_file.read_text("utf-8"))
    major, entry = next_major_entry(data["cuda_matrix"]["default"])
    data["cuda_matrix"]["default"]["majors"][str(major)] = entry
    matrix_file.write_text(yaml.safe_dump(data, sort_keys=False), "utf-8")


def add_changelog_entry(repo: Path) -> None:
    changelog = repo / "CHANGELOG.md"
    text = changelog.read_text("utf-8")
    changelog.write_text(
        text.replace("## Unreleased\n\n", "## Unreleased\n\n" + CHANGELOG_ENTRY, 1)
    )


def test_a_new_example_and_major_pass_the_quick_checks_of_the_runbooks_places(
    tmp_path: Path,
) -> None:
    repo = scratch_clone(tmp_path / "checkout")
    add_example(repo)
    add_major(repo)
    add_changelog_entry(repo)
    git("add", "-A", cwd=repo)
    touched = git("diff", "--cached", "--name-only", "-z", cwd=repo).split("\0")
    # The runbooks' places, and nothing else.
    places = ["CHANGELOG.md", "copier.yml", "includes/cuda-matrix.yml", *EXAMPLE_FILES]
    assert sorted(filter(None, touched)) == sorted(places)
    proc = quick_tests(repo, CHECKS)
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
    # The runbooks' budget step: a new major's extra and a new example's files must fit the
    # ceilings, paid for by lines taken out elsewhere, which a made-up choice cannot do. The
    # budget test passes, or fails naming the render over its ceiling and nothing else.
    budget = quick_tests(repo, ["tests/test_render_size.py"])
    said = budget.stdout + budget.stderr
    assert budget.returncode == 0 or (budget.returncode == 1 and " lines, over its " in said), said


def quick_tests(repo: Path, selected: list[str]) -> subprocess.CompletedProcess[str]:
    """The quick tier's tests of ``selected``, run in ``repo``."""
    quick = ["-p", "no:cacheprovider", "-q", "-m", "not slow and not full"]
    command = [sys.executable, "-m", "pytest", *quick, *selected]
    return subprocess.run(command, cwd=repo, capture_output=True, text=True, check=False)
