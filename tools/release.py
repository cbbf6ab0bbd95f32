"""Tag a release of the template: `nox -s release -- X.Y.Z`.

Checks, in order, and stops at the first that fails, with what to do about it:

1. X.Y.Z is a SemVer version (three numbers, no pre-release) above the newest `vX.Y.Z` tag;
2. CHANGELOG.md has a non-empty `## X.Y.Z` section (`## X.Y.Z - YYYY-MM-DD` and `## [X.Y.Z]`
   also match): the maintainer writes it, usually by renaming `## Unreleased`;
3. the working tree is clean (untracked files too: the tests would see them, the tag would not);
4. HEAD is on `main` (`--any-branch` for a fix release from a maintenance branch);
5. the full suite passes (what `nox -s tests_full` runs: every render built, every Python floor,
   every sampled version updated, the property tests at full size).

Then it creates the annotated tag `vX.Y.Z` whose message is the CHANGELOG section, and prints
the command that publishes it. It never pushes: a tag on the remote is what `copier update` users
receive, and that step stays a person's.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RELEASE_BRANCH = "main"
# SemVer 2.0 core: no leading zeros. Pre-releases are left out on purpose: Copier skips them
# unless a user passes --prereleases, so a tag users would not get is not a release.
SEMVER = re.compile(r"(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)")
UNRELEASED = re.compile(r"^## \[?Unreleased\]?\s*$", flags=re.MULTILINE | re.IGNORECASE)

Version = tuple[int, int, int]


class ReleaseError(RuntimeError):
    """A check failed; the message says what to do."""


def parse_version(text: str) -> Version:
    """``(major, minor, patch)`` of ``X.Y.Z``; a leading ``v`` is refused, not stripped."""
    match = SEMVER.fullmatch(text)
    if match is None:
        raise ReleaseError(
            f"{text!r} is not a SemVer version: give three numbers without a 'v', e.g. 1.4.0"
        )
    major, minor, patch = (int(part) for part in match.groups())
    return major, minor, patch


def _git(repo: Path, *args: str, input_text: str | None = None) -> str:
    proc = subprocess.run(
        ["git", *args], cwd=repo, input=input_text, capture_output=True, text=True, check=False
    )
    if proc.returncode != 0:
        raise ReleaseError(f"`git {' '.join(args)}` failed: {proc.stderr.strip()}")
    return proc.stdout


def released_versions(repo: Path) -> list[Version]:
    """The versions of the repository's `vX.Y.Z` tags, oldest first (other tags are ignored)."""
    tags = _git(repo, "tag", "--list", "v*").split()
    return sorted(parse_version(t[1:]) for t in tags if SEMVER.fullmatch(t[1:]))


def check_newer(version: Version, released: Sequence[Version]) -> None:
    """Refuse a version that is not above every released one."""
    if released and version <= max(released):
        newest = ".".join(map(str, max(released)))
        raise ReleaseError(
            f"{'.'.join(map(str, version))} is not above the newest release, v{newest}: "
            "choose a higher version"
        )


def changelog_section(changelog: str, version: str) -> str:
    """The body of the CHANGELOG section for ``version``, without its heading."""
    heading = re.compile(
        rf"^## \[?{re.escape(version)}\]?(?:\s+-\s+\d{{4}}-\d{{2}}-\d{{2}})?\s*$", re.MULTILINE
    )
    match = heading.search(changelog)
    if match is None:
        hint = (
            "rename its '## Unreleased' heading to"
            if UNRELEASED.search(changelog)
            else "add a section headed"
        )
        raise ReleaseError(
            f"CHANGELOG.md has no section for {version}: {hint} '## {version} - YYYY-MM-DD' "
            "(and start a new, empty '## Unreleased' above it), commit, and run again"
        )
    rest = changelog[match.end() :]
    following = re.search(r"^## ", rest, flags=re.MULTILINE)
    body = (rest[: following.start()] if following else rest).strip()
    if not body:
        raise ReleaseError(
            f"CHANGELOG.md's section for {version} is empty: say what changes for rendered projects"
        )
    return body


def check_clean(repo: Path) -> None:
    """Refuse uncommitted changes and untracked files (ignored files are fine)."""
    status = _git(repo, "status", "--porcelain")
    if status.strip():
        raise ReleaseError(
            "the working tree has uncommitted changes or untracked files; commit or stash them "
            f"so the tag is what was tested:\n{status.rstrip()}"
        )


def check_branch(repo: Path, any_branch: bool) -> None:
    """Refuse to tag anywhere but the release branch, unless told otherwise."""
    branch = _git(repo, "branch", "--show-current").strip()
    if branch != RELEASE_BRANCH and not any_branch:
        raise ReleaseError(
            f"HEAD is on {branch or 'a detached commit'!r}, not {RELEASE_BRANCH!r}: switch to "
            f"{RELEASE_BRANCH}, or pass --any-branch for a release from a maintenance branch"
        )


# What a release must pass: the whole suite, as `nox -s tests_full` runs it (tests/test_tiers.py
# holds the two together). The scheduled CI runs it weekly; a release cannot wait for Monday.
FULL_SUITE = ["-m", "pytest", "--hypothesis-profile=full", "-q"]


def run_full_tests(repo: Path) -> None:
    """The template's full suite, as `nox -s tests_full` runs it, in this interpreter."""
    proc = subprocess.run([sys.executable, *FULL_SUITE], cwd=repo)
    if proc.returncode != 0:
        raise ReleaseError("the full tests failed (output above): fix them before releasing")


def release(
    repo: Path,
    version_text: str,
    *,
    any_branch: bool = False,
    run_tests: Callable[[Path], None] | None = None,
) -> str:
    """Check everything, run the tests, create the annotated tag; return the tag's name."""
    version = parse_version(version_text)
    check_newer(version, released_versions(repo))
    section = changelog_section((repo / "CHANGELOG.md").read_text("utf-8"), version_text)
    check_clean(repo)
    check_branch(repo, any_branch)
    (run_tests or run_full_tests)(repo)
    check_clean(repo)  # a test that rewrote a tracked file would make the tag lie
    tag = f"v{version_text}"
    # verbatim: git's default cleanup would drop the section's `### Added` lines as comments.
    _git(
        repo,
        "tag",
        "--annotate",
        "--cleanup=verbatim",
        "--file=-",
        tag,
        input_text=f"cuda-template {version_text}\n\n{section}\n",
    )
    return tag


def main(argv: Sequence[str] | None = None) -> int:
    """Release from the command line; exit 1 with the reason when a check fails."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("version", help="X.Y.Z, above the newest vX.Y.Z tag")
    parser.add_argument(
        "--any-branch", action="store_true", help=f"allow a branch other than {RELEASE_BRANCH}"
    )
    parser.add_argument("--repo", type=Path, default=ROOT, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    try:
        tag = release(args.repo, args.version, any_branch=args.any_branch)
    except ReleaseError as exc:
        print(f"release: {exc}", file=sys.stderr)
        return 1
    branch = _git(args.repo, "branch", "--show-current").strip() or "HEAD"
    print(f"Tagged {tag}. Read it with `git show {tag}`, then publish the branch and the tag:")
    print(f"\n    git push --atomic origin {branch} {tag}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
