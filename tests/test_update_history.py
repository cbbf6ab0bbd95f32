"""`copier update` stays clean: from earlier versions of main, and across every template-owned file.

Two promises of docs/updating.md, tested end to end:

- A project rendered from an earlier commit of main (a sample, the first commit on) updates to
  this working tree with its user's files kept, without a conflict, into exactly what a fresh
  render with its answers gives; the oldest and the newest sampled still pass their own tests.
  Copier renders the project's old version with the *new* `_exclude`, in the *old* context,
  so a computed value newer than that version must be read with a default (copier.yml says
  which); `test_exclude_reads_newer_values_with_a_default` checks that rule without history.
- A project whose user added code only where docs/extending.md says (new files) takes a change
  to every file the template maintains without a conflict.
"""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import tarfile
import tomllib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
import pytest
import yaml
from conftest import (
    LAST_RELEASE,
    OWNED_MARKER,
    REPO_ROOT,
    WORKING_TREE_TAG,
    build_and_install,
    copy_template,
    copy_working_tree,
    git,
    parse_structured,
    project_files,
    run,
    snapshot_working_tree,
    update_project,
)
from jinja2 import nodes
from template_data import exclude_blocks, load_computed, python_support, questions

# The questions of the first commit of main: the oldest answers a project can hold. Every other
# name an `_exclude` block reads must carry a default; test_first_commit_asked_these_questions
# checks this list against history where the clone has it.
FIRST_COMMIT = "4773cf58e6906f733eaf64707f14da10451bf8d8"
FIRST_QUESTIONS = frozenset(
    {
        "project_name",
        "package_name",
        "distribution_name",
        "description",
        "author_name",
        "author_email",
        "license",
        "python_min",
        "cuda_major",
        "gpu_libraries",
        "docker",
        "ci",
        "docs",
    }
)


@dataclass(frozen=True)
class Sample:
    """An earlier commit of main that projects are rendered from, and why it is in the sample."""

    name: str
    commit: str
    why: str


# Chosen at the template's turning points rather than by count: each changed what a render holds
# or how copier.yml computes it, which is where an update from it can break.
SAMPLED = (
    Sample(
        "first",
        FIRST_COMMIT,
        "the first commit: Copier 9.7 floor, MkDocs, no GPU module, no computed values",
    ),
    Sample(
        "before-computed",
        "9c430f45ca3bd8676d8bbec5c42dd6749c9bf1c0",
        "the last before computed values (kernel_libraries, ships_cuda_source): the GPU module,"
        " kernels and doctor chosen by conditional file names",
    ),
    Sample(
        "exclude-blocks",
        "76e51bfbf5fda4ece7f0ba3f1540fefedc27070c",
        "the first with `_exclude` blocks beside the questions (Copier 9.18 floor)",
    ),
    Sample(
        "sphinx",
        "bd702a9c658a12763386773753778efd91ed8f46",
        "the first with the Sphinx site, the dask and devcontainer questions, escaped answers",
    ),
    Sample(
        "one-major",
        "1f44c3262d0bf4978c6c62277969b3b1a8dcdcab",
        "the last with one CUDA major per project (`cuda_major`), before an extra per major",
    ),
    Sample(
        "doctor-checks",
        "fd34ab2f15cb042fc7344359bb9bac530df4063f",
        "the GPU, kernels and doctor reviews merged: registered doctor checks, numba-cuda-mlir",
    ),
)
# What a change to the template's render reads; the previous version is the newest commit that
# differs here from the working tree.
TEMPLATE_INPUTS = ("copier.yml", "includes", "template")
NEW_TAG = "v1.0.0"
# The project's own tests run after the update for these samples (a build and an install each).
TESTED_SAMPLES = ("first", "previous")


def history_command(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *args], cwd=REPO_ROOT, capture_output=True, text=True, check=False
    )


def in_history(commit: str) -> bool:
    return history_command("cat-file", "-e", f"{commit}^{{commit}}").returncode == 0


def previous_version() -> str | None:
    """The newest commit on HEAD's first-parent line whose template differs from the working tree.

    In a fresh clone that is the version before the last merge; with uncommitted template edits,
    HEAD itself. None without history.
    """
    listed = history_command("rev-list", "--first-parent", "HEAD")
    for commit in listed.stdout.split() if listed.returncode == 0 else []:
        if history_command("diff", "--quiet", commit, "--", *TEMPLATE_INPUTS).returncode == 1:
            return commit
    return None


