"""Every validator in copier.yml refuses bad answers with a message that says what to do."""

from __future__ import annotations

import datetime
import json
import keyword
import shutil
import subprocess
import tomllib
import unicodedata
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import (
    ALL_EXAMPLES,
    RENDER_MATRIX,
    REPO_ROOT,
    WORKING_TREE_TAG,
    Render,
    copier_questions,
    copy_template,
)
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from jinja2 import FileSystemLoader, StrictUndefined
from jinja2.sandbox import SandboxedEnvironment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from refresh_names import own_names, owned_test_names, write
from template_data import copier_documents, load_computed, own_prefixes, python_support

# Build requirements run in an isolated build environment, never beside the package.
BUILD_ONLY = {"hatchling", "hatch-vcs"}


def refusal(template_repo: Path, tmp_path: Path, answers: dict[str, Any]) -> str:
    """Render with answers that must be refused; return the message and check nothing was left."""
    dst = tmp_path / "refused"
    with pytest.raises(ValueError, match="Validation error") as info:
        copy_template(template_repo, dst, answers, WORKING_TREE_TAG)
    assert not dst.exists(), "a refused render left files behind"
    return " ".join(str(info.value).split())


NOT_AN_IMPORT_NAME = (
    "is not a valid import name: use lowercase letters, digits and underscores, starting with a "
    "letter"
)
REFUSALS: dict[str, tuple[dict[str, Any], str]] = {
    "empty-project-name": ({"project_name": "  "}, "The project name cannot be empty."),
    "project-name-with-a-tab": (
        {"project_name": "My\tProject"},
        "The project name must be one line of printable text",
    ),
    "project-name-with-a-trailing-space": (
        {"project_name": "My Project "},
        "The project name starts or ends with a space; type it without.",
    ),
    "project-name-of-300-characters": (
        {"project_name": "x" * 300},
        "The project name is 300 characters long; keep it to 80 or fewer",
    ),
    "project-name-without-ascii-letters": (
        {"project_name": "数据处理"},
        "The import name cannot be empty. It is derived from the Latin letters and digits of the "
        "project name, and '数据处理' has none: answer package_name yourself, for example "
        "'gpu_tools'.",
    ),
    "punctuation-only-project-name": ({"project_name": "!!!"}, "The import name cannot be empty."),
    "empty-package-name": ({"package_name": ""}, "The import name cannot be empty."),
    "dash-in-package": (
        {"package_name": "my-pkg"},
        f"'my-pkg' {NOT_AN_IMPORT_NAME} (write 'my_pkg'; the dashed form belongs in "
        "distribution_name).",
    ),
    "uppercase-package": ({"package_name": "MyPkg"}, f"'MyPkg' {NOT_AN_IMPORT_NAME}."),
    "digit-first-package": ({"package_name": "2fast"}, f"'2fast' {NOT_AN_IMPORT_NAME}."),
    "package-name-too-long": (
        {"package_name": "a" * 33},
        f"'{'a' * 33}' is 33 characters long; keep the import name to 32 or fewer, so that every "
        "generated line fits the 100-column lint limit.",
    ),
    "keyword-package": (
        {"package_name": "lambda"},
        "'lambda' is a Python keyword and cannot be imported; try 'lambda_gpu'.",
    ),
    "stdlib-package": (
        {"package_name": "json"},
        "'json' is a standard-library module; your package would shadow it. Try 'json_gpu'.",
    ),
    "stdlib-3.14-package": (
        {"package_name": "compression"},
        "'compression' is a standard-library module; your package would shadow it.",
    ),
    "stdlib-3.15-package": ({"package_name": "profiling"}, "'profiling' is a standard-library"),
    "cpython-test-package": ({"package_name": "test"}, "'test' is a standard-library module"),
    "project-test-folder-as-package": (
        {"package_name": "tests"},
        "'tests' is already taken inside the generated project (its tests/ folder); the two would "
        "shadow each other. Try 'tests_gpu'.",
    ),
    "fake-cupy-as-package": (
        {"package_name": "fake_cupy"},
        "'fake_cupy' is already taken inside the generated project (its tests/fake_cupy.py)",
    ),
    # A test module or a benchmark table a new option or example will bring is refused by prefix.
    "test-module-prefix-as-package": (
        {"package_name": "test_kernels_numba_histogram"},
        "'test_kernels_numba_histogram' is already taken inside the generated project (its kernel "
        "tests, tests/test_kernels_*.py)",
    ),
    "benchmark-table-prefix-as-package": (
        {"package_name": "kernels_histogram"},
        "'kernels_histogram' is already taken inside the generated project (its kernel benchmark "
        "tables, benchmarks/kernels_*.py)",
    ),
    "dependency-package": (
        {"package_name": "cupy"},
        "'cupy' is the import name of cupy-cuda12x and cupy-cuda13x, which the generated project "
        "installs; your package would shadow it. Try 'my_cupy'.",
    ),
    "indirect-dependency-package": (
        {"package_name": "pluggy"},
        "'pluggy' is the import name of pluggy, which the generated project installs",
    ),
    "import-name-of-another-distribution": (
        {"package_name": "pynvml"},
        "'pynvml' is the import name of nvidia-ml-py, which the generated project installs",
    ),
    "empty-distribution": (
        {"distribution_name": ""},
        "'' is not a valid distribution name",
    ),
    "bad-distribution": (
        {"distribution_name": "-bad-"},
        "'-bad-' is not a valid distribution name: use letters, digits, '.', '_' and '-', "
        "starting and ending with a letter or digit (PEP 508), for example 'gpu-tools'.",
    ),
    "dependency-distribution": (
        {"distribution_name": "NumPy"},
        "'NumPy' is the name of numpy, which the generated project installs (PEP 503 names ignore "
        "case and treat '-', '_' and '.' alike); the two cannot be installed side by side. "
        "Try 'my-numpy'.",
    ),
    "dependency-distribution-other-spelling": (
        {"distribution_name": "cupy_cuda13x"},
        "'cupy_cuda13x' is the name of cupy-cuda13x, which the generated project installs",
    ),
    "empty-description": ({"description": ""}, "The description cannot be empty."),
    "description-with-a-line-break": (
        {"description": "one\ntwo"},
        "The description must be a single line of printable text",
    ),
    "description-with-a-zero-width-space": (
        {"description": "GPU\u200barrays"},
        "The description must be a single line of printable text",
    ),
    "blank-author": ({"author_name": " "}, "The author name cannot be empty."),
    "author-name-too-wide-for-docs-conf": (
        {"author_name": "A" * 90},
        'The author name is too wide for the line `author = "..."` of docs/conf.py, which must '
        "fit ruff's 100 columns: a wide character (汉, 😀) takes two, a backslash or quote an "
        "escape. Shorten it by 1 columns.",
    ),
    "author-name-of-wide-characters": ({"author_name": "汉" * 45}, "Shorten it by 1 columns."),
    "author-name-of-escaped-characters": (
        {"author_name": "\\" * 45},
        "The author name is too wide for the line `author = ",
    ),
    "project-name-of-wide-characters": (
        {"project_name": "汉" * 45, "package_name": "han"},
        'The project name is too wide for the line `project = "..."` of docs/conf.py',
    ),
    "email-with-two-dots-in-a-row": (
        {"author_email": "a..b@x.org"},
        "'a..b@x.org' is not an e-mail address of the form name@example.org",
    ),
    "email-starting-with-a-dot": ({"author_email": ".a@x.org"}, "is not an e-mail address"),
    "email-domain-starting-with-a-dash": ({"author_email": "a@-x.org"}, "is not an e-mail"),
    "email-without-a-domain-dot": ({"author_email": "a@localhost"}, "is not an e-mail address"),
    "bad-email": (
        {"author_email": "not-an-address"},
        "'not-an-address' is not an e-mail address of the form name@example.org",
    ),
    "email-with-a-backslash": (
        {"author_email": "a\\b@example.org"},
        "is not an e-mail address of the form name@example.org",
    ),
    "repository-url-with-dot-git": (
        {"repository_url": "https://github.com/me/proj.git"},
        "Write the repository's web address without a trailing '/' or '.git'",
    ),
    "repository-url-over-ssh": (
        {"repository_url": "git@github.com:me/proj"},
        "'git@github.com:me/proj' is not a repository address of the form "
        "https://<host>/<owner>/<name>",
    ),
    "repository-url-without-a-name": (
        {"repository_url": "https://github.com/me"},
        "is not a repository address of the form",
    ),
    "github-repository-url-with-a-group": (
        {"repository_url": "https://github.com/org/team/proj"},
        "A GitHub repository has an owner and a name, nothing more: write "
        "'https://github.com/<owner>/<name>', not 'https://github.com/org/team/proj'.",
    ),
    "empty-repository-url": (
        {"repository_url": ""},
        "The repository address cannot be empty: the project's links, badges and image name "
        "derive from it. Give its web address, for example "
        "'https://github.com/my-org/my-gpu-project'.",
    ),
    "extension-without-cupy": (
        {"extension": "cuda-cpp", "gpu_libraries": ["numba"]},
        "The compiled extension's GPU path takes CuPy arrays (nanobind reads them through DLPack), "
        "and gpu_libraries has no cupy. Add cupy to gpu_libraries or answer none to extension.",
    ),
}


@pytest.mark.parametrize(("answers", "message"), REFUSALS.values(), ids=REFUSALS.keys())
def test_bad_answer_is_refused_with_a_hint_and_writes_nothing(
    template_repo: Path, tmp_path: Path, answers: dict[str, Any], message: str
) -> None:
    assert message in refusal(template_repo, tmp_path, answers)


DERIVED_PACKAGE_NAMES = {
    "Café Tools": "cafe_tools",
    "Über Fast": "uber_fast",
    "Straße Ærø Łódź": "strasse_aero_lodz",
    "Cafe\u0301 Tools": "cafe_tools",  # the accent typed as a combining mark
    "3D Solver": "py3d_solver",
    "123": "py123",
    "--My GPU Project--": "my_gpu_project",
}


@pytest.mark.parametrize(("project_name", "package_name"), DERIVED_PACKAGE_NAMES.items())
def test_package_name_keeps_the_letters_and_digits_of_the_project_name(
    render: Render, project_name: str, package_name: str
) -> None:
    project = render({"project_name": project_name}, name="derived")
    recorded = (project / ".copier-answers.yml").read_text("utf-8")
    assert f"package_name: {package_name}\n" in recorded
    assert (project / "src" / package_name / "__init__.py").is_file()


def test_every_latin_letter_is_spelt_as_its_unicode_decomposition() -> None:
    table: dict[str, str] = load_computed("latin_ascii")
    # Letters without a decomposition, spelt as their languages write them in ASCII.
    spelt = {"ß": "ss", "æ": "ae", "œ": "oe", "ø": "o", "đ": "d", "ð": "d", "ł": "l", "þ": "th"}
    spelt |= {"\N{LATIN SMALL LETTER DOTLESS I}": "i", "ħ": "h", "ŧ": "t", "ŋ": "ng", "ĸ": "k"}
    latin = [chr(c) for c in range(0xC0, 0x180) if unicodedata.category(chr(c)) == "Ll"]
    assert sorted(table) == sorted(latin), "the table misses or adds a lower-case Latin letter"
    for letter, ascii_letters in table.items():
        decomposed = unicodedata.normalize("NFKD", letter)
        expected = spelt.get(letter, "".join(c for c in decomposed if c.isascii() and c.isalpha()))
        assert ascii_letters == expected, letter


