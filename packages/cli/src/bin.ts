#!/usr/bin/env node
/**
 * The `lsp-seam` executable. It loads only what the command needs: `query … --remote …` takes a fast path
 * (`internal/remoteQuery.ts`) that loads neither `@effect/cli`, the MCP and AI modules nor the stdio host —
 * from `remoteQuery.bundle.cjs` (with a V8 code cache, `internal/fastPathBundle.ts`) when
 * `scripts/bundleRemoteQuery.mjs` made one and none of its inputs changed since; everything else runs the full command (`internal/main.ts`).
 *
 * @since 0.1.0
 */
import type * as RemoteQuery from "./internal/remoteQuery.js"

// A reader that went away (`lsp-seam query … | head -1`) is not an error worth a stack trace.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code !== "EPIPE") throw error
})

type FastPath = Pick<typeof RemoteQuery, "parse"> & {
  readonly main: (parsed: RemoteQuery.Parsed) => Promise<boolean>
}

/** The bundle, when it is there and was made from the files that are here now. */
const bundled = async (): Promise<FastPath | undefined> => {
  try {
    const { load } = await import("./internal/fastPathBundle.js")
    return load<RemoteQuery.Parsed>(new URL("./", import.meta.url))
  } catch {
    return undefined
  }
}

const args = process.argv.slice(2)
const remoteQuery = args[0] === "query" && args.some((arg) => arg === "--remote" || arg.startsWith("--remote="))
const fast: FastPath | undefined = remoteQuery
  ? await bundled() ?? await import("./internal/remoteQuery.js")
  : undefined
const parsed = fast?.parse(args)
if (fast === undefined || parsed === undefined || !(await fast.main(parsed))) {
  const { main } = await import("./internal/main.js")
  main(process.argv)
}