PREVIOUS = previous_version()
RELEASE = Sample(
    "release",
    LAST_RELEASE.commit,
    f"the last release, v{LAST_RELEASE.version}: the update a user runs next",
)
SAMPLES = (
    *(s for s in (*SAMPLED, RELEASE) if s.commit != PREVIOUS),
    Sample("previous", PREVIOUS or "", "the previous version: the last step every update takes"),
)
# The README's tier updates from the newest versions; `nox -s tests_full` from every sample.
SAMPLES_IN_TESTS = ("release", "previous")
SAMPLE_PARAMS = [
    pytest.param(s, id=s.name, marks=() if s.name in SAMPLES_IN_TESTS else pytest.mark.full)
    for s in SAMPLES
]
ANSWER_SETS = ("defaults", "all-options")


class _IgnoreIncludes(yaml.SafeLoader):
    """Reads a copier.yml of any version, its ``!include`` lines left unresolved."""


_IgnoreIncludes.add_constructor("!include", lambda loader, node: None)


def questions_at(commit: str) -> dict[str, Any]:
    """The questions the copier.yml of ``commit`` asks (settings and computed values left out)."""
    text = history_command("show", f"{commit}:copier.yml").stdout
    return {
        key: spec
        for document in yaml.load_all(text, _IgnoreIncludes)
        if isinstance(document, dict)
        for key, spec in document.items()
        if not key.startswith("_") and isinstance(spec, dict) and spec.get("when") is not False
    }


def all_options(asked: Mapping[str, Any]) -> dict[str, Any]:
    """Every library, every yes/no option on, and the newest Python floor (which every library's
    floor allows): the largest render a version's questions offer."""
    answers: dict[str, Any] = {}
    for name, spec in asked.items():
        # Choices computed by Jinja (cuda_majors) are left to their default: every one.
        if spec.get("multiselect") and isinstance(spec["choices"], dict):
            answers[name] = list(spec["choices"].values())
        elif spec.get("type") == "bool":
            answers[name] = True
    floors = asked["python_min"]["choices"]
    if isinstance(floors, str):  # derived by Jinja from includes/python-releases.yml
        floors = python_support().choices
    answers["python_min"] = max(floors, key=lambda v: tuple(map(int, v.split("."))))
    return answers


def answers_for(answer_set: str, asked: Mapping[str, Any]) -> dict[str, Any]:
    return {} if answer_set == "defaults" else all_options(asked)


# --- the user -------------------------------------------------------------------------------


def answers_file(project: Path) -> dict[str, Any]:
    recorded: dict[str, Any] = yaml.safe_load((project / ".copier-answers.yml").read_text("utf-8"))
    return recorded


def package_of(project: Path) -> str:
    return str(answers_file(project)["package_name"])


def user_files(package: str) -> dict[str, str]:
    """Code of the user's own, in new files where docs/extending.md puts it."""
    return {
        f"src/{package}/ops.py": (
            '"""Operations of my own, in a file the template does not own."""\n\n'
            "from __future__ import annotations\n\n\n"
            "def scale(values: list[float], factor: float) -> list[float]:\n"
            '    """Return each value times ``factor``."""\n'
            "    return [v * factor for v in values]\n"
        ),
        "tests/test_ops.py": (
            '"""Tests of my own operations."""\n\n'
            "from __future__ import annotations\n\n"
            f"from {package}.ops import scale\n\n\n"
            "def test_scale_multiplies_each_value() -> None:\n"
            "    assert scale([1.0, 2.5], 2.0) == [2.0, 5.0]\n"
        ),
        "benchmarks/my_benchmark.py": (
            '"""A benchmark of my own."""\n\n'
            "from __future__ import annotations\n\n"
            f"from {package}.ops import scale\n\n"
            'if __name__ == "__main__":\n'
            "    print(sum(scale([1.0] * 1000, 2.0)))\n"
        ),
        "docs/guide/my_page.md": "# My page\n\nWhat my operations do.\n",
    }


def commit_all(project: Path, message: str) -> None:
    git("add", "-A", cwd=project)
    git("commit", "-q", "-m", message, cwd=project)


