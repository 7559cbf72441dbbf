import * as path from "node:path"

export default ["packages/*/vitest.config.ts"].map((p) => path.join(import.meta.dirname, p))
