"""Rendered CI, Docker and compose files: schemas, security audit, Dockerfile lint, matrix facts.

No container engine or CI service runs here, so nothing is built or triggered: these are the
checks that can run offline. How a user verifies the image itself is in the generated README.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import (
    REPO_ROOT,
    WORKING_TREE_TAG,
    Render,
    copy_template,
    git,
    run,
    tool,
    update_project,
)
from template_data import load_computed, python_support

MATRIX = load_computed("cuda_matrix")
PINS = load_computed("pins")


@pytest.fixture(scope="module")
def github(render: Render) -> Path:
    answers = {"ci": "github", "gpu_libraries": ["cupy", "numba", "jax"], "docs": "sphinx"}
    return render(answers, name="ci-github")


@pytest.fixture(scope="module")
def gitlab(render: Render) -> Path:
    return render({"ci": "gitlab", "cuda_majors": [12]}, name="ci-gitlab")


# Every major of the matrix (the default), so that the job of each is checked.
# With the benchmarks: the job runs `nox -s bench` and keeps its figures.
HOSTED = {
    "ci": "github",
    "gpu_ci": "github-hosted",
    "gpu_libraries": ["cupy", "numba"],
    "benchmarks": True,
}


@pytest.fixture(scope="module")
def hosted(render: Render) -> Path:
    return render(HOSTED, name="ci-github-hosted")


def gpu_job(project: Path) -> dict[str, Any]:
    workflow: dict[str, Any] = yaml.safe_load((project / ".github/workflows/gpu.yml").read_text())
    job: dict[str, Any] = workflow["jobs"]["tests_gpu"]
    return job


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


@pytest.mark.parametrize(
    "schema", ["vendor.github-workflows", "custom.github-workflows-require-timeout"]
)
def test_hosted_gpu_workflow_matches_its_schemas(hosted: Path, schema: str) -> None:
    run([tool("check-jsonschema"), "--builtin-schema", schema, ".github/workflows/gpu.yml"], hosted)


def test_zizmor_finds_nothing_in_the_hosted_gpu_workflow(hosted: Path) -> None:
    out = run([tool("zizmor"), "--offline", "--min-severity", "low", ".github"], cwd=hosted)
    assert "No findings to report" in out


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


def nox_sessions(project: Path) -> set[str]:
    """The session names the render's noxfile defines, as ``nox -s`` takes them."""
    listed = run([sys.executable, "-m", "nox", "--list", "--json"], cwd=project)
    return {session["session"] for session in json.loads(listed)}


def test_ci_tests_every_supported_python_then_the_newest_and_a_free_threaded_one(
    github: Path, gitlab: Path
) -> None:
    # Both renders take the default floor (SPEC 0's), then every supported Python up.
    floor = yaml.safe_load((github / ".copier-answers.yml").read_text("utf-8"))["python_min"]
    versions = python_support().versions
    pythons = versions[versions.index(floor) :]
    legs = [*pythons, *[py for py in MATRIX["preview_pythons"] if py not in pythons]]
    assert any(py.endswith("t") for py in legs)  # a free-threaded build
    ci = yaml.safe_load((github / ".github/workflows/ci.yml").read_text("utf-8"))
    tests = ci["jobs"]["tests"]
    assert tests["strategy"]["matrix"]["python"] == legs
    assert tests["steps"][-1]["run"] == 'uvx nox@{} -s "tests_cpu-${{MATRIX_PYTHON}}"'.format(
        PINS["tools"]["nox"]
    )
    gitlab_tests = yaml.safe_load((gitlab / ".gitlab-ci.yml").read_text("utf-8"))["tests"]
    assert gitlab_tests["parallel"]["matrix"] == [{"PYTHON": legs}]
    assert gitlab_tests["variables"]["SESSION"] == "tests_cpu-$PYTHON"
    # Each leg's session exists under the name CI gives it, in both renders.
    for project in (github, gitlab):
        assert {f"tests_cpu-{py}" for py in legs} <= nox_sessions(project)


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
    job = yaml.safe_load((gitlab / ".gitlab-ci.yml").read_text("utf-8"))["tests_gpu"]
    assert job["tags"] == ["$GPU_RUNNER_TAG"]
    assert job["rules"][0] == {
        "if": '$GPU_RUNNER_TAG == null || $GPU_RUNNER_TAG == ""',
        "when": "never",
    }
    assert job["variables"]["REQUIRE_GPU"] == "1"


def test_gitlab_gpu_job_runs_a_merge_request_only_with_the_label_and_never_from_a_fork(
    gitlab: Path,
) -> None:
    rules = yaml.safe_load((gitlab / ".gitlab-ci.yml").read_text("utf-8"))["tests_gpu"]["rules"]
    assert rules[1:] == [
        {"if": '$CI_PIPELINE_SOURCE != "merge_request_event"'},
        {
            "if": "$CI_MERGE_REQUEST_SOURCE_PROJECT_PATH == $CI_PROJECT_PATH"
            " && $CI_MERGE_REQUEST_LABELS =~ /(^|,)gpu-ci(,|$)/"
        },
    ]


