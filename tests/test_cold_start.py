"""Cold start (issue 48): importing the library and building a robot model loads no
table/figure/stats stack. pandas, scipy and matplotlib serve diagnostics, tables,
figures and reference integration only; importing them at module level made the first
model build ~1 s slower than the second. Checked in a fresh interpreter via sys.modules."""

import json
import subprocess
import sys

SCRIPT = """
import json, sys
import pyomo.environ
from pyomo_mbdyn.models import panda
model = panda.build()
print(json.dumps(sorted(m for m in ("pandas", "scipy", "matplotlib") if m in sys.modules)))
"""


def test_building_the_panda_model_imports_no_pandas_scipy_or_matplotlib():
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []

