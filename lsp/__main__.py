"""``python -m lsp``: serve over stdio."""

from .server import main

main()
