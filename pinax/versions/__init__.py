"""What a version and a package are, and the rules that match them (the room's only door).

`Version` keeps a version as written and compares it by its release numbers; `select` picks
the one loaded version that answers for a requested one, or none (never a substitute);
`highest` the default among several; `refusal` the message that refuses one not loaded;
`identity` and `split_identity` write and read `name@version`. `parse_range` reads a PEP 440
or npm range, whose `select` takes the highest loaded version inside it. `PackageId` names a
package the way its ecosystem compares names; `documents` says whether docs document one.
"""

from __future__ import annotations

from pinax.versions.core import (
    Version,
    as_version,
    highest,
    identity,
    matches,
    refusal,
    select,
    split_identity,
)
from pinax.versions.packages import (
    RUNTIME,
    PackageId,
    documented,
    documents,
    normalise,
    package_id,
    parse_package,
    runtime,
)
from pinax.versions.ranges import VersionRange, parse_range

__all__ = [
    "RUNTIME",
    "PackageId",
    "Version",
    "VersionRange",
    "as_version",
    "documented",
    "documents",
    "highest",
    "identity",
    "matches",
    "normalise",
    "package_id",
    "parse_package",
    "parse_range",
    "refusal",
    "runtime",
    "select",
    "split_identity",
]
