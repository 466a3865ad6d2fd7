"""Shared by the benchmark scripts: the machine line and writing a README section."""

import os
import platform

HERE = os.path.dirname(os.path.abspath(__file__))


def machine_line():
    return f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"


def write_section(name, table):
    """Replace the text between ``<!-- name -->`` and ``<!-- /name -->`` in benchmarks/README.md."""
    path = os.path.join(HERE, "README.md")
    with open(path) as f:
        text = f.read()
    start, end = f"<!-- {name} -->", f"<!-- /{name} -->"
    before, rest = text.split(start, 1)
    after = rest.split(end, 1)[1]
    with open(path, "w") as f:
        f.write(f"{before}{start}\n{table}\n{end}{after}")


def publish(name, rows, write):
    """Print the table ``rows`` (Markdown lines) under the machine line; with ``write``
    also put it between the ``name`` markers of benchmarks/README.md."""
    text = machine_line() + "\n\n" + "\n".join(rows)
    print(text)
    if write:
        write_section(name, text)
