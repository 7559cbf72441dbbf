import { assert, describe, it } from "@effect/vitest"
import * as FastCheck from "effect/FastCheck"
import * as Path from "node:path"
import * as UriPath from "../src/internal/uriPath.js"

// The reference design's pinned examples: [uri, workspace, expected rendering]
const reference: ReadonlyArray<readonly [string, string, string]> = [
  ["file:///C:/WORKSPACE/src/a.ts", "file:///c:/workspace", "src/a.ts"],
  ["file:///D:/lib/b.ts", "file:///C:/workspace", "D:/lib/b.ts"],
  ["file://server/share/workspace/a.ts", "file://server/share/workspace", "a.ts"],
  ["file://SERVER/share/workspace/src/A.ts", "file://server/Share/Workspace", "src/A.ts"],
  ["file://other/share/b.ts", "file://server/share/workspace", "//other/share/b.ts"],
  ["file:///D:/lib/a.ts", "file://server/share/workspace", "D:/lib/a.ts"],
  ["file:///a.ts", "file://server/", "/a.ts"],
  ["file:///home/u/proj/dir%5Cname/a.ts", "file:///home/u/proj", "dir\\name/a.ts"],
  ["file:///C:/workspace/bad%5Cpath", "file:///C:/workspace", "file:///C:/workspace/bad%5Cpath"]
]

