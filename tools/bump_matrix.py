"""Ask the package index for the newest release of every package the CUDA matrix and pins name.

`nox -s bump_matrix` prints one row per pinned requirement (its range, the newest release, what
`--write` would make of the range, and what that means), each major's CUDA minors and manylinux
image tag, and CPython's release table; `-- --write` edits includes/cuda-matrix.yml,
includes/pins.yml and includes/python-releases.yml in place, keeping every comment. What each row
means and what --write changes or leaves to the maintainer: docs/contributing.md, "Bump the CUDA
matrix".

It asks the indexes uv and pip are configured with (or only `--index-url`/`--find-links`) and
reads their simple repository API (PEP 503 HTML or PEP 691 JSON) itself rather than running
`pip index versions` or `uv pip compile`: one request per package returns every release with its
Requires-Python, which is what "does the newest release drop a Python?" needs, whereas pip and uv
only answer "what would install on this interpreter".
"""

from __future__ import annotations

import argparse
import base64
import datetime
import email.parser
import json
import os
import re
import shutil
import ssl
import subprocess
import sys
import tomllib
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import yaml
from packaging.requirements import Requirement
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.utils import (
    InvalidSdistFilename,
    InvalidWheelFilename,
    canonicalize_name,
    parse_sdist_filename,
    parse_wheel_filename,
)
from packaging.version import InvalidVersion, Version
from template_data import PythonSupport, python_floors, python_support

ROOT = Path(__file__).resolve().parents[1]
MATRIX_FILE = ROOT / "includes" / "cuda-matrix.yml"
PINS_FILE = ROOT / "includes" / "pins.yml"
PYTHON_TABLE_FILE = ROOT / "includes" / "python-releases.yml"
# CPython's release dates and ends of life as the Python Developer's Guide publishes them
# (https://devguide.python.org/versions/ is built from this file).
RELEASE_CYCLE_URL = (
    "https://raw.githubusercontent.com/python/devguide/main/include/release-cycle.json"
)
# What pip and uv ask when nothing is configured; only used when nothing is.
DEFAULT_INDEX = "https://pypi.org/simple"
# NVIDIA's metapackage whose version is the CUDA release itself (13.5.0 is CUDA 13.5), so its
# newest release within a major's guard is that major's newest CUDA minor.
CUDA_VERSION_PACKAGE = "cuda-toolkit"
ACCEPT = (
    "application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html;q=0.2, "
    "text/html;q=0.01"
)
SDIST_SUFFIXES = (".tar.gz", ".zip")


# --- where to ask -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Source:
    """One place to ask: a simple-API index or a find-links location, and who configured it."""

    url: str
    kind: str  # "index" or "find-links"
    origin: str


def _split(value: str | None, separator: str | None = None) -> list[str]:
    """The non-empty items of a list-valued setting (None: split on whitespace)."""
    return [item.strip() for item in (value or "").split(separator) if item.strip()]


def _uv_index_url(entry: str) -> str:
    # UV_INDEX entries may be named: `name=https://...`.
    name, sep, url = entry.partition("=")
    return url if sep and "://" not in name else entry


