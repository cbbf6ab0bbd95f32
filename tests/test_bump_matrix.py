"""`nox -s bump_matrix` (tools/bump_matrix.py), offline: every index here is built on disk.

The indexes hold tiny real wheels (a METADATA with Requires-Python, a WHEEL, a RECORD) and PEP 503
pages that point at them through file:// URLs, the way a mirror on disk is laid out.
"""

from __future__ import annotations

import ast
import datetime
import html
import json
import re
import shutil
import threading
import urllib.parse
import zipfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import bump_matrix
import pytest
import yaml
from conftest import REPO_ROOT
from hypothesis import assume, given
from hypothesis import strategies as st
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version
from template_data import python_floors, python_support
from test_one_source import next_major_entry

TODAY = datetime.date(2031, 2, 3)
PYTHONS = ("3.10", "3.11", "3.12", "3.13", "3.14")

# (version, Requires-Python or None, yanked)
Offer = tuple[str, str | None, bool]


def make_wheel(folder: Path, name: str, version: str, requires_python: str | None) -> Path:
    """A minimal installable wheel whose METADATA carries ``requires_python``."""
    dist = f"{canonicalize_name(name).replace('-', '_')}-{version}"
    metadata = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
    if requires_python:
        metadata += f"Requires-Python: {requires_python}\n"
    files = {
        f"{dist}.dist-info/METADATA": metadata,
        f"{dist}.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
        "Tag: py3-none-any\n",
    }
    files[f"{dist}.dist-info/RECORD"] = "".join(f"{path},,\n" for path in files) + (
        f"{dist}.dist-info/RECORD,,\n"
    )
    folder.mkdir(parents=True, exist_ok=True)
    wheel = folder / f"{dist}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for path, text in files.items():
            archive.writestr(path, text)
    return wheel


def simple_index(root: Path, offers: Mapping[str, Sequence[Offer]]) -> str:
    """A PEP 503 index on disk, pages with data-requires-python and data-yanked; its file:// URL."""
    for name, versions in offers.items():
        links = []
        for version, requires_python, yanked in versions:
            wheel = make_wheel(root / "files", name, version, requires_python)
            attrs = (
                f' data-requires-python="{html.escape(requires_python)}"' if requires_python else ""
            )
            attrs += ' data-yanked=""' if yanked else ""
            links.append(f'<a href="../../files/{wheel.name}#sha256=0"{attrs}>{wheel.name}</a>')
        page = root / "simple" / canonicalize_name(name) / "index.html"
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text("<!DOCTYPE html><html><body>\n" + "\n".join(links) + "\n</body></html>")
    return (root / "simple").as_uri()


def pin(
    text: str, cuda_major: int | None = None, pythons: tuple[str, ...] = PYTHONS
) -> bump_matrix.Pin:
    return bump_matrix.Pin("test", text, pythons, cuda_major)


def releases(*offers: tuple[str, str | None]) -> list[bump_matrix.Release]:
    return [bump_matrix.Release(Version(v), SpecifierSet(rp) if rp else None) for v, rp in offers]


@pytest.fixture
def includes(tmp_path: Path) -> tuple[Path, Path]:
    """Copies of the real matrix, pins and Python table, for --write to rewrite; beside them, the
    Developer's Guide's release-cycle.json as the table has it."""
    target = tmp_path / "includes"
    target.mkdir()
    for name in ("cuda-matrix.yml", "pins.yml", "python-releases.yml"):
        shutil.copy2(REPO_ROOT / "includes" / name, target / name)
    write_release_cycle(target, PYTHON_TABLE["releases"])
    return target / "cuda-matrix.yml", target / "pins.yml"


PYTHON_TABLE = bump_matrix.load_default(
    REPO_ROOT / "includes/python-releases.yml", "python_releases"
)


def write_release_cycle(folder: Path, rows: Iterable[Mapping[str, str]]) -> Path:
    """release-cycle.json as the guide publishes it (newest first, more fields than read)."""
    cycle = {
        row["version"]: {
            "branch": row["version"],
            "status": "bugfix",
            "first_release": row["released"],
            "end_of_life": row["end_of_life"],
            "release_manager": "someone",
        }
        for row in sorted(rows, key=lambda r: Version(r["version"]), reverse=True)
    }
    path = folder / "release-cycle.json"
    path.write_text(json.dumps(cycle, indent=2), "utf-8")
    return path


