"""``python -m paramscope``: the command line (:mod:`paramscope.cli.main`)."""

from paramscope.cli.main import main

raise SystemExit(main())
