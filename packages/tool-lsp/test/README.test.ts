import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import * as LspToolInput from "../src/LspToolInput.js"
import * as LspToolPrompt from "../src/LspToolPrompt.js"
import * as LspToolRender from "../src/LspToolRender.js"

// The README documents what the model sees and what it costs; these checks keep it true.
const readme = fs.readFileSync(path.join(import.meta.dirname, "..", "README.md"), "utf8")

// Prose is wrapped; compare it with whitespace collapsed.
const prose = readme.replace(/\s+/g, " ")

const thousands = (n: number) => n.toLocaleString("en-US")

describe("README", () => {
  it("quotes the prompt section and the tool description verbatim", () => {
    assert.isTrue(readme.includes(`\n${LspToolPrompt.text}\n`))
    assert.isTrue(readme.includes(`\n${LspToolInput.description}\n`))
  })

  it("quotes the incomplete-answer note verbatim", () => {
    assert.isTrue(readme.includes(`\n${LspToolRender.incompleteNote}\n`))
  })

  it("shows the generated JSON Schema", () => {
    const block = /```json\n([\s\S]*?)\n```/.exec(readme)
    assert.isNotNull(block)
    assert.deepStrictEqual(JSON.parse(block![1]!), LspToolInput.jsonSchema)
  })

  it("states the measured sizes and the ~4 characters per token estimate", () => {
    const prompt = LspToolPrompt.text.length
    const description = LspToolInput.description.length
    const schema = JSON.stringify(LspToolInput.jsonSchema).length
    const total = prompt + description + schema + LspToolInput.name.length
    assert.isTrue(prose.includes(`${prompt} characters, about ${Math.round(prompt / 4 / 5) * 5} tokens`))
    assert.isTrue(prose.includes(`The description is ${description} characters and the compact JSON Schema ${schema}`))
    assert.isTrue(
      prose.includes(`cost about ${Math.round((description + schema + LspToolInput.name.length) / 4 / 5) * 5} tokens`)
    )
    assert.isTrue(prose.includes(`**${thousands(total)} characters, roughly ${Math.round(total / 4 / 5) * 5} tokens**`))
    assert.isTrue(prose.includes("an estimate at ~4 characters per token"))
  })
})
