#!/usr/bin/env node
/**
 * The `lsp-seam` executable. It loads only what the command needs: `query … --remote …` is first offered to
 * its edge (`internal/query/quickQuery.ts`, from `quickQuery.bundle.cjs`: no Effect runtime, no Schemas), which answers
 * the common warm query and leaves everything else to a fast path
 * (`internal/query/remoteQuery.ts`) that loads neither `@effect/cli`, the MCP and AI modules nor the stdio host —
 * from `remoteQuery.bundle.cjs` (with a V8 code cache, `internal/query/fastPathBundle.ts`) when
 * `scripts/bundleRemoteQuery.mjs` made one and none of its inputs changed since; everything else runs the full command (`internal/command/main.ts`).
 *
 * @since 0.1.0
 */
import type * as QuickQuery from "./internal/query/quickQuery.js"
import type * as RemoteQuery from "./internal/query/remoteQuery.js"

type FastPath = Pick<typeof RemoteQuery, "parse"> & {
  readonly main: (parsed: RemoteQuery.Parsed) => Promise<boolean>
}

/** The bundle, when it is there and was made from the files that are here now. */
const bundled = async (): Promise<FastPath | undefined> => {
  try {
    const { load } = await import("./internal/query/fastPathBundle.js")
    return load<RemoteQuery.Parsed>(new URL("./", import.meta.url))
  } catch {
    return undefined
  }
}

type Edge = Pick<typeof RemoteQuery, "parse"> & Pick<typeof QuickQuery, "run">

/**
 * The edge's answer (`internal/query/quickQuery.ts`): its exit code, or `undefined` when it leaves the query to the
 * fast path. Only from its bundle: loaded module by module, the edge would cost more than the path it spares.
 */
const edge = async (args: ReadonlyArray<string>): Promise<number | undefined> => {
  try {
    const { loadBundle } = await import("./internal/query/fastPathBundle.js")
    const loaded = loadBundle<Edge>(new URL("./", import.meta.url), "quickQuery")
    const parsed = loaded?.parse(args)
    return parsed === undefined ? undefined : await loaded?.run(parsed)
  } catch {
    return undefined
  }
}

const args = process.argv.slice(2)
const remoteQuery = args[0] === "query" && args.some((arg) => arg === "--remote" || arg.startsWith("--remote="))
const answered = remoteQuery ? await edge(args) : undefined
if (answered !== undefined) {
  process.exitCode = answered
} else {
  // A reader that went away (`lsp-seam query … | head -1`) is not an error worth a stack trace. (Set here, not
  // first: the edge writes without making `process.stdout`, whose stream costs a warm query a few ms.)
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error
  })
  const fast: FastPath | undefined = remoteQuery
    ? await bundled() ?? await import("./internal/query/remoteQuery.js")
    : undefined
  const parsed = fast?.parse(args)
  if (fast === undefined || parsed === undefined || !(await fast.main(parsed))) {
    const { main } = await import("./internal/command/main.js")
    main(process.argv)
  }
}
