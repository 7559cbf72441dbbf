import { defineProject, mergeConfig } from "vitest/config"
import shared from "../../vitest.shared.js"

// The outage tests spawn the compiled CLI (`serve --cluster`, `runner`): built first, as the CLI's own tests do.
export default mergeConfig(shared, defineProject({ test: { globalSetup: ["../cli/test/globalSetup.ts"] } }))
