/**
 * A host's TLS certificate outside its validity period is refused at start: every client would fail its handshake
 * with an error about trust on the client's side, far from the host that could be fixed. A text that is not a
 * certificate is left to the TLS layer, which names it.
 */
import { LspError } from "@lsp-seam/lsp"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Crypto from "node:crypto"

const parse = (pem: string): Crypto.X509Certificate | undefined => {
  try {
    return new Crypto.X509Certificate(pem)
  } catch {
    return undefined
  }
}

/** Fails with `LSP_INVALID_CONFIG` when the (first) certificate of `pem` has expired or is not valid yet. */
export const check = (pem: string, flag: string): Effect.Effect<void, LspError.LspConfigurationError> =>
  Effect.gen(function*() {
    const certificate = parse(pem)
    if (certificate === undefined) return
    const now = yield* Clock.currentTimeMillis
    const validFrom = Date.parse(certificate.validFrom)
    const validTo = Date.parse(certificate.validTo)
    const subject = certificate.subject.replace(/\n/g, ", ")
    if (now > validTo) {
      return yield* LspError.invalidConfig(
        `The TLS certificate (${flag}, ${subject}) expired on ${new Date(validTo).toISOString()}: every client ` +
          "would refuse the connection. Renew it.",
        { validTo: new Date(validTo).toISOString() }
      )
    }
    if (now < validFrom) {
      return yield* LspError.invalidConfig(
        `The TLS certificate (${flag}, ${subject}) is not valid until ${new Date(validFrom).toISOString()}: ` +
          "every client would refuse the connection. Check this machine's clock, or the certificate's dates.",
        { validFrom: new Date(validFrom).toISOString() }
      )
    }
  })
