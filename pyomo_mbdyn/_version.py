"""The version of pyomo_mbdyn, written in this one place.

``setup.cfg`` reads it (``version = attr: pyomo_mbdyn._version.__version__``, a
literal that setuptools parses without importing the package), and
``pyomo_mbdyn.__version__`` and ``pyomo-mbdyn --version`` re-export it.
"""

__version__ = "0.1.0"