def test_every_free_text_question_has_a_validator() -> None:
    for name, spec in copier_questions().items():
        assert spec.get("help"), f"{name} has no help text"
        assert "default" in spec, f"{name} has no default"
        if spec.get("type") == "str" and "choices" not in spec:
            assert spec.get("validator"), f"{name} accepts anything"


def test_template_needs_no_trust() -> None:
    # Copier asks for --trust when a template has tasks, migrations or extra Jinja extensions.
    text = (REPO_ROOT / "copier.yml").read_text("utf-8")
    for setting in ("_tasks", "_migrations", "_jinja_extensions", "_external_data"):
        assert setting not in text


def _recorded_pythons() -> list[str]:
    recorded = load_computed("stdlib_pythons")
    minors = range(int(recorded["oldest"][2:]), int(recorded["newest"][2:]) + 1)
    return [f"3.{minor}" for minor in minors]


def _shipped_by(spec: str) -> list[str]:
    """The Pythons of an entry: "3.10-3.12", or "3.14-" (to the newest recorded)."""
    recorded = _recorded_pythons()
    first, _, last = spec.partition("-")
    return recorded[recorded.index(first) : recorded.index(last or recorded[-1]) + 1]


def test_stdlib_records_reach_every_python_a_render_supports_or_tests() -> None:
    preview = [py.rstrip("t") for py in load_computed("cuda_matrix")["preview_pythons"]]
    assert {*python_support().versions, *preview} <= set(_recorded_pythons())
    modules = [name for names in load_computed("stdlib_modules").values() for name in names]
    assert len(modules) == len(set(modules)), "a module is listed under two ranges"
    for spec in load_computed("stdlib_modules"):
        assert _shipped_by(spec), spec


