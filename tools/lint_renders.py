"""Render every answer set of the suite and check it: what `nox -s lint` runs.

`python tools/lint_renders.py render DIR` renders the working tree (uncommitted edits included)
into a folder of DIR per answer set: each render of the suite's answer matrix
(``RENDER_MATRIX`` in tests/conftest.py, what the quick tier renders) and every option on, the
compiled extension included. Each carries tests/owned/ beside the project's own tests, as the
suite's ``render_suite`` fixture lays them. It writes DIR/typing-requirements.txt: what each
render's `nox -s typecheck` installs, the packages mypy needs to read its imports.

`python tools/lint_renders.py check DIR` then runs ruff, ruff format --check and mypy --strict on
this repository and on every render, every check even after one fails, and ends with the list
of those that failed. A branch only a narrower answer takes (the no-CuPy path of the GPU module)
is parsed, linted and type-checked like the defaults. Nothing is built or installed.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TYPING_REQUIREMENTS = "typing-requirements.txt"
# The tools of the interpreter that runs this script: the nox session's, or the tests'.
RUFF = [sys.executable, "-m", "ruff"]
MYPY = [sys.executable, "-m", "mypy"]
USAGE = "usage: python tools/lint_renders.py render|check DIR"


def answer_sets() -> dict[str, dict[str, Any]]:
    """The suite's answer matrix, and every option on with the compiled extension."""
    from conftest import ALL_OPTIONS, RENDER_MATRIX

    return {**RENDER_MATRIX, "all-options": {**ALL_OPTIONS, "extension": "cuda-cpp"}}


def typing_requirements(project: Path) -> list[str]:
    """What the render's ``nox -s typecheck`` installs: its dependencies and ``dev`` group."""
    import tomllib

    config = tomllib.loads((project / "pyproject.toml").read_text("utf-8"))
    groups = config.get("dependency-groups", {})

    def group(name: str) -> list[str]:
        return [
            req
            for item in groups.get(name, [])
            for req in (group(item["include-group"]) if isinstance(item, dict) else [item])
        ]

    return [*config["project"].get("dependencies", []), *group("dev")]


def _render_one(template: Path, dst: Path, answers: dict[str, Any]) -> Path:
    from conftest import WORKING_TREE_TAG, copy_template

    return copy_template(template, dst, answers, WORKING_TREE_TAG)


def render_all(dst: Path, sets: dict[str, dict[str, Any]] | None = None) -> list[Path]:
    """Render each answer set (all of ``answer_sets()`` by default) into ``dst``.

    The renders run in one process per core: each is a Copier run of a few seconds, CPU-bound.
    """
    sets = answer_sets() if sets is None else sets
    dst.mkdir(parents=True, exist_ok=True)
    from conftest import isolation, snapshot_working_tree

    with tempfile.TemporaryDirectory(prefix="lint-template-") as tmp:
        os.environ.update(isolation(Path(tmp)))
        template = snapshot_working_tree(Path(tmp) / "repo", owned_tests=True)
        with ProcessPoolExecutor(max_workers=min(len(sets), os.cpu_count() or 1)) as pool:
            jobs = [pool.submit(_render_one, template, dst / n, a) for n, a in sets.items()]
            return [job.result() for job in jobs]


Check = tuple[str, list[str], Path]  # a name, the command, the folder it runs in


def mypy_version(project: Path) -> str:
    """The Python version the render's mypy checks against (its ``[tool.mypy]``)."""
    import tomllib

    config = tomllib.loads((project / "pyproject.toml").read_text("utf-8"))
    return str(config["tool"]["mypy"]["python_version"])


def check_groups(repo: Path, projects: Sequence[Path]) -> list[list[Check]]:
    """Every check, in groups that run one after another; the groups run side by side.

    ruff reads each file's nearest configuration, so one ruff run covers every render. mypy runs
    once per render (each is its own package of the same name); the renders it checks against
    one Python version share a cache, so the typed libraries they import (NumPy's stubs the
    largest) are read once per version, not once per render.
    """
    by_version: dict[str, list[Path]] = {}
    for project in projects:
        by_version.setdefault(mypy_version(project), []).append(project)
    groups: list[list[Check]] = [
        [(f"mypy ({p.name})", [*MYPY, f"--cache-dir={p.parent / f'.mypy-{v}'}"], p) for p in ps]
        for v, ps in sorted(by_version.items(), key=lambda item: -len(item[1]))
    ]
    groups.append([("mypy (repository)", MYPY, repo)])
    ruff: list[Check] = [
        ("ruff check (repository)", [*RUFF, "check", "."], repo),
        ("ruff format (repository)", [*RUFF, "format", "--check", "."], repo),
    ]
    if projects:
        where = Path(os.path.commonpath(projects))
        names = [str(project.relative_to(where)) for project in projects]
        ruff.append(("ruff check (renders)", [*RUFF, "check", "--no-cache", *names], where))
        format_check = [*RUFF, "format", "--check", "--no-cache", *names]
        ruff.append(("ruff format (renders)", format_check, where))
    return [ruff, *groups]


def _run_group(group: list[Check]) -> list[tuple[str, bool, str]]:
    """Run each check of ``group``: its name, whether it passed, and what it printed."""
    results = []
    for name, command, cwd in group:
        start = time.perf_counter()
        proc = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
        took = time.perf_counter() - start
        said = f"--- {name} ({took:.1f} s): {' '.join(command)}\n{proc.stdout}{proc.stderr}"
        results.append((name, proc.returncode == 0, said))
    return results


def check_all(repo: Path, projects: Sequence[Path]) -> list[str]:
    """Run every check, each even after one fails; return the names of those that failed.

    Each group's output is printed whole as it ends, so two checks never interleave.
    """
    groups = check_groups(repo, projects)
    failed = []
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        for results in pool.map(_run_group, groups):
            for name, ok, said in results:
                print(said, end="" if said.endswith("\n") else "\n", flush=True)
                if not ok:
                    failed.append(name)
    return failed


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in {"render", "check"}:
        print(USAGE, file=sys.stderr)
        return 2
    sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tools")]
    command, dst = argv[0], Path(argv[1]).resolve()
    if command == "render":
        projects = render_all(dst)
        needed = sorted({req for project in projects for req in typing_requirements(project)})
        (dst / TYPING_REQUIREMENTS).write_text("".join(f"{r}\n" for r in needed), "utf-8")
        print(f"rendered {len(projects)} projects into {dst}: {', '.join(answer_sets())}")
        return 0
    projects = sorted(path for path in dst.iterdir() if path.is_dir() and path.name[0] != ".")
    failed = check_all(ROOT, projects)
    if failed:
        print(f"{len(failed)} check(s) failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    print(f"every check passed, on this repository and {len(projects)} renders")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
