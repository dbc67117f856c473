"""``python fault_cli.py ARGS``: the memls CLI with a fault from ``MEMLS_FAULT`` injected."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fault_injection import install_from_environment  # noqa: E402

install_from_environment()

from memls.cli import main  # noqa: E402

main(sys.argv[1:])
