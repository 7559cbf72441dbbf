import * as Servers from "./servers.js"
import { coldSuite } from "./suites.js"

// Every first answer was measured to equal the warm one (tsserver loads the project before answering).
coldSuite(Servers.typescript)
