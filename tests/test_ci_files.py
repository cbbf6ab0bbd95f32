"""Rendered CI, Docker and compose files: schemas, security audit, Dockerfile lint, matrix facts.

No container engine or CI service runs here, so nothing is built or triggered: these are the
checks that can run offline. How a user verifies the image itself is in the generated README.
"""

from __future__ import annotations

import ast
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
    committed,
    copy_template,
    git,
    run,
    snapshot_working_tree,
    tool,
    update_project,
)
from template_data import load_computed, python_support
from test_sessions import RecordingSession, SessionSkipped, load_noxfile

MATRIX = load_computed("cuda_matrix")
PINS = load_computed("pins")


@pytest.fixture(scope="module")
def github(render: Render) -> Path:
    answers = {
        "ci": "github",
        "gpu_libraries": ["cupy", "numba", "jax"],
        "docs": "sphinx",
        "template_updates": True,
    }
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


@pytest.mark.parametrize("name", ["github", "hosted", "gitlab"])
def test_the_files_the_lint_session_checks_match_their_schemas_and_workflows_a_time_cap(
    request: pytest.FixtureRequest, name: str
) -> None:
    # The lint session's own list: every workflow, Dependabot, compose, Read the Docs, GitLab.
    project: Path = request.getfixturevalue(name)
    checked = 0
    for pattern, schema in rendered_noxfile(project).SCHEMAS.items():
        checks = [schema, *["custom.github-workflows-require-timeout"] * ("workflows" in pattern)]
        for path in sorted(str(p.relative_to(project)) for p in project.glob(pattern)):
            for check in checks:
                run([tool("check-jsonschema"), "--builtin-schema", check, path], cwd=project)
                checked += 1
    assert checked == {"github": 11, "hosted": 9, "gitlab": 3}[name]


