/**
 * Turns a failed decode of the configuration into one `LSP_INVALID_CONFIG` whose message names the server
 * and field of every issue, and whose detail lists the issues with their paths.
 */
import { LspError } from "@lsp-seam/lsp"
import * as ConfigError from "effect/ConfigError"
import * as ParseResult from "effect/ParseResult"

interface Issue {
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
}

const isIdentifier = (segment: string): boolean => /^[A-Za-z_$][\w$]*$/.test(segment)

const formatPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.map((segment, i) => {
    const text = String(segment)
    if (typeof segment === "number") return `[${text}]`
    if (isIdentifier(text)) return i === 0 ? text : `.${text}`
    return `[${JSON.stringify(text)}]`
  }).join("")

// A struct with defaults is a transformation whose encoded side has only an automatic title.
const readable = (message: string): string => message.replaceAll("Struct (Encoded side)", "an object")

const expectedPattern = /^Expected (.*), actual (.*)$/s

/**
 * A union reports one issue per member ("Expected "a", actual 1"; "Expected "b", actual 1"); merge the
 * issues of one path into one "Expected "a" or "b", actual 1".
 */
const mergeAlternatives = (issues: ReadonlyArray<Issue>): Array<Issue> => {
  const merged: Array<Issue> = []
  for (const issue of issues) {
    const previous = merged.at(-1)
    const current = expectedPattern.exec(issue.message)
    const before = previous === undefined ? null : expectedPattern.exec(previous.message)
    if (
      previous !== undefined && current !== null && before !== null && before[2] === current[2] &&
      previous.path.length === issue.path.length && previous.path.every((segment, i) => segment === issue.path[i])
    ) {
      merged[merged.length - 1] = {
        path: issue.path,
        message: `Expected ${before[1]} or ${current[1]}, actual ${current[2]}`
      }
    } else {
      merged.push(issue)
    }
  }
  return merged
}

const formatIssue = (issue: Issue): string => {
  const [root, id, ...rest] = issue.path
  if (root === "servers" && id !== undefined) {
    const where = rest.length === 0 ?
      `server ${JSON.stringify(String(id))}` :
      `server ${JSON.stringify(String(id))}, field ${formatPath(rest)}`
    return `${where}: ${issue.message}`
  }
  return issue.path.length === 0 ? issue.message : `${formatPath(issue.path)}: ${issue.message}`
}

const issuesOf = (error: ParseResult.ParseError): ReadonlyArray<Issue> =>
  mergeAlternatives(
    ParseResult.ArrayFormatter.formatErrorSync(error).map((issue) => ({
      path: issue.path,
      message: readable(issue.message)
    }))
  )

/** The `LSP_INVALID_CONFIG` for a configuration that failed to decode (decoded with `errors: "all"`). */
export const toLspError = (error: ParseResult.ParseError): LspError.LspConfigurationError => {
  const issues = issuesOf(error)
  const serverIds = Array.from(
    new Set(
      issues.flatMap((issue) => issue.path[0] === "servers" && issue.path.length > 1 ? [String(issue.path[1])] : [])
    )
  )
  return LspError.invalidConfig(
    `Invalid lsp-seam configuration: ${issues.map(formatIssue).join("; ")}`,
    { issues: issues.map((issue) => ({ path: issue.path.map(String), message: issue.message })), serverIds }
  )
}

/**
 * The same failure as an Effect `ConfigError`, for a configuration read field by field: one `InvalidData` per
 * issue at the path of the field (`["maxServers"]`, `["servers", "ts", "command"]`), with `toLspError`'s text.
 */
export const toConfigError = (error: ParseResult.ParseError): ConfigError.ConfigError => {
  const [first, ...rest] = issuesOf(error).map((issue) =>
    ConfigError.InvalidData(issue.path.map(String), formatIssue(issue))
  )
  return first === undefined
    ? ConfigError.InvalidData([], error.message)
    : rest.reduce((left, right) => ConfigError.And(left, right), first)
}
