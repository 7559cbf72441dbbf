/**
 * Summaries of repeated measurements, and the conditions they were taken in.
 */
import * as Os from "node:os"
import * as V8 from "node:v8"
import * as Vm from "node:vm"

export interface Summary {
  readonly n: number
  readonly min: number
  readonly median: number
  readonly max: number
  /** Nearest-rank 99th percentile. */
  readonly p99: number
}

const sortedCopy = (samples: ReadonlyArray<number>) => [...samples].sort((a, b) => a - b)

export const percentile = (sorted: ReadonlyArray<number>, p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!

export const median = (samples: ReadonlyArray<number>): number => {
  const sorted = sortedCopy(samples)
  const middle = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

export const summarize = (samples: ReadonlyArray<number>): Summary => {
  if (samples.length === 0) throw new Error("no samples to summarize")
  const sorted = sortedCopy(samples)
  return {
    n: sorted.length,
    min: sorted[0]!,
    median: median(sorted),
    max: sorted[sorted.length - 1]!,
    p99: percentile(sorted, 99)
  }
}

/** Element-wise ratios of two equally long series (round by round), summarised. */
export const pairedRatio = (ours: ReadonlyArray<number>, reference: ReadonlyArray<number>): Summary =>
  summarize(ours.map((value, i) => value / reference[i]!))

export const round = (value: number, digits = 3): number => {
  const scale = 10 ** digits
  return Math.round(value * scale) / scale
}

/** A summary with every figure rounded, for the JSON report. */
export const rounded = (summary: Summary, digits = 3): Summary => ({
  n: summary.n,
  min: round(summary.min, digits),
  median: round(summary.median, digits),
  max: round(summary.max, digits),
  p99: round(summary.p99, digits)
})

/** A full collection, so that one contender's garbage is not billed to the next. */
export const collectGarbage: () => void = (() => {
  V8.setFlagsFromString("--expose-gc")
  const gc: unknown = Vm.runInNewContext("gc")
  return typeof gc === "function" ? () => gc() : () => {}
})()

export interface Machine {
  readonly node: string
  readonly platform: string
  readonly cpu: string
  readonly cpus: number
  readonly totalMemoryMB: number
  /** 1, 5 and 15 minute load averages. */
  readonly loadAverage: { readonly before: ReadonlyArray<number>; after?: ReadonlyArray<number> }
}

export const machine = (): Machine => ({
  node: process.version,
  platform: `${process.platform} ${process.arch}`,
  cpu: Os.cpus()[0]?.model ?? "unknown",
  cpus: Os.cpus().length,
  totalMemoryMB: Math.round(Os.totalmem() / 2 ** 20),
  loadAverage: { before: Os.loadavg().map((x) => round(x, 2)) }
})

export const loadAverage = () => Os.loadavg().map((x) => round(x, 2))
