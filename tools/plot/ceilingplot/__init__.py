"""Figures and a report from a ceiling result store; checks numpy, h5py, matplotlib (Agg)."""

import sys

try:
    import numpy  # noqa: F401
    import h5py  # noqa: F401
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot  # noqa: F401
except ImportError as e:  # pragma: no cover - depends on the machine
    print(f"ceiling: error: {e}: this script needs numpy, h5py and matplotlib; run it with "
          "Debian's /usr/bin/python3 (apt-get install python3-h5py python3-matplotlib)",
          file=sys.stderr)
    sys.exit(1)
