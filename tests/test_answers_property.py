"""Accepted answers make a green project; refused answers get a message and write nothing.

Hypothesis generates the free-text answers (names of every length the validators allow, every
character class, descriptions full of YAML, TOML, Markdown and Python specials); each answer set
is rendered with Copier and then either refused or checked in every format it lands in.
Answers that are not generated take their defaults (CuPy and Numba, Docker, GitHub CI, Sphinx).
"""

from __future__ import annotations

import ast
import html.parser
import os
import re
import shutil
import subprocess
import sys
import tomllib
import unicodedata
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import (
    ALL_LIBRARIES,
    MAJORS,
    REPO_ROOT,
    WORKING_TREE_TAG,
    Render,
    build_and_install,
    committed,
    copier_questions,
    copier_settings,
    copy_template,
    git,
    parse_structured,
    run,
    update_project,
)
from hypothesis import HealthCheck, assume, event, example, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from template_data import python_support
from validate_pyproject import api as validate_pyproject_api

# In CI every run tries the same examples (a red build must be reproducible); locally each run
# explores new ones. How many: the hypothesis profile (tests/conftest.py), 10 by default and
# 100 in `nox -s tests_full`; `--hypothesis-profile=full` asks for the longer hunt anywhere.
IN_CI = bool(os.environ.get("CI"))
TOOLS = Path(sys.executable).parent
MAX_NAME: int = copier_settings()["max_name_length"]["default"]

# Words and characters that mean something in one of the formats the answers land in.
SPECIALS = [
    "yes", "no", "null", "~", "on", "off", "true", "NaN", "0x1F", "1e3", ": ", " #", "#", "-",
    "* ", "!", "!!! note", "&", "&amp;", "%", "@", "`", "```", "\\", "\\n", '"', '"""', "'", "<b>",
    "[link](u)", "_x_", "|", "{{ x }}", "{%", "$HOME", "1. ", "> ", "---", "~~~", "[TOC]", "This",
    "Returns", "é", "数据处理", "Ⅻ", "\N{EN DASH}", "😀", "\N{CYRILLIC SMALL LETTER A}",
]  # fmt: skip
# Mostly answers a person could mean (printable, no surrounding spaces), so that most sets are
# accepted and checked; the rest anything at all (control characters, odd spaces), to be refused.
CLEAN_CHARS = st.characters(codec="utf-8", categories=["L", "M", "N", "P", "S"]) | st.just(" ")
CLEAN = (
    st.lists(
        st.sampled_from(SPECIALS) | st.text(CLEAN_CHARS, min_size=1, max_size=20),
        min_size=1,
        max_size=4,
    )
    .map("".join)
    .map(str.strip)
    .filter(bool)
)
ANY_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=40)
FREE_TEXT = st.one_of(
    CLEAN, CLEAN, CLEAN, st.lists(st.sampled_from(SPECIALS) | ANY_TEXT).map("".join)
)
LOWER = "abcdefghijklmnopqrstuvwxyz"
PACKAGE = st.builds(
    str.__add__, st.sampled_from(LOWER), st.text(LOWER + "0123456789_", max_size=MAX_NAME - 1)
)
# The modules a render puts on sys.path, read off the template tree (not off the list copier.yml
# keeps): a package of one of these names would shadow it, so it must be refused.
TREE_MODULES = sorted(
    {
        path.name.split(".")[0]
        for folder in ("template/tests", "template/benchmarks", "template", "tests/owned")
        for path in (REPO_ROOT / folder).glob("*.py*")
    }
    | {"tests", "benchmarks", "docs"}
)
DISTRIBUTION = st.builds(
    lambda first, middle, last: first + middle + last,
    st.sampled_from(LOWER + LOWER.upper() + "0123456789"),
    st.text(LOWER + LOWER.upper() + "0123456789._-", max_size=MAX_NAME - 2),
    st.sampled_from(["", *LOWER, "9"]),
)


# Free text near each cap, in characters as wide as two columns and ones that need an escape:
# what decides whether an answer's line in docs/conf.py still fits ruff's 100 columns.
CAPS = {"project_name": 80, "author_name": 100, "description": 200}
WIDE_OR_ESCAPED = st.sampled_from([*"abcXYZ  ", "é", "汉", "😀", '"', "'", "\\"])


def near_cap(key: str) -> st.SearchStrategy[str]:
    cap = CAPS[key]
    return st.text(WIDE_OR_ESCAPED, min_size=cap // 2, max_size=cap + 5).map(str.strip).filter(bool)


# Project names a package name is derived from: Latin letters with accents, leading digits.
DERIVABLE = st.builds(
    "{}{} {}".format,
    st.text("0123456789", max_size=3),
    st.sampled_from(["Café", "Über", "Ærø", "Łódź", "Straße", "Ĳssel", "D"]),
    st.sampled_from(["Tools", "Solver", "ñandú", "x"]),
)


# Owner, group and repository names as the forges allow them (dots, dashes, underscores inside).
SEGMENT = st.from_regex(r"[A-Za-z0-9]([A-Za-z0-9_.-]{0,20}[A-Za-z0-9])?", fullmatch=True)
REPOSITORY = st.builds(
    lambda host, path: f"https://{host}/{'/'.join(path)}",
    st.sampled_from(["github.com", "gitlab.com", "code.lab.edu", "git.lab.edu:8443"]),
    st.lists(SEGMENT, min_size=2, max_size=2),
)


@st.composite
def answer_sets(draw: st.DrawFn) -> dict[str, Any]:
    """Some answers generated, the others left to their defaults.

    Three sets in four are answers a person could mean, so most renders are checked; the fourth
    may hold anything at all (control characters, odd spaces, bad names), to be refused.
    """
    meant = draw(st.integers(0, 3)) > 0
    text = CLEAN if meant else FREE_TEXT
    answers: dict[str, Any] = {}
    derived = False
    if draw(st.booleans()):
        derived = meant and draw(st.booleans())
        answers["project_name"] = draw(DERIVABLE if derived else text)
    # A project name without Latin letters or digits derives no package name: a person answers one.
    if not derived and (draw(st.booleans()) or (meant and "project_name" in answers)):
        package = st.one_of(PACKAGE, PACKAGE, PACKAGE, st.sampled_from(TREE_MODULES))
        answers["package_name"] = draw(package if meant else st.one_of(package, ANY_TEXT))
    if draw(st.booleans()):
        answers["distribution_name"] = draw(
            DISTRIBUTION if meant else st.one_of(DISTRIBUTION, ANY_TEXT)
        )
    for key in ("description", "author_name"):
        if draw(st.booleans()):
            answers[key] = draw(near_cap(key) if draw(st.booleans()) else text)
    if "project_name" not in answers and draw(st.integers(0, 3)) == 0:
        answers["project_name"], answers["package_name"] = draw(near_cap("project_name")), "p"
    if draw(st.booleans()):
        answers["repository_url"] = draw(REPOSITORY if meant else st.one_of(REPOSITORY, ANY_TEXT))
    if draw(st.booleans()):
        answers["author_email"] = draw(st.emails() if meant else st.one_of(st.emails(), ANY_TEXT))
    return answers


class _TextOf(html.parser.HTMLParser):
    """The text of the first element of one tag in an HTML fragment."""

    def __init__(self, tag: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tag, self.depth, self.done, self.parts = tag, 0, False, list[str]()

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        self.depth += tag == self.tag and not self.done

    def handle_endtag(self, tag: str) -> None:
        if tag == self.tag and self.depth:
            self.depth, self.done = 0, True

    def handle_data(self, data: str) -> None:
        if self.depth:
            self.parts.append(data)


def text_of(html_text: str, tag: str) -> str:
    parser = _TextOf(tag)
    parser.feed(html_text)
    return "".join(parser.parts)


COMMONMARK = MarkdownIt("commonmark").enable(["strikethrough", "table"])


def as_html(markdown_text: str) -> dict[str, str]:
    """The Markdown as CommonMark renders it: GitHub's dialect and MyST's (Sphinx) base parser."""
    return {"commonmark": COMMONMARK.render(markdown_text)}


def ruff(project: Path, *args: str) -> None:
    found = TOOLS / "ruff"
    run([str(found) if found.exists() else "ruff", *args, "--no-cache", "."], cwd=project)


def ascii_spelling(name: str) -> str:
    """The letters and digits of ``name`` in ASCII, as Unicode decomposes them (``py`` first
    where that starts with a digit): what a derived package name holds but its underscores."""
    spelt: dict[str, str | int | None] = {"ß": "ss", "æ": "ae", "ø": "o", "ł": "l"}
    lowered = name.lower().translate(str.maketrans(spelt))
    kept = "".join(c for c in unicodedata.normalize("NFKD", lowered) if c.isascii() and c.isalnum())
    return "py" + kept if kept[:1].isdigit() else kept


def check_accepted(project: Path, answers: dict[str, Any]) -> None:
    """Every claim about an accepted answer set; a failure names the file and the answer."""
    recorded = yaml.safe_load((project / ".copier-answers.yml").read_text("utf-8"))
    assert {key: recorded[key] for key in answers} == answers
    for path in sorted(p for p in project.rglob("*") if p.is_file()):
        parse_structured(path)
    ruff(project, "check", "--quiet")
    ruff(project, "format", "--check", "--quiet")

    pyproject = tomllib.loads((project / "pyproject.toml").read_text("utf-8"))
    validate_pyproject_api.Validator()(pyproject)
    meta = pyproject["project"]
    assert meta["urls"]["Source"] == recorded["repository_url"]
    assert meta["description"] == recorded["description"]
    assert meta["authors"] == [{"name": recorded["author_name"], "email": recorded["author_email"]}]

    if recorded["docs"] != "none":
        conf = ast.parse((project / "docs" / "conf.py").read_text("utf-8"))
        assigned = {
            target.id: ast.literal_eval(node.value)
            for node in conf.body
            if isinstance(node, ast.Assign)
            for target in node.targets
            if isinstance(target, ast.Name) and target.id in {"project", "author"}
        }
        assert assigned == {"project": recorded["project_name"], "author": recorded["author_name"]}

    for page in ("README.md", "docs/index.md"):
        for renderer, rendered in as_html((project / page).read_text("utf-8")).items():
            where = f"{page} through {renderer}"
            assert text_of(rendered, "h1") == recorded["project_name"], where
            assert text_of(rendered, "p") == recorded["description"], where

    if "package_name" not in answers and "project_name" in answers:
        assert recorded["package_name"].replace("_", "") == ascii_spelling(answers["project_name"])

    docstring = ast.get_docstring(
        ast.parse((project / "src" / recorded["package_name"] / "__init__.py").read_text("utf-8"))
    )
    assert docstring is not None
    paragraph = " ".join(docstring.split("\n\n")[1].split())
    assert paragraph.rstrip(".") == " ".join(recorded["description"].split()).rstrip(".")

    dockerfile = (project / "Dockerfile").read_text("utf-8")
    label = re.search(r'image\.description="((?:[^"\\]|\\.)*)"', dockerfile)
    assert label is not None
    assert re.sub(r"\\(.)", r"\1", label.group(1)) == recorded["description"]

    image = yaml.safe_load((project / "compose.yaml").read_text("utf-8"))["services"]["app"]
    # Docker's reference grammar: a registry host, then path components, then the tag.
    component = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
    registry = r"(?:[a-z0-9.-]+(?::[0-9]+)?/)?"
    assert re.fullmatch(rf"{registry}{component}(?:/{component})*:latest", image["image"])


@pytest.fixture(scope="module")
def plain_template(template_repo: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The template without its git history: Copier reads it in place instead of cloning it
    for every render, a third of each example's time."""
    plain = tmp_path_factory.mktemp("plain") / "template"
    shutil.copytree(template_repo, plain, ignore=shutil.ignore_patterns(".git"))
    return plain


def render_plain(template: Path, dst: Path, answers: dict[str, Any]) -> None:
    from copier import run_copy

    run_copy(str(template), dst, data=answers, defaults=True, unsafe=False, quiet=True)


@settings(
    deadline=None,
    derandomize=IN_CI,  # and with it no example database
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(answers=answer_sets())
@example(answers={"project_name": "数据处理"}).via("no ASCII letter to derive a package name")
@example(answers={"package_name": "a" * MAX_NAME, "distribution_name": "B" * MAX_NAME}).via(
    "the longest names"
)
@example(answers={"description": 'C:\\new "quoted" -- yes: no # not a comment'}).via("specials")
@example(answers={"project_name": "yes", "description": "~"}).via("YAML words")
@example(answers={"project_name": "P" * 80, "package_name": "p"}).via("the longest project name")
@example(answers={"author_name": "A" * 89}).via("the widest author name")
@example(answers={"author_name": "汉" * 44 + "a"}).via("the widest author name in wide characters")
@example(answers={"project_name": "3D Café Über"}).via("accents and a leading digit")
def test_answers_are_refused_with_a_message_or_render_a_green_project(
    plain_template: Path, tmp_path_factory: pytest.TempPathFactory, answers: dict[str, Any]
) -> None:
    dst = tmp_path_factory.mktemp("answers") / "project"
    refused: ValueError | None = None
    try:
        render_plain(plain_template, dst, answers)
    except ValueError as error:
        refused = error
    if refused is not None:
        event("refused", str(refused).split("'")[1])  # which question refused
        assert str(refused).startswith("Validation error for question")
        assert len(str(refused).split(":", 1)[1].strip()) > 20, "a refusal without a message"
        assert not dst.exists() or not any(dst.iterdir()), "a refused render wrote files"
        return
    event("accepted")
    assert answers.get("package_name") not in TREE_MODULES, "a package that shadows a module"
    try:
        check_accepted(dst, answers)
    finally:
        shutil.rmtree(dst.parent, ignore_errors=True)


# Four builds: the full tier's (the README's tier builds the default answers in test_build.py).
@pytest.mark.full
@settings(max_examples=4, deadline=None, derandomize=True, database=None)
@given(answers=answer_sets())
def test_accepted_answers_build_and_pass_their_own_tests(
    template_repo: Path, tmp_path_factory: pytest.TempPathFactory, answers: dict[str, Any]
) -> None:
    dst = tmp_path_factory.mktemp("built-answers") / "project"
    answers = {**answers, "gpu_libraries": []}  # the answers, not the GPU stack, are under test
    try:
        copy_template(template_repo, dst, answers, WORKING_TREE_TAG)
    except ValueError:
        assume(False)
    built = build_and_install(dst, answers)
    tests = subprocess.run(
        [str(built.venv_python), "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider"],
        cwd=dst,
        capture_output=True,
        text=True,
        check=False,
    )
    assert tests.returncode == 0, tests.stdout[-3000:] + tests.stderr[-3000:]


# --- answers changed on `copier update` ----------------------------------------------------------
# A project's answers, then a change given with --data: Copier either refuses it with a message,
# or records it and leaves every answer not given as it was (an answer whose question is no
# longer asked goes; a chosen set of majors replaces "every major"). Copier itself replaces an
# answer that the change invalidates by its default, in silence, so this is the template's doing.

QUESTIONS = copier_questions()
LIBRARY_SETS = st.lists(st.sampled_from(ALL_LIBRARIES), unique=True, max_size=3)
PYTHON_FLOORS = st.sampled_from(python_support().choices)
# A change may also name a Python the template retired: refused with the floor to answer.
RETIRED_FLOORS = sorted(python_support().retired)
CHANGED_FLOORS = st.sampled_from(python_support().choices + RETIRED_FLOORS)
CI = st.sampled_from(list(QUESTIONS["ci"]["choices"].values()))
# Addresses on either forge (with a GitLab subgroup too), and an empty one.
ADDRESS = st.sampled_from(
    [
        "https://github.com/lab/arrays",
        "https://gitlab.com/lab/arrays",
        "https://gitlab.com/lab/gpu/arrays",
        "https://code.lab.edu/lab/arrays",
        "",
    ]
)
PROJECT_ANSWERS = st.fixed_dictionaries(
    {},
    optional={
        "gpu_libraries": LIBRARY_SETS,
        "python_min": PYTHON_FLOORS,
        "cuda_majors": st.lists(st.sampled_from(MAJORS), unique=True, min_size=1),
        "dask": st.booleans(),
        "extension": st.just("cuda-cpp"),
        "ci": CI,
        "repository_url": ADDRESS.filter(bool),
    },
)
CHANGES = st.fixed_dictionaries(
    {},
    optional={
        "gpu_libraries": LIBRARY_SETS,
        "python_min": CHANGED_FLOORS,
        "cuda_every_major": st.booleans(),
        "cuda_major": st.sampled_from(MAJORS),
        "dask": st.booleans(),
        "extension": st.sampled_from(["none", "cuda-cpp"]),
        "ci": CI,
        "repository_url": ADDRESS,
    },
).filter(lambda change: 0 < len(change) <= 2)


def served(answers: dict[str, Any]) -> list[int]:
    """The CUDA majors a project's recorded answers serve."""
    return sorted(MAJORS if answers["cuda_every_major"] else answers["cuda_majors"])


def check_updated(before: dict[str, Any], after: dict[str, Any], change: dict[str, Any]) -> None:
    """Every claim about an update that was not refused."""
    chose_majors = "cuda_majors" in change or "cuda_major" in change
    for key, value in before.items():
        if key.startswith("_") or key in change or key not in after:
            continue  # given, or no longer asked
        if key == "cuda_every_major" and chose_majors:
            continue  # a chosen set replaces "every major"
        if key == "cuda_majors" and "cuda_major" in change:
            continue  # the old spelling of a set of one: served() is checked below
        assert after[key] == value, f"{key} changed from {value!r} to {after[key]!r} unasked"
    if "cuda_major" in change:
        assert served(after) == [change["cuda_major"]]
    elif not chose_majors and not change.get("cuda_every_major"):
        assert served(after) == served(before)


def check_links(project: Path, recorded: dict[str, Any]) -> None:
    """The project's links lead to the pages of the host the repository lives on."""
    urls = tomllib.loads((project / "pyproject.toml").read_text("utf-8"))["project"]["urls"]
    host = recorded["repository_url"].split("/")[2]
    if host == "github.com":
        assert urls["Issues"] == recorded["repository_url"] + "/issues"
    elif "gitlab" in host:
        assert urls["Issues"] == recorded["repository_url"] + "/-/issues"


def answers_of(project: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((project / ".copier-answers.yml").read_text("utf-8"))
    return loaded


@settings(
    max_examples=int(os.environ.get("UPDATE_EXAMPLES", "2")),
    deadline=None,
    derandomize=IN_CI,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(answers=PROJECT_ANSWERS, change=CHANGES)
@example(answers={}, change={"python_min": RETIRED_FLOORS[-1]}).via("a retired Python floor")
@example(answers={}, change={"cuda_every_major": False}).via("every major no: keep them")
@example(answers={}, change={"ci": "gitlab"}).via("GitLab CI for a GitHub repository")
@example(answers={}, change={"repository_url": ""}).via("an empty address")
def test_an_answer_changed_on_update_is_refused_with_a_message_or_kept_with_all_the_others(
    render: Render, answers: dict[str, Any], change: dict[str, Any]
) -> None:
    # `render` renders each set of answers once (the @examples all start from the defaults).
    try:
        project = render(answers, name="changed")
    except ValueError:
        assume(False)  # the project's own answers are refused: nothing to update
    committed(project)
    before = answers_of(project)
    refused: Exception | None = None
    try:
        update_project(project, WORKING_TREE_TAG, change)
    except Exception as error:  # whatever Copier raises: how it refuses is under test
        refused = error
    if refused is not None:
        said = str(refused)
        event("refused", said.split("'")[1] if "'" in said else type(refused).__name__)
        assert isinstance(refused, ValueError), repr(refused)
        # A retired Python is a disabled choice of python_min, whose message is the template's.
        assert said.startswith(
            ("Validation error for question", "Invalid choice for 'python_min': Python")
        ), said
        assert not re.search(r"has no element|is undefined|has no attribute", said), said
        assert answers_of(project) == before
        assert git("status", "--porcelain", cwd=project) == ""
        return
    event("accepted")
    after = answers_of(project)
    check_updated(before, after, change)
    check_links(project, after)
