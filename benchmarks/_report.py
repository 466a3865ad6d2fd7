"""Shared by the benchmark scripts: the machine line and writing a README section."""

import glob
import os
import platform

HERE = os.path.dirname(os.path.abspath(__file__))


def machine_line():
    return f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"


def _page_with(marker):
    """The page under benchmarks/pages (or benchmarks/README.md) that holds ``marker``."""
    pages = sorted(glob.glob(os.path.join(HERE, "pages", "*.md"))) + [os.path.join(HERE, "README.md")]
    for path in pages:
        with open(path) as f:
            if marker in f.read():
                return path
    raise KeyError(f"no benchmark page holds {marker}")


def write_section(name, table):
    """Replace the text between ``<!-- name -->`` and ``<!-- /name -->`` on the benchmark page that holds them."""
    start, end = f"<!-- {name} -->", f"<!-- /{name} -->"
    path = _page_with(start)
    with open(path) as f:
        text = f.read()
    before, rest = text.split(start, 1)
    after = rest.split(end, 1)[1]
    with open(path, "w") as f:
        f.write(f"{before}{start}\n{table}\n{end}{after}")


def publish(name, rows, write):
    """Print the table ``rows`` (Markdown lines) under the machine line; with ``write``
    also put it between the ``name`` markers of its benchmark page (benchmarks/pages)."""
    text = machine_line() + "\n\n" + "\n".join(rows)
    print(text)
    if write:
        write_section(name, text)
