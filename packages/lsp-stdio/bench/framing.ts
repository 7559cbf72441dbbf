/**
 * Framing benchmark: our decoder against vscode-jsonrpc's StreamMessageReader, in the same run, on
 * (a) 100,000 small messages and (b) 20 messages of 8 MB, both fed in 64 KiB chunks; plus the floor any
 * byte-level decoder has to pay, UTF-8 decoding and JSON.parse of the same bodies without framing.
 *
 * Every figure is MB/s of framed input (10^6 bytes per second), so all rows of a workload are comparable.
 * Chunks reach both decoders as a pipe delivers them: one event-loop turn apart. (Writing them all at once
 * would be unfair to vscode-jsonrpc: it queues a task per message and slows down by an order of magnitude
 * when 100,000 of them pile up.) Prints a table and writes bench/results-framing.json.
 *
 * Run: npx tsx packages/lsp-stdio/bench/framing.ts
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import { PassThrough } from "node:stream"
import * as V8 from "node:v8"
import * as Vm from "node:vm"
import { StreamMessageReader } from "vscode-jsonrpc/node.js"
import * as Framing from "../src/Framing.js"

const chunkBytes = 64 * 1024
const warmups = 1

interface Workload {
  readonly name: string
  readonly description: string
  /** Timed runs after the warm-up; short workloads get more, as load spikes weigh more on them. */
  readonly runs: number
  readonly messages: number
  /** The framed input, cut into 64 KiB chunks (views, no copies). */
  readonly chunks: ReadonlyArray<Uint8Array>
  readonly totalBytes: number
  /** Each message's body, as bytes and as text, for the floors. */
  readonly bodies: ReadonlyArray<Uint8Array>
  readonly texts: ReadonlyArray<string>
}

const makeWorkload = (
  name: string,
  description: string,
  runs: number,
  jsons: ReadonlyArray<string>
): Workload => {
  const utf8 = new TextEncoder()
  const bodies = jsons.map((json) => utf8.encode(json))
  const headers = bodies.map((body) => utf8.encode(`Content-Length: ${body.length}\r\n\r\n`))
  const totalBytes = bodies.reduce((total, body, i) => total + headers[i]!.length + body.length, 0)
  const input = new Uint8Array(totalBytes)
  let offset = 0
  const bodyViews: Array<Uint8Array> = []
  for (let i = 0; i < bodies.length; i++) {
    input.set(headers[i]!, offset)
    offset += headers[i]!.length
    input.set(bodies[i]!, offset)
    bodyViews.push(input.subarray(offset, offset + bodies[i]!.length))
    offset += bodies[i]!.length
  }
  const chunks: Array<Uint8Array> = []
  for (let start = 0; start < totalBytes; start += chunkBytes) chunks.push(input.subarray(start, start + chunkBytes))
  return { name, description, runs, messages: jsons.length, chunks, totalBytes, bodies: bodyViews, texts: jsons }
}

/** ~200-byte responses, like a definition result: one location each. */
const smallWorkload = (): Workload => {
  const jsons: Array<string> = []
  for (let id = 1; id <= 100_000; id++) {
    jsons.push(JSON.stringify({
      jsonrpc: "2.0",
      id,
      result: [{
        uri: `file:///home/developer/projects/workspace/src/components/module${id % 997}.ts`,
        range: { start: { line: id % 5000, character: id % 80 }, end: { line: id % 5000, character: (id % 80) + 12 } }
      }]
    }))
  }
  return makeWorkload("small", "100,000 messages of ~200 bytes", 11, jsons)
}

/** 8 MB responses, like the references of a popular symbol: many locations, a few non-ASCII paths. */
const largeWorkload = (): Workload => {
  const locations: Array<unknown> = []
  let size = 0
  for (let i = 0; size < 8_000_000; i++) {
    const location = {
      uri: `file:///home/developer/projects/workspace/src/${i % 10 === 0 ? "données/é" : "feature"}${i % 1009}.ts`,
      range: { start: { line: i % 20_000, character: i % 120 }, end: { line: i % 20_000, character: (i % 120) + 7 } }
    }
    size += JSON.stringify(location).length + 1
    locations.push(location)
  }
  const result = JSON.stringify(locations)
  const jsons = Array.from({ length: 20 }, (_, i) => `{"jsonrpc":"2.0","id":${i + 1},"result":${result}}`)
  return makeWorkload("large", "20 messages of 8 MB", 5, jsons)
}

