"""The guide works exactly as written: the project's short one and the template's long form.

The rendered project's docs/extending.md is the short path (with the benchmarks' row in
benchmarks/README.md); the template's docs/guide.md is the
long form, written for a package named ``myproj``. A default render gets every file both pages
show, written as the pages say and in new files only; then the project's own checks run as a
user runs them: ruff, ruff format, mypy, pytest, the simulator and PTX tests of
``nox -s tests_sim``, the benchmark and the strict docs build.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO_ROOT, Built, Render, build_and_install, run, run_pytest_of
from template_data import load_computed

MATRIX = load_computed("cuda_matrix")
# The defaults (CuPy and Numba, docs on) with the benchmarks, whose README adds a row of the guide's
# kernel to their table.
ANSWERS: dict[str, object] = {"benchmarks": True, "deep_checks": True}
# The project's pages that show files: the guide, and the benchmarks' README (ANSWERS has them).
PAGES = ("docs/extending.md", "benchmarks/README.md")
# A file of the guide: a line holding only its path in backticks and a colon, then its block.
FILE_BLOCK = re.compile(
    r"^`(?P<path>[^`\s]+)`:\n\n```(?P<lang>\w+)\n(?P<body>.*?)^```$", re.MULTILINE | re.DOTALL
)
# The long form: the template's own page, its files written for a package named `myproj`.
LONG_GUIDE = REPO_ROOT / "docs" / "guide.md"
# The most lines the project's guide may have: it is what a new user reads on day one.
SHORT_GUIDE_LINES = 300
# Where the template's own code lives (tests/test_boundary.py has the full rule).
TEMPLATE_AREAS = ("gpu", "doctor", "kernels", "scale")


def guide_files(page: str) -> dict[str, str]:
    """The files a guide page shows, by path, each exactly as its block gives it."""
    found = {m["path"]: m["body"] for m in FILE_BLOCK.finditer(page)}
    assert len(found) == len(FILE_BLOCK.findall(page)), "a path is shown twice"
    return found


def test_guide_files_are_read_with_their_paths() -> None:
    page = "Text.\n\n`src/p/a.py`:\n\n```python\nx = 1\n```\n\n```console\nls\n```\n"
    assert guide_files(page) == {"src/p/a.py": "x = 1\n"}


def guide_files_of(project: Path) -> dict[str, str]:
    """The files of both guides for ``project``: its own page's, then the long form's.

    The long form names the package ``myproj``; here it is read as ``project``'s package.
    """
    package = next(path.name for path in (project / "src").iterdir())
    shown = [project / page for page in PAGES if (project / page).is_file()]
    pages = [guide_files(page.read_text("utf-8")) for page in shown]
    pages.append(guide_files(re.sub(r"\bmyproj\b", package, LONG_GUIDE.read_text("utf-8"))))
    files = {rel: body for found in pages for rel, body in found.items()}
    assert sum(map(len, pages)) == len(files), "two pages show one path"
    return files


def test_both_guides_are_read_for_the_projects_package(tmp_path: Path) -> None:
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "docs").mkdir()
    page = "`src/pkg/a.py`:\n\n```python\nx = 1\n```\n"
    (tmp_path / "docs" / "extending.md").write_text(page, "utf-8")
    files = guide_files_of(tmp_path)
    assert files["src/pkg/a.py"] == "x = 1\n"
    simulated = files["tests/test_my_random_cudasim.py"]  # a file of the long form
    assert "from pkg import _my_random_cuda, my_random\n" in simulated
    assert [rel for rel, body in files.items() if "myproj" in rel + body] == []


@pytest.mark.parametrize("answers", [{}, {"docs": "none"}], ids=["defaults", "docs-none"])
def test_project_guide_is_short_and_points_at_the_long_form(
    render: Render, answers: dict[str, str]
) -> None:
    project = render(answers, name="guide-short")
    page = (project / "docs" / "extending.md").read_text("utf-8")
    assert len(page.splitlines()) <= SHORT_GUIDE_LINES
    assert "cuda-template guide, `docs/guide.md` in the template repository" in page
    assert LONG_GUIDE.is_file()


def template_privates(source: str, package: str) -> list[str]:
    """The private modules or names of the template's packages that ``source`` imports."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.ImportFrom):
            continue
        parts = [package] * (node.level > 0) + (node.module or "").split(".")
        if parts[:1] != [package] or parts[1:2] not in ([area] for area in TEMPLATE_AREAS):
            continue
        names = parts[2:] + [alias.name for alias in node.names]
        found += [name for name in names if name.startswith("_")]
    return found


def test_private_imports_of_the_template_are_found() -> None:
    source = "from .kernels import _launch, checks\nfrom p.gpu._arrays import x\nfrom . import _me"
    assert template_privates(source, "p") == ["_launch", "_arrays"]


def test_guide_code_uses_only_public_names_of_the_template(render: Render) -> None:
    project = render(ANSWERS, name="guide-public")
    package = next(path.name for path in (project / "src").iterdir())
    files = guide_files_of(project)
    used = {rel: template_privates(body, package) for rel, body in files.items()}
    assert {rel: names for rel, names in used.items() if names} == {}


