/**
 * What names one pooled server: a provider and the directory it is rooted at (the workspace, or a project
 * root inside it found by the server's root markers). The string `id` keys maps; the fields are what the
 * status view and errors show, so nothing ever has to take the id apart again.
 */
import type { Workspace } from "../files/workspace.js"

export interface ServerKey {
  readonly id: string
  readonly providerId: string
  /** The canonical workspace of the query that named the server: the boundary of what it may read. */
  readonly workspace: Workspace
  /** The canonical directory the server runs in: the workspace, or a project root inside it. */
  readonly root: Workspace
}

/**
 * The key of `providerId`'s server rooted at `root` (by default the workspace itself). Servers are shared
 * by root: two workspaces whose queries lead to one project root share its server.
 */
export const make = (providerId: string, workspace: Workspace, root: Workspace = workspace): ServerKey => ({
  // A path never contains NUL, so the last NUL separates the two parts: ids never collide.
  id: `${providerId}\u0000${root.path}`,
  providerId,
  workspace,
  root
})

/** Whether `label` (a pool recipe's) is a server key. */
export const isServerKey = (label: unknown): label is ServerKey =>
  typeof label === "object" && label !== null && "id" in label && "providerId" in label && "root" in label
