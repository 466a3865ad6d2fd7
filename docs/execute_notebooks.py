"""Run every notebook and store the executed copy (with its outputs) for the documentation.

``notebooks/<name>.ipynb`` are stored without outputs (reviewable diffs); the site shows
``docs/executed/<name>.ipynb``, the same cells run from a clean kernel with their figures
and tables.  Run after changing a notebook::

    python docs/execute_notebooks.py            # every notebook, two kernels at a time
    python docs/execute_notebooks.py crane      # only these

``docs/conf.py`` renders an executed copy only while its cells equal the notebook's
(otherwise the clean notebook, without outputs); ``tests/test_notebooks.py`` fails when a
copy is missing or stale, naming this command.
"""

import asyncio
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
EXECUTED = ROOT / "docs" / "executed"
#: kernels at once (a two-core machine)
CONCURRENT = 2
TIMEOUT_SECONDS = 600


async def _run(path, gate, workdir):
    async with gate:
        nb = nbformat.read(path, as_version=4)
        client = NotebookClient(nb, kernel_name="python3", timeout=TIMEOUT_SECONDS,
                                resources={"metadata": {"path": str(workdir)}})
        await client.async_execute()
        nbformat.write(nb, EXECUTED / path.name)
        print(f"executed {path.name}", flush=True)


def main(names=()):
    import tempfile

    EXECUTED.mkdir(exist_ok=True)
    paths = sorted(NOTEBOOKS.glob("*.ipynb"))
    if names:
        paths = [p for p in paths if p.stem in names]
        unknown = sorted(set(names) - {p.stem for p in paths})
        if unknown:
            raise SystemExit(f"no notebooks named {unknown}")

    async def run_all():
        gate = asyncio.Semaphore(CONCURRENT)
        with tempfile.TemporaryDirectory() as workdir:  # files the notebooks write stay out of the checkout
            await asyncio.gather(*(_run(p, gate, workdir) for p in sorted(paths, key=lambda p: p.stem != "studies")))

    asyncio.run(run_all())


if __name__ == "__main__":
    main(sys.argv[1:])
