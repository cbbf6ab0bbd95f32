"""The rendered project's release path, lock-file image and dev container, checked offline.

Nothing is published, built into an image or started here (no registry credentials, no container
engine): these tests hold the files to what the README promises. `test_sessions.py` runs the
`build` session the release workflow calls.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import REPO_ROOT, Render, committed, git, run, tool
from template_data import load_computed

MATRIX = load_computed("cuda_matrix")
PINS = load_computed("pins")
DEVCONTAINER_SCHEMA = REPO_ROOT / "tests" / "schemas" / "devContainer.base.schema.json"


@pytest.fixture(scope="module")
def github(render: Render) -> Path:
    return render({"ci": "github", "devcontainer": True}, name="release-github")


@pytest.fixture(scope="module")
def gitlab(render: Render) -> Path:
    return render({"ci": "gitlab"}, name="release-gitlab")


def release_jobs(project: Path) -> dict[str, Any]:
    workflow = yaml.safe_load((project / ".github/workflows/release.yml").read_text("utf-8"))
    jobs: dict[str, Any] = workflow["jobs"]
    return jobs


def test_release_builds_once_with_the_build_session_and_keeps_the_files(github: Path) -> None:
    steps = release_jobs(github)["dist"]["steps"]
    assert [s["run"] for s in steps if "run" in s] == [f"uvx nox@{PINS['tools']['nox']} -s build"]
    upload = next(s for s in steps if s.get("uses", "").startswith("actions/upload-artifact@"))
    assert upload["with"]["path"] == "dist/"
    assert "def build(session" in (github / "noxfile.py").read_text("utf-8")


def test_release_publishes_only_a_published_release_by_trusted_publishing(github: Path) -> None:
    publish = release_jobs(github)["publish"]
    assert publish["needs"] == "dist"
    assert publish["if"] == "github.event_name == 'release'"
    assert publish["environment"]["name"] == "pypi"
    uses = [s["uses"] for s in publish["steps"]]
    assert uses == [
        PINS["actions"]["download-artifact"].split(" #")[0],
        PINS["actions"]["attest-build-provenance"].split(" #")[0],
        PINS["actions"]["pypi-publish"].split(" #")[0],
    ]
    # Trusted publishing: no password, token or secret anywhere in the job.
    assert "secrets." not in yaml.safe_dump(publish)
    assert "password" not in yaml.safe_dump(publish)


def test_release_attests_the_files_it_publishes(github: Path) -> None:
    steps = release_jobs(github)["publish"]["steps"]
    download, attest = steps[0], steps[1]
    assert download["with"]["path"] == "dist/"
    assert attest["with"]["subject-path"] == "dist/*"


def test_gitlab_publishes_the_checked_files_on_tags_by_trusted_publishing(gitlab: Path) -> None:
    ci = yaml.safe_load((gitlab / ".gitlab-ci.yml").read_text("utf-8"))
    assert ci["build"]["artifacts"]["paths"] == ["dist/"]
    publish = ci["publish"]
    assert publish["needs"] == ["build"]
    assert publish["rules"] == [{"if": "$CI_COMMIT_TAG"}]
    assert publish["id_tokens"] == {"PYPI_ID_TOKEN": {"aud": "pypi"}}
    assert publish["script"] == ["uv publish --trusted-publishing always dist/*"]
    assert {"if": "$CI_COMMIT_TAG"} in ci["workflow"]["rules"]


@pytest.mark.parametrize("answers", [{}, {"gpu_libraries": []}], ids=["gpu", "cpu-only"])
def test_dockerfile_installs_from_the_lock_file_only(
    render: Render, answers: dict[str, Any]
) -> None:
    project = render(answers, name="docker-lock")
    dockerfile = (project / "Dockerfile").read_text("utf-8")
    syncs = [line for line in dockerfile.splitlines() if "uv sync" in line]
    assert len(syncs) == 2
    assert all("--locked" in line and "--no-dev" in line for line in syncs)
    assert "uv pip install" not in dockerfile
    assert "source=uv.lock" in dockerfile
    assert all(('--extra "cuda${CUDA_MAJOR}"' in line) == bool(answers == {}) for line in syncs)


def test_devcontainer_matches_the_dev_container_schema(github: Path) -> None:
    run(
        [
            tool("check-jsonschema"),
            "--schemafile",
            str(DEVCONTAINER_SCHEMA),
            ".devcontainer/devcontainer.json",
        ],
        cwd=github,
    )


def test_devcontainer_uses_the_gpu_when_present_and_runs_without(github: Path) -> None:
    config = yaml.safe_load((github / ".devcontainer/devcontainer.json").read_text("utf-8"))
    assert config["hostRequirements"]["gpu"] == "optional"
    assert "runArgs" not in config  # --gpus=all would refuse to start on a host without a GPU
    command = config["postCreateCommand"]
    assert "nvidia-smi --list-gpus" in command
    assert "else uv sync; fi" in command


def test_devcontainer_image_is_the_newest_majors_and_passes_hadolint(github: Path) -> None:
    # The render serves every major; the dev container takes the newest's image and extra.
    newest = max(MATRIX["majors"], key=int)
    image = MATRIX["majors"][newest]["image"]
    config = yaml.safe_load((github / ".devcontainer/devcontainer.json").read_text("utf-8"))
    assert f"uv sync --extra cuda{newest};" in config["postCreateCommand"]
    dockerfile = github / ".devcontainer" / "Dockerfile"
    assert f"ARG CUDA_IMAGE={image}\n" in dockerfile.read_text("utf-8")
    run([tool("hadolint"), "--failure-threshold", "style", str(dockerfile)], cwd=github)


def test_devcontainer_is_left_out_unless_asked_for(gitlab: Path) -> None:
    assert not (gitlab / ".devcontainer").exists()


@pytest.mark.slow  # builds a wheel
def test_a_source_archive_of_a_tag_builds_with_the_tags_version(
    render: Render, tmp_path: Path
) -> None:
    project = render({}, name="archive")
    committed(project)
    git("tag", "-a", "v1.2.3", "-m", "release 1.2.3", cwd=project)
    archive = tmp_path / "archive.tar"
    git("archive", "--format=tar", f"--output={archive}", "v1.2.3", cwd=project)
    unpacked = tmp_path / "unpacked"
    unpacked.mkdir()
    run(["tar", "-xf", str(archive), "-C", str(unpacked)], cwd=tmp_path)
    assert not (unpacked / ".git").exists()
    assert "$Format" not in (unpacked / ".git_archival.txt").read_text("utf-8")
    run(["uv", "build", "--wheel", "--quiet", "--out-dir", str(tmp_path / "dist")], cwd=unpacked)
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    assert wheel.name.split("-")[1] == "1.2.3"
