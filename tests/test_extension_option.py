"""The extension option: a compiled CUDA C++ module built into the wheel with nanobind.

The rendering tests read the option's files, build requirements and CUDA architectures against
the matrix for every major. The ``slow`` tests build one render (``extension=cuda-cpp``, other
answers default: CuPy and Numba on the newest major) with ``uv build`` on this driverless machine,
with every directory that holds an nvcc taken off PATH, so that the toolkit wheels among the
build requirements are proved to be enough; then they install the wheel in a fresh venv, run the
render's own extension tests there, and read the compiled architectures back with cuobjdump.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import tarfile
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from bump_matrix import MANYLINUX_ARCHS
from conftest import MAJORS, Render, committed, git, pyproject, run, tool
from template_data import load_computed, python_support, questions

MATRIX: dict[str, Any] = load_computed("cuda_matrix")
# The builds run on the oldest floor offered, which their renders declare (the default is newer).
BUILD_PYTHON = python_support().choices[0]
PINS: dict[str, Any] = load_computed("pins")
PACKAGE = "my_gpu_project"
NEWEST = MAJORS[-1]
# What the option brings, as a rendered project has it.
EXTENSION_FILES = [
    "CMakeLists.txt",
    "csrc/axpy.cu",
    "csrc/axpy.hpp",
    "csrc/axpy_cpu.cpp",
    "csrc/bindings.cpp",
    f"src/{PACKAGE}/kernels/cuda_cpp.py",
    f"src/{PACKAGE}/kernels/_cuda_cpp.pyi",
    "tests/test_kernels_cuda_cpp.py",
    "docs/compiled-extension.md",
]
TAG = "v1.2.3"


def extension_of(major: int) -> dict[str, Any]:
    """The matrix's facts about the compiled extension for ``major``."""
    facts: dict[str, Any] = MATRIX["majors"][str(major)]["extension"]
    return facts


@pytest.fixture(scope="module", params=["cuda-cpp", "none"])
def extension_render(request: pytest.FixtureRequest, render: Render) -> tuple[bool, Path]:
    """The default answers with and without the extension."""
    chosen = request.param == "cuda-cpp"
    return chosen, render({"extension": request.param}, name=f"extension-{request.param}")


@pytest.fixture(scope="module", params=MAJORS, ids=[f"cuda{major}" for major in MAJORS])
def major_render(request: pytest.FixtureRequest, render: Render) -> tuple[int, Path]:
    """The extension on each major of the matrix."""
    answers = {"extension": "cuda-cpp", "cuda_majors": [request.param]}
    return request.param, render(answers, name=f"extension-cuda{request.param}")


def test_the_option_is_off_by_default() -> None:
    assert questions()["extension"]["default"] == "none"


def test_the_extension_files_follow_the_answer(extension_render: tuple[bool, Path]) -> None:
    chosen, project = extension_render
    present = {name: (project / name).is_file() for name in EXTENSION_FILES}
    assert present == dict.fromkeys(EXTENSION_FILES, chosen)


def test_the_build_backend_follows_the_answer(extension_render: tuple[bool, Path]) -> None:
    chosen, project = extension_render
    backend = pyproject(project)["build-system"]["build-backend"]
    assert backend == ("scikit_build_core.build" if chosen else "hatchling.build")


def test_the_build_requirements_are_the_pins_and_the_majors_toolkit_wheels(
    major_render: tuple[int, Path],
) -> None:
    major, project = major_render
    expected = PINS["extension_build"] + extension_of(major)["build_requirements"]
    assert pyproject(project)["build-system"]["requires"] == expected


def test_the_version_comes_from_git_tags_through_setuptools_scm(
    major_render: tuple[int, Path],
) -> None:
    _, project = major_render
    config = pyproject(project)
    assert config["project"]["dynamic"] == ["version"]
    provider = config["tool"]["scikit-build"]["metadata"]["version"]["provider"]
    assert provider == "scikit_build_core.metadata.setuptools_scm"
    assert config["tool"]["setuptools_scm"]["fallback_version"] == "0.0.0"


def cmake_architectures(project: Path) -> list[str]:
    """The architectures CMakeLists.txt asks nvcc for, in CMake's spelling ("75-real", "120")."""
    text = (project / "CMakeLists.txt").read_text("utf-8")
    found = re.search(r"set\(CMAKE_CUDA_ARCHITECTURES ([^)]*)\)", text)
    assert found, "CMakeLists.txt sets no CMAKE_CUDA_ARCHITECTURES"
    return found.group(1).split()


