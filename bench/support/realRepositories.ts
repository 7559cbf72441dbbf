/**
 * The repositories of bench/realRepositories.ts, each at a pinned commit, with the questions asked in each and
 * the truth each answer is scored against. Nothing of theirs is committed here: the run brings each one (see
 * `bring` in bench/realRepositories.ts) into a directory outside this repository.
 *
 * A truth was established without lsp-seam: a whole-word text search (`git grep -n -w NAME`) with every hit read
 * and kept or dropped for the reason given in `how`, the compiler where one could be run (`tsc -p`, `go vet`,
 * `cc -fsyntax-only`, `pyright`), and the language's rules (what a call, an implementation, a rename is).
 * Locations are `file:line`, one-based, relative to the repository's root; lines are compared as sets (two
 * occurrences on one line count once).
 */

/** What an answer is reduced to, and how it is compared with the truth. */
export type Truth =
  /** locations, call sites (incomingCalls), edits (renamePreview), diagnostics, workspace symbols of one name */
  | {
    readonly kind: "lines"
    /** Every one of these must be in the answer. */
    readonly required: ReadonlyArray<string>
    /** These may be in it or not (a doc comment a rename may also change, a declaration beside a definition). */
    readonly optional?: ReadonlyArray<string>
    readonly how: string
  }
  /** documentSymbol: every `name:line` must be listed (other symbols, nested ones, are not judged) */
  | { readonly kind: "names"; readonly required: ReadonlyArray<string>; readonly how: string }
  /** hover: the text must contain each of these */
  | { readonly kind: "text"; readonly contains: ReadonlyArray<string>; readonly how: string }

export type Operation =
  | "findReferences"
  | "goToDefinition"
  | "hover"
  | "goToImplementation"
  | "incomingCalls"
  | "workspaceSymbol"
  | "renamePreview"
  | "diagnostics"
  | "documentSymbol"

export interface Question {
  readonly operation: Operation
  /** The file asked about (relative to the root); for workspaceSymbol, the name searched. */
  readonly file: string
  /** One-based line, and the identifier on it whose first whole-word occurrence gives the column. */
  readonly line?: number
  readonly symbol?: string
  readonly newName?: string
  readonly truth: Truth
}

export interface Repository {
  /** The directory name it is brought into, and the row label. */
  readonly name: string
  /** owner/name of the public repository. */
  readonly repository: string
  readonly commit: string
  readonly licence: string
  /** What it stands for in the record. */
  readonly kind: string
  /** Commands run in its root after it is brought (generated files only; nothing is built). */
  readonly prepare?: ReadonlyArray<ReadonlyArray<string>>
  /** Caches a language server keeps inside the root, removed before each cold question so that it starts cold. */
  readonly coldRemoves?: ReadonlyArray<string>
  /** Notes on how it was set up and what its layout is. */
  readonly notes: string
  readonly questions: ReadonlyArray<Question>
}

const lines = (how: string, required: ReadonlyArray<string>, optional?: ReadonlyArray<string>): Truth => ({
  kind: "lines",
  required,
  ...(optional === undefined ? {} : { optional }),
  how
})

const range = (file: string, from: number, to: number): Array<string> =>
  Array.from({ length: to - from + 1 }, (_, i) => `${file}:${from + i}`)

