import * as Servers from "./servers.js"
import { coldSuite } from "./suites.js"

// Settled by the preset's quiet period (readiness.quietMs), so the first hover already has its Source line.
coldSuite(Servers.yaml)