@pytest.mark.parametrize("version", _recorded_pythons())
def test_stdlib_entry_of_each_installed_python_is_its_stdlib_module_names(version: str) -> None:
    # Each interpreter answers for itself, not the one the suite runs on; one not installed
    # here is skipped (its entry comes from CPython's Python/stdlib_module_names.h).
    python = shutil.which(f"python{version}")
    code = "import sys; print(*sorted(sys.stdlib_module_names))"
    run = subprocess.run([python or "false", "-c", code], capture_output=True, text=True)
    if run.returncode:
        pytest.skip(f"Python {version} is not installed here")
    public = {name for name in run.stdout.split() if not name.startswith("_")}
    listed = {
        name
        for spec, names in load_computed("stdlib_modules").items()
        if version in _shipped_by(spec)
        for name in names
    }
    # CPython leaves its own test package out of sys.stdlib_module_names; the list refuses it.
    assert listed == public | {"test"}


def test_keyword_list_is_pythons() -> None:
    assert sorted(load_computed("python_keywords")) == sorted(keyword.kwlist)


def test_refresh_names_refuses_the_render_file_an_owned_helper_keeps_as_its_seed() -> None:
    # tests/conftest.py keeps the render's tests/fake_cupy.py beside the owned one: fake_cupy_seed.
    seed = "the render's own tests/fake_cupy.py, kept beside the template's, run beside it"
    assert owned_test_names()["fake_cupy_seed"] == seed


def test_refresh_names_lists_a_self_named_distribution_once_and_maps_every_other_import() -> None:
    imports = {"numpy": {"numpy"}, "yaml": {"pyyaml"}, "attr": {"attrs"}, "attrs": {"attrs"}}
    imports |= {"cupy": {"cupy-cuda12x", "cupy-cuda13x"}, "yes": {"yes"}}
    dists = {"numpy", "pyyaml", "attrs", "cupy-cuda12x", "cupy-cuda13x", "yes", "cuda-toolkit"}
    many = [f"package-number-{number:02}" for number in range(20)]  # a list wrapped on 100 columns
    imports |= {name.replace("-", "_"): {name} for name in many}
    text = write(imports, dists | set(many), {"tests": "its tests/ folder"})
    assert max(len(line) for line in text.splitlines()) <= 100
    written = yaml.safe_load(text)
    assert written["self_named_dependencies"]["default"] == ["attrs", "numpy", *many, "yes"]
    others = ["cuda-toolkit", "cupy-cuda12x", "cupy-cuda13x", "pyyaml"]
    assert written["other_dependencies"]["default"] == others
    cupy = "cupy-cuda12x and cupy-cuda13x"
    assert written["shadowed_dependencies"]["default"] == {
        "attr": "attrs",
        "cupy": cupy,
        "yaml": "pyyaml",
    }


@pytest.mark.parametrize("name", sorted(RENDER_MATRIX))
def test_every_requirement_a_render_lists_is_a_known_dependency(render: Render, name: str) -> None:
    # dependency-names.yml is generated by `nox -s refresh_names`; a pin added since is caught here.
    project = render(RENDER_MATRIX[name], name=f"requirements-{name}")
    pyproject = tomllib.loads((project / "pyproject.toml").read_text("utf-8"))
    listed = [
        *pyproject["build-system"]["requires"],
        *pyproject["project"]["dependencies"],
        *(
            req
            for reqs in pyproject["project"].get("optional-dependencies", {}).values()
            for req in reqs
        ),
        *(
            req
            for reqs in pyproject["dependency-groups"].values()
            for req in reqs
            if isinstance(req, str)
        ),
    ]
    names = {canonicalize_name(Requirement(req).name) for req in listed}
    known = {*load_computed("self_named_dependencies"), *load_computed("other_dependencies")}
    assert names - known <= BUILD_ONLY


