/**
 * The `maxMemory` field: a memory size as a user writes it (`512MB`, `2GiB`, a plain number of bytes, or
 * `25%` of the machine's memory), checked while the configuration decodes and turned into bytes only when
 * the host starts, on the machine it runs on.
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"

/** A size as written: so many bytes, or a share of the machine's memory. */
export type MemorySize =
  | { readonly _tag: "Bytes"; readonly bytes: number }
  | { readonly _tag: "Share"; readonly percent: number }

/** The smallest budget accepted: below it a plain number is more likely megabytes written as bytes. */
export const MIN_BYTES = 1024 * 1024

/** The default: a quarter of the machine's memory (docs/decisions.md says why). */
export const DEFAULT_MAX_MEMORY = "25%"

/** The field's description, for editors and the configuration catalog. */
export const description = "The servers' memory budget: \"512MB\", \"2GiB\", a number of bytes, or a share of " +
  "the machine's memory (\"25%\"). When the resident memory of the servers' process trees adds up to more, " +
  "the least recently used idle servers are stopped until it fits; a server that is answering never is. " +
  "Measured from /proc (Linux); elsewhere it is not enforced."

// Decimal units are powers of 1000 and binary ones powers of 1024, as the IEC names say.
const units: Readonly<Record<string, number>> = {
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
  tib: 1024 ** 4
}

const written = /^(\d+(?:\.\d+)?)\s*([A-Za-z]+|%)$/

const forms = "a size such as \"512MB\" or \"2GiB\" (B, kB, MB, GB, TB, KiB, MiB, GiB, TiB), " +
  `a whole number of bytes of at least ${MIN_BYTES}, or a share of the machine's memory such as "25%"`

/** Reads a size as written; `Left` says what was wrong with it. */
export const parse = (input: string | number): Either.Either<MemorySize, string> => {
  if (typeof input === "number") {
    return Number.isSafeInteger(input) && input >= MIN_BYTES
      ? Either.right({ _tag: "Bytes", bytes: input })
      : Either.left(`must be ${forms}`)
  }
  const match = written.exec(input.trim())
  if (match === null) return Either.left(`must be ${forms}`)
  const amount = Number(match[1])
  const unit = match[2]!.toLowerCase()
  if (unit === "%") {
    return amount > 0 && amount <= 100
      ? Either.right({ _tag: "Share", percent: amount })
      : Either.left("a share of the machine's memory must be more than 0% and at most 100%")
  }
  const factor = units[unit]
  if (factor === undefined) return Either.left(`has an unknown unit "${match[2]}": must be ${forms}`)
  const bytes = Math.floor(amount * factor)
  return bytes >= MIN_BYTES && Number.isSafeInteger(bytes)
    ? Either.right({ _tag: "Bytes", bytes })
    : Either.left(`must be at least 1MiB (${MIN_BYTES} bytes)`)
}

/** The budget in bytes on a machine with `machineBytes` of memory. */
export const toBytes = (size: MemorySize, machineBytes: number): number =>
  size._tag === "Bytes" ? size.bytes : Math.floor(machineBytes * size.percent / 100)

const check = (input: string | number) =>
  Either.match(parse(input), { onLeft: (reason) => reason, onRight: () => true })

/** The field's schema: the value stays as written (a number or a string), checked by `parse`. */
export const MaxMemory = Schema.Union(
  Schema.Number.pipe(
    Schema.filter(check, {
      jsonSchema: { type: "integer", minimum: MIN_BYTES, title: `a number of bytes (at least ${MIN_BYTES})` }
    })
  ),
  Schema.String.pipe(
    Schema.filter(check, {
      jsonSchema: { pattern: "^\\s*\\d+(\\.\\d+)?\\s*([A-Za-z]+|%)\\s*$" }
    })
  ).annotations({ title: "a size (\"512MB\", \"2GiB\") or a share of the machine's memory (\"25%\")" })
)
