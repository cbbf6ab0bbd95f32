"""Rendered projects follow the Scientific Python Development Guide and their own format hooks.

repo-review runs the guide's checks (sp-repo-review); mdformat and codespell are hooks the
project's pre-commit configuration runs, so a fresh render must already pass them, or a user's
first commit would be rewritten by the hooks.
"""

from __future__ import annotations

import json
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import (
    ALL_EXAMPLES,
    ALL_LIBRARIES,
    OWNED_TESTS,
    RENDER_MATRIX,
    Render,
    committed,
    git,
    tool,
)
from template_data import load_computed

PINS = load_computed("pins")
ALL_OPTIONS = {
    "gpu_libraries": ALL_LIBRARIES,
    "examples": ALL_EXAMPLES,
    "python_min": "3.12",
    "docs": "sphinx",
    "dask": True,
}


@pytest.fixture(scope="module")
def all_options(render: Render) -> Path:
    project = render(ALL_OPTIONS, name="conventions")
    committed(project)
    return project


def repo_review(project: Path) -> dict[str, Any]:
    proc = subprocess.run(
        [tool("repo-review"), str(project), "--format", "json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.stdout, proc.stderr
    report: dict[str, Any] = json.loads(proc.stdout)
    return report


def test_all_options_render_passes_every_applicable_repo_review_check(all_options: Path) -> None:
    results = repo_review(all_options)["checks"]
    failed = {code: c["err_msg"] for code, c in results.items() if c["result"] is False}
    passed = [code for code, c in results.items() if c["result"] is True]
    assert failed == {}
    assert len(passed) >= 60


def test_repo_review_ignores_at_most_one_check_each_with_a_reason(all_options: Path) -> None:
    config = tomllib.loads((all_options / "pyproject.toml").read_text("utf-8"))
    ignored = config.get("tool", {}).get("repo-review", {}).get("ignore", {})
    assert len(ignored) <= 1
    if isinstance(ignored, dict):
        assert all(reason.strip() for reason in ignored.values())


@pytest.mark.parametrize("name", sorted(RENDER_MATRIX))
def test_markdown_is_already_in_the_format_the_mdformat_hook_writes(
    name: str, render: Render
) -> None:
    project = render(RENDER_MATRIX[name], name=f"md-{name}")
    pages = sorted(str(p) for p in project.rglob("*.md"))
    assert pages
    proc = subprocess.run(
        [tool("mdformat"), "--check", "--wrap", "keep", "--compact-tables", *pages],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_codespell_finds_no_typo_in_a_render(all_options: Path) -> None:
    files = git("ls-files", cwd=all_options).split()
    proc = subprocess.run(
        [tool("codespell"), *files], cwd=all_options, capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stdout


def test_every_hook_repository_is_pinned_from_the_pins_file(all_options: Path) -> None:
    config = yaml.safe_load((all_options / ".pre-commit-config.yaml").read_text("utf-8"))
    remote = {r["repo"]: r["rev"] for r in config["repos"] if r["repo"] != "local"}
    tools = PINS["tools"]
    assert remote == {
        **PINS["hooks"],
        "https://github.com/astral-sh/ruff-pre-commit": f"v{tools['ruff']}",
        "https://github.com/python-jsonschema/check-jsonschema": tools["check-jsonschema"],
    }


def test_no_hook_repeats_a_check_that_a_nox_session_runs(all_options: Path) -> None:
    # mypy is `nox -s typecheck`'s and validate-pyproject `nox -s lint`'s: a hook would need a
    # second list of the dependencies pyproject.toml already holds.
    config = yaml.safe_load((all_options / ".pre-commit-config.yaml").read_text("utf-8"))
    hooks = {hook["id"] for repo in config["repos"] for hook in repo["hooks"]}
    assert hooks.isdisjoint({"mypy", "validate-pyproject"})


def test_ruff_hook_shows_the_fixes_it_applies(all_options: Path) -> None:
    config = yaml.safe_load((all_options / ".pre-commit-config.yaml").read_text("utf-8"))
    hooks = [h for r in config["repos"] for h in r["hooks"] if h["id"] == "ruff-check"]
    assert hooks
    assert all("--show-fixes" in h.get("args", []) for h in hooks if "--fix" in h["args"])


def test_default_sessions_are_marked_in_the_noxfile_not_listed(all_options: Path) -> None:
    noxfile = (all_options / "noxfile.py").read_text("utf-8")
    assert "nox.options.sessions" not in noxfile
    assert noxfile.startswith("#!/usr/bin/env -S uv run --script\n# /// script\n")
    assert noxfile.rstrip().endswith('if __name__ == "__main__":\n    nox.main()')
    proc = subprocess.run(
        [tool("nox"), "--list", "--json"],
        cwd=all_options,
        capture_output=True,
        text=True,
        check=True,
    )
    default = {s["name"] for s in json.loads(proc.stdout) if s.get("default", True)}
    assert default == {"tests_cpu", "coverage", "lint", "typecheck"}


def test_the_owned_tests_sort_every_helper_module_the_project_sorts(all_options: Path) -> None:
    project = tomllib.loads((all_options / "pyproject.toml").read_text("utf-8"))
    helpers = project["tool"]["ruff"]["lint"]["isort"]["known-local-folder"]
    owned = tomllib.loads((OWNED_TESTS / "ruff.toml").read_text("utf-8"))
    # The owned tests' config replaces the project's list, so it must hold all of it.
    assert set(helpers) - set(owned["lint"]["isort"]["known-local-folder"]) == set()
