"""`python -m bench.interview`."""

from bench.interview import main

raise SystemExit(main())