const babel: Repository = {
  name: "babel",
  repository: "babel/babel",
  commit: "1da3cfa1a25503c7ecba7304f8738933e6d16dca",
  licence: "MIT",
  kind: "TypeScript monorepo",
  notes: "152 tsconfig.json projects (one per package, codemod and eslint plugin), `references` between them and " +
    "`paths` (tsconfig.paths.json) from each `@babel/*` name to its package's `src`: navigation needs no install. " +
    "No dependency is installed, so `@types/node`, `@types/jest` and the third-party modules are missing.",
  questions: [
    {
      operation: "findReferences",
      file: "packages/babel-helper-annotate-as-pure/src/index.ts",
      line: 9,
      symbol: "annotateAsPure",
      truth: lines(
        "git grep -w annotateAsPure -- '*.ts': the declaration, 10 default imports and 11 calls in 10 other " +
          "packages (every hit is code; test fixtures hold none)",
        [
          "packages/babel-helper-annotate-as-pure/src/index.ts:9",
          "packages/babel-helper-builder-react-jsx/src/index.ts:1",
          "packages/babel-helper-builder-react-jsx/src/index.ts:217",
          "packages/babel-helper-builder-react-jsx/src/index.ts:257",
          "packages/babel-helper-create-class-features-plugin/src/fields.ts:11",
          "packages/babel-helper-create-class-features-plugin/src/fields.ts:162",
          "packages/babel-helper-create-regexp-features-plugin/src/index.ts:3",
          "packages/babel-helper-create-regexp-features-plugin/src/index.ts:120",
          "packages/babel-helper-remap-async-to-generator/src/index.ts:3",
          "packages/babel-helper-remap-async-to-generator/src/index.ts:64",
          "packages/babel-plugin-transform-classes/src/index.ts:3",
          "packages/babel-plugin-transform-classes/src/index.ts:100",
          "packages/babel-plugin-transform-classes/src/transformClass.ts:5",
          "packages/babel-plugin-transform-classes/src/transformClass.ts:667",
          "packages/babel-plugin-transform-private-property-in-object/src/index.ts:8",
          "packages/babel-plugin-transform-private-property-in-object/src/index.ts:112",
          "packages/babel-plugin-transform-react-jsx/src/create-plugin.ts:6",
          "packages/babel-plugin-transform-react-jsx/src/create-plugin.ts:379",
          "packages/babel-plugin-transform-react-pure-annotations/src/index.ts:2",
          "packages/babel-plugin-transform-react-pure-annotations/src/index.ts:36",
          "packages/babel-plugin-transform-typescript/src/enum.ts:3",
          "packages/babel-plugin-transform-typescript/src/enum.ts:47"
        ]
      )
    },
    {
      operation: "goToDefinition",
      file: "packages/babel-plugin-transform-classes/src/index.ts",
      line: 100,
      symbol: "annotateAsPure",
      truth: lines(
        "the default import on line 3 names @babel/helper-annotate-as-pure, mapped by `paths` to that package's " +
          "src/index.ts, whose default export is declared on line 9",
        ["packages/babel-helper-annotate-as-pure/src/index.ts:9"],
        ["packages/babel-plugin-transform-classes/src/index.ts:3"]
      )
    },
    {
      operation: "hover",
      file: "packages/babel-plugin-transform-classes/src/index.ts",
      line: 100,
      symbol: "annotateAsPure",
      truth: {
        kind: "text",
        contains: ["annotateAsPure(pathOrNode:", "node:", "): void"],
        how: "the imported function's signature, `annotateAsPure(pathOrNode: Node | { node: Node }): void`, " +
          "declared in packages/babel-helper-annotate-as-pure/src/index.ts:9-11 (the type may be printed t.Node)"
      }
    },
    {
      operation: "incomingCalls",
      file: "packages/babel-helper-annotate-as-pure/src/index.ts",
      line: 9,
      symbol: "annotateAsPure",
      truth: lines("the 11 calls among the references above (imports are not calls)", [
        "packages/babel-helper-builder-react-jsx/src/index.ts:217",
        "packages/babel-helper-builder-react-jsx/src/index.ts:257",
        "packages/babel-helper-create-class-features-plugin/src/fields.ts:162",
        "packages/babel-helper-create-regexp-features-plugin/src/index.ts:120",
        "packages/babel-helper-remap-async-to-generator/src/index.ts:64",
        "packages/babel-plugin-transform-classes/src/index.ts:100",
        "packages/babel-plugin-transform-classes/src/transformClass.ts:667",
        "packages/babel-plugin-transform-private-property-in-object/src/index.ts:112",
        "packages/babel-plugin-transform-react-jsx/src/create-plugin.ts:379",
        "packages/babel-plugin-transform-react-pure-annotations/src/index.ts:36",
        "packages/babel-plugin-transform-typescript/src/enum.ts:47"
      ])
    },
    {
      operation: "goToImplementation",
      file: "packages/babel-register/src/types.ts",
      line: 14,
      symbol: "IClient",
      truth: lines(
        "git grep -w IClient: `class Client implements IClient` (worker-client.ts:8); `class WorkerClient extends " +
          "Client` (line 46) implements it through Client; no other class or object literal is typed IClient",
        ["packages/babel-register/src/worker-client.ts:8", "packages/babel-register/src/worker-client.ts:46"]
      )
    },
    {
      operation: "renamePreview",
      file: "packages/babel-register/src/types.ts",
      line: 14,
      symbol: "IClient",
      newName: "RegisterClient",
      truth: lines("git grep -w IClient: 8 hits, all code (imports, annotations, the declaration, implements)", [
        "packages/babel-register/src/hook.ts:1",
        "packages/babel-register/src/hook.ts:30",
        "packages/babel-register/src/hook.ts:43",
        "packages/babel-register/src/index.ts:1",
        "packages/babel-register/src/index.ts:7",
        "packages/babel-register/src/types.ts:14",
        "packages/babel-register/src/worker-client.ts:1",
        "packages/babel-register/src/worker-client.ts:8"
      ])
    },
    {
      operation: "workspaceSymbol",
      file: "annotateAsPure",
      truth: lines(
        "git grep -w annotateAsPure: one function of that name (index.ts:9); the ten default imports declare a " +
          "local alias of the name, which a server may list (optional); calls are not declarations",
        ["packages/babel-helper-annotate-as-pure/src/index.ts:9"],
        [
          "packages/babel-helper-builder-react-jsx/src/index.ts:1",
          "packages/babel-helper-create-class-features-plugin/src/fields.ts:11",
          "packages/babel-helper-create-regexp-features-plugin/src/index.ts:3",
          "packages/babel-helper-remap-async-to-generator/src/index.ts:3",
          "packages/babel-plugin-transform-classes/src/index.ts:3",
          "packages/babel-plugin-transform-classes/src/transformClass.ts:5",
          "packages/babel-plugin-transform-private-property-in-object/src/index.ts:8",
          "packages/babel-plugin-transform-react-jsx/src/create-plugin.ts:6",
          "packages/babel-plugin-transform-react-pure-annotations/src/index.ts:2",
          "packages/babel-plugin-transform-typescript/src/enum.ts:3"
        ]
      )
    },
    {
      operation: "diagnostics",
      file: "packages/babel-register/src/worker-client.ts",
      truth: lines(
        "tsc -p on the package's tsconfig.json with `types: []` (the named @types are not installed, which tsc " +
          "reports globally and then stops): TS2307 node:worker_threads (4), TS2304 URL and TS2339 import.meta.url " +
          "(48), TS2591 process (50)",
        [
          "packages/babel-register/src/worker-client.ts:4",
          "packages/babel-register/src/worker-client.ts:48",
          "packages/babel-register/src/worker-client.ts:50"
        ]
      )
    },
    {
      operation: "documentSymbol",
      file: "packages/babel-register/src/worker-client.ts",
      truth: {
        kind: "names",
        required: ["Client:8", "WorkerClient:46"],
        how: "the file's two top-level classes"
      }
    }
  ]
}