// [uri, workspace, expected rendering]
const table: ReadonlyArray<readonly [string, string, string]> = [
  // POSIX: inside, nested, equal, outside, sibling prefix, "..name" directories
  ["file:///w/a.ts", "file:///w", "a.ts"],
  ["file:///w/src/deep/a.ts", "file:///w", "src/deep/a.ts"],
  ["file:///w/src/a.ts", "file:///w/", "src/a.ts"],
  ["file:///w", "file:///w", "."],
  ["file:///w/", "file:///w", "."],
  ["file:///x/a.ts", "file:///w", "/x/a.ts"],
  ["file:///wx/a.ts", "file:///w", "/wx/a.ts"],
  ["file:///w/..foo/a.ts", "file:///w", "..foo/a.ts"],
  ["file:///w/...", "file:///w", "..."],
  ["file:///a.ts", "file:///w", "/a.ts"],
  ["file:///w/a.ts", "file:///", "w/a.ts"],
  ["file:///W/a.ts", "file:///w", "/W/a.ts"],
  ["file:///w/dir/", "file:///w", "dir/"],
  ["file:///other/dir/", "file:///w", "/other/dir/"],
  // POSIX decoding
  ["file:///w/my%20file.ts", "file:///w", "my file.ts"],
  ["file:///w%20space/a.ts", "file:///w%20space", "a.ts"],
  ["file:///w/%E2%82%AC.ts", "file:///w", "€.ts"],
  ["file:///w/€.ts", "file:///w", "€.ts"],
  ["file:///w/a%5Cb.ts", "file:///w", "a\\b.ts"],
  ["file:///x/a%5cb.ts", "file:///w", "/x/a\\b.ts"],
  ["file:///w/%61.ts", "file:///w", "a.ts"],
  ["file://localhost/w/a.ts", "file:///w", "a.ts"],
  ["file:/w/a.ts", "file:///w", "a.ts"],
  ["FILE:///w/a.ts", "file:///w", "a.ts"],
  // Windows drive letters: case-insensitive names, `/` separators, encoded colon, letter kept as written
  ["file:///C:/w/src/a.ts", "file:///C:/w", "src/a.ts"],
  ["file:///c:/w/src/a.ts", "file:///C:/w", "src/a.ts"],
  ["file:///c%3A/w/a.ts", "file:///C:/w", "a.ts"],
  ["file:///C%3a/w/a.ts", "file:///c%3A/W", "a.ts"],
  ["file:///C:/w", "file:///c:/w/", "."],
  ["file:///C:/W/", "file:///c:/w", "."],
  ["file:///C:/x/a.ts", "file:///C:/w", "C:/x/a.ts"],
  ["file:///C:/wx/a.ts", "file:///C:/w", "C:/wx/a.ts"],
  ["file:///d:/w/a.ts", "file:///C:/w", "d:/w/a.ts"],
  ["file:///C:/W/a.ts", "file:///C:/w", "a.ts"],
  ["file:///C:/w/..foo/a.ts", "file:///C:/w", "..foo/a.ts"],
  ["file:///C:/w/dir/", "file:///C:/w", "dir/"],
  ["file:///C:/", "file:///D:/w", "C:/"],
  ["file:///C:", "file:///D:/w", "C:/"],
  ["file:///C:/Program%20Files/a.ts", "file:///D:/w", "C:/Program Files/a.ts"],
  ["file://localhost/C:/w/a.ts", "file:///C:/w", "a.ts"],
  ["file:///C:/w/a.ts", "file:///C:/", "w/a.ts"],
  ["file:///C:/w/a.ts", "file:///C:", "w/a.ts"],
  // UNC: host and share compare case-insensitively like every other name
  ["file://server/share/w/a.ts", "file://server/share/w", "a.ts"],
  ["file://SERVER/share/w/src/a.ts", "file://server/share/w", "src/a.ts"],
  ["file://server/share/w", "file://Server/Share/W/", "."],
  ["file://server/share/w/..x/a.ts", "file://server/share/w", "..x/a.ts"],
  ["file://server/share/x/a.ts", "file://server/share/w", "//server/share/x/a.ts"],
  ["file://other/share/w/a.ts", "file://server/share/w", "//other/share/w/a.ts"],
  ["file://server/Share/w/a.ts", "file://server/share/w", "a.ts"],
  ["file://server/share/a.ts", "file://server/", "share/a.ts"],
  ["file://server/share/w/a.ts", "file:///C:/w", "//server/share/w/a.ts"],
  ["file:///C:/w/a.ts", "file://server/share/w", "C:/w/a.ts"],
  // A Windows-world workspace reads a URI with neither host nor drive in the POSIX world: its own absolute path
  ["file:///w/a.ts", "file:///C:/w", "/w/a.ts"],
  ["file:///C/w/a.ts", "file:///C:/w", "/C/w/a.ts"],
  ["file:///w/a%5Cb.ts", "file://server/share/w", "/w/a\\b.ts"],
  // A POSIX workspace reads every URI in the POSIX world: a drive is a directory name, a host cannot be mapped
  ["file:///C:/w/a.ts", "file:///w", "/C:/w/a.ts"],
  ["file://server/w/a.ts", "file:///w", "file://server/w/a.ts"],
  ["file:///%43:/w/a.ts", "file:///%43:/w", "a.ts"],
  ["file:///C:/w/a.ts", "file:///%43:/w", "a.ts"],
  // `file:///` names the POSIX root (no host, no drive), so it is no Windows world
  ["file:///w/a.ts", "file:///", "w/a.ts"],
  ["file:///", "file:///", "."],
  ["file:///C:/w/a.ts", "file:///", "C:/w/a.ts"],
  ["file:///c%3A/w/a.ts", "file:///", "c:/w/a.ts"],
  ["file://server/share/a.ts", "file:///", "file://server/share/a.ts"],
  // Windows-world conversions that fail: verbatim
  ["file:///C:/w/a%2Fb.ts", "file:///C:/w", "file:///C:/w/a%2Fb.ts"],
  ["file:///C:/w/a%00.ts", "file:///C:/w", "file:///C:/w/a%00.ts"],
  ["file:///C:/w/a\\b.ts", "file:///C:/w", "file:///C:/w/a\\b.ts"],
  ["file://server/share/a%5Cb.ts", "file://server/share", "file://server/share/a%5Cb.ts"],
  ["file:///C:foo/a.ts", "file:///C:/w", "file:///C:foo/a.ts"],
  ["file://ser%20ver/share/a.ts", "file:///C:/w", "file://ser%20ver/share/a.ts"],
  ["file://server", "file://server/share", "file://server"],
  ["file://[", "file:///C:/w", "file://["],
  // Other schemes and undecodable file URIs: verbatim
  ["jdt://contents/rt.jar/java.lang/String.class", "file:///w", "jdt://contents/rt.jar/java.lang/String.class"],
  ["untitled:Untitled-1", "file:///w", "untitled:Untitled-1"],
  ["https://example.com/w/a.ts", "file:///w", "https://example.com/w/a.ts"],
  ["file:///w/a%ZZ.ts", "file:///w", "file:///w/a%ZZ.ts"],
  ["file:///w/a%E2%82.ts", "file:///w", "file:///w/a%E2%82.ts"],
  ["file:///w/a%00.ts", "file:///w", "file:///w/a%00.ts"],
  ["file:///w/a%0Ab.ts", "file:///w", "file:///w/a%0Ab.ts"],
  ["file:///w/a%2Fb.ts", "file:///w", "file:///w/a%2Fb.ts"],
  ["file:///C:/w/a%5Cb.ts", "file:///C:/w", "file:///C:/w/a%5Cb.ts"],
  ["file:///w/../etc/passwd", "file:///w", "file:///w/../etc/passwd"],
  ["file:///w/./a.ts", "file:///w", "file:///w/./a.ts"],
  ["file:///w//a.ts", "file:///w", "file:///w//a.ts"],
  ["file:///w/a.ts?x=1", "file:///w", "file:///w/a.ts?x=1"],
  ["file:///w/a.ts#L1", "file:///w", "file:///w/a.ts#L1"],
  ["file://user@host/share/a.ts", "file:///w", "file://user@host/share/a.ts"],
  ["file://host:445/share/a.ts", "file:///w", "file://host:445/share/a.ts"],
  ["file://server", "file:///w", "file://server"],
  ["file:a.ts", "file:///w", "file:a.ts"],
  ["file://", "file:///w", "file://"],
  ["", "file:///w", ""],
  // Raw control characters are escaped so a location stays on one line
  ["file:///w/a\nb.ts", "file:///w", "file:///w/a%0Ab.ts"],
  ["file:///w/a\u0000.ts", "file:///w", "file:///w/a%00.ts"],
  // A workspace that is not a (decodable) file: URI → everything verbatim
  ["file:///w/a.ts", "untitled:w", "file:///w/a.ts"],
  ["file:///w/a.ts", "vscode-vfs://github/w", "file:///w/a.ts"],
  ["file:///w/a.ts", "file:///w%ZZ", "file:///w/a.ts"],
  ["file:///w/a.ts", "", "file:///w/a.ts"],
  ["file:///w/a.ts", "file://[", "file:///w/a.ts"],
  ["file:///C:/w/a.ts", "file://[", "file:///C:/w/a.ts"],
  ["file:///C:/w/a.ts", "file:///C:/w%5Cx", "file:///C:/w/a.ts"],
  ["file:///C:/w/a.ts", "file:///C:w", "file:///C:/w/a.ts"],
  ["file:///C:/w/a.ts", "file://server", "file:///C:/w/a.ts"],
  ["file:///C:/w/a.ts", "https://example.com/C:/w", "file:///C:/w/a.ts"]
]