# Port 9 (discard) on the loopback: refused at once, no network needed.
UNREACHABLE = "http://127.0.0.1:9"


def run_tool(
    includes: tuple[Path, Path],
    sources: Iterable[str],
    *extra: str,
    today: datetime.date = TODAY,
    registry: str = f"{UNREACHABLE}/api/v1",
) -> Callable[[], int]:
    matrix, pins = includes
    folder = matrix.parent
    argv = ["--matrix", str(matrix), "--pins", str(pins), *sources, *extra]
    argv += ["--python-table", str(folder / "python-releases.yml")]
    argv += ["--release-cycle", (folder / "release-cycle.json").as_uri()]
    argv += ["--registry-api", registry]
    return lambda: bump_matrix.main(argv, today=lambda: today)


class FakeQuay:
    """quay.io's tag list on the loopback: `GET /api/v1/repository/<ns>/<name>/tag/`, in pages.

    ``tags`` maps a repository (`manylinux_cuda/manylinux_2_28_x86_64_cuda13_1`) to its tag
    names; one it lacks answers 404, as quay.io does. Pages hold ``page_size`` tags whatever the
    `limit` asked, so that a short list already takes several pages.
    """

    page_size = 3

    def __init__(self) -> None:
        self.tags: dict[str, list[str]] = {}
        self.queries: list[dict[str, list[str]]] = []
        registry = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                url = urllib.parse.urlsplit(self.path)
                found = re.fullmatch(r"/api/v1/repository/(.+)/tag/", url.path)
                names = registry.tags.get(found[1]) if found else None
                if names is None:
                    self.send_error(404)
                    return
                query = urllib.parse.parse_qs(url.query)
                registry.queries.append(query)
                page = int(query.get("page", ["1"])[0])
                start = (page - 1) * registry.page_size
                chunk = names[start : start + registry.page_size]
                body = json.dumps(
                    {
                        "tags": [
                            {
                                "name": name,
                                "reversion": False,
                                "start_ts": 1_780_000_000 + i,
                                "manifest_digest": f"sha256:{i:064x}",
                                "is_manifest_list": False,
                            }
                            for i, name in enumerate(chunk, start)
                        ],
                        "page": page,
                        "has_additional": start + registry.page_size < len(names),
                    }
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:  # keep pytest's output quiet
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.api = f"http://127.0.0.1:{self.server.server_address[1]}/api/v1"

    def serve(self, image: str, names: Sequence[str]) -> None:
        """List ``names`` in every architecture's repository of a matrix image."""
        for arch in bump_matrix.MANYLINUX_ARCHS:
            self.tags[repository(image, arch)] = list(names)


def repository(image: str, arch: str) -> str:
    """The quay.io repository (`namespace/name`) of a matrix image for one architecture."""
    return image.removeprefix("quay.io/").rpartition(":")[0].replace("{arch}", arch)


@pytest.fixture
def quay() -> Iterator[FakeQuay]:
    registry = FakeQuay()
    thread = threading.Thread(target=registry.server.serve_forever, daemon=True)
    thread.start()
    yield registry
    registry.server.shutdown()
    registry.server.server_close()


def manylinux_images(matrix_file: Path) -> dict[str, str]:
    """Each major's manylinux image as the matrix file writes it."""
    matrix = bump_matrix.load_default(matrix_file, "cuda_matrix")
    return {
        major: entry["extension"]["manylinux_image"] for major, entry in matrix["majors"].items()
    }


# --- the matrix's pins --------------------------------------------------------------------------


def test_every_requirement_of_the_matrix_and_the_pins_is_asked_about() -> None:
    matrix = yaml.safe_load((REPO_ROOT / "includes/cuda-matrix.yml").read_text())["cuda_matrix"]
    pins = yaml.safe_load((REPO_ROOT / "includes/pins.yml").read_text())["pins"]["default"]
    expected = [
        req
        for entry in matrix["default"]["majors"].values()
        for req in [
            *(r for reqs in entry["requirements"].values() for r in reqs),
            *entry["guard_requirements"],
            *entry["dask"]["requirements"],
        ]
    ] + [req for value in pins.values() if isinstance(value, list) for req in value]
    found = bump_matrix.matrix_pins(matrix["default"], pins)
    assert sorted(p.text for p in found) == sorted(expected)


def test_a_library_pin_serves_only_the_pythons_from_its_floor() -> None:
    matrix = bump_matrix.load_default(REPO_ROOT / "includes/cuda-matrix.yml", "cuda_matrix")
    for found in bump_matrix.matrix_pins(matrix, {}):
        major, library = found.where.split()[1:]
        if library != "guard":
            floors = python_floors(matrix, major)
            # A floor below every supported Python serves from the oldest supported one.
            oldest = Version(python_support(python_range=matrix["python_range"]).versions[0])
            floor = max(Version(floors[library]), oldest)
            assert min(Version(p) for p in found.pythons) == floor


# --- what a newest release means ----------------------------------------------------------------


def test_new_major_above_the_cap_raises_the_cap_to_the_next_major() -> None:
    row = bump_matrix.analyse(
        pin("cupy-cuda13x[ctk]>=14.0,<15", 13), releases(("14.2", None), ("15.0.1", None))
    )
    assert row.new_text == "cupy-cuda13x[ctk]>=14.0,<16"
    assert row.meanings[0] == "new cupy-cuda13x major 15: the cap moves to admit it"


def test_new_zero_major_raises_a_zero_cap_by_the_minor() -> None:
    row = bump_matrix.analyse(pin("numba-cuda[cu12]>=0.30,<0.31"), releases(("0.32.1", None)))
    assert row.new_text == "numba-cuda[cu12]>=0.30,<0.33"


def test_compatibility_cap_is_reported_and_left_as_it_is() -> None:
    row = bump_matrix.analyse(pin("numpy<2.5", 12), releases(("2.4.6", None), ("2.5.1", None)))
    assert row.new_text == "numpy<2.5"
    assert "above the compatibility cap <2.5: --write leaves it" in row.meanings[0]


def test_range_that_pins_the_cuda_major_reports_the_newest_of_that_major() -> None:
    offers = releases(("12.9.4", None), ("13.0.0", None), ("13.5.0", None))
    row = bump_matrix.analyse(pin("cuda-bindings>=12.9,<13", 12), offers)
    assert (row.newest, row.new_text, row.meanings) == (
        Version("12.9.4"),
        "cuda-bindings>=12.9,<13",
        ("follows CUDA 12",),
    )


def test_dropped_python_is_named_with_the_release_that_python_keeps() -> None:
    offers = releases(("2.2.6", ">=3.10"), ("2.4.6", ">=3.11"), ("2.5.1", ">=3.12"))
    row = bump_matrix.analyse(pin("numpy>=2.0"), offers)
    assert row.meanings == (
        "in range",
        "newest needs Python >=3.12, dropping 3.10, 3.11"
        " (3.10 stays on 2.2.6; 3.11 stays on 2.4.6)",
    )


def test_python_below_the_library_floor_is_not_called_dropped() -> None:
    row = bump_matrix.analyse(
        pin("jax>=0.7", 13, pythons=("3.12", "3.13")), releases(("0.9", ">=3.12"))
    )
    assert row.meanings == ("in range",)


def test_newest_below_the_floor_is_blamed_on_a_stale_mirror() -> None:
    row = bump_matrix.analyse(pin("torch>=2.9"), releases(("2.8.0", None)))
    assert "below the floor: is the index a stale mirror?" in row.meanings[0]


def test_package_missing_from_the_index_says_so() -> None:
    assert bump_matrix.analyse(pin("pycuda>=2025.1"), []).meanings == (
        "not found on the indexes asked",
    )


def test_new_cuda_minor_grows_the_toolkit_range_and_leaves_the_image_on_the_drivers_cuda() -> None:
    entry = {
        "toolkit_range": "13.0 to 13.5",
        "min_driver_cuda": "13.0",
        "image": "nvidia/cuda:13.0.2-base-ubuntu24.04",
        "guard_requirements": ["cuda-toolkit==13.*", "nvidia-ml-py>=12.570"],
    }
    line = bump_matrix.cuda_line("13", entry, releases(("13.6.0", None), ("14.0.0", None)))
    assert (line.new_range, line.newest) == ("13.0 to 13.6", Version("13.6.0"))
    # A 13.6 image would ask for a driver that supports CUDA 13.6: the floor would move.
    assert line.meanings == (
        "new CUDA minor 13.6",
        "image stays on CUDA 13.0, the stated driver's: newer patch tags only",
    )


def test_an_image_newer_than_the_stated_driver_is_reported() -> None:
    entry = {"image": "nvidia/cuda:13.4.2-base-ubuntu24.04", "min_driver_cuda": "13.0"}
    assert bump_matrix.image_meanings(entry) == [
        "image asks for CUDA 13.4, more than min_driver_linux supports (13.0): use a 13.0 tag, "
        "or raise both driver facts"
    ]


def test_a_major_without_the_drivers_cuda_is_told_to_add_it() -> None:
    entry = {"image": "nvidia/cuda:14.0.0-base-ubuntu24.04"}
    assert bump_matrix.image_meanings(entry) == [
        "no min_driver_cuda: add the CUDA that min_driver_linux supports"
    ]


def test_a_cuda_major_the_matrix_lacks_is_reported_with_every_fact_it_needs() -> None:
    matrix = bump_matrix.load_default(REPO_ROOT / "includes/cuda-matrix.yml", "cuda_matrix")
    newest = max(int(m) for m in matrix["majors"])
    offered = releases((f"{newest}.9.0", None), (f"{newest + 1}.0.1", None), ("11.8.0", None))
    (line,) = bump_matrix.new_majors(matrix, offered)
    assert line.startswith(f"new CUDA major {newest + 1} (cuda-toolkit {newest + 1}.0.1): add ")
    # Every per-major fact, the doctor's and the image's included, is named.
    for fact in ("min_driver_linux", "min_driver_cuda", "image", "cuda_core_nvml_bindings"):
        assert fact in line


def test_a_matrix_with_one_more_major_is_read_like_the_others(
    includes: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Adding a major is an edit to the matrix alone: the tool reads the new entry as it is.
    data = yaml.safe_load(includes[0].read_text("utf-8"))
    added, entry = next_major_entry(data["cuda_matrix"]["default"])
    data["cuda_matrix"]["default"]["majors"][str(added)] = entry
    includes[0].write_text(yaml.safe_dump(data), "utf-8")
    url = simple_index(tmp_path / "index", {"cuda-toolkit": [(f"{added}.0.0", None, False)]})
    assert run_tool(includes, ["--index-url", url])() == 0
    out = capsys.readouterr().out
    assert f"| {added} | " in out
    assert "new CUDA major" not in out


def test_image_command_lists_the_tags_of_every_major_in_one_go() -> None:
    images = ["nvidia/cuda:12.9.2-base-ubuntu24.04", "nvidia/cuda:13.4.2-base-ubuntu24.04"]
    assert bump_matrix.image_commands(images) == [
        "skopeo list-tags docker://docker.io/nvidia/cuda"
        " | grep -E '\"(12|13)\\.[0-9]+\\.[0-9]+-base-ubuntu24[.]04\"'"
    ]


@given(
    cap=st.integers(1, 40),
    newest=st.tuples(st.integers(0, 60), st.integers(0, 60), st.integers(0, 60)),
)
def test_raised_cap_admits_the_newest_and_stays_on_a_major(
    cap: int, newest: tuple[int, int, int]
) -> None:
    version = Version(".".join(map(str, newest)))
    assume(version >= Version(str(cap)))  # a cap is only raised for a release at or above it
    raised = bump_matrix.raised_cap(Version(str(cap)), version)
    assert raised is not None
    assert version < raised
    assert raised == Version(str(version.major + 1))


@given(major=st.integers(1, 40), minor=st.integers(1, 40))
def test_a_cap_inside_a_major_is_never_raised(major: int, minor: int) -> None:
    cap = Version(f"{major}.{minor}")
    assert bump_matrix.raised_cap(cap, Version(f"{major + 1}.0")) is None


# --- reading indexes ----------------------------------------------------------------------------


def test_index_on_disk_gives_requires_python_and_skips_yanked_and_prereleases(
    tmp_path: Path,
) -> None:
    url = simple_index(
        tmp_path,
        {
            "cupy-cuda13x": [
                ("14.2.0", ">=3.10", False),
                ("15.0.0rc1", None, False),
                ("16.0.0", None, True),
            ]
        },
    )
    source = bump_matrix.Source(url, "index", "test")
    assert bump_matrix.fetch_releases("cupy_cuda13x", [source]) == releases(("14.2.0", ">=3.10"))


def test_flat_find_links_folder_reads_requires_python_from_the_wheel(tmp_path: Path) -> None:
    make_wheel(tmp_path, "numpy", "2.5.0", ">=3.12")
    make_wheel(tmp_path, "numba", "0.70.0", ">=3.10")  # another project in the same folder
    source = bump_matrix.Source(str(tmp_path), "find-links", "test")
    assert bump_matrix.fetch_releases("numpy", [source]) == releases(("2.5.0", ">=3.12"))


def test_mirror_without_requires_python_does_not_hide_the_index_that_has_it(tmp_path: Path) -> None:
    mirror = simple_index(tmp_path / "mirror", {"numpy": [("2.5.0", None, False)]})
    index = simple_index(tmp_path / "index", {"numpy": [("2.5.0", ">=3.12", False)]})
    sources = [bump_matrix.Source(u, "index", "test") for u in (mirror, index)]
    assert bump_matrix.fetch_releases("numpy", sources) == releases(("2.5.0", ">=3.12"))


def test_json_simple_api_page_is_read() -> None:
    file = {"filename": "jax-0.9.0-py3-none-any.whl", "requires-python": ">=3.11", "yanked": "bad"}
    body = json.dumps({"meta": {"api-version": "1.1"}, "files": [file]}).encode()
    parsed = bump_matrix._parse_page("application/vnd.pypi.simple.v1+json", body)
    assert parsed == [("jax-0.9.0-py3-none-any.whl", ">=3.11", True)]


# --- where it asks ------------------------------------------------------------------------------


UV_MIRROR, PIP_MIRROR = "https://mirror.example/simple", "https://pip-mirror.example/simple"


@pytest.mark.parametrize(
    ("environ", "pip", "primary"),
    [
        (
            {"UV_DEFAULT_INDEX": UV_MIRROR},
            {"index-url": PIP_MIRROR},
            (UV_MIRROR, "UV_DEFAULT_INDEX"),
        ),
        ({}, {"index-url": PIP_MIRROR}, (PIP_MIRROR, "pip index-url")),
        ({}, {}, (bump_matrix.DEFAULT_INDEX, "default: nothing configured")),
    ],
    ids=["uv-before-pip", "pip-when-uv-has-none", "pypi-when-nothing-is-configured"],
)
def test_the_one_primary_index_is_uvs_then_pips_then_pypi(
    environ: dict[str, str], pip: dict[str, str], primary: tuple[str, str]
) -> None:
    sources = bump_matrix.configured_sources(environ, pip)
    assert [(s.url, s.origin) for s in sources] == [primary]


def test_every_extra_index_and_find_links_of_uv_and_pip_is_asked() -> None:
    sources = bump_matrix.configured_sources(
        {"UV_INDEX": "internal=https://a.example/simple", "UV_FIND_LINKS": "/w1,/w2"},
        {"extra-index-url": "file:///opt/b https://c.example/simple", "find-links": "/w3"},
    )
    assert [(s.kind, s.url) for s in sources[1:]] == [
        ("index", "https://a.example/simple"),
        ("find-links", "/w1"),
        ("find-links", "/w2"),
        ("index", "file:///opt/b"),
        ("index", "https://c.example/simple"),
        ("find-links", "/w3"),
    ]


def test_uv_toml_default_index_is_the_primary(tmp_path: Path) -> None:
    config = tmp_path / "uv.toml"
    config.write_text('[[index]]\nurl = "https://corp.example/simple"\ndefault = true\n')
    sources = bump_matrix.configured_sources({}, {}, [config])
    assert [s.url for s in sources] == ["https://corp.example/simple"]


def test_password_in_an_index_url_is_not_printed() -> None:
    assert bump_matrix.redact("https://me:s3cret@mirror.example/simple") == (
        "https://me:***@mirror.example/simple"
    )


# --- the command, end to end on copies of the real files ----------------------------------------


def _major_caps(matrix_file: Path) -> dict[str, str]:
    """Each pin of the matrix with a cap on a major boundary -> a release at that boundary."""
    matrix = bump_matrix.load_default(matrix_file, "cuda_matrix")
    found = {}
    for p in bump_matrix.matrix_pins(matrix, {}):
        spec = p.requirement.specifier
        if p.cuda_major is None or bump_matrix.pins_cuda_major(spec, p.cuda_major):
            continue
        for s in spec:
            if s.operator == "<" and bump_matrix.raised_cap(Version(s.version), Version(s.version)):
                found[p.text] = f"{s.version}.0.1"
    return found


@pytest.fixture
def new_majors(includes: tuple[Path, Path], tmp_path: Path) -> tuple[dict[str, str], str]:
    """An index offering a release just above every major-boundary cap in the matrix."""
    caps = _major_caps(includes[0])
    assert caps, "the matrix has no major-boundary cap to test with"
    offers = {Requirement(text).name: [(version, None, False)] for text, version in caps.items()}
    return caps, simple_index(tmp_path / "index", offers)


def comments(text: str) -> list[str]:
    return [line for line in text.splitlines() if "#" in line]


def test_write_raises_every_major_cap_the_index_outgrew_and_keeps_every_comment_and_line(
    includes: tuple[Path, Path], new_majors: tuple[dict[str, str], str]
) -> None:
    caps, url = new_majors
    before = includes[0].read_text("utf-8")
    assert run_tool(includes, ["--index-url", url], "--write")() == 0
    text = includes[0].read_text("utf-8")
    matrix = bump_matrix.load_default(includes[0], "cuda_matrix")
    rewritten = [p.requirement for p in bump_matrix.matrix_pins(matrix, {})]
    for old, version in caps.items():
        assert f'"{old}"' not in text
        name = Requirement(old).name
        assert any(r.name == name and r.specifier.contains(version) for r in rewritten)
    assert len(text.splitlines()) == len(before.splitlines())
    assert comments(text) == comments(before)


def every_package_index(includes: tuple[Path, Path], tmp_path: Path) -> str:
    """An index that lists a release of every package the matrix and the pins name."""
    matrix = bump_matrix.load_default(includes[0], "cuda_matrix")
    pins = bump_matrix.load_default(includes[1], "pins")
    names = {Requirement(p.text).name for p in bump_matrix.matrix_pins(matrix, pins)}
    offers = {name: [("1.0", None, False)] for name in names | {bump_matrix.CUDA_VERSION_PACKAGE}}
    return simple_index(tmp_path / "all", offers)


def test_write_sets_the_checked_date_when_the_index_and_registry_list_everything(
    includes: tuple[Path, Path], tmp_path: Path, quay: FakeQuay
) -> None:
    for image in manylinux_images(includes[0]).values():
        quay.serve(image, ["2026.11.30-1"])
    index = every_package_index(includes, tmp_path)
    run_tool(includes, ["--index-url", index], "--write", registry=quay.api)()
    assert bump_matrix.load_default(includes[0], "cuda_matrix")["checked"] == TODAY.isoformat()


def test_write_keeps_the_checked_date_when_the_index_lists_nothing(
    includes: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = bump_matrix.load_default(includes[0], "cuda_matrix")["checked"]
    url = simple_index(tmp_path / "empty", {})
    assert run_tool(includes, ["--index-url", url], "--write")() == 0
    assert bump_matrix.load_default(includes[0], "cuda_matrix")["checked"] == before
    assert "the date is not moved" in capsys.readouterr().out


def test_without_write_nothing_changes(
    includes: tuple[Path, Path], new_majors: tuple[dict[str, str], str]
) -> None:
    before = [path.read_bytes() for path in includes]
    run_tool(includes, ["--index-url", new_majors[1]])()
    assert [path.read_bytes() for path in includes] == before


def test_report_says_the_nvidia_cuda_image_tags_were_not_checked(
    includes: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_tool(includes, ["--index-url", simple_index(tmp_path, {})])()
    out = capsys.readouterr().out
    assert "The `image:` tags (nvidia/cuda) were not checked" in out
    assert "    skopeo list-tags docker://docker.io/nvidia/cuda | grep -E" in out


def test_unreachable_index_exits_2_and_says_which(
    includes: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code = run_tool(includes, ["--index-url", f"{UNREACHABLE}/simple"])()
    assert code == 2
    assert "error: cannot read the index: http://127.0.0.1:9/simple/" in capsys.readouterr().err


# --- the manylinux images' tags -----------------------------------------------------------------


def test_every_manylinux_image_names_its_tag_and_a_set_one_is_dated() -> None:
    # `latest` until bump_matrix could read quay.io; once set, the pin is a dated tag.
    for major, image in manylinux_images(REPO_ROOT / "includes/cuda-matrix.yml").items():
        found = bump_matrix._MANYLINUX.match(image)
        assert found is not None, f"CUDA {major}: {image} names no tag"
        assert found["tag"] == "latest" or bump_matrix.dated_tag(found["tag"]), image


IMAGE = "quay.io/manylinux_cuda/manylinux_2_28_{arch}_cuda13_1:latest"


def test_the_newest_dated_tag_both_architectures_list_is_chosen() -> None:
    # The build number orders a day's builds as a number: -10 comes after -9. 2026.12.01-1 is
    # on x86_64 alone (aarch64's build not out yet): one tag names both images, so it waits.
    tags = {
        "x86_64": ["2026.11.30-9", "2026.11.30-10", "2026.12.01-1", "latest"],
        "aarch64": ["latest", "2026.11.30-10", "2026.11.30-9"],
    }
    line = bump_matrix.manylinux_line("13", IMAGE, tags)
    assert line.newest == "2026.11.30-10"
    assert line.new_image == "quay.io/manylinux_cuda/manylinux_2_28_{arch}_cuda13_1:2026.11.30-10"
    assert line.meanings == ("floats on `latest`: --write pins it to the newest dated tag",)


def test_latest_and_other_undated_tags_are_never_chosen() -> None:
    # pypa/manylinux's older `2024-03-10-b85029d` form does not sort by its name either.
    undated = ["latest", "main", "cuda13_1", "2024-03-10-b85029d", "sha256-0123abcd.sig"]
    line = bump_matrix.manylinux_line("13", IMAGE, {"x86_64": undated, "aarch64": undated})
    assert (line.new_image, line.newest) == (IMAGE, None)
    assert line.meanings == ("no dated tag on every architecture's repository: stays on latest",)


def test_a_pinned_tag_moves_forward_and_never_back() -> None:
    pinned = IMAGE.replace(":latest", ":2026.11.30-2")
    newer = {"x86_64": ["2026.12.02-1"], "aarch64": ["2026.12.02-1"]}
    older = {"x86_64": ["2026.07.01-1"], "aarch64": ["2026.07.01-1"]}
    assert bump_matrix.manylinux_line("13", pinned, newer).new_image.endswith(":2026.12.02-1")
    assert bump_matrix.manylinux_line("13", pinned, newer).meanings == (
        "new dated tag 2026.12.02-1",
    )
    assert bump_matrix.manylinux_line("13", pinned, older).new_image == pinned


def test_write_pins_every_manylinux_image_to_its_newest_dated_tag_and_keeps_comments(
    includes: tuple[Path, Path],
    tmp_path: Path,
    quay: FakeQuay,
    capsys: pytest.CaptureFixture[str],
) -> None:
    images = manylinux_images(includes[0])
    for image in images.values():
        quay.serve(image, ["latest", *DAYS])
    before = includes[0].read_text("utf-8")
    index = simple_index(tmp_path, {})
    assert run_tool(includes, ["--index-url", index], "--write", registry=quay.api)() == 0
    after = includes[0].read_text("utf-8")
    written = manylinux_images(includes[0])
    for major, image in images.items():
        assert written[major] == image.rpartition(":")[0] + ":2026.11.30-2"
    assert comments(after) == comments(before)
    assert len(after.splitlines()) == len(before.splitlines())
    # Both pages were read (the newest tag is on the second), and only active tags were asked.
    assert {q["page"][0] for q in quay.queries} == {"1", "2"}
    assert all(q["onlyActiveTags"] == ["true"] for q in quay.queries)
    assert (
        "| 2026.11.30-2 | `quay.io/manylinux_cuda/manylinux_2_28_{arch}_cuda13_1:2026.11.30-2` "
        "| floats on `latest`" in capsys.readouterr().out
    )


# Five dated tags, not in order: with `latest` first, two pages of three, the newest on the second.
DAYS = ["2026.07.01-1", "2026.11.30-1", "2026.06.30-1", "2026.11.30-2", "2026.08.14-3"]


def test_an_unreachable_registry_is_named_and_moves_no_tag_nor_the_date(
    includes: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = includes[0].read_bytes()
    code = run_tool(includes, ["--index-url", every_package_index(includes, tmp_path)], "--write")()
    assert code == 0  # the pins are still written: only what quay.io decides waits
    out = capsys.readouterr().out
    assert (
        "manylinux images: cannot read http://127.0.0.1:9/api/v1/repository/manylinux_cuda/" in out
    )
    assert "No image tag moves, nor `checked:`" in out
    assert manylinux_images(includes[0]) == manylinux_images(REPO_ROOT / "includes/cuda-matrix.yml")
    matrix = bump_matrix.load_default(includes[0], "cuda_matrix")
    assert matrix["checked"] == yaml.safe_load(before)["cuda_matrix"]["default"]["checked"]


def test_one_repository_missing_leaves_every_image_as_it_was(
    includes: tuple[Path, Path], tmp_path: Path, quay: FakeQuay
) -> None:
    # CUDA 12's repositories answer; CUDA 13's aarch64 one does not exist: no major moves alone.
    images = manylinux_images(includes[0])
    for image in images.values():
        quay.serve(image, DAYS)
    newest = max(images, key=int)
    del quay.tags[repository(images[newest], "aarch64")]
    run_tool(includes, ["--index-url", simple_index(tmp_path, {})], "--write", registry=quay.api)()
    assert manylinux_images(includes[0]) == images


def _installed_by(session: str) -> set[str]:
    """The requirements a session of the repository's noxfile passes to ``session.install``."""
    tree = ast.parse((REPO_ROOT / "noxfile.py").read_text("utf-8"))
    function = next(
        node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == session
    )
    return {
        arg.value
        for call in ast.walk(function)
        if isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr == "install"
        for arg in call.args
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str)
    }


def test_the_session_installs_what_regenerating_the_docs_needs() -> None:
    # --write ends by running tools/generate_docs.py, as the docs_pages session does.
    assert _installed_by("docs_pages") <= _installed_by("bump_matrix")


# --- the Python table ---------------------------------------------------------------------------

# A day on which the table's next end of life (3.11, 2027-10) has passed.
NEXT_YEAR = datetime.date(2027, 11, 2)


def test_write_takes_the_guides_new_release_and_dates_and_moves_as_of(
    includes: tuple[Path, Path], tmp_path: Path
) -> None:
    folder = includes[0].parent
    rows = [dict(row) for row in PYTHON_TABLE["releases"]]
    rows[0]["end_of_life"] = "2026-10-31"  # the guide gives the day once it has passed
    newest = Version(rows[-1]["version"])
    added = {"version": f"{newest.major}.{newest.minor + 1}", "released": "2027-10-01"}
    rows.append({**added, "end_of_life": "2032-10"})
    write_release_cycle(folder, rows)
    table_file = folder / "python-releases.yml"
    before = table_file.read_text()
    index = simple_index(tmp_path, {})
    assert run_tool(includes, ["--index-url", index], "--write", today=NEXT_YEAR)() == 0
    written = bump_matrix.load_default(table_file, "python_releases")
    assert written["releases"] == rows
    assert written["as_of"] == NEXT_YEAR.isoformat()
    assert comments(table_file.read_text()) == comments(before)


def test_report_says_which_python_retires_and_what_a_project_on_it_answers(
    includes: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_tool(includes, ["--index-url", simple_index(tmp_path, {})], today=NEXT_YEAR)()
    out = capsys.readouterr().out
    assert (
        "- Python 3.11 reached its end of life in 2027-10: python_min no longer offers it, and "
        "`copier update` stops a project on it until it answers python_min=3.12"
    ) in out


def test_an_unreadable_guide_leaves_the_table_and_its_date(
    includes: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = includes[0].parent
    (folder / "release-cycle.json").unlink()
    before = (folder / "python-releases.yml").read_bytes()
    assert run_tool(includes, ["--index-url", simple_index(tmp_path, {})], "--write")() == 0
    assert (folder / "python-releases.yml").read_bytes() == before
    assert "The table and its as_of (" in capsys.readouterr().out


def test_a_table_that_would_leave_no_python_floor_is_not_written(
    includes: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # By TODAY (2031) every Python of the stack's range has reached its end of life.
    folder = includes[0].parent
    before = (folder / "python-releases.yml").read_bytes()
    assert run_tool(includes, ["--index-url", simple_index(tmp_path, {})], "--write")() == 0
    assert (folder / "python-releases.yml").read_bytes() == before
    assert "python_min needs two" in capsys.readouterr().out
