import * as Servers from "./servers.js"
import { coldSuite } from "./suites.js"

coldSuite(
  Servers.pyright,
  // Enabled when readiness lands (issue 7): a first findReferences is answered before pyright has enumerated the
  // workspace's source files (its "Found N source files" log message), so it lists only the open file.
  ["referencesOfShape", "referencesOfArea"]
)
