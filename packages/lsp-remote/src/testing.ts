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
 * `.pem` file as its CA (`caFile`, `--ca-file`). With `validity`, the certificate is valid between those dates
 * instead (an expired or not-yet-valid one, say). Throws when `openssl` fails.
 *
 * @since 0.1.0
 * @category constructors
 */
export const selfSignedCertificate = (
  directory: string,
  name: string,
  validity?: { readonly notBefore: Date; readonly notAfter: Date }
): SelfSigned => {
  if (validity !== undefined) return datedCertificate(directory, name, validity)
  const keyFile = Path.join(directory, `${name}.key`)
  const certFile = Path.join(directory, `${name}.pem`)
  ChildProcess.execFileSync("openssl", [
    "req",
    "-x509",
    ...newKey(keyFile),
    "-out",
    certFile,
    "-days",
    "1",
    "-addext",
    "subjectAltName=IP:127.0.0.1,DNS:localhost"
  ], { stdio: "ignore" })
  return { keyFile, certFile, key: Fs.readFileSync(keyFile, "utf8"), cert: Fs.readFileSync(certFile, "utf8") }
}

/** `openssl req`'s arguments for a new EC P-256 key written to `keyFile`, for the test's subject. */
const newKey = (keyFile: string): ReadonlyArray<string> => [
  "-newkey",
  "ec",
  "-pkeyopt",
  "ec_paramgen_curve:prime256v1",
  "-nodes",
  "-keyout",
  keyFile,
  "-subj",
  "/CN=lsp-seam test"
]

/** Dates in the past or future need `openssl ca` (`req -x509` counts days from now): a one-certificate CA. */
const datedCertificate = (
  directory: string,
  name: string,
  validity: { readonly notBefore: Date; readonly notAfter: Date }
): SelfSigned => {
  const work = Fs.mkdtempSync(Path.join(directory, `${name}-ca-`))
  const keyFile = Path.join(directory, `${name}.key`)
  const certFile = Path.join(directory, `${name}.pem`)
  const request = Path.join(work, "request.csr")
  const extensions = Path.join(work, "extensions.cnf")
  const config = Path.join(work, "ca.cnf")
  Fs.writeFileSync(Path.join(work, "index.txt"), "")
  Fs.writeFileSync(Path.join(work, "serial"), "01\n")
  Fs.writeFileSync(extensions, "subjectAltName=IP:127.0.0.1,DNS:localhost\n")
  Fs.writeFileSync(
    config,
    `[ca]\ndefault_ca=local\n[local]\ndatabase=${work}/index.txt\nserial=${work}/serial\nnew_certs_dir=${work}\n` +
      "default_md=sha256\npolicy=any\n[any]\ncommonName=supplied\n"
  )
  const asn1 = (date: Date) => date.toISOString().replace(/[-:T]/g, "").replace(/\.[0-9]+Z$/, "Z")
  const openssl = (args: ReadonlyArray<string>) => ChildProcess.execFileSync("openssl", args, { stdio: "ignore" })
  openssl(["req", ...newKey(keyFile), "-out", request])
  openssl([
    "ca",
    "-batch",
    "-config",
    config,
    "-selfsign",
    "-keyfile",
    keyFile,
    "-in",
    request,
    "-out",
    certFile,
    "-notext",
    "-extfile",
    extensions,
    "-startdate",
    asn1(validity.notBefore),
    "-enddate",
    asn1(validity.notAfter)
  ])
  return { keyFile, certFile, key: Fs.readFileSync(keyFile, "utf8"), cert: Fs.readFileSync(certFile, "utf8") }
}