@pytest.mark.parametrize("name", sorted(RENDER_MATRIX))
def test_every_name_a_render_puts_on_sys_path_is_refused_as_the_package_name(
    render_suite: Render, name: str
) -> None:
    # A package named like one of the project's test helpers would shadow it (or be shadowed):
    # the suite render holds the project's own files and the template's tests beside them.
    answers = {**RENDER_MATRIX[name], "examples": ALL_EXAMPLES}
    project = render_suite(answers, name=f"own-names-{name}")
    refused = set(load_computed("project_own_names"))
    prefixes = tuple(own_prefixes())
    assert {name for name in own_names(project) if not name.startswith(prefixes)} - refused == set()


# --- python_min, from includes/python-releases.yml ----------------------------------------------


def copier_env() -> SandboxedEnvironment:
    """A Jinja environment like the one Copier renders copier.yml with (StrictUndefined too)."""
    return SandboxedEnvironment(
        loader=FileSystemLoader(REPO_ROOT),
        extensions=["jinja2_ansible_filters.AnsibleCoreFiltersExtension"],
        undefined=StrictUndefined,
    )


def derived(table: dict[str, Any], python_range: dict[str, str], **context: Any) -> Any:
    """copier.yml's computed ``python`` rendered for a table and a stack range."""
    spec = next(doc["python"] for doc in copier_documents() if "python" in doc)
    context = {"python_releases": table, "cuda_matrix": {"python_range": python_range}, **context}
    return json.loads(copier_env().from_string(spec["default"]).render(context))


def python_min_spec(part: str, python: Any, defaults: bool = True) -> Any:
    """python_min's choices (parsed as Copier parses them) or default, for a computed ``python``."""
    context = {
        "python": python,
        "python_releases": load_computed("python_releases"),
        "_copier_conf": {"defaults": defaults, "data": {}},
    }
    rendered = copier_env().from_string(copier_questions()["python_min"][part]).render(context)
    return yaml.safe_load(rendered) if part == "choices" else rendered


def derived_here() -> Any:
    """The template's own ``python``, rendered."""
    return derived(load_computed("python_releases"), load_computed("cuda_matrix")["python_range"])


DAYS = st.dates(datetime.date(2021, 1, 1), datetime.date(2036, 12, 31)).map(datetime.date.isoformat)
RANGES = st.sampled_from(["3.10", "3.11", "3.12"]).flatmap(
    lambda oldest: st.sampled_from(["3.13", "3.14", "3.15"]).map(
        lambda newest: {"oldest": oldest, "newest": newest}
    )
)


@settings(deadline=None)
@given(as_of=DAYS, python_range=RANGES)
def test_copier_yml_and_template_data_derive_the_same_pythons_on_any_day(
    as_of: str, python_range: dict[str, str]
) -> None:
    table = {**load_computed("python_releases"), "as_of": as_of}
    try:
        expected = python_support(table, python_range)
    except ValueError:
        assume(False)  # a day with one supported Python offers no floor: refused, not derived
    found = derived(table, python_range)
    assert found["versions"] == expected.versions
    assert found["choices"] == expected.choices
    assert found["spec0"] == expected.spec0
    assert {row["version"]: row["why"] for row in found["retired"]} == expected.retired


def test_spec0_takes_the_oldest_python_released_in_the_last_three_years() -> None:
    table = {**load_computed("python_releases"), "as_of": "2026-12-03"}
    # 3.13 came out on 2024-10-07, inside the three years; 3.12 on 2023-10-02, outside.
    assert python_support(table).spec0 == "3.13"
    assert python_support({**table, "as_of": "2026-10-01"}).spec0 == "3.12"


def test_a_python_retires_on_the_first_day_of_its_end_of_life_month() -> None:
    table = load_computed("python_releases")
    stack = {"oldest": "3.10", "newest": "3.14"}
    assert "3.10" in python_support({**table, "as_of": "2026-09-30"}, stack).choices
    retired = python_support({**table, "as_of": "2026-10-01"}, stack).retired
    assert retired == {"3.10": "reached its end of life in 2026-10"}


def test_no_python_the_gpu_stack_cannot_install_is_offered() -> None:
    stack = load_computed("cuda_matrix")["python_range"]
    support = python_support()
    oldest, newest = (tuple(map(int, stack[end].split("."))) for end in ("oldest", "newest"))
    assert all(oldest <= tuple(map(int, v.split("."))) <= newest for v in support.versions)


