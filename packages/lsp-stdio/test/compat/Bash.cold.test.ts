import * as Servers from "./servers.js"
import { coldSuite } from "./suites.js"

// Settled by the preset's quiet period (readiness.quietMs), so every first answer equals the warm one.
coldSuite(Servers.bash)
