/**
 * Ours and the reference, side by side on the same server and the same workspaces: one host serving every
 * workspace (a server each, from its pool) and one raw client per workspace. Both are warm when handed out:
 * every server has started and answered.
 */
import { type OursHost, startOurs } from "./ours.js"
import * as Processes from "./processes.js"
import { type Query, RawClient, type ServerSpec } from "./rawClient.js"
import * as Servers from "./servers.js"

export interface ServerKind {
  readonly label: string
  readonly spec: ServerSpec
  /** The query sequence, cycled. */
  readonly queries: ReadonlyArray<Query>
  /** A fresh workspace, with extra files. */
  readonly workspace: (files?: Record<string, string>) => string
}

export const fakeKind: ServerKind = {
  label: "fake server",
  spec: Servers.fakeServer,
  queries: Servers.fakeQueries,
  workspace: Servers.fakeWorkspace
}

export const typescriptKind: ServerKind = {
  label: "typescript-language-server",
  spec: Servers.typescriptServer,
  queries: Servers.typescriptQueries,
  workspace: Servers.typescriptWorkspace
}

export interface Contenders {
  readonly kind: ServerKind
  readonly workspaces: ReadonlyArray<string>
  readonly ours: OursHost
  /** One per workspace, in the same order. */
  readonly raw: ReadonlyArray<RawClient>
  /** Starts one more raw client (closed with the others). */
  readonly addRaw: (workspace: string) => Promise<RawClient>
  /** Records every server pid seen so far, for the check that none survives. */
  readonly track: () => Promise<void>
  readonly close: () => Promise<void>
}

/** Runs `count` queries through a raw client, one after another, cycling through `queries`; ms per query. */
export const timedRaw = async (
  client: RawClient,
  queries: ReadonlyArray<Query>,
  count: number,
  offset = 0
): Promise<Array<number>> => {
  const samples: Array<number> = []
  for (let i = 0; i < count; i++) {
    const query = queries[(offset + i) % queries.length]!
    const start = performance.now()
    await client.query(query)
    samples.push(performance.now() - start)
  }
  return samples
}

/** Like `timedRaw` on several clients at once; total wall time in ms. */
export const parallelRaw = async (
  clients: ReadonlyArray<RawClient>,
  queries: ReadonlyArray<Query>,
  count: number
): Promise<number> => {
  const start = performance.now()
  await Promise.all(clients.map((client) => timedRaw(client, queries, count)))
  return performance.now() - start
}

/** How many answers a raw result holds: locations, or 1 for a hover with contents. */
const rawCount = (result: unknown): number =>
  result === null || result === undefined ? 0 : Array.isArray(result) ? result.length : 1

/** Fails unless ours and the raw client get answers of the same size to every query of the sequence. */
const checkSameAnswers = async (kind: ServerKind, ours: OursHost, raw: RawClient, workspace: string) => {
  for (const query of kind.queries) {
    const mine = await ours.answer(workspace, query)
    const theirs = await raw.query(query)
    const count = mine.kind === "locations"
      ? mine.locations.length
      : mine.kind === "hover"
      ? mine.hover === null ? 0 : 1
      : Number.NaN // the bench asks only position questions: any other kind differs from the raw count
    if (count !== rawCount(theirs)) {
      throw new Error(
        `${kind.label}: ${query.operation} ${query.file}:${query.position.line}:${query.position.character} ` +
          `gave ${count} answers through the host and ${rawCount(theirs)} through the raw client`
      )
    }
  }
}

export const openContenders = async (kind: ServerKind, workspaceCount: number): Promise<Contenders> => {
  const workspaces = Array.from({ length: workspaceCount }, () => kind.workspace())
  const ours = await startOurs(kind.spec)
  const all: Array<RawClient> = []
  const track = async () => {
    Processes.track(await ours.pids())
    Processes.track(all.map((client) => client.pid))
  }
  const addRaw = async (workspace: string) => {
    const client = await RawClient.start(kind.spec, workspace)
    all.push(client)
    Processes.track([client.pid])
    return client
  }
  try {
    for (const workspace of workspaces) await addRaw(workspace)
    await ours.parallel(workspaces, kind.queries, 1)
    await Promise.all(all.map((client) => timedRaw(client, kind.queries, 1)))
    await track()
    await checkSameAnswers(kind, ours, all[0]!, workspaces[0]!)
  } catch (error) {
    await Promise.allSettled([ours.dispose(), ...all.map((client) => client.close())])
    throw error
  }
  return {
    kind,
    workspaces,
    ours,
    raw: [...all],
    addRaw,
    track,
    close: async () => {
      await track()
      await Promise.all([ours.dispose(), ...all.map((client) => client.close())])
    }
  }
}
