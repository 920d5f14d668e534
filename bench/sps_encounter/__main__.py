"""`python -m bench.sps_encounter`."""

from bench.sps_encounter import main

raise SystemExit(main())
