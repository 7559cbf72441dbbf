import * as Servers from "./servers.js"
import { coldSuite } from "./suites.js"

// Settled when its log says the background analysis ended (readiness.readyLog), so every first answer equals the warm one.
coldSuite(Servers.bash)
