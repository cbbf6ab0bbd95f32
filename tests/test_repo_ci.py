"""The template repository's own CI (.github/ at the root, not template/.github): valid, audited,
pinned to the same actions as rendered projects, and running the sessions the noxfile defines.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import gpu_renders
import pytest
import yaml
from conftest import RENDER_MATRIX, REPO_ROOT, run, tool
from lint_renders import answer_sets
from template_data import load_computed, python_support

GITHUB = REPO_ROOT / ".github"
WORKFLOWS = sorted((GITHUB / "workflows").glob("*.yml"))
CI = GITHUB / "workflows" / "ci.yml"
GPU = GITHUB / "workflows" / "gpu.yml"
PINS = load_computed("pins")


def load(path: Path) -> dict[Any, Any]:
    data: dict[Any, Any] = yaml.safe_load(path.read_text("utf-8"))
    return data


def triggers(workflow: dict[Any, Any]) -> dict[str, Any]:
    # YAML 1.1 reads a bare `on` key as the boolean True.
    found: dict[str, Any] = workflow["on"] if "on" in workflow else workflow[True]
    return found


def steps(workflow: dict[Any, Any]) -> list[dict[str, Any]]:
    return [step for job in workflow["jobs"].values() for step in job["steps"]]


def test_the_repository_has_its_own_ci_workflow() -> None:
    assert CI in WORKFLOWS


SCHEMAS = [
    *(("vendor.github-workflows", w) for w in WORKFLOWS),
    *(("custom.github-workflows-require-timeout", w) for w in WORKFLOWS),
    ("vendor.dependabot", GITHUB / "dependabot.yml"),
]


@pytest.mark.parametrize(("schema", "path"), SCHEMAS, ids=[f"{s}-{p.name}" for s, p in SCHEMAS])
def test_ci_files_match_their_schemas(schema: str, path: Path) -> None:
    run([tool("check-jsonschema"), "--builtin-schema", schema, str(path)], cwd=REPO_ROOT)


def test_zizmor_finds_nothing_in_the_repository_ci() -> None:
    out = run([tool("zizmor"), "--offline", "--min-severity", "low", ".github"], cwd=REPO_ROOT)
    assert "No findings to report" in out


def test_actions_are_the_commits_rendered_projects_pin() -> None:
    # Dependabot bumps the actions here; this keeps includes/pins.yml (what renders get) in step.
    pinned = set(PINS["actions"].values())
    for workflow in WORKFLOWS:
        for line in workflow.read_text("utf-8").splitlines():
            if "uses:" in line:
                ref = line.split("uses:", 1)[1].strip()
                assert ref in pinned, f"{workflow.name}: {ref} is not in includes/pins.yml"


def test_workflows_grant_no_default_permissions_and_jobs_only_read() -> None:
    for workflow in map(load, WORKFLOWS):
        assert workflow["permissions"] == {}
        for job in workflow["jobs"].values():
            assert job["permissions"] == {"contents": "read"}


def test_every_checkout_drops_its_credentials() -> None:
    for workflow in map(load, WORKFLOWS):
        for step in steps(workflow):
            if step.get("uses", "").startswith("actions/checkout@"):
                assert step["with"]["persist-credentials"] is False


def test_workflows_cancel_superseded_runs_by_group() -> None:
    assert load(CI)["concurrency"]["group"] == "${{ github.workflow }}-${{ github.ref }}"
    group = "${{ github.workflow }}-${{ github.event.pull_request.number || github.ref }}"
    # The label in the GPU workflow's group: another label's run (its jobs skipped) would
    # otherwise cancel a running GPU run of the same pull request.
    assert load(GPU)["concurrency"]["group"] == group + "-${{ github.event.label.name }}"
    assert load(GPU)["concurrency"]["cancel-in-progress"] is True


def test_ci_runs_on_pull_requests_main_a_weekly_schedule_and_by_hand() -> None:
    on = triggers(load(CI))
    assert on["push"] == {"branches": ["main"]}
    assert {"pull_request", "workflow_dispatch"} <= set(on)
    (cron,) = (entry["cron"] for entry in on["schedule"])
    assert re.fullmatch(r"\d+ \d+ \* \* [0-6]", cron), f"{cron} is not weekly"


def _sessions_by_event(workflow: dict[Any, Any]) -> dict[str, set[str]]:
    """The nox sessions each event runs, read from the jobs' `if` and `uvx nox -s` lines."""
    conditions = {
        None: {"pull_request", "push", "schedule"},
        "github.event_name == 'pull_request'": {"pull_request"},
        "github.event_name == 'push'": {"push"},
        "github.event_name == 'schedule' || github.event_name == 'workflow_dispatch'": {"schedule"},
    }
    ran: dict[str, set[str]] = {"pull_request": set(), "push": set(), "schedule": set()}
    for job in workflow["jobs"].values():
        sessions = {
            m for step in job["steps"] for m in re.findall(r"uvx nox -s (\w+)", step.get("run", ""))
        }
        for event in conditions[job.get("if")]:
            ran[event] |= sessions
    return ran


