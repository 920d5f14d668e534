from bench.moderation import main

raise SystemExit(main())
