"""A docutils table as a Markdown pipe table: each cell's blocks on one line, `|` escaped,
spanned cells left empty, the header row the table's own (else its first row)."""

from __future__ import annotations

from collections.abc import Callable

from docutils import nodes

MAX_COLUMNS = 200  # wider than this: the cells as rows of text (no reader scans 200 columns)


def pipe_table(table: nodes.Element, render: Callable[[nodes.Element], list[str]]) -> list[str]:
    """The table's lines (`render`: a cell's Markdown lines)."""
    group = table.next_node(nodes.tgroup)
    if group is None:
        return []
    try:
        columns = max(1, int(group.get("cols", 1)))
    except (TypeError, ValueError):
        columns = 1
    head = group.next_node(nodes.thead)
    body = group.next_node(nodes.tbody)
    head_rows = _rows(head, columns, render) if head is not None else []
    body_rows = _rows(body, columns, render) if body is not None else []
    if columns > MAX_COLUMNS:
        return [" ".join(cell for cell in row if cell) for row in head_rows + body_rows]
    if not head_rows:
        if not body_rows:
            return []
        head_rows, body_rows = body_rows[:1], body_rows[1:]
    header, *extra = head_rows
    lines = [_line(header), "|" + "---|" * columns]
    lines.extend(_line(row) for row in [*extra, *body_rows])
    return lines


def _rows(
    part: nodes.Element, columns: int, render: Callable[[nodes.Element], list[str]]
) -> list[list[str]]:
    rows: list[list[str]] = []
    taken: dict[tuple[int, int], bool] = {}  # cells covered by a `morerows` span above
    for number, row in enumerate(part.children):
        if not isinstance(row, nodes.row):
            continue
        cells: list[str] = []
        column = 0
        for entry in row.children:
            while (number, column) in taken:
                cells.append("")
                column += 1
            text = " ".join(" ".join(line.split()) for line in render(entry) if line.strip())
            cells.append(text.replace("|", "\\|"))
            more_columns = _count(entry.get("morecols"))
            cells.extend([""] * more_columns)
            for down in range(1, _count(entry.get("morerows")) + 1):
                for across in range(more_columns + 1):
                    taken[(number + down, column + across)] = True
            column += more_columns + 1
        cells.extend([""] * (columns - len(cells)))
        rows.append(cells[:columns])
    return rows


def _count(value: object) -> int:
    return value if isinstance(value, int) and 0 <= value < 10_000 else 0


def _line(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"
