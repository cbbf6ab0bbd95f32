"""What the images install from the system and where CI runs, for what the options need.

Numba's parallel CPU kernels need libgomp in the GPU image; the compiled extension needs a C++
compiler (and, for a major whose toolkit wheels carry no nvcc, NVIDIA's apt nvcc) wherever
`uv sync` builds it, the dev container included; and its tests run where nvcc can build it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import MAJORS, OLDEST_MAJOR, Render, run, tool
from template_data import load_computed

MATRIX = load_computed("cuda_matrix")
RENDERS: dict[str, dict[str, Any]] = {
    "numba-and-extension": {
        "gpu_libraries": ["cupy", "numba"],
        "extension": "cuda-cpp",
        "devcontainer": True,
    },
    "extension-on-the-oldest-major": {
        "gpu_libraries": ["cupy"],
        "extension": "cuda-cpp",
        "devcontainer": True,
        "cuda_majors": [OLDEST_MAJOR],
    },
    "cupy-alone": {"gpu_libraries": ["cupy"], "devcontainer": True},
}


@pytest.fixture(scope="module", params=sorted(RENDERS))
def rendered(request: pytest.FixtureRequest, render: Render) -> tuple[dict[str, Any], Path]:
    answers = RENDERS[request.param]
    return answers, render(answers, name=f"system-{request.param}")


def apt_packages(dockerfile: str) -> list[str]:
    """The packages of every ``apt-get install`` line."""
    marker = "apt-get install -y --no-install-recommends "
    return [
        package
        for line in dockerfile.splitlines()
        if marker in line
        for package in line.split(marker, 1)[1].rstrip("\\ ").split()
    ]


def test_the_gpu_image_has_libgomp_where_numba_runs_its_cpu_kernels(
    rendered: tuple[dict[str, Any], Path],
) -> None:
    answers, project = rendered
    final_stage = (
        (project / "Dockerfile").read_text("utf-8").split("\nFROM cuda${CUDA_MAJOR}-base\n")
    )
    assert len(final_stage) == 2
    assert ("libgomp1" in apt_packages(final_stage[1])) == ("numba" in answers["gpu_libraries"])


def test_the_dev_container_has_what_uv_sync_builds_the_extension_with(
    rendered: tuple[dict[str, Any], Path],
) -> None:
    answers, project = rendered
    dockerfile = (project / ".devcontainer" / "Dockerfile").read_text("utf-8")
    newest = max(answers.get("cuda_majors", MAJORS))
    facts = MATRIX["majors"][str(newest)]["extension"]
    packages = apt_packages(dockerfile)
    if answers.get("extension") == "cuda-cpp":
        assert {"g++", *facts["docker_toolkit"]} <= set(packages)
        assert ("ENV CUDACXX=" in dockerfile) == bool(facts["docker_nvcc"])
    else:
        assert "g++" not in packages
    assert ("libgomp1" in packages) == ("numba" in answers["gpu_libraries"])


def test_both_images_pass_hadolint(rendered: tuple[dict[str, Any], Path]) -> None:
    _, project = rendered
    for dockerfile in ("Dockerfile", ".devcontainer/Dockerfile"):
        run([tool("hadolint"), "--failure-threshold", "style", dockerfile], cwd=project)


def test_the_extensions_tests_run_on_linux_alone(rendered: tuple[dict[str, Any], Path]) -> None:
    answers, project = rendered
    workflow = yaml.safe_load((project / ".github/workflows/ci.yml").read_text("utf-8"))
    systems = workflow["jobs"]["tests"]["strategy"]["matrix"]["os"]
    if answers.get("extension") == "cuda-cpp":
        assert systems == ["ubuntu-latest"]
    else:
        assert systems == ["ubuntu-latest", "macos-latest", "windows-latest"]


NVCC_STEP = "Install nvcc from NVIDIA's apt repository"


def ci_jobs(project: Path) -> dict[str, Any]:
    workflow = yaml.safe_load((project / ".github/workflows/ci.yml").read_text("utf-8"))
    jobs: dict[str, Any] = workflow["jobs"]
    return jobs


def needs_apt_nvcc(answers: dict[str, Any]) -> bool:
    """The extension on a newest major whose toolkit wheels carry no nvcc (CUDA 12's)."""
    newest = max(answers.get("cuda_majors", MAJORS))
    facts = MATRIX["majors"][str(newest)]["extension"]
    return answers.get("extension") == "cuda-cpp" and not facts["build_requirements"]


def test_every_ci_job_installs_nvcc_before_nox_where_the_toolkit_wheels_carry_none(
    rendered: tuple[dict[str, Any], Path],
) -> None:
    # Every job installs the project, which builds the extension: without nvcc each fails.
    answers, project = rendered
    for name, job in ci_jobs(project).items():
        names = [step.get("name") for step in job["steps"]]
        nox = next(i for i, step in enumerate(job["steps"]) if "nox" in step.get("run", ""))
        if needs_apt_nvcc(answers):
            assert NVCC_STEP in names[:nox], name
        else:
            assert NVCC_STEP not in names, name


# Where the step is rendered: GitHub CI's jobs, GitHub's hosted GPU job, GitLab CI's `.nox` (which
# every CPU job extends; GitLab's jobs run as root, and an exported variable reaches the next line).
ON_CUDA12 = RENDERS["extension-on-the-oldest-major"]
NVCC_RENDERS: dict[str, tuple[dict[str, Any], str]] = {
    "github-ci": (ON_CUDA12, ".github/workflows/ci.yml"),
    "github-hosted-gpu": ({**ON_CUDA12, "gpu_ci": "github-hosted"}, ".github/workflows/gpu.yml"),
    "gitlab-ci": ({**ON_CUDA12, "ci": "gitlab"}, ".gitlab-ci.yml"),
}


@pytest.fixture(scope="module", params=sorted(NVCC_RENDERS))
def nvcc_render(request: pytest.FixtureRequest, render: Render) -> tuple[Path, str, str]:
    """(project, CI file, the shell that installs nvcc there) for each place the step goes."""
    answers, path = NVCC_RENDERS[request.param]
    assert needs_apt_nvcc(answers)
    project = render(answers, name=f"system-nvcc-{request.param}")
    data = yaml.safe_load((project / path).read_text("utf-8"))
    if path == ".gitlab-ci.yml":
        scripts = data[".nox"]["script"]
        (script,) = [item for item in scripts if "apt-get install" in item]
        assert scripts.index(script) < next(i for i, s in enumerate(scripts) if "nox@" in s)
    else:
        (script,) = [
            step["run"]
            for job in data["jobs"].values()
            for step in job["steps"]
            if step.get("name") == NVCC_STEP
        ][:1]
    return project, path, script


def test_the_nvcc_step_installs_the_matrix_packages_and_points_cmake_at_that_nvcc(
    nvcc_render: tuple[Path, str, str], tmp_path: Path
) -> None:
    # The step runs here with sudo, curl, dpkg and apt-get replaced by recorders: the URL it
    # fetches (for this machine's distribution, as a runner computes its own), the packages, the
    # order, and the CUDACXX the later steps get (GITHUB_ENV, or GitLab's exported variable).
    project, path, script = nvcc_render
    facts = MATRIX["majors"][str(OLDEST_MAJOR)]["extension"]
    bin_dir, log, env_file = tmp_path / "bin", tmp_path / "calls", tmp_path / "github-env"
    bin_dir.mkdir()
    for command in ("curl", "dpkg", "apt-get"):
        (bin_dir / command).write_text(f'#!/bin/sh\necho "{command} $*" >> "{log}"\n')
    (bin_dir / "sudo").write_text('#!/bin/sh\nexec "$@"\n')
    for stub in bin_dir.iterdir():
        stub.chmod(0o755)
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "RUNNER_TEMP": str(tmp_path)}
    env["GITHUB_ENV"] = str(env_file)
    gitlab = path == ".gitlab-ci.yml"
    if gitlab:
        script += f'\necho "CUDACXX=$CUDACXX" > "{env_file}"'
    run(["sh", "-e", "-c", script], cwd=project, env=env)
    release = dict(
        line.split("=", 1) for line in Path("/etc/os-release").read_text().split() if "=" in line
    )
    distro = release["ID"].strip('"') + release["VERSION_ID"].strip('"').replace(".", "")
    keyring = f"{'/tmp' if gitlab else tmp_path}/cuda-keyring.deb"
    assert log.read_text().splitlines() == [
        f"curl -fsSL --retry 3 -o {keyring} https://developer.download.nvidia.com/compute/cuda/"
        f"repos/{distro}/x86_64/{MATRIX['apt_keyring']}",
        f"dpkg -i {keyring}",
        "apt-get update -q",
        "apt-get install -y --no-install-recommends " + " ".join(facts["docker_toolkit"]),
    ]
    assert env_file.read_text() == f"CUDACXX={facts['docker_nvcc']}\n"


def test_the_ci_file_with_the_nvcc_step_passes_shellcheck_its_schema_and_zizmor(
    nvcc_render: tuple[Path, str, str], tmp_path: Path
) -> None:
    project, path, script = nvcc_render
    gitlab = path == ".gitlab-ci.yml"
    (tmp_path / "nvcc.sh").write_text(script)
    # SC1091 says only that shellcheck does not read /etc/os-release, the runner's file.
    shell = "--shell=sh" if gitlab else "--shell=bash"
    shellcheck = [tool("shellcheck"), shell, "--severity=style", "--exclude=SC1091"]
    run([*shellcheck, str(tmp_path / "nvcc.sh")], cwd=project)
    schema = "vendor.gitlab-ci" if gitlab else "vendor.github-workflows"
    run([tool("check-jsonschema"), "--builtin-schema", schema, path], cwd=project)
    if not gitlab:
        out = run([tool("zizmor"), "--offline", "--min-severity", "low", ".github"], cwd=project)
        assert "No findings to report" in out
