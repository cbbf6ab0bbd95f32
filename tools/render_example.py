"""Render a project from this checkout for a look (`nox -s example -- DIR [key=value ...]`).

The render goes into DIR: a new or empty folder, or an earlier example render, which it replaces.
Any other folder is refused before Copier writes a file: `--overwrite` over the checkout itself
(`nox -s example -- .`) would replace its README, noxfile, pyproject and tests, and lose their
uncommitted edits.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ANSWERS_FILE = ".copier-answers.yml"
USAGE = "usage: nox -s example -- DIR [key=value ...], e.g. nox -s example -- ../demo dask=true"


class ExampleError(ValueError):
    """Arguments the session refuses, with what to give instead."""


def parse(args: Sequence[str]) -> tuple[Path, dict[str, str]]:
    """The destination and the answers, each answer checked to be KEY=VALUE."""
    destination, *pairs = list(args) or ["example"]
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
    """Refuse a folder the render would overwrite that is not an earlier render."""
    target = destination.resolve()
    if target == root or root.is_relative_to(target):
        raise ExampleError(
            f"{destination} is the template checkout{'' if target == root else ' or holds it'}: "
            "rendering there would replace its files and lose their uncommitted edits. Give a "
            f"folder of its own, for example ../demo.\n{USAGE}"
        )
    if target.exists() and not target.is_dir():
        raise ExampleError(f"{destination} is a file, not a folder.\n{USAGE}")
    if target.is_dir() and any(target.iterdir()) and not (target / ANSWERS_FILE).is_file():
        raise ExampleError(
            f"{destination} is not empty and holds no {ANSWERS_FILE}, so it is not an earlier "
            "render: the render would overwrite its files. Give a new or empty folder."
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
