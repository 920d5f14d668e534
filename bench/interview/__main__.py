from bench.interview import main

raise SystemExit(main())
