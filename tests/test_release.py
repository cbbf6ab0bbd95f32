"""`nox -s release -- X.Y.Z` (tools/release.py), in scratch clones of the working tree.

Each test clones a snapshot of the working tree (tagged v0.0.0, on main), so a release is tried
on the real CHANGELOG and the real tool, and the repository you work in is never tagged. The full
suite is replaced by a recorder: running it here would render the template again inside a test.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import release
from conftest import WORKING_TREE_TAG, git, snapshot_working_tree
from hypothesis import given
from hypothesis import strategies as st

VERSION = "0.1.0"


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return snapshot_working_tree(tmp_path_factory.mktemp("release") / "snapshot")


@pytest.fixture
def clone(snapshot: Path, tmp_path: Path) -> Path:
    """A fresh clone of the snapshot: on main, clean, tagged v0.0.0."""
    git("clone", "-q", str(snapshot), str(tmp_path / "clone"), cwd=tmp_path)
    return tmp_path / "clone"


def write_section(repo: Path, version: str = VERSION) -> None:
    """Do what the maintainer does: head what is unreleased with the release, say what it
    brings (the real `## Unreleased` may be empty, right after a release), commit."""
    changelog = repo / "CHANGELOG.md"
    text = changelog.read_text("utf-8")
    assert "\n## Unreleased\n" in text
    heading = f"\n## Unreleased\n\n## {version} - 2031-02-03\n\n### Added\n\n- A new thing.\n"
    changelog.write_text(text.replace("\n## Unreleased\n", heading, 1), "utf-8")
    git("commit", "-q", "-am", f"Release {version}", cwd=repo)


def tags(repo: Path) -> list[str]:
    return git("tag", "--list", cwd=repo).split()


def no_tests(repo: Path) -> None:
    """Stands in for the full suite."""


def failing_tests(repo: Path) -> None:
    raise release.ReleaseError("the full tests failed (output above): fix them before releasing")


def test_release_creates_an_annotated_tag_on_head(clone: Path) -> None:
    write_section(clone)
    release.release(clone, VERSION, run_tests=no_tests)
    assert git("cat-file", "-t", f"v{VERSION}", cwd=clone).strip() == "tag"
    assert git("rev-parse", f"v{VERSION}^{{commit}}", cwd=clone) == git(
        "rev-parse", "HEAD", cwd=clone
    )


def test_tag_message_is_the_changelog_section_with_its_subheadings(clone: Path) -> None:
    write_section(clone)
    release.release(clone, VERSION, run_tests=no_tests)
    message = git("tag", "--list", "--format=%(contents)", f"v{VERSION}", cwd=clone)
    changelog = (clone / "CHANGELOG.md").read_text("utf-8")
    section = changelog.split(f"## {VERSION} - 2031-02-03\n", 1)[1].split("\n## ", 1)[0].strip()
    assert message.strip() == f"cuda-template {VERSION}\n\n{section}"
    assert "### Added" in message  # git's default cleanup would have dropped it as a comment


def test_tests_run_before_the_tag_exists(clone: Path) -> None:
    write_section(clone)
    seen: list[list[str]] = []
    release.release(clone, VERSION, run_tests=lambda repo: seen.append(tags(repo)))
    assert seen == [[WORKING_TREE_TAG]]


def test_failing_tests_leave_no_tag(clone: Path) -> None:
    write_section(clone)
    with pytest.raises(release.ReleaseError, match="the full tests failed"):
        release.release(clone, VERSION, run_tests=failing_tests)
    assert tags(clone) == [WORKING_TREE_TAG]


def test_missing_section_names_the_heading_to_write(clone: Path) -> None:
    with pytest.raises(release.ReleaseError) as refused:
        release.release(clone, VERSION, run_tests=no_tests)
    assert str(refused.value).startswith(
        f"CHANGELOG.md has no section for {VERSION}: rename its '## Unreleased' heading to "
        f"'## {VERSION} - YYYY-MM-DD'"
    )
    assert tags(clone) == [WORKING_TREE_TAG]


def test_empty_section_is_refused() -> None:
    changelog = "# Changelog\n\n## Unreleased\n\n## 0.1.0 - 2031-02-03\n\n## 0.0.1\n\n- x\n"
    with pytest.raises(release.ReleaseError, match=r"section for 0\.1\.0 is empty"):
        release.changelog_section(changelog, "0.1.0")


def test_bracketed_heading_of_keep_a_changelog_is_found() -> None:
    changelog = "## [1.2.0] - 2031-02-03\n\n### Fixed\n\n- a thing\n\n## [1.1.0]\n\n- older\n"
    assert release.changelog_section(changelog, "1.2.0") == "### Fixed\n\n- a thing"


def test_uncommitted_change_is_refused(clone: Path) -> None:
    write_section(clone)
    (clone / "README.md").write_text("edited\n", "utf-8")
    with pytest.raises(release.ReleaseError, match="uncommitted changes or untracked files"):
        release.release(clone, VERSION, run_tests=no_tests)
    assert tags(clone) == [WORKING_TREE_TAG]


def test_untracked_file_is_refused(clone: Path) -> None:
    write_section(clone)
    (clone / "notes.txt").write_text("not committed\n", "utf-8")
    with pytest.raises(release.ReleaseError, match="uncommitted changes or untracked files"):
        release.release(clone, VERSION, run_tests=no_tests)


def test_version_not_above_the_newest_tag_is_refused(clone: Path) -> None:
    write_section(clone, "0.0.0")
    with pytest.raises(release.ReleaseError) as refused:
        release.release(clone, "0.0.0", run_tests=no_tests)
    assert str(refused.value) == (
        "0.0.0 is not above the newest release, v0.0.0: choose a higher version"
    )


def test_other_branch_is_refused(clone: Path) -> None:
    git("switch", "-q", "-c", "feature", cwd=clone)
    write_section(clone)
    with pytest.raises(release.ReleaseError, match="HEAD is on 'feature', not 'main'"):
        release.release(clone, VERSION, run_tests=no_tests)


def test_other_branch_is_allowed_when_asked(clone: Path) -> None:
    git("switch", "-q", "-c", "maint-0.x", cwd=clone)
    write_section(clone)
    assert release.release(clone, VERSION, any_branch=True, run_tests=no_tests) == f"v{VERSION}"


def test_command_line_refuses_a_malformed_version_and_tags_nothing(clone: Path) -> None:
    proc = subprocess.run(
        [sys.executable, str(clone / "tools" / "release.py"), "v1.2"],
        cwd=clone,
        capture_output=True,
        text=True,
        check=False,
    )
    assert (proc.returncode, proc.stderr) == (
        1,
        "release: 'v1.2' is not a SemVer version: give three numbers without a 'v', e.g. 1.4.0\n",
    )
    assert tags(clone) == [WORKING_TREE_TAG]


def test_command_line_prints_the_push_command(
    clone: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    write_section(clone)
    monkeypatch.setattr(release, "run_full_tests", no_tests)
    assert release.main([VERSION, "--repo", str(clone)]) == 0
    assert f"    git push --atomic origin main v{VERSION}\n" in capsys.readouterr().out


@given(st.tuples(st.integers(0, 10**6), st.integers(0, 10**6), st.integers(0, 10**6)))
def test_every_semver_core_version_parses_to_its_numbers(numbers: tuple[int, int, int]) -> None:
    assert release.parse_version(".".join(map(str, numbers))) == numbers


@given(st.text())
def test_anything_but_three_plain_numbers_is_refused(text: str) -> None:
    parts = text.split(".")
    plain = len(parts) == 3 and all(p.isascii() and p.isdigit() for p in parts)
    if plain and not any(len(p) > 1 and p.startswith("0") for p in parts):
        assert release.parse_version(text) == tuple(int(p) for p in parts)
    else:
        with pytest.raises(release.ReleaseError, match="is not a SemVer version"):
            release.parse_version(text)


def test_tags_that_are_not_semver_are_not_releases(clone: Path) -> None:
    for tag in ("v2.0", "latest", "v3.0.0-rc.1"):
        git("tag", tag, cwd=clone)
    assert release.released_versions(clone) == [(0, 0, 0)]
