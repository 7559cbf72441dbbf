/**
 * Test helpers for a host served over TLS (`LspRemoteServer.layerHttp({ tls })`, `lsp-seam serve --tls-cert`):
 * a throwaway self-signed certificate. Needs `openssl` on `PATH`.
 *
 * @since 0.1.0
 */
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"

/**
 * A certificate and its private key, as files and as PEM text.
 *
 * @since 0.1.0
 * @category models
 */
export interface SelfSigned {
  readonly keyFile: string
  readonly certFile: string
  readonly key: string
  readonly cert: string
}

/**
 * Makes a self-signed certificate for `127.0.0.1` and `localhost` (an EC P-256 key, valid for a day) with
 * `openssl`, written to `<directory>/<name>.key` and `<directory>/<name>.pem`. A client trusts it by taking the
 * `.pem` file as its CA (`caFile`, `--ca-file`). Throws when `openssl` fails.
 *
 * @since 0.1.0
 * @category constructors
 */
export const selfSignedCertificate = (directory: string, name: string): SelfSigned => {
  const keyFile = Path.join(directory, `${name}.key`)
  const certFile = Path.join(directory, `${name}.pem`)
  ChildProcess.execFileSync("openssl", [
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:prime256v1",
    "-nodes",
    "-keyout",
    keyFile,
    "-out",
    certFile,
    "-days",
    "1",
    "-subj",
    "/CN=lsp-seam test",
    "-addext",
    "subjectAltName=IP:127.0.0.1,DNS:localhost"
  ], { stdio: "ignore" })
  return { keyFile, certFile, key: Fs.readFileSync(keyFile, "utf8"), cert: Fs.readFileSync(certFile, "utf8") }
}
