import * as Servers from "./servers.js"
import { coldSuite } from "./suites.js"

// Every first answer was measured to equal the warm one.
coldSuite(Servers.vscodeLangservers)
