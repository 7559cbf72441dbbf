import { defineProject, mergeConfig } from "vitest/config"
import shared from "../../vitest.shared.js"

// The end-to-end tests run the compiled command (dist/bin.js), as users do: build it once first.
export default mergeConfig(shared, defineProject({ test: { globalSetup: ["./test/globalSetup.ts"] } }))