def test_cmake_asks_for_sass_of_each_matrix_architecture_and_ptx_of_the_newest(
    major_render: tuple[int, Path],
) -> None:
    major, project = major_render
    *older, newest = sorted(extension_of(major)["architectures"])
    assert cmake_architectures(project) == [f"{arch}-real" for arch in older] + [str(newest)]


def test_cmake_refuses_an_nvcc_of_another_major(major_render: tuple[int, Path]) -> None:
    major, project = major_render
    text = (project / "CMakeLists.txt").read_text("utf-8")
    assert f'CMAKE_CUDA_COMPILER_VERSION MATCHES "^{major}\\\\."' in text
    assert f"glob('cu{major}/bin/nvcc')" in text


def test_the_dockerfile_builds_the_extension_with_a_compiler_and_passes_hadolint(
    major_render: tuple[int, Path],
) -> None:
    major, project = major_render
    run([tool("hadolint"), "--failure-threshold", "style", "Dockerfile"], cwd=project)
    dockerfile = (project / "Dockerfile").read_text("utf-8")
    build_stage = dockerfile.split("\nFROM ${CUDA_IMAGE}\n")[0]
    facts = extension_of(major)
    packages = " ".join(["g++", *facts["docker_toolkit"]])
    assert f"apt-get install -y --no-install-recommends {packages} \\\n" in build_stage
    assert ("ENV CUDACXX=" in build_stage) == bool(facts["docker_nvcc"])


def test_the_extension_renders_markdown_passes_the_mdformat_hook_and_codespell(
    major_render: tuple[int, Path],
) -> None:
    _, project = major_render
    pages = sorted(str(p) for p in project.rglob("*.md"))
    run([tool("mdformat"), "--check", "--wrap", "keep", "--compact-tables", *pages], cwd=project)
    sources = [str(p) for p in (project / "csrc").iterdir()]
    run([tool("codespell"), "CMakeLists.txt", *pages, *sources], cwd=project)


# --- release wheels: cibuildwheel's settings and the release workflow ---------------------------


def test_cibuildwheel_builds_in_the_majors_manylinux_images_and_keeps_the_driver_out(
    major_render: tuple[int, Path],
) -> None:
    major, project = major_render
    linux = pyproject(project)["tool"]["cibuildwheel"]["linux"]
    image = extension_of(major)["manylinux_image"]
    # One tag names both images: bump_matrix pins one that every architecture's repository lists.
    assert linux["archs"] == list(MANYLINUX_ARCHS) == ["x86_64", "aarch64"]
    for arch in linux["archs"]:
        assert linux[f"manylinux-{arch}-image"] == image.replace("{arch}", arch)
    assert "--exclude libcuda.so.1" in linux["repair-wheel-command"]


@pytest.mark.parametrize(
    "schema", ["vendor.github-workflows", "custom.github-workflows-require-timeout"]
)
def test_the_release_workflow_with_wheels_matches_its_schemas(
    extension_render: tuple[bool, Path], schema: str
) -> None:
    _, project = extension_render
    release = ".github/workflows/release.yml"
    run([tool("check-jsonschema"), "--builtin-schema", schema, release], cwd=project)


def test_zizmor_finds_nothing_in_the_release_workflow_with_wheels(
    extension_render: tuple[bool, Path],
) -> None:
    _, project = extension_render
    out = run([tool("zizmor"), "--offline", "--min-severity", "low", ".github"], cwd=project)
    assert "No findings to report" in out


def test_the_release_publishes_the_wheels_of_each_architecture_with_the_sdist(
    extension_render: tuple[bool, Path],
) -> None:
    chosen, project = extension_render
    release = yaml.safe_load((project / ".github/workflows/release.yml").read_text("utf-8"))
    jobs = release["jobs"]
    if not chosen:
        assert "wheels" not in jobs
        assert jobs["publish"]["needs"] == "dist"
        return
    arches = [entry["arch"] for entry in jobs["wheels"]["strategy"]["matrix"]["include"]]
    assert arches == pyproject(project)["tool"]["cibuildwheel"]["linux"]["archs"]
    runs = [step["run"] for step in jobs["wheels"]["steps"] if "run" in step]
    assert runs == [
        f"uvx cibuildwheel@{PINS['extension_tools']['cibuildwheel']} --output-dir wheelhouse"
    ]
    assert jobs["publish"]["needs"] == ["dist", "wheels"]


# --- the build, on this machine ------------------------------------------------------------------


@dataclass(frozen=True)
class BuiltExtension:
    """The render, its sdist and wheel, a venv with the wheel installed, and the build's figures."""

    project: Path
    sdist: Path
    wheel: Path
    venv_python: Path
    build_seconds: float


