# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""What a ``copier update`` would do to your edits, found on a scratch clone before you run it.

The same update (``--data``, ``--vcs-ref``) on a clone of your last commit lists what Copier does
without a word (docs/updating.md): delete a file you changed, leave a conflict, reset or drop an
answer, ignore a ``--data`` no question takes. Exit status 0: nothing of yours is touched; 1:
something is (each line says what to do); 2: the check cannot run.
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
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("-d", "--data", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--vcs-ref", help="default: the newest template release")
    args = parser.parse_args(argv)
    for pair in args.data:
        if "=" not in pair:
            parser.error(f"--data {pair!r}: write KEY=VALUE, for example --data dask=true")
    return args


def git(*args: str, cwd: Path) -> str:
    """Run git in ``cwd`` and return what it printed."""
    return subprocess.check_output(["git", *args], cwd=cwd, text=True)


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


def conflicted(scratch: Path) -> list[str]:
    """Files left unmerged (Copier marks inline conflicts as git merge does) or rejected (.rej)."""
    names = git("status", "--porcelain", "--ignored", "-z", cwd=scratch).split("\0")
    return [n[3:] for n in names if "U" in n[:2] or n[:2] in {"AA", "DD"} or n.endswith(".rej")]


def reset_answers(
    before: dict[str, Any], after: dict[str, Any], given: set[str]
) -> dict[str, tuple[Any, Any]]:
    """Answers the update changes or drops that were not given with --data: (old, new)."""
    return {
        key: (value, after.get(key))
        for key, value in before.items()
        if not key.startswith("_") and key not in given and after.get(key) != value
    }


def report(
    edited: list[str], unchanged: list[str], reset: dict[str, tuple[Any, Any]], conflicts: list[str]
) -> int:
    """Print what the update would do and what to do first; 1 when any of it touches yours."""
    for name in unchanged:
        print(f"deletes {name} (unchanged since rendered: nothing of yours is lost)")
    for name in edited:
        print(f"DELETES {name}, which you changed: move your code into a file of your own")
    for name in conflicts:
        print(f"CONFLICTS {name}: your lines and the template's, both kept for you to resolve")
    for key, (old, new) in reset.items():
        if new is None:  # asked again later, the question starts from its default
            print(f"DROPS {key}: {old!r}, no longer asked: note it down to give it again later")
        else:  # under --defaults, an answer the change makes invalid takes the default
            print(f"RESETS {key}: {old!r} -> {new!r}: give --data {key}=... with the one you want")
    if edited or conflicts:
        print(
            "\nCopier says nothing of these. docs/extending.md says where your code goes, and\n"
            "docs/updating.md how to resolve a conflict; `git show HEAD:<file>` after the update\n"
            "gets a deleted file back."
        )
    if not (edited or reset or conflicts):
        print("The update loses nothing of yours.")
    return 1 if edited or reset or conflicts else 0


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
            worker = copier.run_update(
                scratch, data=data, vcs_ref=args.vcs_ref, defaults=True, overwrite=True,
                unsafe=False, quiet=True, conflict="inline",
            )  # fmt: skip
        except (ValueError, TypeError) as refused:  # a validator's, or a list given as a word
            print(f"copier update would stop here, changing nothing:\n{refused}")
            return 1
        # The new version's questions: a key that names none is a misspelling Copier ignores (a
        # question these answers skip, such as gpu_ci with ci=none, is no error).
        if ignored := sorted(set(data) - set(worker.template.questions_data)):
            print(f"copier update ignores --data {', '.join(ignored)}: no question by that name")
            return 1
        after = read_answers(scratch)
        edited, unchanged = edited_deletions(project, scratch, previous)
        reset = reset_answers(before, after, set(data))
        conflicts = conflicted(scratch)
    return report(edited, unchanged, reset, conflicts)


if __name__ == "__main__":
    sys.exit(main())
