/**
 * The remote client's modules, loaded on first use. Compiled, they are imported one by one: the package's
 * index would also load the server side (`@effect/rpc`'s server, the HTTP and WebSocket servers), which a
 * command that only queries never needs. From the sources (tests) the index is used.
 */
import type { LspRemoteAddress, LspRemoteAuth, LspRemoteClient, LspRemoteDirectory } from "@lsp-seam/lsp-remote"
import * as Effect from "effect/Effect"

export interface RemoteModules {
  readonly Address: typeof LspRemoteAddress
  readonly Auth: typeof LspRemoteAuth
  readonly Client: typeof LspRemoteClient
  readonly Directory: typeof LspRemoteDirectory
}

const importAll = async (): Promise<RemoteModules> => {
  if (!import.meta.url.endsWith(".js")) {
    // A specifier in a variable: the bundler must not pull the index (and the server side) into the bundle.
    const specifier = "@lsp-seam/lsp-remote"
    const index = await import(specifier) as {
      readonly LspRemoteAddress: RemoteModules["Address"]
      readonly LspRemoteAuth: RemoteModules["Auth"]
      readonly LspRemoteClient: RemoteModules["Client"]
      readonly LspRemoteDirectory: RemoteModules["Directory"]
    }
    return {
      Address: index.LspRemoteAddress,
      Auth: index.LspRemoteAuth,
      Client: index.LspRemoteClient,
      Directory: index.LspRemoteDirectory
    }
  }
  const entry = import.meta.resolve("@lsp-seam/lsp-remote")
  const [Address, Auth, Client, Directory] = await Promise.all([
    import(new URL("./LspRemoteAddress.js", entry).href) as Promise<typeof LspRemoteAddress>,
    import(new URL("./LspRemoteAuth.js", entry).href) as Promise<typeof LspRemoteAuth>,
    import(new URL("./LspRemoteClient.js", entry).href) as Promise<typeof LspRemoteClient>,
    import(new URL("./LspRemoteDirectory.js", entry).href) as Promise<typeof LspRemoteDirectory>
  ])
  return { Address, Auth, Client, Directory }
}

let loading: Promise<RemoteModules> | undefined

/** Hands over modules already loaded (the bundled fast path has them built in). */
export const provide = (modules: RemoteModules): void => {
  loading = Promise.resolve(modules)
}

export const load: Effect.Effect<RemoteModules> = Effect.promise(() => loading ??= importAll())
