from bench.chair_interrupt import main

raise SystemExit(main())
