"""``python -m memls``: the ``memls`` command line (``python -m memls serve`` starts the server)."""

from memls.cli import main

main()
