"""The user guide read in the repository (on GitHub, without a Sphinx build) shows what the built
site shows: generated tables are committed into the pages and kept current here."""

import re
from pathlib import Path

from pyomo_mbdyn.schemes import scheme_table

GUIDE = Path(__file__).resolve().parents[1] / "docs" / "guide"


def _between(text, marker):
    found = re.search(rf"<!-- {marker} -->\n(.*?)<!-- /{marker} -->", text, re.S)
    assert found, f"no <!-- {marker} --> block"
    return found.group(1)


def test_the_schemes_page_carries_the_registry_s_table():
    page = (GUIDE / "schemes.md").read_text(encoding="utf-8")
    assert _between(page, "schemes").strip() == scheme_table().strip(), (
        "docs/guide/schemes.md's table of schemes is stale: paste pyomo_mbdyn.schemes.scheme_table() "
        "between its <!-- schemes --> markers")


def test_no_guide_page_includes_a_file_that_only_a_build_writes():
    for page in sorted(GUIDE.glob("*.md")):
        assert "_generated/" not in page.read_text(encoding="utf-8"), (
            f"{page.name} includes a generated file: on GitHub it shows nothing; commit the text instead")
