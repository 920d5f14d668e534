"""`python -m bench.chair_interrupt`."""

from bench.chair_interrupt import main

raise SystemExit(main())
