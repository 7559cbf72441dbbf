/**
 * The report of benchmark 17 (`impact.ts`): per question the calls, bytes and warm time of one `impact` call against
 * the chain by hand, and whether the two reach the same declarations.
 */
import type { ImpactPart, QuestionFigures, Run } from "./impact.js"
import { depth, uncappedGroups } from "./impact.js"
import { ms, type Options, ratio, type Section } from "./support/report.js"
import { median, pairedRatio, rounded, summarize } from "./support/stats.js"

const comparison = (figures: QuestionFigures) => {
  const impact = new Set(figures.impact[0]!.reached)
  const chain = new Set(figures.chain[0]!.reached)
  const onlyImpact = [...impact].filter((key) => !chain.has(key))
  const onlyChain = [...chain].filter((key) => !impact.has(key))
  const stable = figures.impact.every((run) => sameSet(run.reached, figures.impact[0]!.reached)) &&
    figures.chain.every((run) => sameSet(run.reached, figures.chain[0]!.reached))
  const uncapped = new Set(figures.uncapped.reached)
  const uncappedDiffers = [...uncapped].filter((key) => !chain.has(key)).length +
    [...chain].filter((key) => !uncapped.has(key)).length
  return {
    impact: impact.size,
    chain: chain.size,
    onlyImpact,
    onlyChain,
    stable,
    uncapped: uncapped.size,
    uncappedDiffers
  }
}

const sameSet = (a: ReadonlyArray<string>, b: ReadonlyArray<string>) =>
  a.length === b.length && a.every((key) => b.includes(key))