describe("uriPath.render on the reference's pinned examples", () => {
  for (const [uri, workspace, expected] of reference) {
    it(`${JSON.stringify(uri)} in ${JSON.stringify(workspace)} → ${JSON.stringify(expected)}`, () => {
      assert.strictEqual(UriPath.render(uri, workspace), expected)
    })
  }
})

describe("uriPath.render", () => {
  for (const [uri, workspace, expected] of table) {
    it(`${JSON.stringify(uri)} in ${JSON.stringify(workspace)} → ${JSON.stringify(expected)}`, () => {
      assert.strictEqual(UriPath.render(uri, workspace), expected)
    })
  }

  it("handles a 1,000,000-character URI in linear time", () => {
    const name = "a".repeat(1_000_000)
    const inside = `file:///w/${name}.ts`
    assert.strictEqual(UriPath.render(inside, "file:///w"), `${name}.ts`)
    const undecodable = `file:///w/${"%".repeat(1_000_000)}`
    assert.strictEqual(UriPath.render(undecodable, "file:///w"), undecodable)
    const encoded = `file:///w/${"%20".repeat(333_333)}`
    assert.strictEqual(UriPath.render(encoded, "file:///w"), " ".repeat(333_333))
  })
})

describe("uriPath.render, the rule's edge cases", () => {
  it("renders the workspace itself as . in every world", () => {
    assert.strictEqual(UriPath.render("file:///home/u/proj/", "file:///home/u/proj"), ".")
    assert.strictEqual(UriPath.render("file:///c:/Workspace", "file:///C:/workspace/"), ".")
    assert.strictEqual(UriPath.render("file://SERVER/share/W", "file://server/Share/w"), ".")
    assert.strictEqual(UriPath.render("file://server/", "file://server/"), ".")
  })

  it("keeps a directory named ..x inside the workspace relative", () => {
    assert.strictEqual(UriPath.render("file:///w/..x/a.ts", "file:///w"), "..x/a.ts")
    assert.strictEqual(UriPath.render("file:///C:/w/..x/a.ts", "file:///C:/w"), "..x/a.ts")
    assert.strictEqual(UriPath.render("file://server/share/..x", "file://server/share"), "..x")
  })

  it("reads file:/// as the POSIX root, never a Windows world", () => {
    assert.strictEqual(UriPath.worldOf("file:///"), "Posix")
    assert.strictEqual(UriPath.render("file:///C:/w/a.ts", "file:///"), "C:/w/a.ts")
    assert.strictEqual(UriPath.render("file://server/share/a.ts", "file:///"), "file://server/share/a.ts")
    assert.strictEqual(UriPath.render("file:///", "file:///"), ".")
  })

  it("shows every URI verbatim when the workspace is file://[ or not a file: URI", () => {
    for (const workspace of ["file://[", "untitled:w", "https://server/share/w"]) {
      assert.strictEqual(UriPath.render("file:///w/a.ts", workspace), "file:///w/a.ts")
      assert.strictEqual(UriPath.render("file:///C:/w/a.ts", workspace), "file:///C:/w/a.ts")
      assert.strictEqual(UriPath.render("file://server/share/a.ts", workspace), "file://server/share/a.ts")
    }
    assert.strictEqual(UriPath.render("file://[", "file:///w"), "file://[")
  })
})