def test_gitlab_gpu_job_runs_the_gpu_sessions_with_its_majors_extra_and_keeps_the_figures(
    gitlab: Path,
) -> None:
    job = yaml.safe_load((gitlab / ".gitlab-ci.yml").read_text("utf-8"))["tests_gpu"]
    export, tests, bench = job["script"]
    assert 'uv export --locked --extra "cuda$CUDA_MAJOR"' in export
    assert tests == f"uvx nox@{PINS['tools']['nox']} -s tests_gpu"
    assert f'uvx nox@{PINS["tools"]["nox"]} -s bench > "bench-cuda$CUDA_MAJOR.txt"' in bench
    assert job["artifacts"]["paths"] == ["bench-cuda*.txt"]


def test_hosted_gpu_job_runs_by_hand_weekly_and_on_labelled_pull_requests(hosted: Path) -> None:
    workflow = yaml.safe_load((hosted / ".github/workflows/gpu.yml").read_text("utf-8"))
    assert set(workflow[True]) == {"workflow_dispatch", "schedule", "pull_request"}
    assert "labeled" in workflow[True]["pull_request"]["types"]
    assert "push" not in workflow[True]  # a merge does not bill a run


def test_hosted_gpu_job_never_runs_for_a_fork_or_an_unlabelled_pull_request(hosted: Path) -> None:
    condition = " ".join(gpu_job(hosted)["if"].split())
    assert condition.startswith("${{ vars.GPU_RUNNER_LABEL != '' && !github.event.repository.fork")
    assert "contains(github.event.pull_request.labels.*.name, 'gpu-ci')" in condition
    assert "github.event.pull_request.head.repo.full_name == github.repository" in condition


def test_hosted_gpu_job_is_capped_in_time_and_cancels_superseded_runs(hosted: Path) -> None:
    workflow = yaml.safe_load((hosted / ".github/workflows/gpu.yml").read_text("utf-8"))
    assert gpu_job(hosted)["timeout-minutes"] <= 60
    assert workflow["concurrency"]["cancel-in-progress"] is True
    assert "github.event.pull_request.number" in workflow["concurrency"]["group"]


def test_readme_states_the_hosted_jobs_time_cap_and_its_cost(hosted: Path) -> None:
    minutes = gpu_job(hosted)["timeout-minutes"]
    majors = len(gpu_job(hosted)["strategy"]["matrix"]["cuda"])
    readme = " ".join((hosted / "README.md").read_text("utf-8").split())
    assert f"Each job stops after {minutes} minutes" in readme
    assert f"costs at most ${minutes * 0.05 * majors:.2f} ({majors} jobs)" in readme


def run_steps(job: dict[str, Any]) -> list[str]:
    """Each step's commands, continuation lines joined and whitespace collapsed."""
    texts = [step["run"].replace("\\\n", " ") for step in job["steps"] if "run" in step]
    return [" ".join(text.split()) for text in texts]


def test_hosted_gpu_job_runs_exactly_the_lock_export_tests_gpu_and_bench(hosted: Path) -> None:
    nox = f"uvx nox@{PINS['tools']['nox']}"
    assert run_steps(gpu_job(hosted)) == [
        'uv export --locked --extra "cuda${CUDA_MAJOR}" --all-groups --no-hashes'
        ' --no-emit-project --output-file "${RUNNER_TEMP}/uv-lock.txt"'
        ' echo "LOCK_CONSTRAINTS=${RUNNER_TEMP}/uv-lock.txt" >> "${GITHUB_ENV}"',
        f"{nox} -s tests_gpu",
        f'{nox} -s bench 2>&1 | tee "bench-cuda${{CUDA_MAJOR}}.txt"',
    ]


def test_hosted_gpu_job_uploads_the_benchmark_figures_of_each_major(hosted: Path) -> None:
    (upload,) = [s for s in gpu_job(hosted)["steps"] if "upload-artifact" in s.get("uses", "")]
    assert upload["uses"] == PINS["actions"]["upload-artifact"].split(" #")[0]
    assert upload["with"]["name"] == "bench-cuda${{ matrix.cuda }}"
    assert upload["with"]["path"] == "bench-cuda*.txt"


class Recorder:
    """Stands in for nox's session: what a session would install and run, and with what."""

    def __init__(self) -> None:
        self.posargs: list[str] = []
        self.calls: list[tuple[str, ...]] = []

    def install(self, *args: str, **kwargs: object) -> None:
        self.calls.append(("install", *args))

    def run(self, *args: str, **kwargs: object) -> None:
        self.calls.append(("run", *args))

    def log(self, message: str) -> None:
        self.calls.append(("log", message))

    def warn(self, message: str) -> None:
        self.calls.append(("warn", message))


