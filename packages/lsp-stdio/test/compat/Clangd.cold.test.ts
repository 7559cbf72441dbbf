import * as Servers from "./servers.js"
import { coldSuite } from "./suites.js"

// The host waits until clangd's background index is built ($/progress token backgroundIndexProgress); before
// it, references listed only the open file and a definition landed on the declaration.
coldSuite(Servers.clangd)
