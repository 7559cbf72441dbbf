/**
 * Benchmark 8, decoder fuzz: 100,000 seeded random byte streams into the frame decoder, with small limits.
 * Each must end (every push returns, or throws LSP_PROTOCOL_ERROR and the decoder stays failed), and the
 * decoder may never hold more than its limits. Runs in a child process (bench/fuzzChild.ts) that is killed
 * when it stops reporting progress, so a decoder that loops forever fails the benchmark instead of hanging it.
 */
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import { type Options, type Section, type Target } from "./support/report.js"
import { round } from "./support/stats.js"

const repository = fileURLToPath(new URL("..", import.meta.url))
const child = fileURLToPath(new URL("./fuzzChild.ts", import.meta.url))

/** No progress line (every 1,000 streams) for this long means the decoder hangs. */
const silenceMs = 30_000

interface KindStats {
  readonly streams: number
  readonly ended: number
  readonly rejected: number
  readonly bytes: number
}

interface ChildResult {
  readonly streams: number
  readonly seed: number
  readonly maxMessageBytes: number
  readonly maxHeaderBytes: number
  readonly seconds: number
  readonly totalBytes: number
  readonly pushes: number
  readonly byKind: Record<string, KindStats>
  readonly reasons: Record<string, number>
  readonly failures: number
  readonly failureSamples: ReadonlyArray<string>
  readonly validWrong: number
  readonly notPoisoned: number
  readonly maxStreamMs: number
  readonly heldMeasured: boolean
  readonly peakHeldBytes: number
  readonly heap: { readonly before: number; readonly peak: number; readonly after: number }
  readonly rss: { readonly before: number; readonly peak: number; readonly after: number }
}

const isChildResult = (u: unknown): u is ChildResult =>
  typeof u === "object" && u !== null && "byKind" in u && "reasons" in u && "peakHeldBytes" in u && "heap" in u

export interface FuzzPart {
  /** The child's result, or why it did not deliver one (a hang, a crash). */
  readonly result: ChildResult | { readonly error: string; readonly progress: number }
}

const runChild = (streams: number, seed: number): Promise<FuzzPart["result"]> =>
  new Promise((resolve, reject) => {
    const process_ = spawn(
      process.execPath,
      ["--expose-gc", "--import", "tsx", child, String(streams), String(seed)],
      { cwd: repository, stdio: ["ignore", "pipe", "pipe"] }
    )
    let progress = 0
    let hung = false
    let watchdog = setTimeout(() => {
      hung = true
      process_.kill("SIGKILL")
    }, silenceMs)
    let stdout = ""
    let stderr = ""
    process_.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString()
      const lines = stdout.split("\n")
      stdout = lines.pop() ?? ""
      for (const line of lines) {
        const match = /^progress (\d+)$/.exec(line)
        if (match !== null) {
          progress = Number(match[1])
          clearTimeout(watchdog)
          watchdog = setTimeout(() => {
            hung = true
            process_.kill("SIGKILL")
          }, silenceMs)
        } else {
          stdout = `${line}\n${stdout}`
        }
      }
    })
    process_.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    process_.on("error", reject)
    process_.on("exit", (code, signal) => {
      clearTimeout(watchdog)
      if (hung) return resolve({ error: `no progress for ${silenceMs / 1000} s after ${progress} streams`, progress })
      try {
        const parsed: unknown = JSON.parse(stdout.trim().split("\n").pop() ?? "")
        if (code === 0 && isChildResult(parsed)) return resolve(parsed)
      } catch {
        // Reported below.
      }
      resolve({ error: `the fuzz run exited with ${code ?? signal}: ${stderr.slice(-2000)}`, progress })
    })
  })

export const measureFuzz = async (options: Options): Promise<FuzzPart> => ({
  result: await runChild(options.quick ? 2_000 : 100_000, 7)
})

const MB = 2 ** 20
const KiB = 1024