const flask: Repository = {
  name: "flask",
  repository: "pallets/flask",
  commit: "2ac89889f4cc330eabd50f295dcef02828522c69",
  licence: "BSD-3-Clause",
  kind: "Python, src/ layout",
  notes: "pyproject.toml's own `[tool.pyright] include = [\"src\", \"tests/type_check\"]` leaves tests/ out; " +
    "no dependency is installed (werkzeug, jinja2, … are missing).",
  questions: [
    {
      operation: "findReferences",
      file: "src/flask/helpers.py",
      line: 360,
      symbol: "get_flashed_messages",
      truth: lines(
        "git grep -w get_flashed_messages -- src tests: helpers.py:329 is a docstring, the rest are code; six uses " +
          "in tests/test_basic.py as flask.get_flashed_messages",
        [
          "src/flask/helpers.py:360",
          "src/flask/__init__.py:15",
          "src/flask/app.py:41",
          "src/flask/app.py:497",
          "tests/test_basic.py:623",
          "tests/test_basic.py:642",
          "tests/test_basic.py:652",
          "tests/test_basic.py:663",
          "tests/test_basic.py:671",
          "tests/test_basic.py:682"
        ]
      )
    },
    {
      operation: "findReferences",
      file: "src/flask/json/tag.py",
      line: 219,
      symbol: "TaggedJSONSerializer",
      truth: lines(
        "git grep -w TaggedJSONSerializer -- src tests: tag.py:10 and :61 are docstrings; the annotation on :69, " +
          "sessions.py's import and call, and tests/test_json_tag.py's import and four calls are code",
        [
          "src/flask/json/tag.py:69",
          "src/flask/json/tag.py:219",
          "src/flask/sessions.py:14",
          "src/flask/sessions.py:273",
          "tests/test_json_tag.py:9",
          "tests/test_json_tag.py:28",
          "tests/test_json_tag.py:36",
          "tests/test_json_tag.py:61",
          "tests/test_json_tag.py:80"
        ]
      )
    },
    {
      operation: "goToDefinition",
      file: "tests/test_json_tag.py",
      line: 28,
      symbol: "TaggedJSONSerializer",
      truth: lines("imported on line 9 from flask.json.tag, where the class is declared on line 219", [
        "src/flask/json/tag.py:219"
      ], ["tests/test_json_tag.py:9"])
    },
    {
      operation: "hover",
      file: "tests/test_json_tag.py",
      line: 67,
      symbol: "JSONTag",
      truth: {
        kind: "text",
        contains: ["JSONTag"],
        how: "the class JSONTag of src/flask/json/tag.py:60 (line 67 calls it: `JSONTag(None)`)"
      }
    },
    {
      operation: "incomingCalls",
      file: "src/flask/json/tag.py",
      line: 256,
      symbol: "register",
      truth: lines(
        "git grep '.register(' -- src/flask/json tests/test_json_tag.py: the call in __init__ (254) and four in " +
          "the tests; tag.py:41 is a docstring; tests:37 passes s.register to pytest.raises, which calls it (a " +
          "server may count it as a call site or not)",
        [
          "src/flask/json/tag.py:254",
          "tests/test_json_tag.py:38",
          "tests/test_json_tag.py:62",
          "tests/test_json_tag.py:82",
          "tests/test_json_tag.py:85"
        ],
        ["tests/test_json_tag.py:37"]
      )
    },
    {
      operation: "renamePreview",
      file: "src/flask/json/tag.py",
      line: 60,
      symbol: "JSONTag",
      newName: "JsonTag",
      truth: lines(
        "git grep -w JSONTag -- src tests: tag.py:13, 19, 26 and 28 are the module docstring (an example), the " +
          "rest code, six of them in tests/test_json_tag.py",
        [
          ...["60", "93", "119", "133", "147", "159", "173", "191", "205", "250", "251", "258"].map((l) =>
            `src/flask/json/tag.py:${l}`
          ),
          ...["8", "33", "48", "67", "74", "77"].map((l) => `tests/test_json_tag.py:${l}`)
        ]
      )
    },
    {
      operation: "workspaceSymbol",
      file: "TaggedJSONSerializer",
      truth: lines("one class of that name (src/flask/json/tag.py:219); the tests only import it", [
        "src/flask/json/tag.py:219"
      ])
    },
    {
      operation: "diagnostics",
      file: "tests/test_json_tag.py",
      truth: lines(
        "pyright tests/test_json_tag.py (the CLI, basic mode as the pyproject sets, pytest and markupsafe " +
          "installed in the machine's Python): one error, reportArgumentType for `JSONTag(None)` on line 67",
        ["tests/test_json_tag.py:67"]
      )
    },
    {
      operation: "documentSymbol",
      file: "src/flask/json/tag.py",
      truth: {
        kind: "names",
        required: [
          "JSONTag:60",
          "TagDict:93",
          "PassDict:119",
          "TagTuple:133",
          "PassList:147",
          "TagBytes:159",
          "TagMarkup:173",
          "TagUUID:191",
          "TagDateTime:205",
          "TaggedJSONSerializer:219",
          "register:256"
        ],
        how: "grep '^class ' and the method register"
      }
    }
  ]
}