def _uv_toml_files(environ: Mapping[str, str]) -> list[Path]:
    if environ.get("UV_NO_CONFIG"):
        return []
    if environ.get("UV_CONFIG_FILE"):
        return [Path(environ["UV_CONFIG_FILE"])]
    config_home = Path(environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    system = [Path(d) / "uv" / "uv.toml" for d in _split(environ.get("XDG_CONFIG_DIRS"), ":")]
    return [config_home / "uv" / "uv.toml", *(system or [Path("/etc/uv/uv.toml")])]


def _uv_toml_sources(paths: Iterable[Path]) -> tuple[list[Source], list[Source]]:
    """(default indexes, extra indexes and find-links) from uv.toml files that exist."""
    defaults: list[Source] = []
    extras: list[Source] = []
    for path in paths:
        if not path.is_file():
            continue
        data: dict[str, Any] = tomllib.loads(path.read_text("utf-8"))
        origin = str(path)
        if "index-url" in data:
            defaults.append(Source(data["index-url"], "index", f"{origin} index-url"))
        for index in data.get("index", []):
            target = defaults if index.get("default") else extras
            target.append(Source(index["url"], "index", f"{origin} [[index]]"))
        for url in data.get("extra-index-url", []):
            extras.append(Source(url, "index", f"{origin} extra-index-url"))
        for url in data.get("find-links", []):
            extras.append(Source(url, "find-links", f"{origin} find-links"))
    return defaults, extras


def pip_config() -> dict[str, str]:
    """pip's own view of its configuration (files and PIP_* variables), later entries winning.

    Empty when no pip is on PATH: pip's configuration then configures nothing that would run.
    """
    pip = shutil.which("pip") or shutil.which("pip3")
    if pip is None:
        return {}
    listed = subprocess.run(
        [pip, "config", "list"], capture_output=True, text=True, check=False
    ).stdout
    options: dict[str, str] = {}
    # Lines are `section.option='value'`, printed from the least to the most specific source
    # (global, user, site files, then `:env:` for PIP_* variables).
    for line in listed.splitlines():
        key, sep, value = line.partition("=")
        section, _, option = key.rpartition(".")
        if sep and section in {"global", "install", "download", "index", ":env:"}:
            options[option] = value.strip().strip("'\"")
    return options


def configured_sources(
    environ: Mapping[str, str],
    pip_options: Mapping[str, str],
    uv_toml: Iterable[Path] = (),
) -> list[Source]:
    """The primary index and every extra index and find-links location uv and pip would use.

    The primary index is the first configured of: uv's default index (variables, then uv.toml),
    pip's index-url (``pip config list``, which includes ``PIP_INDEX_URL``), and only then
    pypi.org. Extra indexes and find-links of both tools are all asked, as pip asks all of its own.
    """
    toml_defaults, toml_extras = _uv_toml_sources(uv_toml)
    primary = [
        Source(environ[v], "index", v) for v in ("UV_DEFAULT_INDEX", "UV_INDEX_URL") if v in environ
    ]
    primary += toml_defaults
    if "index-url" in pip_options:
        primary.append(Source(pip_options["index-url"], "index", "pip index-url"))
    primary.append(Source(DEFAULT_INDEX, "index", "default: nothing configured"))
    # uv separates find-links with commas, pip with spaces; UV_INDEX entries may carry a name.
    uv: list[tuple[str, str, str | None]] = [("UV_INDEX", "index", None)]
    uv += [("UV_EXTRA_INDEX_URL", "index", None), ("UV_FIND_LINKS", "find-links", ",")]
    extras = [
        Source(_uv_index_url(u) if name == "UV_INDEX" else u, kind, name)
        for name, kind, separator in uv
        for u in _split(environ.get(name), separator)
    ]
    extras += toml_extras
    extras += [
        Source(u, kind, f"pip {option}")
        for option, kind in (("extra-index-url", "index"), ("find-links", "find-links"))
        for u in _split(pip_options.get(option))
    ]
    unique: dict[tuple[str, str], Source] = {}
    for source in [primary[0], *extras]:
        unique.setdefault((source.kind, source.url.rstrip("/")), source)
    return list(unique.values())


# --- what the index has -------------------------------------------------------------------------


@dataclass(frozen=True)
class Release:
    """One version of a package as the index lists it."""

    version: Version
    requires_python: SpecifierSet | None  # None: the index does not say (or no restriction)


@dataclass
class _Files:
    """What the files of one version say, merged across indexes."""

    requires_python: str | None = None
    yanked: list[bool] = field(default_factory=list)


class _AnchorParser(HTMLParser):
    """The links of a PEP 503 page: (file name, data-requires-python, data-yanked given)."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[tuple[str, str | None, bool]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag != "a":
            return
        found = dict(attrs)
        href = found.get("href") or ""
        path = urllib.parse.urlsplit(href).path
        name = urllib.parse.unquote(path.rsplit("/", 1)[-1])
        if name:
            self.links.append((name, found.get("data-requires-python"), "data-yanked" in found))


class IndexUnreadableError(RuntimeError):
    """An index or find-links location could not be read (not: it lacks the package)."""


def redact(url: str) -> str:
    """``url`` without a password, for messages and the report."""
    parts = urllib.parse.urlsplit(url)
    if parts.password is None:
        return url
    return urllib.parse.urlunsplit(
        parts._replace(
            netloc=f"{parts.username}:***@{parts.hostname}"
            + (f":{parts.port}" if parts.port else "")
        )
    )


def _ssl_context(environ: Mapping[str, str]) -> ssl.SSLContext:
    # pip and uv users point these at a corporate CA; honour the same variables.
    cafile = environ.get("SSL_CERT_FILE") or environ.get("PIP_CERT") or None
    return ssl.create_default_context(cafile=cafile)


def _get(url: str, context: ssl.SSLContext, accept: str = ACCEPT) -> tuple[str, bytes] | None:
    """Content type and body of ``url``; None when there is no such page (a 404, a missing file)."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme == "file":
        # A simple index on disk keeps each page as <project>/index.html, as pip expects.
        path = Path(urllib.request.url2pathname(parts.path))
        page = path / "index.html" if path.is_dir() else path
        return ("text/html", page.read_bytes()) if page.is_file() else None
    headers = {"Accept": accept, "User-Agent": "cuda-template-bump-matrix"}
    if parts.username:  # mirrors often take credentials in the URL, which urllib does not send
        token = (
            f"{urllib.parse.unquote(parts.username)}:{urllib.parse.unquote(parts.password or '')}"
        )
        headers["Authorization"] = "Basic " + base64.b64encode(token.encode()).decode()
        host = f"{parts.hostname}:{parts.port}" if parts.port else f"{parts.hostname}"
        parts = parts._replace(netloc=host)
    request = urllib.request.Request(urllib.parse.urlunsplit(parts), headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=60, context=context) as response:
            return response.headers.get_content_type(), response.read()
    except urllib.error.HTTPError as exc:
        if exc.code == 404:
            return None
        raise IndexUnreadableError(f"{redact(url)}: HTTP {exc.code} {exc.reason}") from exc
    except (urllib.error.URLError, TimeoutError) as exc:
        raise IndexUnreadableError(
            f"{redact(url)}: {exc.reason if isinstance(exc, urllib.error.URLError) else exc}"
        ) from exc


def _parse_page(content_type: str, body: bytes) -> list[tuple[str, str | None, bool]]:
    """(file name, Requires-Python, yanked) for every file a simple-API page lists."""
    if content_type == "application/vnd.pypi.simple.v1+json":
        data = json.loads(body)
        return [
            (f["filename"], f.get("requires-python"), bool(f.get("yanked")))
            for f in data.get("files", [])
        ]
    parser = _AnchorParser()
    parser.feed(body.decode("utf-8", errors="replace"))
    return parser.links


def _wheel_requires_python(path: Path) -> str | None:
    """Requires-Python from a local wheel's METADATA: a flat find-links folder has no page."""
    with zipfile.ZipFile(path) as wheel:
        found = [n for n in wheel.namelist() if re.fullmatch(r"[^/]+\.dist-info/METADATA", n)]
        if not found:
            return None
        headers = email.parser.HeaderParser().parsestr(wheel.read(found[0]).decode("utf-8"))
    return headers.get("Requires-Python")


def _file_version(filename: str) -> tuple[str, Version] | None:
    """(canonical project name, version) of a wheel or sdist file name; None for anything else."""
    try:
        if filename.endswith(".whl"):
            name, version, _, _ = parse_wheel_filename(filename)
            return name, version
        if filename.endswith(SDIST_SUFFIXES):
            return parse_sdist_filename(filename)
    except (InvalidWheelFilename, InvalidSdistFilename, InvalidVersion):
        pass
    return None


def _source_files(
    source: Source, project: str, context: ssl.SSLContext
) -> list[tuple[str, str | None, bool]]:
    """The files a source lists for ``project`` (a find-links location lists every project's)."""
    if source.kind == "index":
        page = _get(f"{source.url.rstrip('/')}/{project}/", context)
        return _parse_page(*page) if page else []
    if "://" in source.url and not source.url.startswith("file:"):
        page = _get(source.url, context)
        return _parse_page(*page) if page else []
    local = Path(urllib.request.url2pathname(urllib.parse.urlsplit(source.url).path))
    if local.is_file():  # an HTML page of links on disk
        return _parse_page("text/html", local.read_bytes())
    if not local.is_dir():
        return []
    return [
        (path.name, _wheel_requires_python(path) if path.suffix == ".whl" else None, False)
        for path in sorted(local.iterdir())
        if (parsed := _file_version(path.name)) and parsed[0] == project
    ]


def fetch_releases(
    name: str, sources: Sequence[Source], context: ssl.SSLContext | None = None
) -> list[Release]:
    """Every final, unyanked release of ``name`` the sources list, oldest first."""
    project = canonicalize_name(name)
    context = context or _ssl_context(os.environ)
    merged: dict[Version, _Files] = {}
    for source in sources:
        for filename, requires_python, yanked in _source_files(source, project, context):
            parsed = _file_version(filename)
            if parsed is None or parsed[0] != project:
                continue
            files = merged.setdefault(parsed[1], _Files())
            # A mirror page without data-requires-python does not know; the index that says wins.
            files.requires_python = files.requires_python or requires_python
            files.yanked.append(yanked)
    releases = []
    for version, files in sorted(merged.items()):
        if version.is_prerelease or all(files.yanked):
            continue
        try:
            spec = SpecifierSet(files.requires_python) if files.requires_python else None
        except InvalidSpecifier:
            spec = None
        releases.append(Release(version, spec))
    return releases


# --- what the matrix pins, and what the newest releases mean for it -----------------------------


@dataclass(frozen=True)
class Pin:
    """One requirement string of the matrix or the pins, where it sits and which Pythons use it."""

    where: str  # "CUDA 13 cupy", "CUDA 13 guard", "CUDA 13 dask", "pins runtime"
    text: str
    pythons: tuple[str, ...]
    cuda_major: int | None  # the major whose entry holds it; None for includes/pins.yml

    @property
    def requirement(self) -> Requirement:
        return Requirement(self.text)


@dataclass(frozen=True)
class Row:
    """A pin, the newest release that concerns it, its range after --write, and what that means."""

    pin: Pin
    newest: Version | None
    new_text: str
    meanings: tuple[str, ...]


@dataclass(frozen=True)
class CudaLine:
    """A major's CUDA minors against the newest cuda-toolkit release of that major."""

    major: str
    toolkit_range: str
    new_range: str
    newest: Version | None
    image: str
    meanings: tuple[str, ...]


def load_default(path: Path, key: str) -> dict[str, Any]:
    """The default of a computed value in an includes/ file (what copier.yml sees)."""
    data: dict[str, Any] = yaml.safe_load(path.read_text("utf-8"))[key]["default"]
    return data


def matrix_pins(matrix: Mapping[str, Any], pins: Mapping[str, Any]) -> list[Pin]:
    """Every requirement the matrix and the pins hold, in file order.

    A library's pins (and dask-cuda's) serve the Pythons from its `python_min` up; guards and
    pins.yml serve all.
    Any list of strings in pins.yml is a requirement group, so a new group is picked up as is.
    """
    pythons = tuple(python_support(python_range=matrix["python_range"]).versions)
    found: list[Pin] = []
    for major in sorted(matrix["majors"], key=int):
        entry = matrix["majors"][major]
        floors = python_floors(matrix, major)
        for library, texts in entry["requirements"].items():
            floor = Version(floors[library])
            served = tuple(p for p in pythons if Version(p) >= floor)
            found += [Pin(f"CUDA {major} {library}", t, served, int(major)) for t in texts]
        found += [
            Pin(f"CUDA {major} guard", t, pythons, int(major)) for t in entry["guard_requirements"]
        ]
        # The dask option's GPU half (dask-cuda), with its own Python floor like a library's.
        floor = Version(floors["dask"])
        served = tuple(p for p in pythons if Version(p) >= floor)
        found += [
            Pin(f"CUDA {major} dask", t, served, int(major)) for t in entry["dask"]["requirements"]
        ]
    for group, value in pins.items():
        if isinstance(value, list) and all(isinstance(item, str) for item in value):
            found += [Pin(f"pins {group}", t, pythons, None) for t in value]
    return found


def pins_cuda_major(spec: SpecifierSet, major: int) -> bool:
    """True for a range that admits one major only, the entry's own: `==13.*`, `>=12.9,<13`.

    Such a range tracks the CUDA major (cuda-toolkit, cuda-bindings); the next major being out
    is the point, not news.
    """
    if any(s.operator == "==" and s.version == f"{major}.*" for s in spec):
        return True
    capped = any(s.operator == "<" and Version(s.version) == Version(str(major + 1)) for s in spec)
    floored = any(
        s.operator in {">=", ">", "~="} and Version(s.version).major == major for s in spec
    )
    return capped and floored


def _significant(version: Version) -> tuple[int, ...]:
    # SemVer's rule, which CuPy, numba-cuda and most others follow: below 1.0, the minor is the
    # major.
    return version.release[:1] if version.major > 0 else version.release[:2]


def raised_cap(cap: Version, newest: Version) -> Version | None:
    """The cap on the next major boundary above ``newest``, when ``cap`` sits on a major boundary.

    `<15` with 15.0.1 out becomes `<16`; `<0.31` with 0.32.0 out becomes `<0.33`. A finer cap such
    as `<2.5` (a minor of a 2.x line) returns None: it was set for a reason, not for a major.
    """
    significant = _significant(cap)
    if any(cap.release[len(significant) :]):
        return None
    bumped = list(_significant(newest))
    bumped[-1] += 1
    width = max(len(cap.release), len(bumped))
    return Version(".".join(map(str, bumped + [0] * (width - len(bumped)))))


def _outside_range(pin: Pin, newest: Version) -> tuple[str, str]:
    """(range after --write, what it means) for a newest release the range does not admit."""
    name = pin.requirement.name
    excluding = [s for s in pin.requirement.specifier if not s.contains(newest, prereleases=True)]
    if any(s.operator in {">=", ">"} for s in excluding):
        return pin.text, f"newest {newest} is below the floor: is the index a stale mirror?"
    caps = [s for s in excluding if s.operator == "<"]
    if len(caps) != len(excluding):
        ranges = ",".join(str(s) for s in excluding)
        return pin.text, f"newest {newest} is outside {ranges}: edit by hand"
    text = pin.text
    for cap in caps:
        raised = raised_cap(Version(cap.version), newest)
        if raised is None:
            return pin.text, (
                f"newest {newest} is above the compatibility cap {cap}: --write leaves it; "
                "lift it when the reason in the comment beside it is gone"
            )
        text = re.sub(rf"<\s*{re.escape(cap.version)}(?![\w.])", f"<{raised}", text, count=1)
    label = ".".join(map(str, _significant(newest)))
    return text, f"new {name} major {label}: the cap moves to admit it"


def _dropped_pythons(pin: Pin, releases: Sequence[Release], newest: Release) -> list[str]:
    """What it means that the newest release's Requires-Python leaves out Pythons the pin serves."""
    spec = newest.requires_python
    dropped = [p for p in pin.pythons if spec is not None and not spec.contains(p)]
    if not dropped or spec is None:
        return []
    allowed = pin.requirement.specifier
    fallbacks = []
    for python in dropped:
        older = [
            r.version
            for r in releases
            if allowed.contains(r.version)
            and (r.requires_python is None or r.requires_python.contains(python))
        ]
        fallbacks.append(f"{python} stays on {older[-1]}" if older else f"{python}: none in range")
    return [f"newest needs Python {spec}, dropping {', '.join(dropped)} ({'; '.join(fallbacks)})"]


def analyse(pin: Pin, releases: Sequence[Release]) -> Row:
    """Compare one pin with the releases of its package (oldest first)."""
    if not releases:
        return Row(pin, None, pin.text, ("not found on the indexes asked",))
    spec = pin.requirement.specifier
    newest = releases[-1]
    new_text = pin.text
    if pin.cuda_major is not None and pins_cuda_major(spec, pin.cuda_major):
        within = [r for r in releases if spec.contains(r.version)]
        if not within:
            return Row(pin, None, pin.text, (f"no CUDA {pin.cuda_major} release on the index",))
        newest = within[-1]
        meaning = f"follows CUDA {pin.cuda_major}"
    elif spec.contains(newest.version):
        meaning = "in range"
    else:
        new_text, meaning = _outside_range(pin, newest.version)
    return Row(pin, newest.version, new_text, (meaning, *_dropped_pythons(pin, releases, newest)))


_RANGE = re.compile(r"^(?P<low>\d+\.\d+) to (?P<major>\d+)\.(?P<minor>\d+)$")
_IMAGE = re.compile(r"^(?P<repo>[^:]+):(?P<version>\d+(?:\.\d+)*)(?P<suffix>-.+)$")


def cuda_line(major: str, entry: Mapping[str, Any], releases: Sequence[Release]) -> CudaLine:
    """Where the newest cuda-toolkit release of this major leaves its range and image."""
    toolkit_range, image = entry["toolkit_range"], entry["image"]
    guards = [Requirement(t) for t in entry["guard_requirements"]]
    guard = next((g for g in guards if canonicalize_name(g.name) == CUDA_VERSION_PACKAGE), None)
    within = [
        r.version for r in releases if guard is not None and guard.specifier.contains(r.version)
    ]
    if not within:
        return CudaLine(
            major, toolkit_range, toolkit_range, None, image, ("no cuda-toolkit release",)
        )
    newest = within[-1]
    meanings = []
    new_range = toolkit_range
    bounds = _RANGE.match(toolkit_range)
    if bounds is None:
        meanings.append(f"toolkit_range {toolkit_range!r} is not 'X.Y to X.Z': edit by hand")
    elif newest.minor > int(bounds["minor"]) and newest.major == int(bounds["major"]):
        new_range = f"{bounds['low']} to {newest.major}.{newest.minor}"
        meanings.append(f"new CUDA minor {newest.major}.{newest.minor}")
    else:
        meanings.append("no new CUDA minor")
    meanings += image_meanings(entry)
    return CudaLine(major, toolkit_range, new_range, newest, image, tuple(meanings))


def image_meanings(entry: Mapping[str, Any]) -> list[str]:
    """Whether a major's image still runs on its stated driver.

    An nvidia/cuda image sets NVIDIA_REQUIRE_CUDA=cuda>=X.Y from its tag and the NVIDIA Container
    Toolkit enforces it, so the image follows `min_driver_cuda` (the CUDA that `min_driver_linux`
    supports), not the newest CUDA minor: a newer image would raise the driver floor.
    """
    tag = _IMAGE.match(entry["image"])
    supported = entry.get("min_driver_cuda")
    if tag is None:
        return [f"image {entry['image']!r} is not 'repo:X.Y.Z-suffix': edit by hand"]
    if supported is None:
        return ["no min_driver_cuda: add the CUDA that min_driver_linux supports"]
    image = Version(tag["version"])
    if (image.major, image.minor) > Version(supported).release[:2]:
        return [
            f"image asks for CUDA {image.major}.{image.minor}, more than min_driver_linux "
            f"supports ({supported}): use a {supported} tag, or raise both driver facts"
        ]
    return [f"image stays on CUDA {supported}, the stated driver's: newer patch tags only"]


def new_majors(matrix: Mapping[str, Any], toolkit: Sequence[Release]) -> list[str]:
    """A line for each CUDA major the index has and the matrix does not, saying what to add.

    Adding a major is an edit to the matrix alone, but not one a tool can make: its minimum
    driver and image come from NVIDIA's release notes and its pins from a first resolve. The
    line names every fact the other majors carry, so a new entry misses none.
    """
    known = {int(major) for major in matrix["majors"]}
    found = sorted({r.version.major for r in toolkit} - known)
    facts = sorted(set.union(*(set(entry) for entry in matrix["majors"].values())))
    return [
        f"new CUDA major {major} ({CUDA_VERSION_PACKAGE} "
        f"{max(r.version for r in toolkit if r.version.major == major)}): add majors."
        f'"{major}" to the matrix by hand, with {", ".join(facts)}; its image at {major}.0 '
        f"and min_driver_linux the CUDA {major}.0 driver from NVIDIA's release notes"
        for major in found
        if major > max(known)
    ]


def image_commands(images: Iterable[str]) -> list[str]:
    """The command that lists the published tags like each image's (one per repository and kind).

    skopeo reads the registry without a daemon or a pull and lists what exists, so nobody has to
    guess a tag and probe it with `docker manifest inspect`.
    """
    kinds: dict[tuple[str, str], set[str]] = {}
    for image in images:
        tag = _IMAGE.match(image)
        if tag:
            kinds.setdefault((tag["repo"], tag["suffix"]), set()).add(tag["version"].split(".")[0])
    commands = []
    for (repo, suffix), majors in sorted(kinds.items()):
        registry = repo if "." in repo.split("/")[0] else f"docker.io/{repo}"
        pattern = f'"({"|".join(sorted(majors))})\\.[0-9]+\\.[0-9]+{suffix.replace(".", "[.]")}"'
        commands.append(f"skopeo list-tags docker://{registry} | grep -E '{pattern}'")
    return commands


# --- cibuildwheel's manylinux images -------------------------------------------------------------

# The compiled extension's release wheels build in quay.io/manylinux_cuda's images, one repository
# per architecture (the rendered pyproject builds both). Their fixed tags are dated the way
# pypa/manylinux's deploy.sh dates its own: the build commit's day, dotted, and the build of that
# day (`YYYY.MM.DD-N`), a form that sorts as a version. `latest` and any other name move or mean
# nothing in time: they are never chosen.
REGISTRY_API = "https://quay.io/api/v1"
MANYLINUX_ARCHS = ("x86_64", "aarch64")
_DATED_TAG = re.compile(r"^(\d{4})\.(\d{2})\.(\d{2})-(\d+)$")
_MANYLINUX = re.compile(r"^quay\.io/(?P<repo>[^:@]*\{arch\}[^:@]*):(?P<tag>[\w][\w.-]*)$")


@dataclass(frozen=True)
class ImageLine:
    """A major's manylinux image against the newest dated tag all its architectures carry."""

    major: str
    image: str  # as the matrix writes it: `{arch}` in the repository, then the tag
    new_image: str
    newest: str | None
    meanings: tuple[str, ...]


def dated_tag(tag: str) -> tuple[int, ...]:
    """(year, month, day, build) of a dated tag, for ordering; () for any other name."""
    found = _DATED_TAG.match(tag)
    return tuple(map(int, found.groups())) if found else ()


def fetch_image_tags(api: str, repository: str, context: ssl.SSLContext) -> list[str]:
    """The active tags of the quay.io repository ``namespace/name``, every page of them.

    quay.io's tag list (`GET /api/v1/repository/<ns>/<name>/tag/`) answers a page of
    `{"tags": [{"name", "start_ts", "manifest_digest", ...}], "page", "has_additional"}`;
    `onlyActiveTags` leaves out tags that were deleted or expired, which no longer pull.
    """
    names: list[str] = []
    page = 1
    while True:
        url = (
            f"{api.rstrip('/')}/repository/{repository}/tag/"
            f"?onlyActiveTags=true&limit=100&page={page}"
        )
        answer = _get(url, context, accept="application/json")
        if answer is None:
            raise IndexUnreadableError(f"{redact(url)}: no such repository")
        try:
            data = json.loads(answer[1])
            names += [str(tag["name"]) for tag in data["tags"]]
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise IndexUnreadableError(f"{redact(url)}: not a quay.io tag list ({exc})") from exc
        if not data.get("has_additional"):
            return names
        page += 1


def manylinux_line(major: str, image: str, tags: Mapping[str, Sequence[str]]) -> ImageLine:
    """Where the tags each architecture's repository lists (arch -> names) leave ``image``.

    The tag is one for both architectures (the rendered pyproject names both images with it), so
    only a dated tag that every repository lists is a candidate, and the newest of those wins.
    A pinned tag newer than every candidate is left: --write never moves an image back.
    """
    found = _MANYLINUX.match(image)
    if found is None:
        return ImageLine(
            major, image, image, None, ("not 'quay.io/...{arch}...:tag': edit by hand",)
        )
    dated = [{t for t in names if dated_tag(t)} for names in tags.values()]
    common = set.intersection(*dated) if dated else set()
    current = found["tag"]
    if not common:
        meaning = f"no dated tag on every architecture's repository: stays on {current}"
        return ImageLine(major, image, image, None, (meaning,))
    newest = max(common, key=dated_tag)
    pinned = dated_tag(current)
    if current == newest:
        return ImageLine(major, image, image, newest, ("pinned to the newest dated tag",))
    if pinned and pinned > dated_tag(newest):
        meaning = f"{current} is newer than every tag listed on all architectures: edit by hand"
        return ImageLine(major, image, image, newest, (meaning,))
    meaning = (
        f"new dated tag {newest}"
        if pinned
        else f"floats on `{current}`: --write pins it to the newest dated tag"
    )
    return ImageLine(major, image, f"quay.io/{found['repo']}:{newest}", newest, (meaning,))


def manylinux_lines(
    matrix: Mapping[str, Any], api: str, context: ssl.SSLContext
) -> list[ImageLine]:
    """Every major's manylinux image against the registry; all of them or, on an error, none."""
    lines = []
    for major in sorted(matrix["majors"], key=int):
        image = matrix["majors"][major]["extension"]["manylinux_image"]
        found = _MANYLINUX.match(image)
        tags = {}
        if found is not None:
            repositories = {arch: found["repo"].replace("{arch}", arch) for arch in MANYLINUX_ARCHS}
            tags = {
                arch: fetch_image_tags(api, repo, context) for arch, repo in repositories.items()
            }
        lines.append(manylinux_line(major, image, tags))
    return lines


def manylinux_report(lines: Sequence[ImageLine], error: str | None) -> list[str]:
    """The manylinux images' table, or why the registry was not read and what that leaves."""
    if error is not None:
        return [
            f"manylinux images: cannot read {error}. No image tag moves, nor `checked:`; run "
            "where quay.io is reachable, or pass --registry-api to ask a copy of its API."
        ]
    return _table(
        ("CUDA", "manylinux image", "newest dated tag", "after --write", "what it means"),
        (
            (
                line.major,
                f"`{line.image}`",
                line.newest or "-",
                "unchanged" if line.new_image == line.image else f"`{line.new_image}`",
                "; ".join(line.meanings),
            )
            for line in lines
        ),
    )


# --- the Python table -----------------------------------------------------------------------------


def fetch_release_cycle(url: str, context: ssl.SSLContext | None = None) -> dict[str, Any]:
    """The Developer's Guide's release-cycle.json: version -> first_release, end_of_life, ..."""
    page = _get(url, context or _ssl_context(os.environ))
    if page is None:
        raise IndexUnreadableError(f"{redact(url)}: no such file")
    data: dict[str, Any] = json.loads(page[1])
    return data


def merged_releases(
    rows: Sequence[Mapping[str, str]], cycle: Mapping[str, Mapping[str, Any]]
) -> list[dict[str, str]]:
    """The table's rows with the guide's dates, and every newer release the guide lists, in order.

    Releases older than the table's first row stay out: the table starts where the template's
    support did. A row the guide no longer lists keeps its dates.
    """
    first = Version(rows[0]["version"])
    merged = {row["version"]: dict(row) for row in rows}
    for version, entry in cycle.items():
        if Version(version) < first or not entry.get("first_release"):
            continue
        merged[version] = {
            "version": version,
            "released": str(entry["first_release"]),
            "end_of_life": str(entry["end_of_life"]),
        }
    return [merged[v] for v in sorted(merged, key=Version)]


def python_meanings(before: PythonSupport, after: PythonSupport) -> list[str]:
    """What the new table means for projects: floors retired, offered, the default moved."""
    lines = []
    for version, why in sorted(after.retired.items(), key=lambda item: Version(item[0])):
        if version not in before.retired:
            lines.append(
                f"Python {version} {why}: python_min no longer offers it, and `copier update` "
                f"stops a project on it until it answers python_min={after.choices[0]}"
            )
    for version in after.choices:
        if version not in before.choices:
            lines.append(f"python_min offers Python {version}")
    if after.spec0 != before.spec0:
        lines.append(f"new projects default to Python {after.spec0} (SPEC 0), was {before.spec0}")
    return lines or ["the supported Pythons stay as they are"]


_ROW = re.compile(
    r'^(?P<indent>\s*)- \{version: "[^"]+", released: "[^"]+", end_of_life: "[^"]+"\}$'
)


def rewrite_python_table(text: str, rows: Sequence[Mapping[str, str]], as_of: datetime.date) -> str:
    """The table file with ``rows`` in place of its rows and ``as_of`` moved; comments untouched."""
    lines = text.splitlines(keepends=True)
    found = [i for i, line in enumerate(lines) if _ROW.match(line.rstrip("\n"))]
    if not found or found != list(range(found[0], found[-1] + 1)):
        raise ValueError("the release rows are not one block of one-line rows: edit by hand")
    match = _ROW.match(lines[found[0]].rstrip("\n"))
    assert match is not None
    indent = match["indent"]
    new = [
        f'{indent}- {{version: "{r["version"]}", released: "{r["released"]}", '
        f'end_of_life: "{r["end_of_life"]}"}}\n'
        for r in rows
    ]
    return set_date("".join(lines[: found[0]] + new + lines[found[-1] + 1 :]), "as_of", as_of)


def bump_python_table(
    path: Path, url: str, python_range: Mapping[str, str], today: datetime.date, write: bool
) -> list[str]:
    """Read the guide, report the table it gives as of today and, with ``write``, save it."""
    table = load_default(path, "python_releases")
    try:
        cycle = fetch_release_cycle(url)
    except (IndexUnreadableError, json.JSONDecodeError) as exc:
        return [
            f"Python releases: cannot read {exc}. The table and its as_of "
            f"({table['as_of']}) are not moved; pass --release-cycle to read another copy."
        ]
    rows = merged_releases(table["releases"], cycle)
    after = {**table, "releases": rows, "as_of": today.isoformat()}
    out = [f"Python releases after --write (as_of {today}):", ""]
    out += _table(
        ("version", "released", "end of life"),
        ((r["version"], r["released"], r["end_of_life"]) for r in rows),
    )
    try:
        meanings = python_meanings(
            python_support(table, dict(python_range)), python_support(after, dict(python_range))
        )
    except ValueError as exc:  # the template could not render with this table: keep the old one
        return [*out, "", f"- {exc}; the table is not written."]
    out += ["", *(f"- {line}" for line in meanings)]
    if write:
        path.write_text(rewrite_python_table(path.read_text("utf-8"), rows, today), "utf-8")
        out.append(f"Wrote {path.name} (as_of: {today}).")
    return out


# --- writing ------------------------------------------------------------------------------------


def replacements(pairs: Iterable[tuple[str, str]]) -> dict[str, str]:
    """old -> new for every changed string; one old string cannot become two new ones."""
    found: dict[str, str] = {}
    for old, new in pairs:
        if old == new:
            continue
        if found.setdefault(old, new) != new:
            raise ValueError(f'"{old}" would become both "{found[old]}" and "{new}": edit by hand')
    return found


def rewrite(text: str, changes: Mapping[str, str], checked: datetime.date | None = None) -> str:
    """``text`` with each double-quoted old string replaced, comments and layout untouched."""
    for old, new in changes.items():
        quoted = f'"{old}"'
        if quoted not in text:
            raise ValueError(f"{quoted} is not in the file as written: edit it by hand")
        text = text.replace(quoted, f'"{new}"')
    return text if checked is None else set_date(text, "checked", checked)


def set_date(text: str, key: str, day: datetime.date) -> str:
    """``text`` with the one ``key: "..."`` line's date set to ``day``."""
    text, count = re.subn(
        rf'^(\s*{key}:\s*)"[^"]*"', rf'\g<1>"{day.isoformat()}"', text, flags=re.MULTILINE
    )
    if count != 1:
        raise ValueError(f"expected one `{key}:` line, found {count}")
    return text


# --- report -------------------------------------------------------------------------------------


def _table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(cells) + " |" for cells in rows]
    return lines


