import * as Servers from "./servers.js"
import { warmSuite } from "./suites.js"

warmSuite(Servers.yaml)