def test_pull_requests_run_lint_and_the_quick_tests() -> None:
    assert _sessions_by_event(load(CI))["pull_request"] == {"lint", "tests_quick"}


def test_main_runs_lint_and_the_readmes_tests() -> None:
    assert _sessions_by_event(load(CI))["push"] == {"lint", "tests"}


def test_the_schedule_runs_lint_every_test_and_mutation() -> None:
    assert _sessions_by_event(load(CI))["schedule"] == {"lint", "tests_full", "mutation"}


@pytest.mark.parametrize("job", ["tests", "tests_full"])
def test_the_tiers_that_update_check_out_the_history_the_update_tests_render(job: str) -> None:
    # A shallow checkout would skip every update from an earlier commit without a failure.
    steps = load(CI)["jobs"][job]["steps"]
    checkout = next(s for s in steps if s.get("uses", "").startswith("actions/checkout@"))
    assert checkout["with"]["fetch-depth"] == 0


def test_every_session_ci_runs_is_in_the_noxfile() -> None:
    noxfile = (REPO_ROOT / "noxfile.py").read_text("utf-8")
    for workflow in WORKFLOWS:
        for session in re.findall(r"uvx nox -s (\w+)", workflow.read_text("utf-8")):
            assert f"def {session}(session" in noxfile


@pytest.mark.parametrize("workflow", [CI, GPU], ids=["ci", "gpu"])
def test_ci_installs_every_python_a_render_may_be_tested_on(workflow: Path) -> None:
    installed = set(load(workflow)["env"]["PYTHONS"].split())
    nox_python = re.search(
        r'^PYTHON = "([\d.]+)"$', (REPO_ROOT / "noxfile.py").read_text("utf-8"), re.M
    )
    assert nox_python is not None
    assert {*python_support().choices, nox_python[1]} <= installed


def test_every_cuda_major_of_the_matrix_is_in_the_render_matrix_alone_and_together() -> None:
    # CI covers each major because the suite renders each, on its own and all together.
    majors = sorted(int(major) for major in load_computed("cuda_matrix")["majors"])
    served = [answers.get("cuda_majors", majors) for answers in RENDER_MATRIX.values()]
    assert majors in served  # copier.yml's default for a new project: every major
    # The older majors alone (the newest alone is what projects rendered before cuda_majors
    # have: tests/test_update_history.py updates those).
    assert all([major] in served for major in majors[:-1])


def test_dependabot_updates_actions_and_python_tools_after_a_cooldown() -> None:
    updates = load(GITHUB / "dependabot.yml")["updates"]
    assert {u["package-ecosystem"] for u in updates} == {"github-actions", "pip"}
    assert all(u["cooldown"]["default-days"] >= 7 for u in updates)


# --- the template's own GPU job (.github/workflows/gpu.yml, tools/gpu_renders.py) ---------------


def test_the_gpu_workflow_runs_by_hand_weekly_and_when_gpu_ci_is_added() -> None:
    on = triggers(load(GPU))
    assert set(on) == {"workflow_dispatch", "schedule", "pull_request"}
    assert on["pull_request"] == {"types": ["labeled"]}  # no push to a pull request bills a run
    (cron,) = (entry["cron"] for entry in on["schedule"])
    assert re.fullmatch(r"\d+ \d+ \* \* [0-6]", cron), f"{cron} is not weekly"


