/**
 * The benchmark suite (`npm run bench`): runs every benchmark, then writes bench/results.json (every
 * figure, the machine, the load) and bench/results.md (a table per benchmark and every target, PASS or
 * FAIL). See bench/README.md.
 *
 *   npm run bench                      the full suite (about 14–16 minutes on 2 cores), writes the results
 *   npm run bench -- --quick           a smoke run: a few iterations of everything, prints the report only
 *   BENCH_QUICK=1 npm run bench        the same
 *   npm run bench -- --only=latency,memory   a subset (prints only); ids: framing latency throughput
 *                                      coldStart memory largeDocument soak fuzz retained remote upgradeFuzz
 *                                      memoryBudget bodies load cluster failover deadline flood impact
 *   npm run bench -- --only=memoryBudget --write   a subset whose sections replace theirs in results.md/json
 *                                      (the others are kept, each naming the run that measured it)
 *   npm run bench -- --only=soak,fuzz,upgradeFuzz   the reliability benchmarks only: writes
 *                                      results-reliability.md/json; a subset of them replaces its own sections
 *                                      there and keeps the others
 */
import "./support/register.js"

// Loaded only now, once `@lsp-seam/*` resolves to the package sources.
await import("./suite.js")
