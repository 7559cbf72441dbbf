// Whether a file is test code, by the conventions the common test runners follow (vitest, jest, mocha,
// pytest, go test, JUnit, RSpec, ctest layouts): a directory named for tests anywhere on its path, or a file
// name a runner collects by its default pattern. The seam reads no files, so a runner configuration that names
// other files is not consulted: such files are treated as code.

/** Directories whose files are tests by convention. */
const testDirectories = new Set(["test", "tests", "__tests__", "spec", "specs", "e2e", "testing"])

/** File names the runners collect by default. */
const testFileNames: ReadonlyArray<RegExp> = [
  /\.(test|spec|e2e-spec)\.[^.]+$/i, // vitest, jest, mocha: x.test.ts, x.spec.js
  /_test\.go$/, // go test
  /^test_.+\.py$/, // pytest
  /_test\.py$/, // pytest
  /^conftest\.py$/, // pytest fixtures
  /^tests?\.py$/, // unittest modules named test.py
  /(Test|Tests|IT)\.(java|kt|scala)$/, // JUnit (Surefire, Failsafe)
  /_spec\.rb$/, // RSpec
  /^test_.+\.(c|cc|cpp|cxx)$/, // ctest layouts
  /_test\.(c|cc|cpp|cxx|rs)$/
]

/** Whether `relativePath` (slash-separated, relative to the workspace) is test code by convention. */
export const isTestPath = (relativePath: string): boolean => {
  const segments = relativePath.split("/").filter((segment) => segment !== "")
  const name = segments.at(-1) ?? ""
  return segments.slice(0, -1).some((segment) => testDirectories.has(segment.toLowerCase())) ||
    testFileNames.some((pattern) => pattern.test(name))
}