def test_the_gpu_workflow_is_off_until_a_runner_is_named_and_never_runs_for_a_fork() -> None:
    jobs = load(GPU)["jobs"]
    condition = " ".join(jobs["majors"]["if"].split())
    assert condition.startswith("${{ vars.GPU_RUNNER_LABEL != '' && !github.event.repository.fork")
    # On a pull request: only as the label itself is added, from a branch of this repository.
    assert "github.event.label.name == 'gpu-ci'" in condition
    assert "github.event.pull_request.head.repo.full_name == github.repository" in condition
    # The GPU legs need the first job, so they are skipped with it.
    assert jobs["tests_gpu"]["needs"] == "majors"
    assert "if" not in jobs["tests_gpu"]
    assert jobs["tests_gpu"]["runs-on"] == "${{ vars.GPU_RUNNER_LABEL }}"
    assert all(job["timeout-minutes"] <= 60 for job in jobs.values())


def test_the_gpu_legs_are_every_major_of_the_matrix_and_every_render_lint_checks() -> None:
    jobs = load(GPU)["jobs"]
    (read,) = [step for step in jobs["majors"]["steps"] if step.get("id") == "read"]
    assert "python tools/gpu_renders.py majors" in read["run"]
    out = run([sys.executable, "tools/gpu_renders.py", "majors"], cwd=REPO_ROOT)
    assert json.loads(out) == sorted(load_computed("cuda_matrix")["majors"], key=int)
    assert jobs["majors"]["outputs"]["cuda"] == "${{ steps.read.outputs.cuda }}"
    matrix = jobs["tests_gpu"]["strategy"]["matrix"]
    assert matrix["cuda"] == "${{ fromJSON(needs.majors.outputs.cuda) }}"
    assert matrix["project"] == list(gpu_renders.RENDERS)
    assert set(gpu_renders.RENDERS) <= set(answer_sets())
    assert jobs["tests_gpu"]["env"] == {"CUDA_MAJOR": "${{ matrix.cuda }}"}


def test_the_gpu_job_keeps_the_figures_only_where_the_benchmarks_wrote_them() -> None:
    steps = load(GPU)["jobs"]["tests_gpu"]["steps"]
    (session,) = [step for step in steps if "uvx nox -s" in step.get("run", "")]
    assert session["run"] == 'uvx nox -s tests_gpu -- "${MATRIX_PROJECT}"'
    (upload,) = [step for step in steps if "upload-artifact" in step.get("uses", "")]
    assert upload["if"] == "${{ !cancelled() && hashFiles('build/gpu/bench-*.txt') != '' }}"
    assert upload["with"]["path"] == "build/gpu/bench-*.txt"
    assert gpu_renders.OUT == REPO_ROOT / "build" / "gpu"


def test_the_gpu_session_names_the_majors_and_the_renders_it_takes(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("CUDA_MAJOR", raising=False)
    with pytest.raises(SystemExit, match="set CUDA_MAJOR to one of the matrix's majors: 12, 13"):
        gpu_renders.run("defaults", tmp_path)
    monkeypatch.setenv("CUDA_MAJOR", "12")
    with pytest.raises(SystemExit, match="'nope' is not an answer set: give one of defaults, all"):
        gpu_renders.run("nope", tmp_path)
    assert list(tmp_path.iterdir()) == []  # refused before anything was written
    assert gpu_renders.main([]) == 2


@pytest.mark.slow
def test_the_gpu_session_runs_the_renders_own_tests_gpu_which_needs_a_gpu(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    # No GPU here: the render's tests_gpu stops at its first check, REQUIRE_GPU=1 making the
    # missing GPU a failure. What it runs past that point needs a GPU (the hosted job).
    monkeypatch.setenv("CUDA_MAJOR", sorted(load_computed("cuda_matrix")["majors"])[0])
    assert gpu_renders.run("defaults", tmp_path) != 0
    assert "tests_gpu needs an NVIDIA GPU" in capfd.readouterr().err
    assert (tmp_path / "defaults" / ".copier-answers.yml").is_file()
    assert list(tmp_path.glob("bench-*.txt")) == []  # no figures without the tests


def test_the_ci_entry_point_stops_at_the_first_failure_and_runs_lint_then_tests() -> None:
    # `.ci/run` is what a CI machine without GitHub runs: a failing session must fail the run,
    # and an empty selection fails too (pytest exits 5 when it ran no test, nox passes that on).
    script = (REPO_ROOT / ".ci" / "run").read_text("utf-8")
    assert re.search(r"^set -euo pipefail$", script, flags=re.MULTILINE)
    commands = re.findall(r"^uvx nox -s (\w+)$", script, flags=re.MULTILINE)
    assert commands == ["lint", "tests"]
