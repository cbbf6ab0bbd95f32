# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""What a ``copier update`` would do to your edits, found on a scratch clone before you run it.

Copier deletes every file that the new render no longer has (a library you dropped, a test the
template retired), whether you edited it or not, and says nothing. And under ``--defaults`` it
replaces an answer that another change makes invalid by that question's default. This script
runs the same update (the same ``--data`` and ``--vcs-ref``) on a clone of your last commit, so
your work tree is never touched, and lists:

- the files the update would delete that you changed since they were rendered;
- the answers it would change that you did not give with ``--data``.

Exit status: 0 when nothing of yours would be lost, 1 when something would (the list says
what to do), 2 when the check itself cannot run (uncommitted changes, no answers file).
Run it with ``nox -s update_check -- --data key=value ...``, which installs Copier.
"""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ANSWERS_FILE = ".copier-answers.yml"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """The options of ``copier update`` that change what it renders."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1] if __doc__ else None)
    parser.add_argument(
        "-d", "--data", action="append", default=[], metavar="KEY=VALUE", help="as copier's"
    )
    parser.add_argument("--vcs-ref", help="as copier's (default: the newest template release)")
    args = parser.parse_args(argv)
    for pair in args.data:
        if "=" not in pair:
            parser.error(f"--data {pair!r}: write KEY=VALUE, for example --data dask=true")
    return args


def git(*args: str, cwd: Path) -> str:
    """Run git in ``cwd`` and return what it printed."""
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout


def read_answers(project: Path) -> dict[str, Any]:
    """The answers file as a mapping (PyYAML comes with Copier)."""
    yaml = importlib.import_module("yaml")
    loaded: dict[str, Any] = yaml.safe_load((project / ANSWERS_FILE).read_text("utf-8"))
    return loaded


def render_previous(answers: dict[str, Any], dst: Path) -> None:
    """The project as the template rendered it last time: what Copier compares your files with."""
    copier = importlib.import_module("copier")
    data = {key: value for key, value in answers.items() if not key.startswith("_")}
    copier.run_copy(
        answers["_src_path"], dst, data=data, vcs_ref=answers["_commit"],
        defaults=True, quiet=True, unsafe=False,
    )  # fmt: skip


def edited_deletions(project: Path, scratch: Path, previous: Path) -> tuple[list[str], list[str]]:
    """Files of the last commit the update deletes: (changed since rendered, unchanged)."""
    edited: list[str] = []
    unchanged: list[str] = []
    for name in git("ls-files", "-z", cwd=project).split("\0"):
        if not name or (scratch / name).exists():
            continue
        rendered = previous / name
        same = rendered.is_file() and rendered.read_bytes() == (project / name).read_bytes()
        (unchanged if same else edited).append(name)
    return edited, unchanged


def reset_answers(
    before: dict[str, Any], after: dict[str, Any], given: set[str]
) -> dict[str, tuple[Any, Any]]:
    """Answers the update changes or drops that were not given with --data: (old, new)."""
    return {
        key: (value, after.get(key))
        for key, value in before.items()
        if not key.startswith("_") and key not in given and after.get(key) != value
    }


def report(edited: list[str], unchanged: list[str], reset: dict[str, tuple[Any, Any]]) -> int:
    """Print what the update would do; 1 when any of it loses something of yours."""
    for name in unchanged:
        print(f"deletes {name} (unchanged since rendered: nothing of yours is lost)")
    for name in edited:
        print(f"DELETES {name}, which you changed since it was rendered")
    dropped = [key for key, (_, new) in reset.items() if new is None]
    for key, (old, new) in reset.items():
        if new is None:
            print(f"DROPS {key}: {old!r} (the new answers no longer ask it)")
        else:
            print(f"RESETS {key}: {old!r} -> {new!r}")
    if edited:
        print(
            "\nCopier deletes a file the new render drops even when you edited it, and shows no\n"
            "conflict. Move your code into files of your own first (docs/extending.md says\n"
            "where each kind goes), or after the update get a file back with\n"
            "`git show HEAD:<file>` before you commit."
        )
    if len(dropped) < len(reset):
        pairs = " ".join(f"--data {key}=..." for key in reset if key not in dropped)
        print(
            "\nThe change makes these answers invalid, and `copier update --defaults` would put\n"
            f"their defaults in their place. Give each the value you want: {pairs}"
        )
    if dropped:
        print(
            "\nA question the new answers no longer ask loses its answer; asked again later, it\n"
            "starts from its default. Note the answer down if you will want it back."
        )
    if not (edited or reset):
        print("The update loses nothing of yours.")
    return 1 if edited or reset else 0


def main(argv: list[str] | None = None) -> int:
    """Run the update on a scratch clone and report; see the module's docstring."""
    args = parse_args(argv)
    project = Path.cwd()
    if not (project / ANSWERS_FILE).is_file():
        print(f"no {ANSWERS_FILE} here: run this at the project's root", file=sys.stderr)
        return 2
    if git("status", "--porcelain", cwd=project).strip():
        print("commit your changes first: the check (like copier update) reads the last commit")
        return 2
    copier = importlib.import_module("copier")
    data = dict(pair.split("=", 1) for pair in args.data)
    with tempfile.TemporaryDirectory(prefix="update-check-") as tmp:
        scratch, previous = Path(tmp) / "project", Path(tmp) / "previous"
        git("clone", "--quiet", str(project), str(scratch), cwd=Path(tmp))
        before = read_answers(scratch)
        render_previous(before, previous)
        try:
            copier.run_update(
                scratch, data=data, vcs_ref=args.vcs_ref, defaults=True, overwrite=True,
                unsafe=False, quiet=True, conflict="inline",
            )  # fmt: skip
        except ValueError as refused:  # a validator's refusal: it says what to answer
            print(f"copier update would stop here, changing nothing:\n{refused}")
            return 1
        edited, unchanged = edited_deletions(project, scratch, previous)
        reset = reset_answers(before, read_answers(scratch), set(data))
    return report(edited, unchanged, reset)


if __name__ == "__main__":
    sys.exit(main())
