"""Rendered CI, Docker and compose files: schemas, security audit, Dockerfile lint, matrix facts.

No container engine or CI service runs here, so nothing is built or triggered: these are the
checks that can run offline. How a user verifies the image itself is in the generated README.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import Render, run, tool
from template_data import load_computed

MATRIX = load_computed("cuda_matrix")
PINS = load_computed("pins")


@pytest.fixture(scope="module")
def github(render: Render) -> Path:
    answers = {"ci": "github", "gpu_libraries": ["cupy", "numba", "jax"], "docs": "sphinx"}
    return render(answers, name="ci-github")


@pytest.fixture(scope="module")
def gitlab(render: Render) -> Path:
    return render({"ci": "gitlab", "cuda_majors": [12]}, name="ci-gitlab")


@pytest.mark.parametrize(
    ("schema", "path"),
    [
        ("vendor.github-workflows", ".github/workflows/ci.yml"),
        ("vendor.github-workflows", ".github/workflows/gpu.yml"),
        ("vendor.github-workflows", ".github/workflows/release.yml"),
        ("custom.github-workflows-require-timeout", ".github/workflows/release.yml"),
        ("custom.github-workflows-require-timeout", ".github/workflows/ci.yml"),
        ("custom.github-workflows-require-timeout", ".github/workflows/gpu.yml"),
        ("vendor.github-workflows", ".github/workflows/template-update.yml"),
        ("custom.github-workflows-require-timeout", ".github/workflows/template-update.yml"),
        ("vendor.dependabot", ".github/dependabot.yml"),
        ("vendor.compose-spec", "compose.yaml"),
        ("vendor.readthedocs", ".readthedocs.yaml"),
    ],
)
def test_github_render_files_match_their_schemas(github: Path, schema: str, path: str) -> None:
    run([tool("check-jsonschema"), "--builtin-schema", schema, path], cwd=github)


def test_gitlab_ci_matches_its_schema(gitlab: Path) -> None:
    run(
        [tool("check-jsonschema"), "--builtin-schema", "vendor.gitlab-ci", ".gitlab-ci.yml"], gitlab
    )


def test_zizmor_finds_nothing_in_the_workflows(github: Path) -> None:
    out = run([tool("zizmor"), "--offline", "--min-severity", "low", ".github"], cwd=github)
    assert "No findings to report" in out


def test_every_action_is_pinned_by_commit(github: Path) -> None:
    for workflow in (github / ".github" / "workflows").glob("*.yml"):
        for line in workflow.read_text("utf-8").splitlines():
            if "uses:" in line:
                ref = line.split("@", 1)[1]
                assert len(ref.split()[0]) == 40, f"{workflow.name}: {line.strip()}"
    assert PINS["actions"]["checkout"] in (github / ".github/workflows/ci.yml").read_text("utf-8")


# The one job that may hold more than read access: publishing signs with the job's identity.
# The jobs that write, and what: every other job reads the repository and nothing more.
WRITE_PERMISSIONS = {
    ("release.yml", "publish"): {"id-token": "write", "attestations": "write"},
    # pushes the update's branch, opens its pull request, or an issue naming the conflicts
    ("template-update.yml", "update"): {
        "contents": "write",
        "pull-requests": "write",
        "issues": "write",
    },
}


def test_workflows_grant_no_default_permissions(github: Path) -> None:
    for workflow in (github / ".github" / "workflows").glob("*.yml"):
        data: dict[str, Any] = yaml.safe_load(workflow.read_text("utf-8"))
        assert data["permissions"] == {}
        for name, job in data["jobs"].items():
            allowed = WRITE_PERMISSIONS.get((workflow.name, name), {"contents": "read"})
            assert job["permissions"] == allowed, f"{workflow.name}: {name}"


def test_ci_runs_the_nox_sessions_the_noxfile_defines(github: Path) -> None:
    ci = yaml.safe_load((github / ".github/workflows/ci.yml").read_text("utf-8"))
    sessions = set(ci["jobs"]["checks"]["strategy"]["matrix"]["session"])
    noxfile = (github / "noxfile.py").read_text("utf-8")
    for session in sessions | {"tests_cpu", "tests_gpu"}:
        assert f"def {session}(session" in noxfile
    assert {"lint", "typecheck", "build", "tests_sim", "docs"} <= sessions


def test_every_ci_file_runs_the_pinned_nox(github: Path, gitlab: Path) -> None:
    files = [*sorted((github / ".github/workflows").glob("*.yml")), gitlab / ".gitlab-ci.yml"]
    for path in files:
        calls = re.findall(r"uvx nox\S*", path.read_text("utf-8"))
        assert calls, path.name
        assert set(calls) == {f"uvx nox@{PINS['tools']['nox']}"}, path.name


def test_ci_installs_from_the_lock_except_on_its_weekly_run(github: Path, gitlab: Path) -> None:
    ci = yaml.safe_load((github / ".github/workflows/ci.yml").read_text("utf-8"))
    assert ci[True]["schedule"]  # PyYAML reads the key `on` as True
    for name in ("checks", "tests"):
        steps = ci["jobs"][name]["steps"]
        (export,) = [step for step in steps if "uv export --locked" in step.get("run", "")]
        assert export["if"] == "github.event_name != 'schedule'"
        assert "LOCK_CONSTRAINTS=" in export["run"]
        assert steps.index(export) < next(
            i for i, s in enumerate(steps) if "nox" in s.get("run", "")
        )
    script = yaml.safe_load((gitlab / ".gitlab-ci.yml").read_text("utf-8"))[".nox"]["script"]
    assert "uv export --locked" in script[0]
    assert 'if [ "$CI_PIPELINE_SOURCE" != schedule ]' in script[0]
    assert "export LOCK_CONSTRAINTS=" in script[0]


def test_dependabot_moves_the_lock_file_and_the_actions(github: Path) -> None:
    config = yaml.safe_load((github / ".github/dependabot.yml").read_text("utf-8"))
    ecosystems = {update["package-ecosystem"] for update in config["updates"]}
    assert ecosystems == {"github-actions", "uv"}


def test_gpu_workflow_is_opt_in_and_requires_the_gpu(github: Path) -> None:
    gpu = yaml.safe_load((github / ".github/workflows/gpu.yml").read_text("utf-8"))
    job = gpu["jobs"]["tests_gpu"]
    assert job["if"] == "${{ vars.GPU_RUNNER_LABEL != '' }}"
    assert job["runs-on"] == "${{ vars.GPU_RUNNER_LABEL }}"
    assert job["env"]["REQUIRE_GPU"] == "1"


def test_gitlab_gpu_job_is_opt_in_on_a_tagged_runner(gitlab: Path) -> None:
    ci = yaml.safe_load((gitlab / ".gitlab-ci.yml").read_text("utf-8"))
    assert ci["tests_gpu"]["rules"] == [{"if": "$GPU_RUNNER_TAG"}]
    assert ci["tests_gpu"]["variables"]["REQUIRE_GPU"] == "1"


@pytest.mark.parametrize(
    "majors", [[m] for m in sorted(MATRIX["majors"])] + [sorted(MATRIX["majors"])]
)
def test_dockerfile_passes_hadolint_and_uses_the_matrix_image(
    render: Render, majors: list[str]
) -> None:
    project = render({"cuda_majors": [int(m) for m in majors]}, name=f"docker-{'-'.join(majors)}")
    out = run([tool("hadolint"), "--failure-threshold", "style", "Dockerfile"], cwd=project)
    assert out.strip() == ""
    dockerfile = (project / "Dockerfile").read_text("utf-8")
    for major in majors:
        image = MATRIX["majors"][major]["image"]
        assert f"FROM {image} AS cuda{major}-base\n" in dockerfile
    assert dockerfile.count("FROM cuda${CUDA_MAJOR}-base") == 2  # build and run share the base
    assert "\nUSER 10001\n" in dockerfile
    assert 'CMD ["python", "-m", "my_gpu_project.doctor", "--probe"]' in dockerfile


def test_dockerignore_keeps_the_build_context_small(render: Render) -> None:
    ignored = (render({}, name="dockerignore") / ".dockerignore").read_text("utf-8").split()
    assert {".git", ".venv", ".nox", "dist"} <= set(ignored)