@pytest.fixture(scope="module")
def guided(render: Render) -> tuple[Built, dict[str, str]]:
    """A default render with the files of both guides added, built and installed."""
    project = render(ANSWERS, name="guided")
    files = guide_files_of(project)
    for rel, body in files.items():
        target = project / rel
        assert not target.exists(), f"the guide writes into an existing file: {rel}"
        target.write_text(body, "utf-8")
    return build_and_install(project, dict(ANSWERS)), files


@pytest.mark.slow
def test_guide_adds_a_function_two_kernels_their_tests_and_a_benchmark_in_new_files(
    guided: tuple[Built, dict[str, str]],
) -> None:
    built, files = guided
    package = built.answer("package_name")
    assert {
        f"src/{package}/stats.py",
        f"src/{package}/ops.py",
        f"src/{package}/my_kernels.py",
        f"src/{package}/my_cupy_kernels.py",
        f"src/{package}/my_random.py",
        "tests/test_my_kernels_cudasim.py",
        "tests/test_my_random_cudasim.py",
        "tests/test_my_random_ptx.py",
        "benchmarks/kernels_mine.py",
    } <= set(files)
    inside = [rel for rel in files if rel.split("/")[:3:2] in (["src", a] for a in TEMPLATE_AREAS)]
    assert inside == []


@pytest.mark.slow
def test_guide_code_passes_ruff_and_ruff_format(guided: tuple[Built, dict[str, str]]) -> None:
    built, _ = guided
    run([sys.executable, "-m", "ruff", "check", "--no-cache", "."], cwd=built.project)
    run([sys.executable, "-m", "ruff", "format", "--check", "--no-cache", "."], cwd=built.project)


@pytest.mark.slow
def test_guide_code_passes_mypy_strict(guided: tuple[Built, dict[str, str]]) -> None:
    built, _ = guided
    mypy = [str(built.venv_python), "-m", "mypy", "--no-incremental", "--cache-dir=/dev/null"]
    assert "Success: no issues found" in run(mypy, cwd=built.project)


@pytest.mark.slow
def test_guide_tests_pass_with_the_projects_own(guided: tuple[Built, dict[str, str]]) -> None:
    built, _ = guided
    out = run_pytest_of(built, "-q")
    assert " failed" not in out
    for name in (
        "test_stats.py",
        "test_ops.py",
        "test_my_kernels.py",
        "test_my_cupy_kernels.py",
        "test_my_random.py",
    ):
        assert name not in out, f"{name} was skipped:\n{out}"  # -rs lists skipped files


