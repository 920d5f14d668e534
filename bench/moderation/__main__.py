"""`python -m bench.moderation`."""

from bench.moderation import main

raise SystemExit(main())
