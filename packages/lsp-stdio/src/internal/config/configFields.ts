/**
 * The refined strings, JSON values and maps the configuration's fields are made of, each with the check
 * that makes it safe to hand to a process or a server. `StdioConfig` assembles them into the config shape.
 */
import { LspExtension } from "@lsp-seam/lsp"
import * as Schema from "effect/Schema"

const isBlank = (s: string): boolean => s.trim().length === 0

export const NonBlankString = Schema.String.pipe(
  Schema.filter((s) => !isBlank(s) || "must not be blank", {
    jsonSchema: { pattern: "\\S" },
    description: "a string with at least one non-whitespace character"
  })
).annotations({ title: "a non-blank string" })

const NoNulString = Schema.String.pipe(
  Schema.filter((s) => !s.includes("\0") || "must not contain a NUL character", {
    jsonSchema: { pattern: "^[^\\u0000]*$" }
  })
).annotations({ title: "a string without NUL characters" })

export const Command = NonBlankString.pipe(
  Schema.filter((s) => !s.includes("\0") || "must not contain a NUL character", { jsonSchema: {} })
).annotations({
  description: "An absolute path to the server executable, or a bare name looked up on the server's PATH. " +
    "Never run through a shell; relative paths containing a separator are rejected."
})

const EnvName = Schema.String.pipe(
  Schema.filter((s) => s.length > 0 && !s.includes("=") && !s.includes("\0") && s !== "__proto__", {
    jsonSchema: { pattern: "^[^=\\u0000]+$" }
  })
).annotations({ title: "an environment variable name (non-empty, without '=' or NUL, not \"__proto__\")" })

const ExtensionKey = Schema.String.pipe(Schema.filter((s) => s !== "__proto__", { jsonSchema: {} })).annotations({
  title: "an extension other than \"__proto__\""
})

const isJsonValue = (u: unknown, depth: number): boolean => {
  if (depth > 256) return false
  if (u === null || typeof u === "string" || typeof u === "boolean") return true
  if (typeof u === "number") return Number.isFinite(u)
  if (Array.isArray(u)) return u.every((item) => isJsonValue(item, depth + 1))
  if (typeof u === "object") {
    const proto = Object.getPrototypeOf(u)
    return (proto === Object.prototype || proto === null) &&
      Object.values(u).every((item) => isJsonValue(item, depth + 1))
  }
  return false
}

// Sent to the server as JSON: refuse functions, undefined, NaN, class instances and the like up front.
export const JsonValue = Schema.Unknown.pipe(
  Schema.filter(
    (u) => isJsonValue(u, 0) || "must be a JSON value (null, boolean, finite number, string, array, object)",
    {
      jsonSchema: { description: "any JSON value" }
    }
  )
).annotations({ title: "a JSON value" })

// The keys are judged by the seam's own rule, so a map that decodes here is one the registry accepts.
export const ExtensionMap = Schema.Record({ key: ExtensionKey, value: NonBlankString }).annotations({
  title: "an object mapping extensions to language ids"
}).pipe(
  Schema.filter((map) => {
    const keys = Object.keys(map)
    if (keys.length === 0) return "must map at least one extension to a language id"
    return LspExtension.checkExtensionKeys(keys).flatMap((checked): Array<Schema.FilterIssue> => {
      switch (checked._tag) {
        case "Valid":
          return []
        case "Invalid":
          return [{ path: [checked.key], message: checked.reason }]
        case "Duplicate": {
          const [key, previous] = [JSON.stringify(checked.key), JSON.stringify(checked.previous)]
          return [{ path: [checked.key], message: `extension ${key} and ${previous} are both ${checked.extension}` }]
        }
      }
    })
  }, { jsonSchema: { minProperties: 1 } })
).annotations({
  description: "Extension → LSP language id, e.g. { \".ts\": \"typescript\" }. Keys are lower-cased and get a " +
    "leading dot when missing; each must be a single extension."
})

const FileName = Schema.String.pipe(
  Schema.filter((s) => /^[^/\\\0]+$/.test(s) && s !== "." && s !== ".." || "must be a plain file name", {
    jsonSchema: { pattern: "^[^/\\\\\\u0000]+$" }
  })
).annotations({ title: "a file name (no separator or NUL, not \".\" or \"..\")" })

export const FileNames = Schema.Array(FileName).annotations({ title: "an array of file names" })

/**
 * Root markers in order of priority: each entry a file name, or a list of names of equal priority (the
 * nearest directory holding any of them wins).
 */
export const RootMarkers = Schema.Array(
  Schema.Union(
    FileName,
    Schema.Array(FileName).pipe(Schema.minItems(1)).annotations({ title: "a non-empty array of file names" })
  )
).annotations({ title: "an array of file names or arrays of file names" })

export const Args = Schema.Array(NoNulString).annotations({ title: "an array of strings" })

export const Env = Schema.Record({ key: EnvName, value: NoNulString }).annotations({
  title: "an object of environment variables"
})

// A record key that fails its refinement is reported as an unexpected property (decoding always runs with
// `onExcessProperty: "error"`), so the title says what a valid key is. "__proto__" is refused because as a
// key of the decoded object it would replace the prototype instead of adding an entry.
export const ServerId = Schema.String.pipe(
  Schema.filter((s) => !isBlank(s) && s !== "__proto__", { jsonSchema: { pattern: "\\S" } })
).annotations({ title: "a server id that is neither blank nor \"__proto__\"" })

/**
 * The issues of a servers record whose servers claim one extension twice. Extensions are exclusive across
 * providers; catching a clash while decoding keeps registration all-or-nothing and names every clash at once.
 */
export const extensionClashes = (
  servers: { readonly [id: string]: { readonly extensionToLanguage: { readonly [key: string]: string } } }
): Array<Schema.FilterIssue> => {
  const owners = new Map<string, string>()
  const issues: Array<Schema.FilterIssue> = []
  for (const [id, server] of Object.entries(servers)) {
    for (const checked of LspExtension.checkExtensionKeys(Object.keys(server.extensionToLanguage))) {
      // An invalid or duplicate key is already reported where its map is decoded.
      if (checked._tag !== "Valid") continue
      const owner = owners.get(checked.extension)
      if (owner === undefined) {
        owners.set(checked.extension, id)
      } else {
        issues.push({
          path: [id, "extensionToLanguage", checked.key],
          message: `extension ${checked.extension} is already handled by server ${JSON.stringify(owner)}`
        })
      }
    }
  }
  return issues
}
