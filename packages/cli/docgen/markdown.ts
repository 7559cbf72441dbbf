/**
 * What the generated catalogs share: reading a JSON Schema (references, property rows, a short type text) and
 * writing Markdown from it (cells, code, the field table, the "generated" header).
 */
import * as Predicate from "effect/Predicate"

export type Json = Readonly<Record<string, unknown>>

export const header = (what: string) =>
  `<!-- Generated from ${what} by \`npm run docgen\` (packages/cli/docgen/catalog.ts). ` +
  "Do not edit: a test fails when this file is out of date. -->\n"

export const record = (u: unknown): Json => Predicate.isRecord(u) ? u : {}

export const strings = (u: unknown): ReadonlyArray<string> =>
  Array.isArray(u) ? u.filter((item): item is string => typeof item === "string") : []

/** Follows a local `$ref` (`#/$defs/Name`) against the root schema. */
export const resolve = (root: Json, schema: Json): Json => {
  const ref = schema.$ref
  if (typeof ref !== "string" || !ref.startsWith("#/$defs/")) return schema
  return resolve(root, record(record(root.$defs)[ref.slice("#/$defs/".length)]))
}

export const cell = (text: string): string => text.replaceAll("|", "\\|").replaceAll("\n", " ")

export const code = (value: unknown): string => `\`${JSON.stringify(value)}\``

/** A short, human description of a property's type, from its JSON Schema. */
export const typeOf = (root: Json, property: Json): string => {
  const enumeration = property.enum
  if (Array.isArray(enumeration)) return enumeration.map(code).join(" or ")
  const anyOf = property.anyOf
  if (Array.isArray(anyOf)) {
    return anyOf.map((member) => record(member)).map((member) =>
      typeof member.title === "string" ? member.title : typeOf(root, member)
    ).join(", or ")
  }
  const allOf = property.allOf
  if (Array.isArray(allOf) && allOf.length === 1) {
    const inner = record(allOf[0])
    if (typeof inner.description === "string") return inner.description
    const target = resolve(root, inner)
    if (target.type === "object") return "object (below)"
    return typeOf(root, target)
  }
  if (property.$id === "/schemas/unknown") return "any JSON value"
  const target = resolve(root, property)
  if (target !== property) return typeOf(root, target)
  switch (property.type) {
    case "array": {
      // A plural reads right for a plain type ("array of strings"), not for a titled phrase or a choice.
      const item = typeOf(root, record(property.items))
      return /^an? |, or /.test(item) ? `array, each ${item}` : `array of ${item}s`
    }
    case "object": {
      const values = record(record(property.patternProperties)[""])
      return Object.keys(values).length > 0 ? `object of ${typeOf(root, values)}s` : "object"
    }
    case "integer": {
      const min = property.minimum
      const max = property.maximum
      if (typeof min === "number" && typeof max === "number") return `integer from ${min} to ${max}`
      return typeof min === "number" ? `integer ≥ ${min}` : "integer"
    }
    case "string":
      return "string"
    default:
      return typeof property.type === "string" ? property.type : "any"
  }
}

export interface Row {
  readonly key: string
  readonly type: string
  readonly required: boolean
  readonly defaultValue: unknown
  readonly description: string
}

export const rows = (root: Json, object: Json): ReadonlyArray<Row> => {
  const required = strings(object.required)
  return Object.entries(record(object.properties)).map(([key, value]) => {
    const property = record(value)
    return {
      key,
      type: typeOf(root, property),
      required: required.includes(key),
      defaultValue: property.default,
      description: typeof property.description === "string" ? property.description : ""
    }
  })
}

export const fieldTable = (fields: ReadonlyArray<Row>): string =>
  [
    "| key | type | default | meaning |",
    "|---|---|---|---|",
    ...fields.map((row) =>
      `| \`${row.key}\` | ${cell(row.type)} | ${
        row.required ? "required" : row.defaultValue === undefined ? "—" : cell(code(row.defaultValue))
      } | ${cell(row.description)} |`
    )
  ].join("\n")
