import { assert, describe, it } from "@effect/vitest"
import { isScrubbed, pathVariable, scrubEnvironment } from "../src/internal/process/environment.js"

describe("scrubEnvironment", () => {
  const ambient = {
    PATH: "/usr/bin:/bin",
    HOME: "/home/me",
    LANG: "C.UTF-8",
    MY_API_KEY: "k",
    DB_PASSWORD: "p",
    github_token: "t",
    client_secret: "s",
    SecretSauce: "s",
    AWS_ACCESS_KEY_ID: "a",
    LSP_SEAM_X: "x",
    LSP_SEAM_CONFIG: "{}",
    lsp_seam_lower: "x",
    MY_LSP_SEAM_THING: "kept: the prefix is only a prefix",
    UNSET: undefined
  }

  it("drops credentials, lsp-seam's own variables and undefined values; keeps the rest", () => {
    assert.deepStrictEqual(scrubEnvironment(ambient, {}), {
      PATH: "/usr/bin:/bin",
      HOME: "/home/me",
      LANG: "C.UTF-8",
      MY_LSP_SEAM_THING: "kept: the prefix is only a prefix"
    })
  })

  it("merges configured entries over the scrubbed environment; explicit entries win whatever their names", () => {
    const env = scrubEnvironment(ambient, { PATH: "/opt/bin", GITHUB_TOKEN: "explicit", LSP_SEAM_MODE: "on", NEW: "" })
    assert.deepStrictEqual(env, {
      PATH: "/opt/bin",
      HOME: "/home/me",
      LANG: "C.UTF-8",
      MY_LSP_SEAM_THING: "kept: the prefix is only a prefix",
      GITHUB_TOKEN: "explicit",
      LSP_SEAM_MODE: "on",
      NEW: ""
    })
  })

  it("does not modify its inputs", () => {
    const input = { A: "1", MY_KEY: "2" }
    const configured = { B: "3" }
    scrubEnvironment(input, configured)
    assert.deepStrictEqual(input, { A: "1", MY_KEY: "2" })
    assert.deepStrictEqual(configured, { B: "3" })
  })

  it("isScrubbed matches markers anywhere, in any case, and the LSP_SEAM_ prefix in any case", () => {
    for (
      const name of [
        "KEY",
        "key",
        "MonKey",
        "PASSWORD",
        "pg_password",
        "SECRET",
        "TOKEN",
        "npm_token",
        "LSP_SEAM_",
        "Lsp_Seam_Config"
      ]
    ) {
      assert.isTrue(isScrubbed(name), name)
    }
    for (const name of ["PATH", "HOME", "USER", "LSP_SEAMX", "XLSP_SEAM_", "PASS", "TOKE"]) {
      assert.isFalse(isScrubbed(name), name)
    }
  })

  it("pathVariable finds PATH in any spelling, preferring the exact one", () => {
    assert.strictEqual(pathVariable({ PATH: "/a" }), "/a")
    assert.strictEqual(pathVariable({ Path: "C:\\bin" }), "C:\\bin")
    assert.strictEqual(pathVariable({ Path: "/x", PATH: "/y" }), "/y")
    assert.isUndefined(pathVariable({ HOME: "/h" }))
  })
})
