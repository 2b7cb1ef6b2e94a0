"""Local AWS for tests, `make demo` and bench/: the resources of template.yaml recreated in moto,
and the functions of template.yaml invoked in-process with the environment the template gives
them. Not deployed (it is not in layers/), so it may depend on moto and PyYAML."""

import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
LAYER_SOURCE = REPO_ROOT / "layers" / "slea"

# The layer's package is importable as `slea`, as it is from /opt/python on Lambda.
if str(LAYER_SOURCE) not in sys.path:
    sys.path.insert(0, str(LAYER_SOURCE))