def start_project(template: Path, project: Path, answers: Mapping[str, Any], ref: str) -> None:
    """Render, commit, add the user's files and commit them: a project as its user keeps it."""
    copy_template(template, project, answers, ref)
    git("init", "-q", "-b", "main", cwd=project)
    commit_all(project, f"render {ref}")
    for rel, text in user_files(package_of(project)).items():
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_text(text, "utf-8")
    commit_all(project, "my code")


CONFLICT_MARK = re.compile(r"^(<{7}|>{7})( |$)", re.MULTILINE)


def conflicts(project: Path) -> list[str]:
    """Files left with a rejected hunk or inline conflict markers."""
    return [
        rel
        for rel, data in project_files(project).items()
        if rel.endswith(".rej") or CONFLICT_MARK.search(data.decode("utf-8", "replace"))
    ]


def changed_user_files(project: Path) -> list[str]:
    return [
        rel
        for rel, text in user_files(package_of(project)).items()
        if not (project / rel).is_file() or (project / rel).read_text("utf-8") != text
    ]


# --- 1. updates from earlier versions of main --------------------------------------------------


def test_exclude_reads_newer_values_with_a_default() -> None:
    """Every name an `_exclude` block reads bare (no default, no `is defined` guard) is an answer
    the first version already had."""

    def bare_names(block: str) -> set[str]:
        tree = jinja2.Environment().parse(block)
        defaulted = {
            id(f.node)
            for f in tree.find_all(nodes.Filter)
            if f.name == "default" and isinstance(f.node, nodes.Name)
        }
        bound = {n.name for n in tree.find_all(nodes.Name) if n.ctx != "load"}
        # `examples is defined and ...` guards every later read of the name in the block.
        guarded = {
            t.node.name
            for t in tree.find_all(nodes.Test)
            if t.name == "defined" and isinstance(t.node, nodes.Name)
        }
        return {
            n.name
            for n in tree.find_all(nodes.Name)
            if n.ctx == "load" and id(n) not in defaulted and n.name not in bound | guarded
        }

    read_bare = {name: block for block in exclude_blocks() for name in bare_names(block)}
    assert sorted(set(read_bare) - FIRST_QUESTIONS) == []


@pytest.mark.skipif(not in_history(FIRST_COMMIT), reason="the first commit is not in this clone")
def test_first_commit_asked_these_questions() -> None:
    assert set(questions_at(FIRST_COMMIT)) == FIRST_QUESTIONS
    assert set(questions()) >= FIRST_QUESTIONS - set(RETIRED)


# Questions no longer asked, and the answer that reads theirs on `copier update`.
RETIRED = {"cuda_major": "cuda_majors"}


def test_a_retired_questions_answer_is_read_by_the_question_that_replaced_it() -> None:
    for old, new in RETIRED.items():
        assert old not in questions()
        assert f"{old} is defined" in str(questions()[new]["default"])


def extract_commit(commit: str, dst: Path) -> None:
    """The tree of ``commit`` as files in ``dst`` (``git archive``, no history)."""
    archive = subprocess.run(
        ["git", "archive", "--format=tar", commit], cwd=REPO_ROOT, capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        # Extraction filters came in 3.11.4 (and 3.10.12): Debian's 3.11.2 lacks them. The
        # archive is this repository's own history, so the plain extraction is as safe there.
        if hasattr(tarfile, "data_filter"):
            tar.extractall(dst, filter="data")
        else:
            tar.extractall(dst)


@dataclass(frozen=True)
class HistoryTemplate:
    """A template repository: each available sample tagged in history order, then this tree."""

    repo: Path
    tags: dict[str, str]  # sample name -> tag


@pytest.fixture(scope="module")
def history_template(tmp_path_factory: pytest.TempPathFactory) -> HistoryTemplate:
    repo = tmp_path_factory.mktemp("history") / "template"
    repo.mkdir()
    git("init", "-q", "-b", "main", cwd=repo)
    available = [s for s in SAMPLES if s.commit and in_history(s.commit)]
    order = history_command("rev-list", "--reverse", "--first-parent", "HEAD").stdout.split()
    available.sort(key=lambda s: order.index(s.commit) if s.commit in order else -1)
    tags: dict[str, str] = {}
    for minor, sample in enumerate(available, start=1):
        git("rm", "-rq", "--ignore-unmatch", ".", cwd=repo)
        extract_commit(sample.commit, repo)
        git("add", "-A", "--force", cwd=repo)  # exactly the commit's files, ignored or not
        git("commit", "-q", "--allow-empty", "-m", f"{sample.name}: {sample.commit}", cwd=repo)
        tags[sample.name] = f"v0.{minor}.0"
        git("tag", tags[sample.name], cwd=repo)
    git("rm", "-rq", "--ignore-unmatch", ".", cwd=repo)
    copy_working_tree(repo)
    commit_all(repo, "this working tree")
    git("tag", NEW_TAG, cwd=repo)
    return HistoryTemplate(repo, tags)


@dataclass(frozen=True)
class Updated:
    """A project rendered from a sample, given its user's files, then updated to NEW_TAG."""

    project: Path
    answers: dict[str, Any]


@pytest.fixture(scope="module")
def updated_from(
    history_template: HistoryTemplate, tmp_path_factory: pytest.TempPathFactory
) -> Callable[[Sample, str], Updated]:
    done: dict[tuple[str, str], Updated] = {}

    def _updated(sample: Sample, answer_set: str) -> Updated:
        if sample.name not in history_template.tags:
            where = sample.commit[:7] or "no commit"
            pytest.skip(f"{sample.name} ({where}) is not in this clone's history")
        key = (sample.name, answer_set)
        if key not in done:
            answers = answers_for(answer_set, questions_at(sample.commit))
            project = tmp_path_factory.mktemp(f"{sample.name}-{answer_set}") / "project"
            tag = history_template.tags[sample.name]
            start_project(history_template.repo, project, answers, tag)
            update_project(project, NEW_TAG)
            done[key] = Updated(project, answers)
        return done[key]

    return _updated


@pytest.mark.slow
@pytest.mark.parametrize("answer_set", ANSWER_SETS)
@pytest.mark.parametrize("sample", SAMPLE_PARAMS)
def test_update_from_an_earlier_version_is_a_fresh_render_plus_the_users_files(
    sample: Sample,
    answer_set: str,
    updated_from: Callable[[Sample, str], Updated],
    history_template: HistoryTemplate,
    tmp_path: Path,
) -> None:
    project = updated_from(sample, answer_set).project
    assert answers_file(project)["_commit"] == NEW_TAG
    assert conflicts(project) == []
    assert changed_user_files(project) == []
    # Nothing of the old version is left behind, and every file is the new version's.
    answers = {k: v for k, v in answers_file(project).items() if not k.startswith("_")}
    fresh = copy_template(history_template.repo, tmp_path / "fresh", answers, NEW_TAG)
    mine = set(user_files(package_of(project)))
    have = {rel: data for rel, data in project_files(project).items() if rel not in mine}
    want = project_files(fresh)
    for files in (have, want):
        files.pop(".copier-answers.yml")
    assert sorted(set(have) ^ set(want)) == []
    assert [rel for rel in want if have[rel] != want[rel]] == []


# The answers that hold what the release rendered before each was a question, and a few of the
# files each keeps: a project updated from the release keeps them all, a new one starts without.
KEPT_BY_AN_UPDATE = {
    "benchmarks": ["benchmarks/kernels.py", "benchmarks/import_cost.py"],
    # The release's tests/test_kernels_large.py is now a file per route.
    "deep_checks": [
        "tests/large_arrays.py",
        "tests/test_large_numba.py",
        "tests/test_kernels_numba_ptx.py",
    ],
    "multi_gpu": ["src/{package}/gpu/multi.py", "src/{package}/gpu/_multiprocessing.py"],
    # The release predates the workflow, which every render had from then until the question:
    # the update brings it as before.
    "template_updates": [".github/workflows/template-update.yml"],
}


@pytest.mark.slow
@pytest.mark.parametrize("answer", sorted(KEPT_BY_AN_UPDATE))
def test_an_update_from_the_last_release_keeps_what_each_new_answer_holds(
    updated_from: Callable[[Sample, str], Updated], answer: str
) -> None:
    release = next(s for s in SAMPLES if s.commit == LAST_RELEASE.commit)
    project = updated_from(release, "defaults").project
    assert answers_file(project)[answer] is True
    kept = [rel.format(package=package_of(project)) for rel in KEPT_BY_AN_UPDATE[answer]]
    assert [rel for rel in kept if not (project / rel).is_file()] == []
    if answer == "multi_gpu":  # the release's gpu.devices, use_device, free_memory, mp_context
        init = (project / kept[0]).with_name("__init__.py").read_text("utf-8")
        assert '__all__ += ["devices", "free_memory", "use_device"]' in init
        assert '__all__ += ["cuda_may_be_initialised", "fork_hazard", "mp_context"]' in init


@pytest.mark.slow
def test_a_page_the_release_listed_in_the_index_survives_the_update(
    history_template: HistoryTemplate, tmp_path: Path
) -> None:
    release = next(s for s in SAMPLES if s.commit == LAST_RELEASE.commit)
    if release.name not in history_template.tags:
        pytest.skip(f"{release.name} is not in this clone's history")
    project = tmp_path / "project"
    copy_template(history_template.repo, project, {}, history_template.tags[release.name])
    git("init", "-q", "-b", "main", cwd=project)
    commit_all(project, "render the release")
    # As the release's docs said: a page of one's own is listed in docs/index.md's toctree.
    (project / "docs" / "tuning.md").write_text("# Tuning\n\nWhat we tuned.\n", "utf-8")
    index = project / "docs" / "index.md"
    index.write_text(
        index.read_text("utf-8").replace("extending\n", "extending\ntuning\n"), "utf-8"
    )
    commit_all(project, "my page")
    update_project(project, NEW_TAG)
    assert conflicts(project) == []
    assert "tuning" in index.read_text("utf-8").split()


@pytest.mark.full  # an older sample's update
@pytest.mark.parametrize("answer_set", ANSWER_SETS)
def test_an_update_from_a_one_major_version_keeps_its_one_extra(
    answer_set: str, updated_from: Callable[[Sample, str], Updated]
) -> None:
    sample = next(s for s in SAMPLES if s.name == "one-major")
    project = updated_from(sample, answer_set).project
    answers = answers_file(project)
    # The old answer's major (the newest of the matrix, its default), now a chosen set of one.
    newest = max(int(major) for major in load_computed("cuda_matrix")["majors"])
    assert (answers["cuda_every_major"], answers["cuda_majors"]) == (False, [newest])
    pyproject = tomllib.loads((project / "pyproject.toml").read_text("utf-8"))
    extras = pyproject["project"].get("optional-dependencies", {})
    assert [extra for extra in extras if extra.startswith("cuda")] == [f"cuda{newest}"]
    assert "conflicts" not in pyproject.get("tool", {}).get("uv", {})


@pytest.mark.slow
@pytest.mark.parametrize(
    "name",
    [pytest.param(n, marks=pytest.mark.full if n == "first" else ()) for n in TESTED_SAMPLES],
)
def test_project_tests_pass_after_the_update(
    name: str, updated_from: Callable[[Sample, str], Updated], tmp_path: Path
) -> None:
    sample = next(s for s in SAMPLES if s.name == name)
    updated = updated_from(sample, "defaults")
    # A copy to build in: the update's own checks compare the project file for file.
    project = tmp_path / "project"
    shutil.copytree(updated.project, project, symlinks=True)
    built = build_and_install(project, updated.answers)
    pytest_cmd = [str(built.venv_python), "-m", "pytest", "-p", "no:cacheprovider", "-q"]
    out = run(pytest_cmd, cwd=built.project)
    assert " passed" in out
    assert " failed" not in out
    assert "1 passed" in run([*pytest_cmd, "tests/test_ops.py"], cwd=built.project)


# --- 2. a template change to every file the template owns -------------------------------------

# Until every owned file carries the marker: the folders the template maintains.
OWNED_FOLDERS = tuple(
    f"template/{folder}"
    for folder in (
        "src/{{ package_name }}/gpu",
        "src/{{ package_name }}/doctor",
        "src/{{ package_name }}/kernels",
        "tests",
    )
)
# A line that stays valid in a file of each kind, by the rendered file's suffix (or name).
COMMENT = {
    **dict.fromkeys((".py", ".pyi", ".toml", ".yml", ".yaml", ".cfg", ".sh", ".txt"), "# {}"),
    **dict.fromkeys(("Dockerfile", ".gitignore", ".dockerignore", ".gitattributes"), "# {}"),
    **dict.fromkeys((".cu", ".cuh", ".cpp", ".hpp"), "// {}"),
    ".md": "<!-- {} -->",
}
EDIT_TAG = "v0.0.1"


def owned_template_files(template: Path) -> list[str]:
    """The template's own files (paths under the template root): those with the marker when any
    has it, else everything in the folders it maintains."""
    files = sorted(p for p in (template / "template").rglob("*") if p.is_file())
    marked = [p for p in files if OWNED_MARKER in p.read_text("utf-8", errors="replace")]
    chosen = marked or [
        p for p in files if any(p.is_relative_to(template / folder) for folder in OWNED_FOLDERS)
    ]
    return [p.relative_to(template).as_posix() for p in chosen]


def rendered_path(template_path: str, package: str) -> str:
    """Where a template file lands in a project."""
    rel = template_path.removeprefix("template/").replace("{{ package_name }}", package)
    return rel.removesuffix(".jinja")


def edit_line(template_path: str, index: int) -> str:
    rendered = Path(rendered_path(template_path, "pkg"))
    kind = rendered.suffix or rendered.name
    assert kind in COMMENT, f"no comment syntax known for {template_path}: add its kind"
    return COMMENT[kind].format(f"cuda-template {EDIT_TAG} edit {index:03d}")


@dataclass(frozen=True)
class OwnedUpdate:
    """Projects rendered from v0.0.0 with the user's files, updated to a version that appends a
    line to every owned file."""

    edits: dict[str, str]  # template path -> the line appended
    projects: dict[str, Path]  # answer set -> project


@pytest.fixture(scope="module")
def owned_update(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OwnedUpdate]:
    root = tmp_path_factory.mktemp("owned-update")
    template = snapshot_working_tree(root / "template")
    projects: dict[str, Path] = {}
    for answer_set in ANSWER_SETS:
        answers = answers_for(answer_set, questions())
        if answer_set != "defaults":
            answers["ci"] = "gitlab"  # github's files are in the defaults render
            answers["extension"] = "cuda-cpp"  # a choice, which all_options leaves at none
        projects[answer_set] = root / answer_set
        start_project(template, projects[answer_set], answers, WORKING_TREE_TAG)
    edits = {path: edit_line(path, i) for i, path in enumerate(owned_template_files(template))}
    for path, line in edits.items():
        text = (template / path).read_text("utf-8")
        (template / path).write_text(text + ("" if text.endswith("\n") else "\n") + line + "\n")
    commit_all(template, "every owned file changes")
    git("tag", EDIT_TAG, cwd=template)
    for project in projects.values():
        update_project(project, EDIT_TAG)
    yield OwnedUpdate(edits, projects)
    shutil.rmtree(root)


@pytest.mark.slow
def test_the_owned_files_are_found(owned_update: OwnedUpdate) -> None:
    rendered = {rendered_path(path, "pkg") for path in owned_update.edits}
    assert {"src/pkg/gpu/__init__.py", "src/pkg/doctor/__init__.py"} <= rendered
    assert any(rel.startswith("tests/") for rel in rendered)


@pytest.mark.slow
def test_every_owned_file_is_in_a_tested_render(owned_update: OwnedUpdate) -> None:
    projects = owned_update.projects.values()
    missing = [
        path
        for path in owned_update.edits
        if not any((p / rendered_path(path, package_of(p))).is_file() for p in projects)
    ]
    assert missing == []


@pytest.mark.slow
@pytest.mark.parametrize("answer_set", ANSWER_SETS)
def test_every_owned_file_takes_the_change(owned_update: OwnedUpdate, answer_set: str) -> None:
    project = owned_update.projects[answer_set]
    package = package_of(project)
    missed, broken = [], []
    for path, line in owned_update.edits.items():
        target = project / rendered_path(path, package)
        if not target.is_file():
            continue  # not in this render (test_every_owned_file_is_in_a_tested_render)
        if line not in target.read_text("utf-8").splitlines():
            missed.append(path)
        try:
            parse_structured(target)  # the appended line keeps the file valid
        except (SyntaxError, ValueError, yaml.YAMLError):
            broken.append(path)
    assert missed == []
    assert broken == []


@pytest.mark.slow
@pytest.mark.parametrize("answer_set", ANSWER_SETS)
def test_a_change_to_every_owned_file_leaves_no_conflict(
    owned_update: OwnedUpdate, answer_set: str
) -> None:
    assert conflicts(owned_update.projects[answer_set]) == []


@pytest.mark.slow
@pytest.mark.parametrize("answer_set", ANSWER_SETS)
def test_the_users_files_are_untouched_by_the_change(
    owned_update: OwnedUpdate, answer_set: str
) -> None:
    project = owned_update.projects[answer_set]
    assert changed_user_files(project) == []
    assert answers_file(project)["_commit"] == EDIT_TAG
