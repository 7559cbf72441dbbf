/**
 * Counts on a real TypeScript monorepo (this repository: five packages, each a source and a test project):
 * `npx tsx bench/monorepoCounts.ts` asks cross-project questions from the repository root, as an agent does,
 * through the stdio host with the TypeScript preset's `projects` setting, and asks the same of a raw
 * typescript-language-server twice — once with only the queried file open (what a client gets from the root),
 * once after opening a file of every project (every project loaded). It writes the counts into the section of
 * docs/compatibility.md between the `monorepo-counts` markers.
 */
import "./support/register.js"

// Loaded only now, once `@lsp-seam/*` resolves to the package sources.
await import("./monorepoCountsRun.js")
