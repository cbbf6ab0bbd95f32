"""One answer, the repository's address, gives every link, badge, publisher and image name."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import Render

FORGES: dict[str, dict[str, Any]] = {
    "github": {
        "answers": {"ci": "github", "repository_url": "https://github.com/Sci-Lab/Fast.Arrays"},
        "issues": "https://github.com/Sci-Lab/Fast.Arrays/issues",
        "changelog": "https://github.com/Sci-Lab/Fast.Arrays/blob/main/CHANGELOG.md",
        "badge": "https://github.com/Sci-Lab/Fast.Arrays/actions/workflows/ci.yml/badge.svg",
        "publisher": "Give the owner `Sci-Lab`, the repository `Fast.Arrays`, the workflow",
        "image": "ghcr.io/sci-lab/fast-arrays:latest",
    },
    "gitlab": {
        "answers": {"ci": "gitlab", "repository_url": "https://gitlab.com/lab/gpu/fast_arrays"},
        "issues": "https://gitlab.com/lab/gpu/fast_arrays/-/issues",
        "changelog": "https://gitlab.com/lab/gpu/fast_arrays/-/blob/main/CHANGELOG.md",
        "badge": "https://gitlab.com/lab/gpu/fast_arrays/badges/main/pipeline.svg",
        "publisher": "Give the namespace `lab/gpu`, the project `fast_arrays`, the top-level",
        "image": "registry.gitlab.com/lab/gpu/fast-arrays:latest",
    },
    # The CI on the other forge (a mirror): the links follow the host, and the CI badge, whose
    # page is on the CI's forge at an address the template cannot know, is left out.
    "gitlab-ci-for-a-github-repository": {
        "answers": {"ci": "gitlab", "repository_url": "https://github.com/Sci-Lab/Fast.Arrays"},
        "issues": "https://github.com/Sci-Lab/Fast.Arrays/issues",
        "changelog": "https://github.com/Sci-Lab/Fast.Arrays/blob/main/CHANGELOG.md",
        "badge": None,
        "publisher": "Give the namespace `Sci-Lab`, the project `Fast.Arrays`, the top-level",
        "image": "ghcr.io/sci-lab/fast-arrays:latest",
    },
    "github-actions-for-a-gitlab-repository": {
        "answers": {"ci": "github", "repository_url": "https://gitlab.com/lab/fast_arrays"},
        "issues": "https://gitlab.com/lab/fast_arrays/-/issues",
        "changelog": "https://gitlab.com/lab/fast_arrays/-/blob/main/CHANGELOG.md",
        "badge": None,
        "publisher": "Give the owner `lab`, the repository `fast_arrays`, the workflow",
        "image": "registry.gitlab.com/lab/fast-arrays:latest",
    },
    "self-hosted": {
        "answers": {"ci": "none", "repository_url": "https://code.lab.edu/lab/arrays"},
        "issues": "https://code.lab.edu/lab/arrays/issues",
        "changelog": "https://code.lab.edu/lab/arrays/blob/main/CHANGELOG.md",
        "badge": None,
        "publisher": None,
        "image": "my-gpu-project:latest",
    },
}


@pytest.fixture(scope="module", params=sorted(FORGES))
def forge(request: pytest.FixtureRequest, render: Render) -> tuple[Path, dict[str, Any]]:
    expected = FORGES[request.param]
    return render(expected["answers"], name=f"forge-{request.param}"), expected


def test_the_project_links_are_the_repositorys_pages(forge: tuple[Path, dict[str, Any]]) -> None:
    project, expected = forge
    urls = tomllib.loads((project / "pyproject.toml").read_text("utf-8"))["project"]["urls"]
    repository = expected["answers"]["repository_url"]
    assert urls["Homepage"] == urls["Source"] == repository
    assert urls["Issues"] == expected["issues"]
    assert urls["Changelog"] == expected["changelog"]
    assert urls["Documentation"] == "https://my-gpu-project.readthedocs.io/"
    assert "example.org" not in (project / "pyproject.toml").read_text("utf-8")


def test_the_readme_shows_the_ci_badge_and_names_the_trusted_publisher(
    forge: tuple[Path, dict[str, Any]],
) -> None:
    project, expected = forge
    readme = (project / "README.md").read_text("utf-8")
    assert (expected["badge"] is not None) == ("[![CI]" in readme or "[![pipeline]" in readme)
    if expected["badge"]:
        assert f"({expected['badge']})" in readme
    if expected["publisher"]:
        assert expected["publisher"] in " ".join(readme.split())
    docs_badge = "(https://readthedocs.org/projects/my-gpu-project/badge/?version=latest)"
    assert f"[![Documentation]{docs_badge}](https://my-gpu-project.readthedocs.io/)" in readme


def test_the_image_is_named_for_the_forges_registry(forge: tuple[Path, dict[str, Any]]) -> None:
    project, expected = forge
    compose = yaml.safe_load((project / "compose.yaml").read_text("utf-8"))
    assert compose["services"]["app"]["image"] == expected["image"]
    image = expected["image"].removesuffix(":latest")
    assert f"docker build --build-arg VERSION=1.2.0 -t {image} ." in (
        project / "README.md"
    ).read_text("utf-8")


def test_without_published_docs_there_is_no_documentation_link_and_no_rtd_file(
    render: Render,
) -> None:
    for answers in ({"docs": "none"}, {"docs": "sphinx", "docs_hosting": "none"}):
        project = render(answers, name=f"no-hosting-{answers['docs']}")
        urls = tomllib.loads((project / "pyproject.toml").read_text("utf-8"))["project"]["urls"]
        assert "Documentation" not in urls
        assert not (project / ".readthedocs.yaml").exists()
        assert "readthedocs" not in (project / "README.md").read_text("utf-8")


def test_read_the_docs_builds_as_the_docs_session_does(render: Render) -> None:
    project = render({"python_min": "3.12"}, name="rtd")
    config = yaml.safe_load((project / ".readthedocs.yaml").read_text("utf-8"))
    assert config["build"]["tools"]["python"] == "3.12"
    (install,) = config["build"]["jobs"]["install"]
    assert "uv sync --locked --no-default-groups --group docs" in install
    (html,) = config["build"]["jobs"]["build"]["html"]
    noxfile = (project / "noxfile.py").read_text("utf-8")
    # The session builds from nothing (it removes docs/_build first); Read the Docs does too.
    for flag in ("-W", "-n", "--keep-going"):
        assert f'"{flag}"' in noxfile
        assert f" {flag} " in html
