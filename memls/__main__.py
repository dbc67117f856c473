"""``python -m memls``: the ``memls`` command line (``python -m memls serve`` starts the server)."""

from memls.quick import main

main()
