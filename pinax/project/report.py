"""What `pinax doctor --project DIR` says: what was detected, from which file, which loaded
docs answer for it, which versions are missing and which dependencies have no docs.

Plain lines, so the CLI prints them as they are; long lists are cut with a count of the rest.
"""

from __future__ import annotations

from collections import Counter

from pinax.project.records import Project
from pinax.project.scope import Scope

MAX_LISTED = 20  # dependencies without docs named before "and N more"


def doctor_lines(project: Project, scope: Scope) -> list[str]:
    """The report of one project against the loaded docs' scope."""
    hows = Counter(d.how for d in project.dependencies.values())
    counts = ", ".join(f"{n} {how}" for how, n in sorted(hows.items()))
    lines = [
        f"project {project.root}: {len(project.dependencies)} dependencies ({counts or 'none'})"
    ]
    for dependency in project.dependencies.values():
        answers = scope.served.get(str(dependency.package))
        if not answers:
            continue
        wanted = dependency.version or dependency.range or "any version"
        lines.append(
            f"  {dependency.package} {wanted} ({dependency.source}, {dependency.how})"
            f" -> {'; '.join(answers)}"
        )
    for shipped in project.shipped:
        where = (
            shipped.path.relative_to(project.root)
            if shipped.path.is_relative_to(project.root)
            else shipped.path
        )
        lines.append(f"  {shipped.package} {shipped.version} ships its docs: {where}")
    if scope.general:
        lines.append(f"  docs of no package, always searched: {', '.join(scope.general)}")
    if scope.undocumented:
        shown = ", ".join(scope.undocumented[:MAX_LISTED])
        rest = len(scope.undocumented) - MAX_LISTED
        more = f" and {rest} more" if rest > 0 else ""
        lines.append(f"  no docs loaded for {len(scope.undocumented)}: {shown}{more}")
    lines.extend(f"  warning: {warning}" for warning in project.warnings)
    return lines
