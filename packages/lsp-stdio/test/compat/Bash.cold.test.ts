import * as Servers from "./servers.js"
import { coldSuite } from "./suites.js"

coldSuite(
  Servers.bash,
  // Enabled when readiness lands (issue 7): until bash-language-server has analysed the workspace (a few hundred
  // ms after `initialized`, with no progress signal) it answers no locations and no hover.
  ["definitionAcrossSource", "referencesOfFunction", "referencesOfVariable", "hoverFunction", "definitionAfterAstral"]
)
