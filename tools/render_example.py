"""Render a project from this checkout for a look (`nox -s example -- DIR [key=value ...]`).

The render goes into DIR (by default ``<checkout>-example`` beside the checkout): a new or empty
folder, or an earlier example render of this checkout without uncommitted changes, which it
replaces. Anything else is refused before Copier writes a file: a folder inside the checkout
(Copier would carry one under ``template/`` into every later render), a real project (its
answers name another template), a project with uncommitted edits, a folder of other files.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
ANSWERS_FILE = ".copier-answers.yml"
USAGE = "usage: nox -s example -- DIR [key=value ...], e.g. nox -s example -- ../demo dask=true"


class ExampleError(ValueError):
    """Arguments the session refuses, with what to give instead."""


def parse(args: Sequence[str]) -> tuple[Path, dict[str, str]]:
    """The destination and the answers, each answer checked to be KEY=VALUE."""
    destination, *pairs = list(args) or [f"{ROOT}-example"]
    if "=" in destination:
        raise ExampleError(
            f"{destination!r} is an answer, not a folder: give the folder first.\n{USAGE}"
        )
    answers: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ExampleError(
                f"{pair!r} is not an answer: write KEY=VALUE (project_name=Demo, "
                f"'gpu_libraries=[cupy]'), after the folder.\n{USAGE}"
            )
        answers[key.strip()] = value
    return Path(destination), answers


def check_destination(destination: Path, root: Path = ROOT) -> None:
    """Refuse a folder the render would overwrite that is not an earlier example render."""
    target = destination.resolve()
    if target.is_relative_to(root) or root.is_relative_to(target):
        raise ExampleError(
            f"{destination} is the template checkout, holds it or lies inside it: rendering there "
            "would replace its files or ship the render inside every later one. Give a folder "
            f"outside it, for example ../demo.\n{USAGE}"
        )
    if target.exists() and not target.is_dir():
        raise ExampleError(f"{destination} is a file, not a folder.\n{USAGE}")
    if not target.is_dir() or not any(target.iterdir()):
        return
    answers = target / ANSWERS_FILE
    source = (yaml.safe_load(answers.read_text("utf-8")) or {}) if answers.is_file() else {}
    if not isinstance(source, dict) or Path(str(source.get("_src_path"))).resolve() != root:
        raise ExampleError(
            f"{destination} is not empty and is not an example render of {root} (its "
            f"{ANSWERS_FILE} names no such template): the render would overwrite its files. "
            "Give a new or empty folder."
        )
    # Untracked files count: a new module of the user's is as lost as an edited one.
    status = subprocess.run(
        ["git", "status", "--porcelain", "--", "."], cwd=target, capture_output=True, text=True
    )
    if status.returncode == 0 and status.stdout.strip():
        raise ExampleError(
            f"{destination} has uncommitted changes, which the render would overwrite:\n"
            f"{status.stdout.rstrip()}\nCommit or stash them, or give another folder."
        )


def main(argv: Sequence[str] | None = None) -> int:
    """Check the arguments, then render with Copier from the working tree."""
    try:
        destination, answers = parse(sys.argv[1:] if argv is None else argv)
        check_destination(destination)
    except ExampleError as refused:
        print(f"error: {refused}", file=sys.stderr)
        return 2
    from copier import run_copy  # the session installs it; the checks above need nothing

    # vcs_ref HEAD renders the working tree including uncommitted edits.
    run_copy(
        str(ROOT), destination, data=answers, defaults=True, overwrite=True,
        vcs_ref="HEAD", unsafe=False,
    )  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
