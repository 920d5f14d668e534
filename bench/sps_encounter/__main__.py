from bench.sps_encounter import main

raise SystemExit(main())