def rendered_noxfile(project: Path) -> Any:
    spec = importlib.util.spec_from_file_location(f"noxfile_{project.name}", project / "noxfile.py")
    assert spec is not None
    assert spec.loader is not None
    noxfile: Any = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(noxfile)
    noxfile._no_gpu_reason = lambda: None  # the job's runner has a GPU
    return noxfile


def test_hosted_gpu_job_of_each_major_installs_that_majors_extra_probes_and_tests(
    hosted: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    job = gpu_job(hosted)
    assert job["strategy"]["matrix"]["cuda"] == sorted(MATRIX["majors"])
    assert job["env"] == {"REQUIRE_GPU": "1", "CUDA_MAJOR": "${{ matrix.cuda }}"}
    noxfile = rendered_noxfile(hosted)
    monkeypatch.chdir(hosted)
    for major in job["strategy"]["matrix"]["cuda"]:
        monkeypatch.setenv("CUDA_MAJOR", major)  # what the job's env sets for this major
        tests, bench = Recorder(), Recorder()
        noxfile.tests_gpu(tests)
        noxfile.bench(bench)
        assert tests.calls[:2] == [
            ("install", f".[cuda{major}]", "--group", "test"),
            ("run", "python", "-m", "my_gpu_project.doctor", "--probe"),
        ]
        assert [call[:2] for call in tests.calls[2:]] == [("run", "pytest")] * 2
        assert bench.calls[0] == ("install", f".[cuda{major}]")


def test_a_project_from_before_the_question_keeps_its_self_hosted_job_on_update(
    render: Render,
) -> None:
    project = render({"gpu_libraries": ["cupy", "numba"]}, name="before-gpu-ci")
    before = (project / ".github/workflows/gpu.yml").read_text("utf-8")
    answers_file = project / ".copier-answers.yml"
    recorded = yaml.safe_load(answers_file.read_text("utf-8"))
    assert recorded.pop("gpu_ci") == "self-hosted"
    answers_file.write_text(yaml.safe_dump(recorded), "utf-8")  # as a project from before it
    git("init", "-q", "-b", "main", cwd=project)
    git("add", "-A", cwd=project)
    git("commit", "-q", "-m", "render", cwd=project)
    update_project(project, WORKING_TREE_TAG)
    assert (project / ".github/workflows/gpu.yml").read_text("utf-8") == before
    assert yaml.safe_load(answers_file.read_text("utf-8"))["gpu_ci"] == "self-hosted"


def test_hosted_gpu_ci_on_gitlab_is_refused_with_what_to_answer(
    template_repo: Path, tmp_path: Path
) -> None:
    answers = {"ci": "gitlab", "gpu_ci": "github-hosted"}
    with pytest.raises(ValueError, match="GitHub's hosted GPU runners run GitHub Actions only"):
        copy_template(template_repo, tmp_path / "project", answers, WORKING_TREE_TAG)


def test_no_gpu_ci_renders_no_gpu_job(render: Render) -> None:
    github = render({"gpu_ci": "none"}, name="ci-no-gpu-github")
    gitlab = render({"ci": "gitlab", "gpu_ci": "none"}, name="ci-no-gpu-gitlab")
    assert not (github / ".github/workflows/gpu.yml").exists()
    assert (github / ".github/workflows/ci.yml").exists()
    assert "tests_gpu" not in yaml.safe_load((gitlab / ".gitlab-ci.yml").read_text("utf-8"))


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


# --- what the hosted runner's Tesla T4 needs, checked without one ---------------------------------

T4 = 75  # compute capability 7.5, as nvcc numbers it
PACKAGE_TEMPLATE = REPO_ROOT / "template" / "src" / "{{ package_name }}"


def doctor_rule() -> Any:
    """The doctor's own ``_runs_on`` (does code for these architectures run on this GPU?)."""
    source = (PACKAGE_TEMPLATE / "doctor" / "_extension.py").read_text("utf-8")
    (function,) = [
        node
        for node in ast.parse(source).body
        if isinstance(node, ast.FunctionDef) and node.name == "_runs_on"
    ]
    namespace: dict[str, Any] = {}
    exec(compile(ast.Module([function], []), "_extension.py", "exec"), namespace)
    return namespace["_runs_on"]


@pytest.mark.parametrize("major", sorted(MATRIX["majors"]))
def test_the_extension_of_every_major_carries_code_a_t4_runs(major: str) -> None:
    architectures = tuple(MATRIX["majors"][major]["extension"]["architectures"])
    # Machine code alone (no PTX): a T4 must not wait for the driver to compile the kernels.
    assert doctor_rule()(T4, architectures, ()), architectures


def test_the_doctor_rule_refuses_a_gpu_older_than_every_architecture() -> None:
    # a V100 under CUDA 13's list, PTX of the newest included
    assert not doctor_rule()(70, (75, 80, 90), (90,))


def test_the_numba_kernels_ptx_is_checked_for_a_t4() -> None:
    source = (PACKAGE_TEMPLATE / "kernels" / "numba_cuda.py").read_text("utf-8")
    assert re.search(r"^PTX_CC = \(7, 5\)", source, flags=re.MULTILINE)
