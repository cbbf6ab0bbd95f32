# Maintained by cuda-template (copier update). Add your code in new files: see docs/extending.md.
"""`nox -s template_update`, the session of the template_updates answer (GitLab's schedule too)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import nox
import noxfile

# Lines Copier writes around a change it could not merge (`--conflict inline`).
CONFLICT_MARKER = r"^(<<<<<<<|>>>>>>>)( |$)"


@nox.session(python=False, default=False)
def template_update(session: nox.Session) -> None:
    """Bring the template's newest release in on a branch; stop, naming them, on conflicts."""
    # What happened, as JSON, for the template-update CI job; by hand, the branch is yours to push.
    report = Path(os.environ.get("TEMPLATE_UPDATE_REPORT", os.devnull))
    if _git(session, "status", "--porcelain"):
        session.error("commit or stash your changes first: an update needs a clean tree")
    copier = ("uvx", f"copier@{noxfile.COPIER}")
    ask = (*copier, "check-update", "--output-format", "json")
    # Its warnings go to the terminal: only the JSON on stdout is read.
    check = json.loads(session.run(*ask, silent=True, stderr=None) or "{}")
    if not check["update_available"]:
        report.write_text(json.dumps({"status": "current", **check}), encoding="utf-8")
        session.log(f"Up to date: the template's newest release is {check['current_version']}")
        return
    branch = f"template-update/v{check['latest_version']}"
    _git(session, "switch", "--create", branch)
    session.run(*copier, "update", "--defaults", "--conflict", "inline", external=True)
    _git(session, "add", "--all")
    conflicts = _git(session, "diff", "--cached", "--name-only", "-G", CONFLICT_MARKER).split()
    status = "conflicts" if conflicts else "updated"
    outcome = {"status": status, "branch": branch, "conflicts": conflicts, **check}
    report.write_text(json.dumps(outcome), encoding="utf-8")
    if conflicts:
        session.error(
            f"the update conflicts with your edits in {', '.join(conflicts)}: resolve the "
            f"marked lines on {branch}, then commit (docs/updating.md)"
        )
    old, new = check["current_version"], check["latest_version"]
    _git(session, "commit", "--quiet", "--message", f"Update from cuda-template {old} to {new}")
    session.log(f"Committed on {branch}: push it and open a pull request")


def _git(session: nox.Session, *args: str) -> str:
    return session.run("git", *args, silent=True, external=True) or ""