// --- contenders ----------------------------------------------------------------------------------------

const fail = (message: string): never => {
  throw new Error(message)
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

/** Delivers the chunks one event-loop turn apart, as reads from a pipe arrive. */
const feed = async (chunks: ReadonlyArray<Uint8Array>, deliver: (chunk: Uint8Array) => void) => {
  for (const chunk of chunks) {
    deliver(chunk)
    await nextTurn()
  }
}

const runOurs = async (workload: Workload): Promise<void> => {
  const decoder = Framing.makeDecoder({ maxMessageBytes: 16_000_000 })
  let count = 0
  await feed(workload.chunks, (chunk) => {
    count += decoder.push(chunk).length
  })
  if (count !== workload.messages) fail(`ours decoded ${count} of ${workload.messages} messages`)
}

const runVscode = async (workload: Workload): Promise<void> => {
  const stream = new PassThrough()
  const reader = new StreamMessageReader(stream)
  const done = new Promise<void>((resolve, reject) => {
    let count = 0
    reader.onError(reject)
    reader.listen(() => {
      if (++count === workload.messages) resolve()
    })
  })
  await feed(workload.chunks, (chunk) => stream.write(chunk))
  await done
  reader.dispose()
}

const runFloor = async (workload: Workload): Promise<void> => {
  const utf8 = new TextDecoder("utf-8", { fatal: true })
  let count = 0
  for (const body of workload.bodies) {
    JSON.parse(utf8.decode(body))
    count++
  }
  if (count !== workload.messages) fail("floor miscounted")
}

const runParseOnly = async (workload: Workload): Promise<void> => {
  for (const text of workload.texts) JSON.parse(text)
}

const contenders = [
  { key: "ours", label: "lsp-seam Framing.makeDecoder", run: runOurs },
  { key: "vscodeJsonrpc", label: "vscode-jsonrpc StreamMessageReader", run: runVscode },
  { key: "floor", label: "floor: TextDecoder + JSON.parse", run: runFloor },
  { key: "parseOnly", label: "JSON.parse of decoded strings", run: runParseOnly }
] as const

type Key = typeof contenders[number]["key"]

// --- measurement ---------------------------------------------------------------------------------------

interface Stats {
  readonly min: number
  readonly median: number
  readonly max: number
  readonly samples: ReadonlyArray<number>
}

const stats = (samples: ReadonlyArray<number>): Stats => {
  const sorted = [...samples].sort((a, b) => a - b)
  const middle = sorted.length >> 1
  const median = sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
  return { min: sorted[0]!, median, max: sorted[sorted.length - 1]!, samples }
}

const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits

/** A full collection before each timed run, so that one contender's garbage is not billed to the next. */
const collectGarbage: () => void = (() => {
  V8.setFlagsFromString("--expose-gc")
  const gc: unknown = Vm.runInNewContext("gc")
  return typeof gc === "function" ? () => gc() : () => {}
})()

interface Figures {
  readonly mbPerSecond: Record<Key, Stats>
  /** Ours over another contender, paired round by round, so that load that comes and goes cancels out. */
  readonly ratios: { readonly overVscodeJsonrpc: Stats; readonly overFloor: Stats }
}

const measure = async (workload: Workload): Promise<Figures> => {
  const samples: Record<Key, Array<number>> = { ours: [], vscodeJsonrpc: [], floor: [], parseOnly: [] }
  // Interleaved, so that drift (thermal, GC pressure, other load) spreads evenly over the contenders.
  for (let round = 0; round < warmups + workload.runs; round++) {
    for (const contender of contenders) {
      collectGarbage()
      const start = performance.now()
      await contender.run(workload)
      const seconds = (performance.now() - start) / 1000
      if (round >= warmups) samples[contender.key].push(workload.totalBytes / 1e6 / seconds)
    }
  }
  const paired = (other: Key) => stats(samples.ours.map((ours, round) => ours / samples[other][round]!))
  return {
    mbPerSecond: {
      ours: stats(samples.ours),
      vscodeJsonrpc: stats(samples.vscodeJsonrpc),
      floor: stats(samples.floor),
      parseOnly: stats(samples.parseOnly)
    },
    ratios: { overVscodeJsonrpc: paired("vscodeJsonrpc"), overFloor: paired("floor") }
  }
}

const pad = (text: string, width: number) => text.padEnd(width)
const num = (value: number, width = 9) => round(value).toFixed(1).padStart(width)

const main = async () => {
  const loadBefore = Os.loadavg()[0]!
  const results: Array<unknown> = []
  const lines: Array<string> = []
  for (const build of [smallWorkload, largeWorkload]) {
    const workload = build()
    const figures = await measure(workload)
    const ratio = (s: Stats) => `${s.median.toFixed(2)}x (min ${s.min.toFixed(2)}, max ${s.max.toFixed(2)})`
    lines.push(
      "",
      `${workload.name}: ${workload.description}, ${round(workload.totalBytes / 1e6)} MB framed, ${
        chunkBytes / 1024
      } KiB chunks, ${workload.runs} runs`,
      `  ${pad("MB/s", 38)} ${"min".padStart(9)} ${"median".padStart(9)} ${"max".padStart(9)}`
    )
    for (const contender of contenders) {
      const s = figures.mbPerSecond[contender.key]
      lines.push(`  ${pad(contender.label, 38)} ${num(s.min)} ${num(s.median)} ${num(s.max)}`)
    }
    lines.push(
      `  ours / vscode-jsonrpc, paired by run: ${ratio(figures.ratios.overVscodeJsonrpc)}`,
      `  ours / floor, paired by run:          ${ratio(figures.ratios.overFloor)}`
    )
    const summary = (s: Stats, digits: number) => ({
      min: round(s.min, digits),
      median: round(s.median, digits),
      max: round(s.max, digits),
      samples: s.samples.map((x) => round(x, digits))
    })
    results.push({
      name: workload.name,
      description: workload.description,
      messages: workload.messages,
      framedBytes: workload.totalBytes,
      runs: workload.runs,
      mbPerSecond: Object.fromEntries(contenders.map((c) => [c.key, summary(figures.mbPerSecond[c.key], 1)])),
      ratios: {
        oursOverVscodeJsonrpc: summary(figures.ratios.overVscodeJsonrpc, 2),
        oursOverFloor: summary(figures.ratios.overFloor, 2)
      }
    })
  }
  console.log(lines.join("\n"))
  const report = {
    benchmark: "framing",
    generatedAt: new Date().toISOString(),
    environment: {
      node: process.version,
      platform: `${process.platform} ${process.arch}`,
      cpu: Os.cpus()[0]?.model ?? "unknown",
      cpus: Os.cpus().length,
      // Other work on the machine skews every figure; a load average near the core count means noisy results.
      loadAverage1m: { before: round(loadBefore, 2), after: round(Os.loadavg()[0]!, 2) }
    },
    method: {
      unit: "MB/s of framed input (10^6 bytes per second)",
      chunkBytes,
      delivery: "one event-loop turn (setImmediate) between chunks, for both decoders",
      warmups,
      ratios: "ours over the other contender within the same run, then min/median/max over runs",
      floor: "TextDecoder(fatal) + JSON.parse on each body, no framing",
      parseOnly: "JSON.parse on each body's text, already decoded"
    },
    workloads: results
  }
  const file = new URL("./results-framing.json", import.meta.url)
  Fs.writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`)
  console.log(`\nwritten to ${file.pathname}`)
}

main().catch((error) => {
  console.error(error)
  process.exitCode = 1
})