def without_nvcc(env: dict[str, str]) -> dict[str, str]:
    """``env`` with every PATH directory that holds an nvcc dropped, and no CUDACXX or CUDA_PATH."""
    kept = [d for d in env.get("PATH", "").split(os.pathsep) if d and not Path(d, "nvcc").exists()]
    cleared = {k: v for k, v in env.items() if k not in {"CUDACXX", "CUDA_PATH", "CUDA_HOME"}}
    return {**cleared, "PATH": os.pathsep.join(kept)}


def uv_build(project: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    cmd = ["uv", "build", "--python", BUILD_PYTHON, "--out-dir", "dist"]
    return subprocess.run(cmd, cwd=project, env=env, capture_output=True, text=True, check=False)


@pytest.fixture(scope="module")
def built_extension(render: Render) -> BuiltExtension:
    """The extension render, tagged, built with no nvcc on PATH and installed in a fresh venv."""
    project = render({"extension": "cuda-cpp", "python_min": BUILD_PYTHON}, name="extension-build")
    committed(project)
    git("tag", TAG, cwd=project)
    started = time.perf_counter()
    proc = uv_build(project, without_nvcc(dict(os.environ)))
    seconds = time.perf_counter() - started
    assert proc.returncode == 0, f"uv build failed\n{proc.stdout}\n{proc.stderr}"
    sdist = next((project / "dist").glob("*.tar.gz"))
    wheel = next((project / "dist").glob("*.whl"))
    size = wheel.stat().st_size / 1e3
    print(f"\nextension wheel: {wheel.name}, {size:.0f} kB, built in {seconds:.1f} s")
    venv = project.parent / "venv"
    run(["uv", "venv", "--quiet", "--python", BUILD_PYTHON, str(venv)], cwd=project)
    python = venv / "bin" / "python"
    run(
        ["uv", "pip", "install", "--quiet", "--python", str(python), str(wheel), "--group", "dev"],
        cwd=project,
    )
    return BuiltExtension(project, sdist, wheel, python, seconds)


@pytest.fixture(scope="module")
def cuobjdump(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """cuobjdump of the newest major, from the CUDA toolkit wheels (no system CUDA needed)."""
    target = tmp_path_factory.mktemp("cuobjdump")
    requirement = f"cuda-toolkit[cuobjdump]=={NEWEST}.*"
    run(["uv", "pip", "install", "--quiet", "--target", str(target), requirement], cwd=target)
    found = next(target.rglob("bin/cuobjdump"), None)
    assert found, f"{requirement} installed no cuobjdump"
    return found


def compiled_module(built: BuiltExtension) -> Path:
    site = built.venv_python.parents[1] / "lib"
    found = next(site.rglob(f"{PACKAGE}/kernels/_cuda_cpp*.so"), None)
    assert found, "the wheel installed no compiled module"
    return found


@pytest.mark.slow
def test_ruff_and_mypy_strict_pass_on_the_extension_render(built_extension: BuiltExtension) -> None:
    project, python = built_extension.project, str(built_extension.venv_python)
    run([python, "-m", "ruff", "check", "--no-cache", "."], cwd=project)
    run([python, "-m", "ruff", "format", "--check", "--no-cache", "."], cwd=project)
    out = run([python, "-m", "mypy", "--no-incremental", "--cache-dir=/dev/null"], cwd=project)
    assert "Success: no issues found" in out


@pytest.mark.slow
def test_the_wheel_is_platform_specific_and_versioned_from_the_git_tag(
    built_extension: BuiltExtension,
) -> None:
    name = built_extension.wheel.name
    assert name.startswith(f"{PACKAGE}-{TAG[1:]}-cp311-cp311-"), name
    assert "linux" in name, name


@pytest.mark.slow
def test_the_sdist_carries_cmake_and_the_cuda_sources(built_extension: BuiltExtension) -> None:
    with tarfile.open(built_extension.sdist) as sdist:
        names = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    assert {"CMakeLists.txt", "csrc/axpy.cu", "csrc/bindings.cpp"} <= names


@pytest.mark.slow
def test_the_wheel_links_no_cuda_library(built_extension: BuiltExtension) -> None:
    names = zipfile.ZipFile(built_extension.wheel).namelist()
    assert any(re.search(rf"{PACKAGE}/kernels/_cuda_cpp\..*\.so$", n) for n in names), names
    assert not [n for n in names if "libcuda" in n], "the CUDA runtime is linked in statically"
    needed = run(["readelf", "-d", str(compiled_module(built_extension))], cwd=Path.cwd())
    assert "libcudart" not in needed
    assert "libcuda.so" not in needed  # the static runtime opens the driver when first used


@pytest.mark.slow
def test_the_module_imports_without_a_driver_and_names_the_cuda_error(
    built_extension: BuiltExtension,
) -> None:
    script = (
        f"from {PACKAGE}.kernels import cuda_cpp\n"
        "try:\n    cuda_cpp.cuda_device_count()\n"
        "except cuda_cpp.CudaError as exc:\n    print(exc)\n"
    )
    out = run([str(built_extension.venv_python), "-c", script], cwd=built_extension.project)
    assert out.startswith(("cudaErrorInsufficientDriver", "cudaErrorNoDevice")), out


@pytest.mark.slow
def test_the_renders_extension_tests_pass_and_skip_the_gpu_ones_with_the_reason(
    built_extension: BuiltExtension,
) -> None:
    cmd = [str(built_extension.venv_python), "-m", "pytest", "-p", "no:cacheprovider", "-rs"]
    out = run([*cmd, "tests/test_kernels_cuda_cpp.py"], cwd=built_extension.project)
    assert re.search(r"\b\d+ passed", out), out
    assert "SKIPPED" in out, out
    assert "needs a CUDA GPU: no NVIDIA driver" in out, out


@pytest.mark.slow
def test_the_module_holds_sass_of_each_matrix_architecture_and_ptx_of_the_newest(
    built_extension: BuiltExtension, cuobjdump: Path
) -> None:
    listing = run(
        [str(cuobjdump), "--list-elf", "--list-ptx", str(compiled_module(built_extension))],
        cwd=built_extension.project,
    )
    sass = {int(arch) for arch in re.findall(r"\.sm_(\d+)\.cubin", listing)}
    ptx = {int(arch) for arch in re.findall(r"\.sm_(\d+)\.ptx", listing)}
    architectures = extension_of(NEWEST)["architectures"]
    assert (sass, ptx) == (set(architectures), {max(architectures)}), listing


@dataclass(frozen=True)
class KeywordBuild:
    """The extension render rebuilt with ``CUDAARCHS=all-major``, unpacked apart from its venv."""

    built: BuiltExtension
    site: Path  # the wheel alone (--no-deps): first on PYTHONPATH, over the venv's own copy

    def python(self, *args: str) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "PYTHONPATH": str(self.site)}
        cmd = [str(self.built.venv_python), *args]
        return subprocess.run(
            cmd, cwd=self.built.project, env=env, capture_output=True, text=True, check=False
        )


@pytest.fixture(scope="module")
def keyword_build(built_extension: BuiltExtension) -> KeywordBuild:
    """The same render and build folder with CMake's keyword (only axpy.cu compiles again)."""
    project = built_extension.project
    env = {**without_nvcc(dict(os.environ)), "CUDAARCHS": "all-major"}
    cmd = ["uv", "build", "--wheel", "--python", BUILD_PYTHON, "--out-dir", "dist-all-major"]
    proc = subprocess.run(cmd, cwd=project, env=env, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, f"uv build failed\n{proc.stdout}\n{proc.stderr}"
    cache = next((project / "build").rglob("CMakeCache.txt")).read_text("utf-8")
    assert "CMAKE_CUDA_ARCHITECTURES:STRING=all-major" in cache, "the keyword never reached CMake"
    wheel = next((project / "dist-all-major").glob("*.whl"))
    site = project.parent / "site-all-major"
    # For the interpreter that built it, whichever Python comes first on PATH.
    target = ["--python", BUILD_PYTHON, "--target", str(site)]
    run(["uv", "pip", "install", "--quiet", "--no-deps", *target, str(wheel)], cwd=project)
    return KeywordBuild(built_extension, site)


@pytest.mark.slow
def test_a_keyword_build_records_the_architectures_nvcc_compiled(
    keyword_build: KeywordBuild, cuobjdump: Path
) -> None:
    script = (
        f"from {PACKAGE}.kernels import cuda_cpp, _cuda_cpp\n"
        "print(_cuda_cpp.CUDA_ARCHITECTURES)\n"
        "print(*cuda_cpp.compiled_architectures())\n"
        "print(*cuda_cpp.ptx_architectures())\n"
    )
    proc = keyword_build.python("-c", script)
    assert proc.returncode == 0, proc.stderr
    recorded, sass, ptx = proc.stdout.splitlines()
    assert "all-major" not in recorded, recorded  # CMake's resolved list, not the keyword
    module = next(keyword_build.site.rglob(f"{PACKAGE}/kernels/_cuda_cpp*.so"))
    listing = run([str(cuobjdump), "--list-elf", "--list-ptx", str(module)], cwd=module.parent)
    compiled = sorted({int(arch) for arch in re.findall(r"\.sm_(\d+)\.cubin", listing)})
    compiled_ptx = sorted({int(arch) for arch in re.findall(r"\.sm_(\d+)\.ptx", listing)})
    assert ([int(a) for a in sass.split()], [int(a) for a in ptx.split()]) == (
        compiled,
        compiled_ptx,
    ), listing


@pytest.mark.slow
def test_the_doctor_reports_a_keyword_build_instead_of_crashing(
    keyword_build: KeywordBuild,
) -> None:
    proc = keyword_build.python("-m", f"{PACKAGE}.doctor", "--json")
    assert proc.returncode in {0, 1}, proc.stdout + proc.stderr  # 2: the doctor's own bug
    report = json.loads(proc.stdout)
    assert report["extension_error"] is None
    assert report["compiled_architectures"], report


@pytest.mark.slow
def test_cibuildwheel_and_scikit_build_accept_the_settings_and_list_each_build(
    render: Render, tmp_path: Path
) -> None:
    project = render(
        {"extension": "cuda-cpp", "python_min": BUILD_PYTHON}, name="extension-cibuildwheel"
    )
    venv = tmp_path / "venv"
    python = str(venv / "bin" / "python")
    run(["uv", "venv", "--quiet", "--python", BUILD_PYTHON, str(venv)], cwd=tmp_path)
    tools = [
        f"cibuildwheel=={PINS['extension_tools']['cibuildwheel']}",
        *[req for req in PINS["extension_build"] if req.startswith("scikit-build-core")],
        f"validate-pyproject[all]=={PINS['tools']['validate-pyproject']}",
    ]
    run(["uv", "pip", "install", "--quiet", "--python", python, *tools], cwd=tmp_path)
    # validate-pyproject loads the schemas cibuildwheel and scikit-build-core install beside it.
    out = run([python, "-m", "validate_pyproject", "pyproject.toml"], cwd=project)
    assert "Valid file" in out
    cmd = [python, "-m", "cibuildwheel", "--print-build-identifiers", "--platform", "linux"]
    listed = run([*cmd, "--archs", "x86_64,aarch64", "."], cwd=project).split()
    pythons = yaml.safe_load((project / ".copier-answers.yml").read_text("utf-8"))["python_min"]
    versions = python_support().versions
    supported = versions[versions.index(pythons) :]
    expected = [
        f"cp{py.replace('.', '')}-manylinux_{arch}"
        for arch in ("x86_64", "aarch64")
        for py in supported
    ]
    assert listed == expected


@pytest.mark.slow
def test_a_build_refuses_an_nvcc_of_another_major_with_advice(render: Render) -> None:
    """The oldest major's render, built with the newest major's nvcc from the toolkit wheels."""
    other = MAJORS[0]
    if other == NEWEST:
        pytest.skip("the matrix has one major")
    answers = {"extension": "cuda-cpp", "cuda_majors": [other], "python_min": BUILD_PYTHON}
    project = render(answers, name="extension-mismatch")
    tools = project.parent / "nvcc"
    requirement = f"cuda-toolkit[nvcc]=={NEWEST}.*"
    run(["uv", "pip", "install", "--quiet", "--target", str(tools), requirement], cwd=project)
    nvcc = next(tools.rglob("bin/nvcc"))
    proc = uv_build(project, {**without_nvcc(dict(os.environ)), "CUDACXX": str(nvcc)})
    assert proc.returncode != 0
    said = " ".join((proc.stdout + proc.stderr).split())
    assert f"but this project is built for CUDA {other}" in said, said
    assert f"Point CUDACXX at a CUDA {other} nvcc" in said, said


@pytest.mark.slow
def test_a_build_without_any_nvcc_stops_with_what_to_install(render: Render) -> None:
    """A major whose toolkit wheels carry no nvcc, built with none on PATH (CMake does not look
    in /usr/local/cuda by itself: this machine has one there)."""
    without = [major for major in MAJORS if not extension_of(major)["build_requirements"]]
    if not without:
        pytest.skip("every major's toolkit wheels carry nvcc")
    major = without[0]
    answers = {"extension": "cuda-cpp", "cuda_majors": [major], "python_min": BUILD_PYTHON}
    project = render(answers, name="extension-no-nvcc")
    proc = uv_build(project, without_nvcc(dict(os.environ)))
    assert proc.returncode != 0
    said = " ".join((proc.stdout + proc.stderr).split())
    assert "No CUDA compiler: nvcc is neither in the build environment nor on PATH" in said, said
    assert f"install a CUDA {major} toolkit (nvcc)" in said, said
