import * as Servers from "./servers.js"
import { coldSuite } from "./suites.js"

coldSuite(
  Servers.clangd,
  // Enabled when readiness lands (issue 7): until clangd's background index is built (it reports $/progress, token
  // backgroundIndexProgress) references list only the open file, and a definition lands on the declaration.
  []
)
