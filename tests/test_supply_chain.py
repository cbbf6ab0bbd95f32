"""A rendered project's supply-chain checks: `nox -s audit` against an advisory database.

The database is a stand-in for OSV served on loopback (this machine reaches PyPI alone), speaking
the two calls uv makes: a batch query by package and version, then each advisory by its ID.
"""

from __future__ import annotations

import json
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest
from conftest import Render, run, tool

pytestmark = pytest.mark.slow

ADVISORY = "GHSA-test-0000-0001"
AFFECTED = "numpy"  # a base dependency: locked in every render


class _FakeOSV(BaseHTTPRequestHandler):
    advisory: ClassVar[dict[str, Any]] = {
        "id": ADVISORY,
        "modified": "2026-11-01T00:00:00Z",
        "summary": "a made-up advisory for the test",
        "affected": [
            {
                "package": {"name": AFFECTED, "ecosystem": "PyPI"},
                "ranges": [{"type": "ECOSYSTEM", "events": [{"introduced": "0"}]}],
            }
        ],
    }

    def do_POST(self) -> None:
        queries = json.loads(self.rfile.read(int(self.headers["Content-Length"])))["queries"]
        listed = {"vulns": [{"id": ADVISORY, "modified": self.advisory["modified"]}]}
        self._send(
            {"results": [listed if q["package"]["name"] == AFFECTED else {} for q in queries]}
        )

    def do_GET(self) -> None:
        self._send(self.advisory)

    def _send(self, body: object) -> None:
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def osv_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _FakeOSV)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def locked(render: Render) -> Path:
    project = render({}, name="audit")
    run(["uv", "lock", "--quiet"], cwd=project)
    return project


def audit(project: Path, url: str) -> Any:
    return subprocess.run(
        [tool("nox"), "-s", "audit", "--", "--service-url", url],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
    )


def test_audit_session_fails_on_a_locked_package_with_an_advisory(
    locked: Path, osv_url: str
) -> None:
    proc = audit(locked, osv_url)
    assert proc.returncode != 0
    assert ADVISORY in proc.stdout + proc.stderr


def test_an_advisory_acknowledged_in_pyproject_no_longer_fails_the_audit(
    locked: Path, osv_url: str
) -> None:
    pyproject = locked / "pyproject.toml"
    original = pyproject.read_text("utf-8")
    # The README's way: the ID in [tool.uv.audit], the reason beside it.
    pyproject.write_text(
        original
        + f'\n[tool.uv.audit]\n# not reachable from this project\nignore = ["{ADVISORY}"]\n',
        encoding="utf-8",
    )
    try:
        proc = audit(locked, osv_url)
    finally:
        pyproject.write_text(original, encoding="utf-8")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "no known vulnerabilities" in proc.stdout + proc.stderr


def test_audit_session_without_a_lock_says_to_run_uv_lock(render: Render, osv_url: str) -> None:
    project = render({}, name="audit-unlocked")
    proc = audit(project, osv_url)
    assert proc.returncode != 0
    assert "run `uv lock` first" in proc.stdout + proc.stderr


def test_the_readme_shows_the_acknowledgement_the_audit_reads(render: Render) -> None:
    readme = (render({}, name="audit-readme") / "README.md").read_text("utf-8")
    assert "[tool.uv.audit]" in readme
    assert "`nox -s audit`" in readme