def report(
    sources: Sequence[Source],
    checked: str,
    rows: Sequence[Row],
    lines: Sequence[CudaLine],
    news: Sequence[str] = (),
    manylinux: Sequence[str] = (),
) -> str:
    """The Markdown report: sources, pins, CUDA lines, new majors, the manylinux images' tags
    (``manylinux``: manylinux_report's lines), and the command that lists nvidia/cuda's."""
    out = ["Asked:", *(f"- {redact(s.url)} ({s.kind}; {s.origin})" for s in sources), ""]
    out.append(f"Matrix last checked {checked}.")
    out.append("")
    out += _table(
        ("where", "range", "newest", "after --write", "what it means"),
        (
            (
                r.pin.where,
                f"`{r.pin.text}`",
                str(r.newest or "-"),
                "unchanged" if r.new_text == r.pin.text else f"`{r.new_text}`",
                "; ".join(r.meanings),
            )
            for r in rows
        ),
    )
    out.append("")
    out += _table(
        (
            "CUDA",
            "toolkit_range",
            f"newest {CUDA_VERSION_PACKAGE}",
            "after --write",
            "image",
            "what it means",
        ),
        (
            (
                c.major,
                c.toolkit_range,
                str(c.newest or "-"),
                "unchanged" if c.new_range == c.toolkit_range else c.new_range,
                c.image,
                "; ".join(c.meanings),
            )
            for c in lines
        ),
    )
    if news:
        out += ["", *(f"- {line}" for line in news)]
    if manylinux:
        out += ["", *manylinux]
    out += [
        "",
        "The `image:` tags (nvidia/cuda) were not checked: it publishes no dated tags, and which "
        "one fits is the driver's choice. List the published ones with:",
        "",
        *(f"    {command}" for command in image_commands(c.image for c in lines)),
    ]
    return "\n".join(out)