const letters = ["a", "B", "z", "Q", "0", ".", "-", "_", " ", "%", "#", "é", "Ω", "€", "😀"]
const nameOf = (characters: ReadonlyArray<string>) =>
  FastCheck.string({ unit: FastCheck.constantFrom(...characters), minLength: 1, maxLength: 5 })
    .filter((name) => name !== "." && name !== "..")
const posixName = nameOf([...letters, "\\", ":", "?"])
// `\`, `:` and `?` cannot occur in a Windows file name.
const windowsName = nameOf(letters)
const swapAsciiCase = (name: string): string =>
  name.replace(/[a-z]/gi, (c) => c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())
const encode = (names: ReadonlyArray<string>): string => names.map(encodeURIComponent).join("/")

interface Inside {
  readonly world: UriPath.World
  readonly workspaceUri: string
  readonly workspacePath: string
  readonly uri: string
  readonly path: string
  readonly rest: ReadonlyArray<string>
}

// A first segment like "a:" makes a path read as a Windows drive (the rule), so a POSIX workspace never has one.
const posixInside: FastCheck.Arbitrary<Inside> = FastCheck.record({
  base: FastCheck.array(posixName, { maxLength: 3 }).filter((base) => !/^[A-Za-z]:/.test(base[0] ?? "")),
  rest: FastCheck.array(posixName, { maxLength: 3 })
}).map(({ base, rest }) => ({
  world: "Posix",
  workspaceUri: `file:///${encode(base)}`,
  workspacePath: `/${base.join("/")}`,
  uri: `file:///${encode([...base, ...rest])}`,
  path: `/${[...base, ...rest].join("/")}`,
  rest
}))

// The target spells the workspace part with its own case, as a case-insensitive server may.
const windowsPrefix = (base: ReadonlyArray<string>) =>
  FastCheck.array(FastCheck.boolean(), { minLength: base.length, maxLength: base.length })
    .map((swaps) => base.map((name, i) => swaps[i] ? swapAsciiCase(name) : name))