const mux: Repository = {
  name: "mux",
  repository: "gorilla/mux",
  commit: "db9d1d0073d27a0a2d9a8c1bc52aa0af4374d265",
  licence: "BSD-3-Clause",
  kind: "Go module",
  notes: "One package, no dependency beyond the standard library (`go vet ./...` is clean). gopls keeps its " +
    "cache in the user's cache directory, which the cold runs leave in place.",
  questions: [
    {
      operation: "goToImplementation",
      file: "route.go",
      line: 234,
      symbol: "matcher",
      truth: lines(
        "grep ') Match(' *.go: eight types have Match(*http.Request, *RouteMatch) bool — Router, Route, " +
          "routeRegexp, headerMatcher, headerRegexMatcher, MatcherFunc, methodMatcher, schemeMatcher",
        [
          "mux.go:54",
          "route.go:17",
          "regexp.go:169",
          "route.go:297",
          "route.go:322",
          "route.go:374",
          "route.go:389",
          "route.go:485"
        ]
      )
    },
    {
      operation: "findReferences",
      file: "mux.go",
      line: 466,
      symbol: "Vars",
      truth: lines(
        "git grep -w Vars: the function's declaration and three calls in mux_test.go; doc.go:57 is a comment and " +
          "the other hits are the field RouteMatch.Vars",
        ["mux.go:466", "mux_test.go:2553", "mux_test.go:2973", "mux_test.go:3080"]
      )
    },
    {
      operation: "goToDefinition",
      file: "example_route_test.go",
      line: 14,
      symbol: "NewRouter",
      truth: lines("func NewRouter in mux.go", ["mux.go:32"])
    },
    {
      operation: "hover",
      file: "route.go",
      line: 557,
      symbol: "Subrouter",
      truth: {
        kind: "text",
        contains: ["*Route", "Subrouter() *Router"],
        how: "the method of *Route declared on route.go:557, `func (r *Route) Subrouter() *Router`"
      }
    },
    {
      operation: "incomingCalls",
      file: "regexp.go",
      line: 41,
      symbol: "newRouteRegexp",
      truth: lines("git grep -w newRouteRegexp: four calls (regexp.go:31 is its doc comment)", [
        "route.go:259",
        "mux_test.go:2786",
        "old_test.go:698",
        "regexp_test.go:23"
      ])
    },
    {
      operation: "renamePreview",
      file: "mux.go",
      line: 493,
      symbol: "requestWithVars",
      newName: "withVars",
      truth: lines(
        "git grep -w requestWithVars: the declaration and two calls; the doc comment (mux.go:491) may be renamed too",
        ["mux.go:209", "mux.go:493", "test_helpers.go:18"],
        ["mux.go:491"]
      )
    },
    {
      operation: "workspaceSymbol",
      file: "CurrentRoute",
      truth: lines("one function of that name", ["mux.go:477"])
    },
    {
      operation: "diagnostics",
      file: "mux.go",
      truth: lines("go vet ./... and go build are clean", [])
    },
    {
      operation: "documentSymbol",
      file: "regexp.go",
      truth: {
        kind: "names",
        required: [
          "routeRegexpOptions:17",
          "regexpType:22",
          "newRouteRegexp:41",
          "routeRegexp:169",
          "Match:189",
          "url:212",
          "getURLQuery:243",
          "findFirstQueryKey:257",
          "matchQueryString:293",
          "braceIndices:299",
          "varGroupName:323",
          "routeRegexpGroup:332",
          "setMatch:339",
          "getHost:399",
          "extractVars:406"
        ],
        how: "grep '^func \\|^type ' regexp.go"
      }
    }
  ]
}

