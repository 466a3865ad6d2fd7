"""Shared by the benchmark scripts: the machine line and writing a README section."""

import glob
import os
import platform
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def machine_line():
    return f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"


def byte_compile(python=sys.executable):
    """Byte-compile the library that interpreter ``python`` imports, and these scripts, as an
    installed wheel is (pip compiles what it installs): a fresh process then times the
    library, not the compilation of its ~150 modules.  An editable install compiles on
    first import, unless ``PYTHONDONTWRITEBYTECODE`` is set (as on our benchmark
    machines) — then every fresh process compiled the whole package again (≈ 0.1 s for the
    modules a build imports, measured on the crane), which the hand-written NLPs (one
    module) did not pay.  Returns the package directory compiled."""
    where = subprocess.run([python, "-c", "import os, pyomo_mbdyn; print(os.path.dirname(pyomo_mbdyn.__file__))"],
                           capture_output=True, text=True, check=True, env={**os.environ, "PYTHONPATH": ""},
                           cwd="/").stdout.strip()
    for directory in (where, HERE):
        subprocess.run([python, "-m", "compileall", "-q", directory], check=True, stdout=subprocess.DEVNULL)
    return where


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
