/**
 * The environment a language server is started with: the host's own, minus anything that looks like a
 * credential or belongs to lsp-seam, plus what the configuration sets explicitly.
 */

const CREDENTIAL_MARKERS = ["KEY", "PASSWORD", "SECRET", "TOKEN"] as const

/** lsp-seam's own namespace; its configuration must not reach the servers it starts. */
const HOST_PREFIX = "LSP_SEAM_"

/**
 * True when the host variable `name` must not be passed to a server. Both checks ignore case: Windows
 * treats `Lsp_Seam_Config` and `LSP_SEAM_CONFIG` as the same variable, and dropping too much is harmless
 * because any variable can be passed on explicitly through the server's `env`.
 */
export const isScrubbed = (name: string): boolean => {
  const upper = name.toUpperCase()
  return upper.startsWith(HOST_PREFIX) || CREDENTIAL_MARKERS.some((marker) => upper.includes(marker))
}

/**
 * The environment for a server: `ambient` (usually `process.env`) without scrubbed and undefined
 * variables, with `configured` merged over it. Configured entries always win, whatever their names.
 */
export const scrubEnvironment = (
  ambient: Readonly<Record<string, string | undefined>>,
  configured: Readonly<Record<string, string>>
): Record<string, string> => {
  // fromEntries defines own properties, so even a variable named "__proto__" stays a plain entry.
  const kept = Object.entries(ambient).flatMap(([name, value]): Array<[string, string]> =>
    value === undefined || isScrubbed(name) ? [] : [[name, value]]
  )
  return Object.fromEntries([...kept, ...Object.entries(configured)])
}

/**
 * The value of `PATH` in an environment. Windows spells it `Path`; the lookup ignores case, and an exact
 * `PATH` wins when several spellings exist.
 */
export const pathVariable = (env: Readonly<Record<string, string>>): string | undefined => {
  if (Object.hasOwn(env, "PATH")) return env.PATH
  const name = Object.keys(env).find((key) => key.toUpperCase() === "PATH")
  return name === undefined ? undefined : env[name]
}