def test_python_min_offers_every_supported_python_but_the_newest_and_shows_the_retired() -> None:
    support = python_support()
    choices = python_min_spec("choices", derived_here())
    offered = [value for value in choices.values() if isinstance(value, str)]
    disabled = [value["value"] for value in choices.values() if isinstance(value, dict)]
    assert offered == support.choices
    assert sorted(disabled) == sorted(support.retired)


def test_a_new_project_gets_spec0s_floor(render: Render) -> None:
    project = render({}, name="spec0-default")
    recorded = yaml.safe_load((project / ".copier-answers.yml").read_text("utf-8"))
    assert recorded["python_min"] == python_support().spec0
    pyproject = tomllib.loads((project / "pyproject.toml").read_text("utf-8"))
    assert pyproject["project"]["requires-python"] == f">={python_support().spec0}"


@pytest.mark.parametrize("retired", sorted(python_support().retired))
def test_a_retired_python_floor_is_refused_with_the_floor_to_answer(
    template_repo: Path, tmp_path: Path, retired: str
) -> None:
    support = python_support()
    dst = tmp_path / "refused"
    with pytest.raises(ValueError, match="Invalid choice for 'python_min'") as info:
        copy_template(template_repo, dst, {"python_min": retired}, WORKING_TREE_TAG)
    assert not dst.exists()
    message = " ".join(str(info.value).split())
    assert f"Python {retired} {support.retired[retired]}" in message
    assert f"copier update --defaults --data python_min={support.choices[0]}" in message


def test_a_project_on_a_retired_floor_is_stopped_under_defaults_and_asked_otherwise() -> None:
    # On `copier update` the recorded floor is `before`: kept as the default under --defaults, so
    # that the update stops with the disabled choice's message rather than moving the project;
    # asked, the oldest floor still supported is offered. A new project gets SPEC 0's.
    support = python_support()
    (retired,) = sorted(support.retired)[-1:]
    recorded = {**derived_here(), "before": retired}
    assert python_min_spec("default", recorded, defaults=True) == retired
    assert python_min_spec("default", recorded, defaults=False) == support.choices[0]
    assert python_min_spec("default", {**recorded, "before": ""}) == support.spec0
    assert python_min_spec("default", {**recorded, "before": support.choices[0]}) == support.spec0


def test_a_table_that_leaves_no_floor_to_offer_is_refused_with_what_to_do() -> None:
    table = {**load_computed("python_releases"), "as_of": "2040-01-01"}
    with pytest.raises(ValueError, match="add the newer releases to the table"):
        python_support(table)


# --- a library's (or dask-cuda's) own Python floor, from the matrix's python_min -----------------


def floor_refusals(matrix: dict[str, Any], python: str, libraries: list[str]) -> str:
    """What includes/answer-checks.jinja says of a floor, GPU libraries and dask on every major."""
    checks = "{% import 'includes/answer-checks.jinja' as checks with context %}"
    context = {
        "cuda_matrix": matrix,
        "python_min": python,
        "gpu_libraries": libraries,
        "dask": True,
        "cuda_every_major": True,
    }
    text = checks + "{{ checks.libraries() }}{{ checks.dask_floor() }}"
    return " ".join(copier_env().from_string(text).render(context).split())


def test_a_floor_the_matrix_names_above_the_stacks_refuses_an_older_python() -> None:
    # None is named now (every library installs on the stack's oldest Python): a made-up one.
    matrix = json.loads(json.dumps(load_computed("cuda_matrix")))
    newest = max(matrix["majors"], key=int)
    matrix["majors"][newest]["python_min"] = {"jax": "3.99"}
    matrix["majors"][newest]["dask"]["python_min"] = "3.98"
    said = floor_refusals(matrix, python_support().choices[0], ["cupy", "jax"])
    assert f"for CUDA {newest} needs Python >= 3.99" in said
    assert said.count("Raise python_min to 3.99 or drop jax.") == 1
    assert "Raise python_min to 3.98 or answer no to dask." in said
    assert "drop cupy" not in said


def test_a_library_without_a_floor_of_its_own_installs_on_every_offered_python() -> None:
    matrix = load_computed("cuda_matrix")
    for python in python_support().choices:
        assert floor_refusals(matrix, python, list(matrix["libraries"])) == "", python