# Random123's known answers for Philox4x32-10 (kat_vectors): key words, counter words, output.
PHILOX_ANSWERS = [
    ((0, 0), (0, 0, 0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((2**32 - 1,) * 2, (2**32 - 1,) * 4, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    (
        (0xA4093822, 0x299F31D0),
        (0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344),
        (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1),
    ),
]
# The guide's generator, as Python and compiled, on each answer's key and counter.
_PHILOX_PROBE = """
import json, sys
import numpy as np
from {package}.my_random import _philox, philox_source
seen = []
for (k0, k1), (c0, c1, c2, c3), _ in json.loads(sys.argv[1]):
    seed, i, j = (np.uint64(lo | hi << 32) for lo, hi in ((k0, k1), (c0, c1), (c2, c3)))
    seen += [[int(w) for w in f(seed, i, j)] for f in (philox_source, _philox)]
print(json.dumps(seen))
"""


@pytest.mark.slow
def test_guide_random_draws_give_philoxs_known_answers(
    guided: tuple[Built, dict[str, str]],
) -> None:
    built, _ = guided
    probe = _PHILOX_PROBE.format(package=built.answer("package_name"))
    out = run([str(built.venv_python), "-c", probe, json.dumps(PHILOX_ANSWERS)], cwd=built.project)
    assert json.loads(out) == [list(words) for _, _, words in PHILOX_ANSWERS for _ in range(2)]


# The two ways of wrapping a uint64 product that the guide warns against, with the JIT on or off
# (argv[1]): NumPy scalars, and Python ints masked to 64 bits.
_WRAP_PROBE = """
import json, os, sys, warnings
os.environ["NUMBA_DISABLE_JIT"] = sys.argv[1]
import numba, numpy as np
warnings.simplefilter("error")
def scalars(i):
    return (np.uint64(i) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(1)
def masked(i):
    return ((i * 0x9E3779B97F4A7C15) & 0xFFFF_FFFF_FFFF_FFFF) >> 1
seen = []
for function in (scalars, masked):
    try:
        seen.append(int(numba.njit(function)(3)))
    except RuntimeWarning as exc:
        seen.append(str(exc))
print(json.dumps(seen))
"""


@pytest.mark.slow
@pytest.mark.parametrize("jit", [True, False])
def test_guide_wrapping_traps_are_what_it_says(
    guided: tuple[Built, dict[str, str]], jit: bool
) -> None:
    # Why the guide's Philox never wraps: should Numba or NumPy change, this fails first.
    built, _ = guided
    out = run([str(built.venv_python), "-c", _WRAP_PROBE, "0" if jit else "1"], cwd=built.project)
    right = (3 * 0x9E3779B97F4A7C15 % 2**64) >> 1
    scalars, masked = json.loads(out)
    if (
        jit
    ):  # NumPy scalars wrap silently; Numba computes Python ints as int64: >> shifts the sign in
        assert (scalars, masked != right) == (right, True)
    else:  # NumPy scalars warn (an error under filterwarnings); Python ints are exact
        assert ("overflow" in str(scalars), masked) == (True, right)


@pytest.mark.slow
def test_gpu_branch_guard_insists_on_a_test_for_the_users_dispatcher(
    guided: tuple[Built, dict[str, str]],
) -> None:
    built, _ = guided
    test_ops = built.project / "tests" / "test_ops.py"
    source = test_ops.read_text("utf-8")
    test_ops.write_text(source.replace('@pytest.mark.gpu_branch(ops, "softmax")\n', ""), "utf-8")
    try:
        proc = subprocess.run(
            [str(built.venv_python), "-m", "pytest", "-p", "no:cacheprovider", "-q", "tests"],
            cwd=built.project,
            capture_output=True,
            text=True,
            check=False,
        )
    finally:
        test_ops.write_text(source, "utf-8")
    assert proc.returncode == 1, proc.stdout
    package = built.answer("package_name")
    assert f"no test of their GPU branch: {package}.ops.softmax." in proc.stdout


@pytest.mark.slow
def test_guide_kernel_benchmark_row_joins_the_table(guided: tuple[Built, dict[str, str]]) -> None:
    built, _ = guided
    cmd = [str(built.venv_python), "benchmarks/kernels.py", "--size", "4096", "--repeat", "1"]
    out = run([*cmd, "--dtype", "float64"], cwd=built.project)
    assert "abs_diff, out=" in out


@pytest.mark.slow
def test_guide_modules_get_api_pages_in_a_strict_docs_build(
    guided: tuple[Built, dict[str, str]], tmp_path: Path
) -> None:
    built, _ = guided
    install = ["uv", "pip", "install", "--quiet", "--python", str(built.venv_python)]
    run([*install, "--group", "docs"], cwd=built.project)
    strict = ["-m", "sphinx", "-W", "-n", "--keep-going", "-q", "-b", "html"]
    run([str(built.venv_python), *strict, "docs", str(tmp_path)], cwd=built.project)
    package = built.answer("package_name")
    pages = {path.stem for path in (tmp_path / "generated").glob("*.html")}
    assert {f"{package}.ops", f"{package}.my_kernels", f"{package}.my_cupy_kernels"} <= pages
    assert (tmp_path / "extending.html").is_file()


@pytest.mark.slow
def test_guide_kernel_passes_the_simulator_and_ptx_tests(
    guided: tuple[Built, dict[str, str]],
) -> None:
    built, _ = guided
    # numba-cuda as the project's tests_sim session installs it: the simulator and NVVM.
    numba_cuda = MATRIX["majors"][str(built.cuda_majors()[-1])]["simulator"]
    install = ["uv", "pip", "install", "--quiet", "--python", str(built.venv_python)]
    run([*install, *numba_cuda], cwd=built.project)
    cudasim = ["tests/test_my_kernels_cudasim.py", "tests/test_my_random_cudasim.py"]
    sim = run_pytest_of(built, "-v", "-m", "cudasim", *cudasim, sim=True)
    assert sim.count("PASSED") == 12, sim
    assert sim.count("test_pi_hits_kernel_draws_what_the_twin_draws[") == 2  # equal to the twin
    ptx = run_pytest_of(
        built, "-v", *sorted(map(str, Path(built.project).glob("tests/test_*_ptx.py")))
    )
    assert "test_my_random_ptx.py::test_pi_hits_kernel_compiles_to_ptx PASSED" in ptx


@pytest.mark.slow
def test_guide_kernels_compile_to_ptx_with_numba_cuda_too(
    guided: tuple[Built, dict[str, str]],
) -> None:
    # The simulator's compiler, and the target a failed numba-cuda-mlir import falls back to:
    # the guide's random draws must build there as well. numba-cuda-mlir is hidden from import.
    built, _ = guided
    numba_cuda = MATRIX["majors"][str(built.cuda_majors()[-1])]["simulator"]
    run(
        ["uv", "pip", "install", "--quiet", "--python", str(built.venv_python), *numba_cuda],
        cwd=built.project,
    )
    hide = "import sys, pytest; sys.modules['numba_cuda_mlir.cuda'] = None; sys.exit(pytest.main())"
    cmd = [
        str(built.venv_python),
        "-c",
        hide,
        "-p",
        "no:cacheprovider",
        "-v",
        "tests/test_my_random_ptx.py",
    ]
    ptx = run(cmd, cwd=built.project, env={"NUMBA_ENABLE_CUDASIM": "0"})
    assert "test_pi_hits_kernel_compiles_to_ptx PASSED" in ptx