# --- command line -------------------------------------------------------------------------------


def _sources(args: argparse.Namespace) -> list[Source]:
    given = [Source(u, "index", "--index-url") for u in args.index_url]
    given += [Source(u, "find-links", "--find-links") for u in args.find_links]
    if given:  # asked explicitly: the configured indexes must not mix in (tests, one mirror)
        return given
    return configured_sources(os.environ, pip_config(), _uv_toml_files(os.environ))


def main(
    argv: Sequence[str] | None = None, today: Callable[[], datetime.date] = datetime.date.today
) -> int:
    """Print the report; with --write, apply it to the matrix and pins files."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="rewrite the ranges and the date")
    parser.add_argument("--index-url", action="append", default=[], help="ask only this index")
    parser.add_argument("--find-links", action="append", default=[], help="and/or this location")
    parser.add_argument("--matrix", type=Path, default=MATRIX_FILE, help=argparse.SUPPRESS)
    parser.add_argument("--pins", type=Path, default=PINS_FILE, help=argparse.SUPPRESS)
    parser.add_argument(
        "--python-table", type=Path, default=PYTHON_TABLE_FILE, help=argparse.SUPPRESS
    )
    parser.add_argument(
        "--registry-api",
        default=REGISTRY_API,
        help="quay.io's API (or a copy of it) that lists the manylinux images' tags",
    )
    parser.add_argument(
        "--release-cycle",
        default=RELEASE_CYCLE_URL,
        help="CPython's release dates: a URL or a file:// copy of release-cycle.json",
    )
    args = parser.parse_args(argv)

    matrix = load_default(args.matrix, "cuda_matrix")
    pins_data = load_default(args.pins, "pins")
    sources = _sources(args)
    pins = matrix_pins(matrix, pins_data)
    names = {canonicalize_name(p.requirement.name) for p in pins} | {CUDA_VERSION_PACKAGE}
    context = _ssl_context(os.environ)
    try:
        releases = {name: fetch_releases(name, sources, context) for name in sorted(names)}
    except IndexUnreadableError as exc:
        print(
            f"error: cannot read the index: {exc}. Pass --index-url to ask another.",
            file=sys.stderr,
        )
        return 2
    rows = [analyse(p, releases[canonicalize_name(p.requirement.name)]) for p in pins]
    lines = [
        cuda_line(major, matrix["majors"][major], releases[CUDA_VERSION_PACKAGE])
        for major in sorted(matrix["majors"], key=int)
    ]
    news = new_majors(matrix, releases[CUDA_VERSION_PACKAGE])
    # Every image's tags are read before anything is written: one repository that cannot be read
    # leaves all of them, so the majors never end up on tags of different days by accident.
    try:
        images, registry_error = manylinux_lines(matrix, args.registry_api, context), None
    except IndexUnreadableError as exc:
        images, registry_error = [], str(exc)
    manylinux = manylinux_report(images, registry_error)
    print(report(sources, matrix["checked"], rows, lines, news, manylinux))
    print()
    print(
        "\n".join(
            bump_python_table(
                args.python_table, args.release_cycle, matrix["python_range"], today(), args.write
            )
        )
    )
    if not args.write:
        print(
            "\nNothing written. `nox -s bump_matrix -- --write` applies the 'after --write' column."
        )
        return 0
    in_matrix = replacements(
        [(r.pin.text, r.new_text) for r in rows if r.pin.cuda_major is not None]
        + [(c.toolkit_range, c.new_range) for c in lines]
        + [(i.image, i.new_image) for i in images]
    )
    in_pins = replacements((r.pin.text, r.new_text) for r in rows if r.pin.cuda_major is None)
    # `checked:` says every pin was compared with its releases: a package the indexes did not
    # list (a mirror without it, an empty find-links folder) was not, so the date stays.
    # Nor was an image whose registry could not be read.
    unlisted = sorted(name for name, found in releases.items() if not found)
    checked = None if unlisted or registry_error else today()
    args.matrix.write_text(rewrite(args.matrix.read_text("utf-8"), in_matrix, checked), "utf-8")
    if in_pins:
        args.pins.write_text(rewrite(args.pins.read_text("utf-8"), in_pins), "utf-8")
    stamp = f"checked: {checked}" if checked else f"checked: kept at {matrix['checked']}"
    print(
        f"\nWrote {len(in_matrix)} change(s) to {args.matrix.name} ({stamp}), "
        f"{len(in_pins)} to {args.pins.name}."
    )
    if unlisted:
        print(
            f"The indexes asked list no release of {', '.join(unlisted)}: the date is not moved. "
            "Ask an index that has them (--index-url) to check the whole matrix."
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
