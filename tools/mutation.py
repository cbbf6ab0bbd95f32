"""Mutation-test a render's template-maintained modules with mutmut: ``nox -s mutation``.

Render the working tree (uncommitted edits included) with the owned tests laid in, install it
editable with its ``test`` group and mutmut, and run ``mutmut run`` there on the generated
``gpu``, ``kernels`` and ``doctor`` packages, the owned and generated tests as the killing suite.
mutmut does the work (mutants, the test selection by coverage, one fork per mutant); this file
only sets it up and compares the survivors with ``tools/mutation_survivors.toml``, the ones the
template accepts, each with its reason. A survivor missing there fails the run.

    nox -s mutation                          # the defaults render, every mutant
    nox -s mutation -- --quick               # one mutant of every function
    nox -s mutation -- --module gpu          # one package (repeatable)
    nox -s mutation -- --render all-libraries --workers 4

The project stays in ``build/mutation/<render>``: ``mutmut show NAME`` and ``mutmut browse``
there (with its ``.venv`` active) show a mutant's diff.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tomllib
from importlib.metadata import version
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OUTPUT = ROOT / "build" / "mutation"
ACCEPTED = ROOT / "tools" / "mutation_survivors.toml"
PACKAGES = ("gpu", "kernels", "doctor")
# mutmut numbers each function's mutants from 1: the first of each is a sample that reaches
# every mutated function, about one in twenty (169 of 3,407 on the defaults render).
QUICK = "*__mutmut_1"
# The render's coverage settings leave the template's packages out (they are the template's to
# prove); mutmut reads them to decide which lines the tests cover, so it gets none of them.
COVERAGE_RC = "[run]\n"
# Hypothesis with a fixed seed: a mutant is killed or survives the same way on every run.
PYTEST_ARGS = ["-p", "no:cacheprovider", "--hypothesis-seed=0"]
# `mutmut results` prints one mutant a line: `    my_pkg.gpu._detect.x_f__mutmut_3: survived`.
RESULT = re.compile(r"^\s*(?P<name>\S+): (?P<status>.+)$")
# What counts as a survivor: the tests ran and stayed green (or hung without failing).
SURVIVING = {"survived", "suspicious", "no tests"}


def renders() -> dict[str, dict[str, Any]]:
    """The renders measured: the default answers, and every GPU library and example."""
    from template_data import example_choices, library_choices

    return {
        "defaults": {},
        "all-libraries": {
            "gpu_libraries": list(library_choices()),
            "examples": example_choices(),
            "python_min": "3.12",
        },
    }


def mutmut_config(package: str, modules: list[str]) -> str:
    """The ``[tool.mutmut]`` table appended to the render's pyproject.toml."""
    only = ", ".join(f'"src/{package}/{module}/*"' for module in modules)
    args = ", ".join(f'"{arg}"' for arg in PYTEST_ARGS)
    return (
        f'\n[tool.mutmut]\nsource_paths = ["src/{package}"]\nonly_mutate = [{only}]\n'
        f"mutate_only_covered_lines = true\npytest_add_cli_args = [{args}]\n"
    )


def statuses(results: str, package: str) -> dict[str, str]:
    """Each mutant's status from ``mutmut results --all true``, named without the package."""
    found = {}
    for line in results.splitlines():
        if match := RESULT.match(line):
            found[match["name"].removeprefix(f"{package}.")] = match["status"]
    return found


def compare(found: dict[str, str], accepted: dict[str, str]) -> tuple[list[str], list[str]]:
    """The survivors not accepted, and the accepted mutants a run killed (stale entries)."""
    surviving = {name for name, status in found.items() if status in SURVIVING}
    new = sorted(surviving - accepted.keys())
    stale = sorted(name for name in accepted if found.get(name) == "killed")
    return new, stale


def score_line(found: dict[str, str], render: str) -> str:
    """``mutation score: 94.5% (killed 546, survived 32) for defaults``."""
    killed = sum(status == "killed" for status in found.values())
    survived = sum(status in SURVIVING for status in found.values())
    score = 100 * killed / max(killed + survived, 1)
    return f"mutation score: {score:.1f}% (killed {killed}, survived {survived}) for {render}"


def prepare(render: str, answers: dict[str, Any], modules: list[str]) -> tuple[Path, str]:
    """Render, configure and install a project: its package's name and where it is."""
    sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tools")]
    import yaml
    from conftest import WORKING_TREE_TAG, copy_template, isolation, snapshot_working_tree

    work = OUTPUT / render
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    os.environ.update(isolation(work))
    template = snapshot_working_tree(work / "template", owned_tests=True)
    project = copy_template(template, work / "project", answers, WORKING_TREE_TAG)
    recorded = yaml.safe_load((project / ".copier-answers.yml").read_text("utf-8"))
    package = recorded["package_name"]
    with (project / "pyproject.toml").open("a", encoding="utf-8") as pyproject:
        pyproject.write(mutmut_config(package, modules))
    (work / "coveragerc").write_text(COVERAGE_RC, encoding="utf-8")
    os.environ.pop("VIRTUAL_ENV", None)  # nox's: uv would put the project's venv there
    uv = ["uv", "pip", "install", "-q", "--python", ".venv/bin/python"]
    subprocess.run(
        ["uv", "venv", "-q", "--python", recorded["python_min"], ".venv"], cwd=project, check=True
    )
    # Editable: mutmut puts its mutated copy (mutants/src) first on the path and takes src/ off;
    # an installed wheel would be imported in place of both.
    mutmut = f"mutmut=={version('mutmut')}"
    subprocess.run([*uv, "-e", ".", "--group", "test", mutmut], cwd=project, check=True)
    return project, package


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="mutation", description=__doc__.split("\n")[0])
    parser.add_argument("--render", default="defaults", choices=("defaults", "all-libraries"))
    parser.add_argument("--module", action="append", choices=PACKAGES, help="default: all three")
    parser.add_argument("--quick", action="store_true", help="one mutant of every function")
    parser.add_argument("--workers", type=int, default=2, help="mutants run at once (default 2)")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT / "tools"))
    project, package = prepare(args.render, renders()[args.render], args.module or list(PACKAGES))
    env = {**os.environ, "COVERAGE_RCFILE": str(project.parent / "coveragerc")}

    def mutmut(*arguments: str, show: bool = False) -> str:
        command = [str(project / ".venv" / "bin" / "mutmut"), *arguments]
        output = None if show else subprocess.PIPE
        done = subprocess.run(command, cwd=project, env=env, check=True, stdout=output)
        return done.stdout.decode() if done.stdout else ""

    mutmut("run", "--max-children", str(args.workers), *([QUICK] if args.quick else []), show=True)
    found = statuses(mutmut("results", "--all", "true"), package)
    accepted = tomllib.loads(ACCEPTED.read_text("utf-8")).get(args.render, {})
    new, stale = compare(found, accepted)
    for name in new:
        print(mutmut("show", f"{package}.{name}"), flush=True)
    for name in stale:
        print(f"killed now, remove it from {ACCEPTED.name}: {name}")
    print(score_line(found, args.render))
    if new:
        print(f"{len(new)} survivors not in {ACCEPTED.name}: kill each with a test, or accept it")
    return 1 if new else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
