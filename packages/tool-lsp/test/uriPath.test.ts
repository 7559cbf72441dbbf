import { assert, describe, it } from "@effect/vitest"
import * as UriPath from "../src/internal/uriPath.js"

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
  // Windows drive letters: case-insensitive drive, backslashes, encoded colon
  ["file:///C:/w/src/a.ts", "file:///C:/w", "src\\a.ts"],
  ["file:///c:/w/src/a.ts", "file:///C:/w", "src\\a.ts"],
  ["file:///c%3A/w/a.ts", "file:///C:/w", "a.ts"],
  ["file:///C:/w", "file:///c:/w/", "."],
  ["file:///C:/x/a.ts", "file:///C:/w", "C:\\x\\a.ts"],
  ["file:///d:/w/a.ts", "file:///C:/w", "d:\\w\\a.ts"],
  ["file:///C:/W/a.ts", "file:///C:/w", "C:\\W\\a.ts"],
  ["file:///C:/w/..foo/a.ts", "file:///C:/w", "..foo\\a.ts"],
  ["file:///C:/", "file:///D:/w", "C:\\"],
  ["file:///C:/Program%20Files/a.ts", "file:///D:/w", "C:\\Program Files\\a.ts"],
  // UNC: case-insensitive host, share is a segment
  ["file://server/share/w/a.ts", "file://server/share/w", "a.ts"],
  ["file://SERVER/share/w/src/a.ts", "file://server/share/w", "src\\a.ts"],
  ["file://server/share/x/a.ts", "file://server/share/w", "\\\\server\\share\\x\\a.ts"],
  ["file://other/share/w/a.ts", "file://server/share/w", "\\\\other\\share\\w\\a.ts"],
  ["file://server/Share/w/a.ts", "file://server/share/w", "\\\\server\\Share\\w\\a.ts"],
  // Different worlds never relativise
  ["file:///w/a.ts", "file:///C:/w", "/w/a.ts"],
  ["file:///C:/w/a.ts", "file:///w", "C:\\w\\a.ts"],
  ["file://server/w/a.ts", "file:///w", "\\\\server\\w\\a.ts"],
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
  ["file:///w/a.ts", "", "file:///w/a.ts"]
]

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

describe("uriPath.parseFileUri", () => {
  it("keeps the drive letter and host as written", () => {
    assert.deepStrictEqual(UriPath.parseFileUri("file:///c:/x"), {
      world: { _tag: "Drive", letter: "c" },
      segments: ["x"],
      trailingSlash: false
    })
    assert.deepStrictEqual(UriPath.parseFileUri("file://Srv/share/"), {
      world: { _tag: "Unc", host: "Srv" },
      segments: ["share"],
      trailingSlash: true
    })
    assert.deepStrictEqual(UriPath.parseFileUri("file:///"), {
      world: { _tag: "Posix" },
      segments: [],
      trailingSlash: true
    })
  })
})
