/**
 * What names one pooled server: a provider and a canonical workspace. The string `id` keys maps; the
 * fields are what the status view and errors show, so nothing ever has to take the id apart again.
 */
import type { Workspace } from "../files/workspace.js"

export interface ServerKey {
  readonly id: string
  readonly providerId: string
  /** The canonical workspace. */
  readonly workspace: Workspace
}

export const make = (providerId: string, workspace: Workspace): ServerKey => ({
  // A path never contains NUL, so the last NUL separates the two parts: ids never collide.
  id: `${providerId}\u0000${workspace.path}`,
  providerId,
  workspace
})

/** Whether `label` (a pool recipe's) is a server key. */
export const isServerKey = (label: unknown): label is ServerKey =>
  typeof label === "object" && label !== null && "id" in label && "providerId" in label && "workspace" in label