export const fuzzSection = (part: FuzzPart, options: Options): Section => {
  const r = part.result
  if ("error" in r) {
    return {
      id: "fuzz",
      title: "8. Decoder fuzz: 100,000 random byte streams",
      method: "See bench/fuzzChild.ts.",
      tables: [],
      targets: [{
        name: "every stream ends",
        goal: "no hang, only LSP_PROTOCOL_ERROR",
        measured: r.error,
        pass: false
      }],
      data: r
    }
  }
  const bound = r.maxHeaderBytes + r.maxMessageBytes
  const kinds = Object.entries(r.byKind)
  // A quick run is too short to judge a target: its verdicts are null ("not judged"), whatever it measured.
  const judged = (pass: boolean): boolean | null => options.quick ? null : pass
  const ended: Target = {
    name: `every one of ${r.streams.toLocaleString("en")} random streams ends`,
    goal: "each push returns or throws LSP_PROTOCOL_ERROR; no hang",
    measured: `${r.failures} other exceptions; slowest stream ${
      r.maxStreamMs.toFixed(1)
    } ms; ${r.notPoisoned} decoders usable after failing`,
    pass: judged(r.failures === 0 && r.notPoisoned === 0),
    note: `a child silent for ${
      silenceMs / 1000
    } s would have been killed and failed; ${r.validWrong} unmutated valid streams decoded wrongly`
  }
  const memory: Target = {
    name: "decoder memory within its limits",
    goal: `≤ maxHeaderBytes + maxMessageBytes = ${(bound / KiB).toFixed(0)} KiB held`,
    measured: r.heldMeasured
      ? `peak ${(r.peakHeldBytes / KiB).toFixed(1)} KiB held between pushes`
      : "not measurable (the decoder's private buffers were not found)",
    pass: judged(r.heldMeasured && r.peakHeldBytes <= bound),
    note: `V8 heap after a full collection ${((r.heap.after - r.heap.before) / MB).toFixed(1)} MB over the start ` +
      `(peak sampled ${(r.heap.peak / MB).toFixed(0)} MB, mostly the generated input)`
  }
  return {
    id: "fuzz",
    title: "8. Decoder fuzz: 100,000 random byte streams",
    method: `A fresh Node process (bench/fuzzChild.ts, --expose-gc) feeds ${r.streams.toLocaleString("en")} ` +
      `streams (mulberry32, seed ${r.seed}; ${(r.totalBytes / MB).toFixed(0)} MB in ${
        r.pushes.toLocaleString("en")
      } pushes) into fresh decoders with maxMessageBytes ${r.maxMessageBytes / KiB} KiB and maxHeaderBytes ` +
      `${r.maxHeaderBytes} bytes, each stream split at random (whole, 1-byte, up to 64 or up to 4096-byte chunks). ` +
      "Kinds, equally likely: random bytes; header-like noise; valid frames (extra headers, case changes, banners; " +
      "their messages must come out exactly); valid frames with 1–3 mutations (byte flips, insertions, deletions, " +
      "duplications, truncation); huge or absurdly long Content-Length values; endless header lines, many header " +
      "lines, endless banners. The decoder is `FramingDecoder`, which `Framing.makeDecoder` wraps unchanged; the " +
      "bytes it holds (its header-line buffer and partial body, private fields read by reflection) are measured after " +
      "every push. The parent kills the child if it reports no progress for " + `${silenceMs / 1000} s.`,
    tables: [{
      caption: `${r.seconds.toFixed(1)} s`,
      columns: ["kind", "streams", "ended (no error)", "LSP_PROTOCOL_ERROR", "MB"],
      rows: kinds.map(([kind, s]) => [
        kind,
        String(s.streams),
        String(s.ended),
        String(s.rejected),
        (s.bytes / MB).toFixed(1)
      ])
    }, {
      caption: "LSP_PROTOCOL_ERROR by detail.reason",
      columns: ["reason", "streams"],
      rows: Object.entries(r.reasons).sort((a, b) => b[1] - a[1]).map(([reason, n]) => [reason, String(n)])
    }],
    targets: [ended, memory],
    notes: [
      `RSS ${(r.rss.before / MB).toFixed(0)} MB before, peak sampled ${(r.rss.peak / MB).toFixed(0)} MB, ${
        (r.rss.after / MB).toFixed(0)
      } MB after; the input generator's garbage dominates both heap and RSS, so the decoder's bound is judged on ` +
      "the bytes it holds, not on process memory",
      ...r.failureSamples.map((sample) => `failure: ${sample.split("\n")[0]}`)
    ],
    data: { ...r, seconds: round(r.seconds, 2), boundBytes: bound }
  }
}