const relative = (key: string) => key.replace(/file:\/\/\S*?\/(packages|bench)\//, "$1/")

const listed = (keys: ReadonlyArray<string>) =>
  keys.length === 0
    ? ""
    : keys.length <= 6
    ? keys.map(relative).join("; ")
    : `${keys.slice(0, 6).map(relative).join("; ")}; and ${keys.length - 6} more`

export const impactSection = (part: ImpactPart, options: Options): Section => {
  const rows = part.questions.map((figures) => {
    const impactMs = median(figures.impact.map((run) => run.ms))
    const chainMs = median(figures.chain.map((run) => run.ms))
    const compared = comparison(figures)
    return {
      figures,
      impactMs,
      chainMs,
      compared,
      paired: pairedRatio(figures.impact.map((r) => r.ms), figures.chain.map((r) => r.ms))
    }
  })
  const sum = (pick: (run: Run) => number, contender: "impact" | "chain") =>
    rows.reduce((total, row) => total + pick(row.figures[contender][0]!), 0)
  const impactBytes = sum((run) => run.bytes, "impact")
  const chainBytes = sum((run) => run.bytes, "chain")
  const impactMs = rows.reduce((total, row) => total + row.impactMs, 0)
  const chainMs = rows.reduce((total, row) => total + row.chainMs, 0)
  const chainCalls = sum((run) => run.calls, "chain")
  return {
    id: "impact",
    title: "19. What a change would touch: one impact call against the chain by hand (issue 44)",
    method: `Each question asked twice at the seam (\`LspService.query\`) of one host with the TypeScript preset's ` +
      `settings (\`maxProjects\` raised to hold every project): one \`impact\` call (depth ${depth}, default ` +
      "maxGroups) against the chain an agent runs by hand to the same depth, each step a query of its own — " +
      "findReferences; documentSymbol of every file with a use (the asked declaration's own place left out), each " +
      "use placed by `LspEnclosing.enclosingAll` in its innermost enclosing function or method, else its innermost " +
      "enclosing declaration, else the file's top level; incomingCalls of each declaration found that is a " +
      "function, method, constructor, class, variable, constant, property or field; incomingCalls of each of their " +
      "callers — each declaration asked once, one call after another. Bytes: the JSON length of every answer. " +
      "Time: warm — one unrecorded question per workspace first (it starts the server and loads the projects) — " +
      `over ${part.rounds} rounds, the two alternating who goes first; medians. Reached: the declarations at ` +
      `levels 0 to ${depth} (name, file, line), compared between the two on the first round. Questions on this ` +
      "repository are declarations of packages/lsp found by their text; on a generated monorepo " +
      `(\`packages/lsp-stdio/test/support/generatedMonorepo.ts\`, \`core\` and ${part.monorepo.projects} user ` +
      `packages of ${part.monorepo.filesPerProject} files, each its own tsconfig project) core's \`makeWidget\` and ` +
      "`Widget`.",
    tables: [
      {
        caption: "per question: calls, bytes (JSON of the answers) and warm wall time (median over rounds)",
        columns: [
          "workspace: symbol",
          "calls impact / chain",
          "bytes impact / chain",
          "ms impact / chain (median)",
          "impact / chain time (paired, median)"
        ],
        rows: [
          ...rows.map(({ chainMs, figures, impactMs, paired }) => [
            `${figures.workspace}: \`${figures.question}\``,
            `1 / ${figures.chain[0]!.calls}`,
            `${figures.impact[0]!.bytes} / ${figures.chain[0]!.bytes} (${
              ratio(figures.impact[0]!.bytes / figures.chain[0]!.bytes)
            })`,
            `${ms(impactMs)} / ${ms(chainMs)}`,
            ratio(paired.median)
          ]),
          [
            "in all",
            `${rows.length} / ${chainCalls}`,
            `${impactBytes} / ${chainBytes} (${ratio(impactBytes / chainBytes)})`,
            `${ms(impactMs)} / ${ms(chainMs)}`,
            ratio(impactMs / chainMs)
          ]
        ]
      },
      {
        caption: `the declarations reached (levels 0–${depth}): the same set, or what only one reached`,
        columns: [
          "workspace: symbol",
          "impact / chain",
          "same set",
          "only impact",
          "only the chain",
          "incomplete (impact; chain)",
          `impact with maxGroups ${uncappedGroups}: reached, against the chain`
        ],
        rows: rows.map(({ compared, figures }) => [
          `${figures.workspace}: \`${figures.question}\``,
          `${compared.impact} / ${compared.chain}`,
          (compared.onlyImpact.length === 0 && compared.onlyChain.length === 0 ? "equal" : "differ") +
          (compared.stable ? "" : " (sets varied between rounds)"),
          listed(compared.onlyImpact),
          listed(compared.onlyChain),
          `${figures.impact[0]!.incomplete.join(", ") || "complete"}; ${
            figures.chain[0]!.incomplete.join(", ") || "complete"
          }`,
          `${compared.uncapped}, ${compared.uncappedDiffers === 0 ? "equal" : `${compared.uncappedDiffers} differ`} (${
            figures.uncapped.incomplete.join(", ") || "complete"
          }; ${figures.uncapped.bytes} bytes)`
        ])
      }
    ],
    targets: [],
    notes: [
      "The issue asks for the figures, with no goal: nothing here is judged.",
      "`impact` keeps at most maxGroups declarations per level (default 40), flags the answer `capped` and counts " +
      `what it cut, neither listing nor following it; the chain has no such bound. The last column asks \`impact\` ` +
      `once more with maxGroups ${uncappedGroups} (not timed) to show the sets without the cut.`,
      "The chain takes each use's innermost symbol, as an agent reading documentSymbol would; `impact` never makes " +
      "an anonymous callback (`Effect.gen() callback`, `<function>`) a group and names the declaration around it. " +
      "Where uses sit in such callbacks (this repository's Effect code) the sets differ by that rule: the callbacks " +
      "only the chain reached against the functions holding them that only `impact` reached.",
      "The chain's time is its calls back to back, with no model in between: an agent pays a model round trip " +
      "per call on top, which `impact` saves. `impact` runs up to 4 of its steps at once; the stdio host serves " +
      "one server's requests in turn, so that gains little.",
      ...(options.quick
        ? ["Quick run: one question per workspace, one round, a monorepo of 4 packages of 2 files."]
        : [])
    ],
    forUsers: [{
      figure: `what a change would touch (depth ${depth}), ${rows.length} questions, warm: calls and bytes`,
      ours: `${rows.length} calls, ${impactBytes} B`,
      reference: `${chainCalls} calls, ${chainBytes} B (the chain by hand)`,
      ratio: `${ratio(impactBytes / chainBytes)} bytes, ${ratio(impactMs / chainMs)} time`
    }],
    data: {
      ...part,
      perQuestion: rows.map(({ compared, figures, paired }) => ({
        workspace: figures.workspace,
        question: figures.question,
        impactMs: summarize(figures.impact.map((r) => r.ms)),
        chainMs: summarize(figures.chain.map((r) => r.ms)),
        paired: rounded(paired),
        compared
      }))
    }
  }
}