const cjson: Repository = {
  name: "cJSON",
  repository: "DaveGamble/cJSON",
  commit: "a29814f285cc531c00223743ad3c55cd38c0dc56",
  licence: "MIT",
  kind: "C project",
  prepare: [
    [
      "cmake",
      "-S",
      ".",
      "-B",
      "build",
      "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON",
      "-DENABLE_CJSON_TEST=ON",
      "-DENABLE_CJSON_UTILS=ON"
    ],
    ["ln", "-sf", "build/compile_commands.json", "compile_commands.json"]
  ],
  coldRemoves: [".cache/clangd"],
  notes: "compile_commands.json generated by `cmake -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DENABLE_CJSON_TEST=ON " +
    "-DENABLE_CJSON_UTILS=ON` (configure only, nothing built): 27 translation units, the tests among them. " +
    "tests/common.h includes ../cJSON.c, so the tests see its static functions.",
  questions: [
    {
      operation: "findReferences",
      file: "cJSON.h",
      line: 179,
      symbol: "cJSON_GetObjectItemCaseSensitive",
      truth: lines(
        "grep -rnw in *.c and *.h (build/ left out): 36 hits, all code — the declaration, the definition, a call " +
          "in cJSON.c and one in cJSON_Utils.c, 32 in four test files",
        [
          "cJSON.h:179",
          "cJSON.c:1973",
          "cJSON.c:2303",
          "cJSON_Utils.c:734",
          ...["55", "91", "171", "208", "213", "249", "288", "325", "361", "396"].map((l) => `tests/cjson_add.c:${l}`),
          ...["62", "72", "79", "81", "87", "88", "134", "141", "148"].map((l) => `tests/json_patch_tests.c:${l}`),
          ...["104", "107", "110", "114", "118", "122", "146", "414", "415"].map((l) => `tests/misc_tests.c:${l}`),
          ...["187", "193", "196", "197"].map((l) => `tests/readme_examples.c:${l}`)
        ]
      )
    },
    {
      operation: "goToDefinition",
      file: "tests/parse_examples.c",
      line: 36,
      symbol: "cJSON_Parse",
      truth: lines("the definition in cJSON.c (the declaration in cJSON.h may be given beside it)", ["cJSON.c:1222"], [
        "cJSON.h:154"
      ])
    },
    {
      operation: "hover",
      file: "cJSON.h",
      line: 266,
      symbol: "cJSON_Minify",
      truth: { kind: "text", contains: ["cJSON_Minify(char *json)"], how: "the declaration on cJSON.h:266" }
    },
    {
      operation: "incomingCalls",
      file: "cJSON.c",
      line: 661,
      symbol: "parse_hex4",
      truth: lines(
        "grep -nw parse_hex4: two calls in cJSON.c (utf16_literal_to_utf8) and 18 in tests/parse_hex4.c, which " +
          "includes cJSON.c through tests/common.h",
        [
          "cJSON.c:715",
          "cJSON.c:743",
          "tests/parse_hex4.c:42",
          "tests/parse_hex4.c:43",
          ...range("tests/parse_hex4.c", 49, 64)
        ]
      )
    },
    {
      operation: "renamePreview",
      file: "cJSON.h",
      line: 147,
      symbol: "cJSON_Version",
      newName: "cJSON_VersionString",
      truth: lines("grep -rnw cJSON_Version: declaration, definition and the call in test.c", [
        "cJSON.h:147",
        "cJSON.c:124",
        "test.c:262"
      ])
    },
    {
      operation: "workspaceSymbol",
      file: "cJSONUtils_GeneratePatches",
      truth: lines("defined in cJSON_Utils.c:1281, declared in cJSON_Utils.h:39", ["cJSON_Utils.c:1281"], [
        "cJSON_Utils.h:39"
      ])
    },
    {
      operation: "diagnostics",
      file: "cJSON.c",
      truth: lines("cc -fsyntax-only with the file's compile command (-Wall -Wextra … -Werror) is clean", [])
    },
    {
      operation: "documentSymbol",
      file: "cJSON_Utils.h",
      truth: {
        kind: "names",
        required: [
          "cJSONUtils_GetPointer:34",
          "cJSONUtils_GetPointerCaseSensitive:35",
          "cJSONUtils_GeneratePatches:39",
          "cJSONUtils_GeneratePatchesCaseSensitive:40",
          "cJSONUtils_AddPatchToArray:42",
          "cJSONUtils_ApplyPatches:44",
          "cJSONUtils_ApplyPatchesCaseSensitive:45",
          "cJSONUtils_MergePatch:70",
          "cJSONUtils_MergePatchCaseSensitive:71",
          "cJSONUtils_GenerateMergePatch:74",
          "cJSONUtils_GenerateMergePatchCaseSensitive:75",
          "cJSONUtils_FindPointerFromObjectTo:78",
          "cJSONUtils_SortObject:81",
          "cJSONUtils_SortObjectCaseSensitive:82"
        ],
        how: "grep '^CJSON_PUBLIC' cJSON_Utils.h"
      }
    }
  ]
}

/** The repositories, in the order they are run and shown. */
export const repositories: ReadonlyArray<Repository> = [babel, flask, mux, cjson]