const driveInside: FastCheck.Arbitrary<Inside> = FastCheck.record({
  letter: FastCheck.constantFrom("C", "c", "D"),
  colons: FastCheck.tuple(FastCheck.constantFrom(":", "%3A", "%3a"), FastCheck.constantFrom(":", "%3A")),
  base: FastCheck.array(windowsName, { maxLength: 3 }),
  rest: FastCheck.array(windowsName, { maxLength: 3 })
}).chain(({ base, colons, letter, rest }) =>
  windowsPrefix(base).map((prefix): Inside => ({
    world: "Windows",
    workspaceUri: `file:///${letter}${colons[0]}/${encode(base)}`,
    workspacePath: `${letter}:\\${base.join("\\")}`,
    uri: `file:///${swapAsciiCase(letter)}${colons[1]}/${encode([...prefix, ...rest])}`,
    path: `${swapAsciiCase(letter)}:\\${[...prefix, ...rest].join("\\")}`,
    rest
  }))
)

const uncInside: FastCheck.Arbitrary<Inside> = FastCheck.record({
  host: FastCheck.constantFrom("server", "SRV-1", "files.example"),
  base: FastCheck.array(windowsName, { minLength: 1, maxLength: 3 }),
  rest: FastCheck.array(windowsName, { maxLength: 3 })
}).chain(({ base, host, rest }) =>
  windowsPrefix(base).map((prefix): Inside => ({
    world: "Windows",
    workspaceUri: `file://${host}/${encode(base)}`,
    workspacePath: `\\\\${host}\\${base.join("\\")}`,
    uri: `file://${swapAsciiCase(host)}/${encode([...prefix, ...rest])}`,
    path: `\\\\${swapAsciiCase(host)}\\${[...prefix, ...rest].join("\\")}`,
    rest
  }))
)

describe("uriPath.render inside the workspace", () => {
  it.prop(
    "joined to the workspace path, names the same file in that world",
    [FastCheck.oneof(posixInside, driveInside, uncInside)],
    ([inside]) => {
      const rendered = UriPath.render(inside.uri, inside.workspaceUri)
      assert.strictEqual(rendered, inside.rest.length === 0 ? "." : inside.rest.join("/"))
      if (inside.world === "Posix") {
        assert.isFalse(Path.posix.isAbsolute(rendered))
        assert.strictEqual(Path.posix.join(inside.workspacePath, rendered), inside.path)
      } else {
        assert.isFalse(Path.win32.isAbsolute(rendered))
        assert.isFalse(rendered.includes("\\"))
        assert.strictEqual(
          Path.win32.join(inside.workspacePath, rendered).toLowerCase(),
          Path.win32.normalize(inside.path).toLowerCase()
        )
      }
    }
  )
})

describe("uriPath.parseFileUri", () => {
  it("keeps the drive letter and host as written", () => {
    assert.deepStrictEqual(UriPath.parseFileUri("file:///c:/x", "Windows"), {
      root: { _tag: "Drive", letter: "c" },
      segments: ["x"],
      trailingSlash: false
    })
    assert.deepStrictEqual(UriPath.parseFileUri("file://Srv/share/", "Windows"), {
      root: { _tag: "Unc", host: "Srv" },
      segments: ["share"],
      trailingSlash: true
    })
    assert.deepStrictEqual(UriPath.parseFileUri("file:///", "Posix"), {
      root: { _tag: "Posix" },
      segments: [],
      trailingSlash: true
    })
  })

  it("converts each URI in the world it is given", () => {
    assert.deepStrictEqual(UriPath.parseFileUri("file:///C:/x", "Posix"), {
      root: { _tag: "Posix" },
      segments: ["C:", "x"],
      trailingSlash: false
    })
    assert.strictEqual(UriPath.parseFileUri("file://srv/share", "Posix"), undefined)
    assert.strictEqual(UriPath.parseFileUri("file:///x", "Windows"), undefined)
    assert.strictEqual(UriPath.parseFileUri("file:///C:/a%5Cb", "Windows"), undefined)
  })
})

describe("uriPath.worldOf", () => {
  it("is Windows for a host or a drive, in any case, encoded or not", () => {
    for (const uri of ["file://server/share", "file://server/", "file:///C:/w", "file:///c%3a/w", "file:///C%3A"]) {
      assert.strictEqual(UriPath.worldOf(uri), "Windows", uri)
    }
    for (const uri of ["file:///", "file:///w", "file://localhost/w", "file:///%43:/w", "untitled:C:/w"]) {
      assert.strictEqual(UriPath.worldOf(uri), "Posix", uri)
    }
  })
})
