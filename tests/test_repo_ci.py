"""The template repository's own CI (.github/ at the root, not template/.github): valid, audited,
pinned to the same actions as rendered projects, and running the sessions the noxfile defines.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import RENDER_MATRIX, REPO_ROOT, run, tool
from template_data import load_computed, python_support

GITHUB = REPO_ROOT / ".github"
WORKFLOWS = sorted((GITHUB / "workflows").glob("*.yml"))
CI = GITHUB / "workflows" / "ci.yml"
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
    for workflow in map(load, WORKFLOWS):
        assert workflow["concurrency"]["group"] == "${{ github.workflow }}-${{ github.ref }}"


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


def test_ci_installs_every_python_a_render_may_be_tested_on() -> None:
    installed = set(load(CI)["env"]["PYTHONS"].split())
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


def test_the_ci_entry_point_stops_at_the_first_failure_and_runs_lint_then_tests() -> None:
    # `.ci/run` is what a CI machine without GitHub runs: a failing session must fail the run,
    # and an empty selection fails too (pytest exits 5 when it ran no test, nox passes that on).
    script = (REPO_ROOT / ".ci" / "run").read_text("utf-8")
    assert re.search(r"^set -euo pipefail$", script, flags=re.MULTILINE)
    commands = re.findall(r"^uvx nox -s (\w+)$", script, flags=re.MULTILINE)
    assert commands == ["lint", "tests"]
