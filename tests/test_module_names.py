"""One name, one thing: the rendered package's modules, read from template/ without a render.

Two modules called ``_facts``, or ``checks`` beside ``_checks``, make a reader open each to
learn which is meant. Each module name is used once in the package, and a public module holds
code of its own rather than re-exporting a private twin: a package's public surface is gathered
in its ``__init__``, as CuPy and cuda.core assemble theirs. A rename keeps every public name of
the last release where a user's code imports it.
"""

from __future__ import annotations

import ast
import re
import subprocess
from collections import defaultdict
from pathlib import Path

import pytest
from conftest import LAST_RELEASE, REPO_ROOT

PACKAGE = REPO_ROOT / "template" / "src" / "{{ package_name }}"
SUFFIXES = (".py", ".pyi", ".py.jinja")


def module_name(path: Path) -> str:
    """The name a module file is imported by: ``_project`` for ``_project.py.jinja``."""
    return path.name.removesuffix(".jinja").rpartition(".")[0]


def modules() -> list[Path]:
    """Every module file of the package, packages' ``__init__`` and ``__main__`` left out."""
    return [
        path
        for path in sorted(PACKAGE.rglob("*"))
        if path.name.endswith(SUFFIXES) and module_name(path) not in {"__init__", "__main__"}
    ]


def shared_names(paths: list[Path]) -> dict[str, list[str]]:
    """Names (``x`` and ``_x`` counted as one) that more than one module takes, with those
    modules. A compiled extension's stub (``_cuda_cpp.pyi``, no ``.py`` beside it) is the
    compiled half of its public module, not a second name."""
    found: dict[str, list[str]] = defaultdict(list)
    for path in paths:
        if path.suffix == ".pyi":
            continue
        found[module_name(path).lstrip("_")].append(path.relative_to(PACKAGE).as_posix())
    return {name: places for name, places in found.items() if len(places) > 1}


def reexports_only(source: str) -> bool:
    """Whether a module's body is nothing but a docstring, imports and ``__all__``."""
    body = ast.parse(source).body
    rest = [
        node
        for node in body
        if not isinstance(node, ast.Import | ast.ImportFrom)
        and not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))
        and not (isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "__all__")
    ]
    return bool(body) and not rest


def test_a_shared_name_is_found_across_packages_and_between_public_and_private() -> None:
    paths = [PACKAGE / p for p in ("gpu/_facts.py.jinja", "doctor/_facts.py", "kernels/checks.py")]
    paths += [PACKAGE / "kernels/_checks.py", PACKAGE / "kernels/_ext.pyi", PACKAGE / "ext.py"]
    assert shared_names(paths) == {
        "facts": ["gpu/_facts.py.jinja", "doctor/_facts.py"],
        "checks": ["kernels/checks.py", "kernels/_checks.py"],
    }


def test_no_two_modules_of_the_package_share_a_name() -> None:
    assert shared_names(modules()) == {}


def test_a_module_of_imports_and_all_is_a_reexport() -> None:
    twin = '"""Doc."""\nfrom __future__ import annotations\nfrom ._x import a\n__all__ = ["a"]\n'
    assert reexports_only(twin)
    assert not reexports_only(twin + "\n\ndef b() -> None: ...\n")


def test_no_public_module_only_reexports_another() -> None:
    # Modules with Jinja are left out (they do not parse as Python); each of them has code.
    twins = [
        path.relative_to(PACKAGE).as_posix()
        for path in modules()
        if path.suffix == ".py"
        and not module_name(path).startswith("_")
        and reexports_only(path.read_text("utf-8"))
    ]
    assert twins == []


def listed_names(source: str) -> set[str]:
    """The names a module's ``__all__`` lists under any answers (its Jinja lines are skipped),
    those an answer adds with ``__all__ += [...]`` included."""
    blocks = re.findall(r"^__all__ \+?= \[(.*?)\]", source, flags=re.DOTALL | re.MULTILINE)
    return {name for block in blocks for name in re.findall(r'"(\w+)"', block)}


def test_the_names_of_all_are_read_across_options() -> None:
    source = '__all__ = [\n    "a",\n{%- if x %}\n    "b",\n{%- endif %}\n]\nc = ["d"]\n'
    assert listed_names(source) == {"a", "b"}
    added = '{%- if y %}\n__all__ += ["e"]  # y\n{%- endif %}\n'
    assert listed_names(source + added) == {"a", "b", "e"}


def release_public_modules() -> dict[str, str]:
    """The public modules of the last release's package (``kernels/checks.py``), with source."""
    prefix = "template/src/{{ package_name }}/"
    listing = subprocess.run(
        ["git", "ls-tree", "-r", "-z", "--name-only", LAST_RELEASE.commit, prefix],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if listing.returncode != 0:
        pytest.skip(f"{LAST_RELEASE.commit[:7]} (v{LAST_RELEASE.version}) is not in this clone")
    paths = [
        path
        for path in filter(None, listing.stdout.split("\0"))
        if path.removesuffix(".jinja").endswith(".py")
        and (Path(path).name.startswith("__init__.py") or not Path(path).name.startswith("_"))
    ]
    # One git process for every file: `<sha> blob <size>` then the content, for each.
    batch = subprocess.run(
        ["git", "cat-file", "--batch"],
        input="".join(f"{LAST_RELEASE.commit}:{path}\n" for path in paths).encode(),
        cwd=REPO_ROOT,
        capture_output=True,
        check=True,
    ).stdout
    found = {}
    for path in paths:
        header, _, batch = batch.partition(b"\n")
        size = int(header.split()[2])
        found[path.removeprefix(prefix).removesuffix(".jinja")] = batch[:size].decode()
        batch = batch[size + 1 :]
    return found


def removed_names(changelog: str) -> set[str]:
    """The names that an entry "### Removed: ..." of the CHANGELOG's Unreleased section lists,
    one a line, each with what to use instead: ``- `checks.grid`: call ...``."""
    unreleased = changelog.partition("\n## Unreleased\n")[2].partition("\n## ")[0]
    entries = [e for e in re.split(r"\n(?=### )", unreleased) if e.startswith("### Removed")]
    return {name for entry in entries for name in re.findall(r"^- `(\w+\.\w+)`", entry, re.M)}


def test_the_changelog_names_what_is_removed_in_unreleased_entries_only() -> None:
    changelog = (
        "# Changelog\n\n## Unreleased\n\n"
        "### Removed: old forms\n\n- `checks.grid`: call `checks.arrays`.\n\n"
        "### Changed: other\n\n- `checks.scalar`\n\n## 1.0.0\n\n### Removed: x\n\n- `checks.old`\n"
    )
    assert removed_names(changelog) == {"checks.grid"}


def test_every_public_name_of_the_last_release_is_still_offered_where_it_was() -> None:
    # A public module that moved is a shim of the old name (warning, for one release) whose
    # __all__ still lists them; a name that went without one breaks a user's import, unless the
    # CHANGELOG's Unreleased section says, under "### Removed", what to use instead.
    removed = removed_names((REPO_ROOT / "CHANGELOG.md").read_text("utf-8"))
    missing = {}
    for rel, source in release_public_modules().items():
        now = next((p for p in (PACKAGE / rel, PACKAGE / f"{rel}.jinja") if p.is_file()), None)
        offered = listed_names(now.read_text("utf-8")) if now else set()
        module = Path(rel).parent.name if rel.endswith("__init__.py") else Path(rel).stem
        if lost := sorted(
            n for n in listed_names(source) - offered if f"{module}.{n}" not in removed
        ):
            missing[rel] = lost
    assert missing == {}