@pytest.mark.parametrize("name", ["github", "hosted"])
def test_zizmor_finds_nothing_in_the_workflows(request: pytest.FixtureRequest, name: str) -> None:
    project: Path = request.getfixturevalue(name)
    out = run([tool("zizmor"), "--offline", "--min-severity", "low", ".github"], cwd=project)
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
    ("template-update.yml", "publish"): {
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


def template_update_jobs(project: Path) -> dict[str, Any]:
    path = project / ".github/workflows/template-update.yml"
    jobs: dict[str, Any] = yaml.safe_load(path.read_text("utf-8"))["jobs"]
    return jobs


def test_the_update_job_runs_the_session_then_lint_and_tests_on_the_lock_and_hands_on_its_report(
    github: Path,
) -> None:
    # It runs the new release's noxfile and tests, with read access alone (the test above).
    workflow = yaml.safe_load((github / ".github/workflows/template-update.yml").read_text("utf-8"))
    assert set(workflow[True]) == {"schedule", "workflow_dispatch"}  # YAML 1.1 reads `on` as true
    steps = workflow["jobs"]["update"]["steps"]
    (update,) = [step for step in steps if "-s template_update" in step.get("run", "")]
    assert f"uvx nox@{PINS['tools']['nox']} -s template_update" in update["run"]
    (checks,) = [step["run"] for step in steps if step.get("id") == "checks"]
    export = checks.index("uv export --frozen")
    assert export < checks.index("export LOCK_CONSTRAINTS=") < checks.index("uvx nox")
    assert f"uvx nox@{PINS['tools']['nox']} -s lint" in checks
    # The report travels to the publish job, which reads it from the artifact.
    (upload,) = [step for step in steps if "upload-artifact" in step.get("uses", "")]
    assert update["env"]["TEMPLATE_UPDATE_REPORT"] in upload["with"]["path"].splitlines()
    publish = workflow["jobs"]["publish"]["steps"][-1]
    assert 'report="${DIR}/report.json"' in publish["run"]
    assert publish["env"]["DIR"] == "${{ runner.temp }}/template-update"


def test_the_job_that_writes_runs_none_of_the_updates_code(github: Path) -> None:
    publish = template_update_jobs(github)["publish"]
    assert publish["needs"] == "update"
    checkout, download, script = publish["steps"]
    # main's own files, never the update's branch, and no token left in .git for a later step
    assert checkout["uses"].startswith("actions/checkout@")
    assert checkout["with"] == {"persist-credentials": False}
    assert download["uses"].startswith("actions/download-artifact@")
    # The update arrives as data (a git bundle and a JSON report): the script runs git, gh and
    # jq, and nothing the update could have changed.
    lines = [line.strip() for line in script["run"].replace("\\\n", " ").splitlines()]
    commands = {
        line.split()[0]
        for line in lines
        if line and not line.startswith("#") and not re.match(r"\w+=|[\w*|]+\)", line)
    }
    assert commands <= {"[[", "case", "if", "fi", "esac", "exit", "echo", "git", "gh", "export"}
    assert 'git fetch --quiet "${DIR}/update.bundle" HEAD' in script["run"]


def test_the_report_names_no_branch_but_one_of_the_updates_own(github: Path) -> None:
    # The report is written by the release's code: a name like `main` must not reach git push.
    script = template_update_jobs(github)["publish"]["steps"][-1]["run"]
    check = script.index('[[ "$version" =~ ^[0-9][0-9A-Za-z.+-]*$ ]] || {')
    assert check < script.index('branch="template-update/v${version}"') < script.index("git push")


def test_an_update_that_changes_a_workflow_is_pushed_with_the_token_secret_or_told_in_an_issue(
    github: Path,
) -> None:
    # GitHub refuses the job's own token any push that changes .github/workflows/.
    script = template_update_jobs(github)["publish"]["steps"][-1]
    assert script["env"]["PUSH_TOKEN"] == "${{ secrets.TEMPLATE_UPDATE_TOKEN }}"
    run = script["run"]
    changed = run.index("git diff --name-only HEAD FETCH_HEAD -- .github/workflows")
    pushed = run.index('if [ -z "$files" ] || [ -n "$PUSH_TOKEN" ]; then')
    assert changed < pushed < run.index('export GH_TOKEN="${PUSH_TOKEN:-$GH_TOKEN}"')
    told = run.index('title="cuda-template ${version} changes workflows: take it by hand"')
    assert "TEMPLATE_UPDATE_TOKEN (.github/workflows/template-update.yml says how)" in run[told:]
    workflow = (github / ".github/workflows/template-update.yml").read_text("utf-8")
    header = " ".join(line.lstrip("# ") for line in workflow.split("\nname:")[0].splitlines())
    assert "the secret TEMPLATE_UPDATE_TOKEN holds a fine-grained personal access token" in header
    assert "Contents, Pull requests and Workflows: read and write" in header


def test_the_template_updates_scripts_pass_shellcheck(github: Path, tmp_path: Path) -> None:
    # Warnings and errors: the backquotes in the messages' single quotes are meant (SC2016).
    for name, job in template_update_jobs(github).items():
        for number, step in enumerate(s for s in job["steps"] if "run" in s):
            script = tmp_path / f"{name}-{number}.sh"
            script.write_text(step["run"], "utf-8")
            run([tool("shellcheck"), "--shell=bash", "--severity=warning", str(script)], github)


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
    assert job["variables"]["REQUIRE_GPU"] == "1"
    # Without the tag, no pipeline of any kind runs it.
    for source in ("push", "schedule", "web", "merge_request_event"):
        assert "tests_gpu" not in gitlab_jobs(gitlab, CI_PIPELINE_SOURCE=source)


def _gitlab_rule_holds(expression: str, variables: dict[str, str]) -> bool:
    """A rule's `if`, as GitLab reads the forms .gitlab-ci.yml uses: `&&` before `||`, each
    side a variable alone, or compared with `==`/`!=` to a string, `null` or a variable, or
    matched with `=~` to a /regex/. An unset variable is null."""

    def atom(text: str) -> bool:
        found = re.fullmatch(r"\$(\w+)(?:\s*(==|!=|=~)\s*(.+))?", text.strip())
        assert found, f"a form this reader does not know: {text!r}"
        name, op, right = found.groups()
        left = variables.get(name)
        if op is None:
            return bool(left)
        if op == "=~":
            return left is not None and re.search(right.strip("/"), left) is not None
        value = None if right == "null" else variables.get(right[1:]) if right[0] == "$" else right
        return (left == (value.strip('"') if value else value)) == (op == "==")

    return any(all(map(atom, part.split("&&"))) for part in expression.split("||"))


def gitlab_jobs(project: Path, **variables: str) -> set[str]:
    """The jobs a pipeline with these variables runs: each job's first rule that holds."""
    config = yaml.safe_load((project / ".gitlab-ci.yml").read_text("utf-8"))
    ran: set[str] = set()
    for name, job in config.items():
        if name in {"workflow", "default", "variables"} or name.startswith("."):
            continue
        rules = job.get("rules", config.get(job.get("extends", ""), {}).get("rules", []))
        decided = next(
            (r for r in rules if "if" not in r or _gitlab_rule_holds(r["if"], variables)), None
        )
        if (decided is not None or not rules) and (decided or {}).get("when") != "never":
            ran.add(name)
    return ran


def test_gitlabs_template_update_schedule_runs_its_job_alone(gitlab: Path) -> None:
    # Its schedule exists to open an update; the GPU jobs and the checks are the other
    # schedule's, and would otherwise bill a GPU runner every week twice.
    update = {"CI_PIPELINE_SOURCE": "schedule", "TEMPLATE_UPDATE": "1", "GPU_RUNNER_TAG": "gpu"}
    assert gitlab_jobs(gitlab, **update) == {"template_update"}


def test_gitlabs_other_schedule_runs_the_checks_and_the_gpu_job_not_the_update(
    gitlab: Path,
) -> None:
    ran = gitlab_jobs(gitlab, CI_PIPELINE_SOURCE="schedule", GPU_RUNNER_TAG="gpu")
    assert {"lint", "tests", "tests_gpu", "build"} <= ran
    assert not {"template_update", "publish"} & ran


def test_gitlab_gpu_job_runs_a_merge_request_only_with_the_label_and_never_from_a_fork(
    gitlab: Path,
) -> None:
    request = {"CI_PIPELINE_SOURCE": "merge_request_event", "GPU_RUNNER_TAG": "gpu"}
    ours = {"CI_PROJECT_PATH": "org/p", "CI_MERGE_REQUEST_SOURCE_PROJECT_PATH": "org/p"}
    fork = {**ours, "CI_MERGE_REQUEST_SOURCE_PROJECT_PATH": "someone/p"}
    for labels, source, runs in [
        ("bug,gpu-ci", ours, True),
        ("gpu-ci", fork, False),
        ("bug,gpu-cix", ours, False),
        ("", ours, False),
    ]:
        ran = gitlab_jobs(gitlab, **request, **source, CI_MERGE_REQUEST_LABELS=labels)
        assert ("tests_gpu" in ran) is runs, (labels, source)


def test_gitlab_gpu_job_runs_the_gpu_sessions_with_its_majors_extra_and_keeps_the_figures(
    gitlab: Path,
) -> None:
    job = yaml.safe_load((gitlab / ".gitlab-ci.yml").read_text("utf-8"))["tests_gpu"]
    export, tests, bench = job["script"]
    assert 'uv export --locked --extra "cuda$CUDA_MAJOR"' in export
    assert tests == f"uvx nox@{PINS['tools']['nox']} -s tests_gpu"
    assert f'uvx nox@{PINS["tools"]["nox"]} -s bench > "bench-cuda$CUDA_MAJOR.txt"' in bench
    assert job["artifacts"]["paths"] == ["bench-cuda*.txt"]


def test_hosted_gpu_job_runs_by_hand_weekly_and_when_a_label_is_added(hosted: Path) -> None:
    workflow = yaml.safe_load((hosted / ".github/workflows/gpu.yml").read_text("utf-8"))
    assert set(workflow[True]) == {"workflow_dispatch", "schedule", "pull_request"}
    # Neither a push to a labelled pull request nor a merge bills a run.
    assert workflow[True]["pull_request"]["types"] == ["labeled"]


def test_hosted_gpu_job_runs_on_a_pull_request_only_as_gpu_ci_itself_is_added(
    hosted: Path,
) -> None:
    condition = " ".join(gpu_job(hosted)["if"].split())
    assert condition.startswith("${{ vars.GPU_RUNNER_LABEL != '' && !github.event.repository.fork")
    assert "github.event.label.name == 'gpu-ci'" in condition
    assert "labels.*.name" not in condition  # carrying the label is not adding it
    assert "github.event.pull_request.head.repo.full_name == github.repository" in condition


def test_hosted_gpu_job_is_capped_in_time_and_cancels_superseded_runs_of_its_label(
    hosted: Path,
) -> None:
    workflow = yaml.safe_load((hosted / ".github/workflows/gpu.yml").read_text("utf-8"))
    assert gpu_job(hosted)["timeout-minutes"] <= 60
    assert workflow["concurrency"]["cancel-in-progress"] is True
    assert "github.event.pull_request.number" in workflow["concurrency"]["group"]
    # A run whose job is skipped would still cancel a running one in its group: another label's
    # runs have a group of their own.
    assert workflow["concurrency"]["group"].endswith("-${{ github.event.label.name }}")


def test_readme_states_the_hosted_jobs_time_cap_and_its_cost(hosted: Path) -> None:
    minutes = gpu_job(hosted)["timeout-minutes"]
    majors = len(gpu_job(hosted)["strategy"]["matrix"]["cuda"])
    readme = " ".join((hosted / "README.md").read_text("utf-8").split())
    assert f"Each job stops after {minutes} minutes" in readme
    assert f"costs at most ${minutes * 0.05 * majors:.2f} ({majors} jobs)" in readme
    # The workflow runs on a pull request only as the label is added: the README says so.
    assert "to test its new commits, remove `gpu-ci` and add it again" in readme


def test_readme_describes_the_hosted_gpu_as_the_matrix_does(hosted: Path) -> None:
    gpu = MATRIX["hosted_gpu"]
    readme = " ".join((hosted / "README.md").read_text("utf-8").split())
    facts = f"{gpu['name']}: {gpu['memory_gb']} GB, compute capability {gpu['compute_capability']}"
    assert f"(one {facts}, which every major supports)" in readme


def test_readme_names_the_majors_whose_oldest_gpu_is_newer_than_the_hosted_one(
    tmp_path: Path,
) -> None:
    # A major that raises the GPU floor above the hosted runner's, as an older runner GPU shows.
    template = snapshot_working_tree(tmp_path / "template")
    matrix_file = template / "includes" / "cuda-matrix.yml"
    data = yaml.safe_load(matrix_file.read_text("utf-8"))
    data["cuda_matrix"]["default"]["hosted_gpu"]["compute_capability"] = "7.0"
    matrix_file.write_text(yaml.safe_dump(data, sort_keys=False), "utf-8")
    git("commit", "-q", "-am", "an older hosted GPU", cwd=template)
    project = copy_template(template, tmp_path / "project", HOSTED, "HEAD")
    readme = " ".join((project / "README.md").read_text("utf-8").split())
    floors = {
        m: tuple(map(int, e["min_compute_capability"].split(".")))
        for m, e in MATRIX["majors"].items()
    }
    above = [m for m, floor in sorted(floors.items()) if floor > (7, 0)]
    assert above  # CUDA 13's floor is 7.5
    assert f"compute capability 7.0, below the oldest GPU of CUDA {' and '.join(above)}," in readme


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


def test_hosted_gpu_job_uploads_each_majors_figures_only_where_the_benchmarks_wrote_them(
    hosted: Path,
) -> None:
    (upload,) = [s for s in gpu_job(hosted)["steps"] if "upload-artifact" in s.get("uses", "")]
    assert upload["uses"] == PINS["actions"]["upload-artifact"].split(" #")[0]
    assert upload["with"]["name"] == "bench-cuda${{ matrix.cuda }}"
    assert upload["with"]["path"] == "bench-cuda*.txt"
    # A failed tests_gpu skips the benchmarks: the upload must not fail a second step.
    assert upload["if"] == "${{ !cancelled() && hashFiles('bench-cuda*.txt') != '' }}"


def rendered_noxfile(project: Path) -> Any:
    """The render's noxfile, on a runner whose nvidia-smi lists a GPU of an unknown driver."""
    noxfile = load_noxfile(project, f"noxfile_{project.name}")
    noxfile._nvidia_smi = lambda: (None, ())
    return noxfile


@pytest.fixture(scope="module")
def hosted_noxfile(hosted: Path) -> Any:
    return rendered_noxfile(hosted)


def test_hosted_gpu_job_of_each_major_installs_that_majors_extra_probes_and_tests(
    hosted: Path, hosted_noxfile: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    job = gpu_job(hosted)
    assert job["strategy"]["matrix"]["cuda"] == sorted(MATRIX["majors"])
    assert job["env"] == {"REQUIRE_GPU": "1", "CUDA_MAJOR": "${{ matrix.cuda }}"}
    noxfile = hosted_noxfile
    monkeypatch.chdir(hosted)
    for major in job["strategy"]["matrix"]["cuda"]:
        monkeypatch.setenv("CUDA_MAJOR", major)  # what the job's env sets for this major
        tests, bench = RecordingSession(), RecordingSession()
        noxfile.tests_gpu(tests)
        noxfile.bench(bench)
        assert tests.calls[:2] == [
            ("install", f".[cuda{major}]", "--group", "test"),
            ("run", "python", "-m", "my_gpu_project.doctor", "--probe"),
        ]
        assert [call[:2] for call in tests.calls[2:]] == [("run", "pytest")] * 2
        assert bench.calls[0] == ("install", f".[cuda{major}]")


@pytest.mark.parametrize("major", sorted(MATRIX["majors"]))
def test_a_gpu_leg_whose_driver_is_too_old_for_its_major_is_skipped_with_a_notice(
    hosted: Path,
    hosted_noxfile: Any,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    major: str,
) -> None:
    # One runner serves every major's leg: a driver below one major's floor is the runner's age,
    # not a failure of the project, and must not turn the weekly run red.
    floor = MATRIX["majors"][major]["min_driver_linux"]
    older = (int(floor.split(".")[0]) - 1, 0)
    noxfile = hosted_noxfile
    # what nvidia-smi would report on such a runner (the real query needs a GPU)
    monkeypatch.setattr(noxfile, "_nvidia_smi", lambda: (None, older))
    monkeypatch.chdir(hosted)
    monkeypatch.setenv("CUDA_MAJOR", major)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    for session in (noxfile.tests_gpu, noxfile.bench):
        recorder = RecordingSession()
        with pytest.raises(
            SessionSkipped, match=rf"CUDA {major} needs driver >= {floor}; this host has"
        ):
            session(recorder)
        assert [call for call in recorder.calls if call[0] == "install"] == []
        notice = capsys.readouterr().out
        assert notice.startswith(f"::notice title=CUDA {major} skipped::CUDA {major} needs driver")


def test_a_gpu_leg_whose_driver_is_new_enough_runs(
    hosted: Path, hosted_noxfile: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    newest = max(MATRIX["majors"], key=int)
    floor = tuple(map(int, MATRIX["majors"][newest]["min_driver_linux"].split(".")))
    noxfile = hosted_noxfile
    monkeypatch.setattr(noxfile, "_nvidia_smi", lambda: (None, floor))  # the newest floor
    monkeypatch.chdir(hosted)
    for major in sorted(MATRIX["majors"]):
        monkeypatch.setenv("CUDA_MAJOR", major)
        recorder = RecordingSession()
        noxfile.tests_gpu(recorder)
        assert recorder.calls[0] == ("install", f".[cuda{major}]", "--group", "test")


def test_a_project_from_before_the_question_keeps_its_self_hosted_job_on_update(
    render: Render,
) -> None:
    project = render({"gpu_libraries": ["cupy", "numba"]}, name="before-gpu-ci")
    before = (project / ".github/workflows/gpu.yml").read_text("utf-8")
    answers_file = project / ".copier-answers.yml"
    recorded = yaml.safe_load(answers_file.read_text("utf-8"))
    assert recorded.pop("gpu_ci") == "self-hosted"
    answers_file.write_text(yaml.safe_dump(recorded), "utf-8")  # as a project from before it
    committed(project)
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


def test_the_image_caches_kernels_in_tmp_for_a_read_only_root(render: Render) -> None:
    # `docker run --read-only --tmpfs /tmp`: a tmpfs at /tmp is all a read-only root can write.
    dockerfile = (render({}, name="docker-read-only") / "Dockerfile").read_text("utf-8")
    assert "--read-only --tmpfs /tmp " in dockerfile
    (line,) = [line for line in dockerfile.splitlines() if line.startswith("ENV NUMBA_CACHE_DIR")]
    assert re.fullmatch(r"ENV NUMBA_CACHE_DIR=/tmp/\S+ CUPY_CACHE_DIR=/tmp/\S+", line)


def test_dockerignore_keeps_the_build_context_small(render: Render) -> None:
    ignored = (render({}, name="dockerignore") / ".dockerignore").read_text("utf-8").split()
    assert {".git", ".venv", ".nox", "dist"} <= set(ignored)


# --- what the hosted runner's Tesla T4 needs, checked without one ---------------------------------

T4 = int(MATRIX["hosted_gpu"]["compute_capability"].replace(".", ""))  # 75, as nvcc numbers it
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
    source = (REPO_ROOT / "template" / "tests" / "numba_ptx.py.jinja").read_text("utf-8")
    assert re.search(r"^PTX_CC = \(7, 5\)", source, flags=re.MULTILINE)
