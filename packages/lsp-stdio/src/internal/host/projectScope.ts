/**
 * What a cross-file question on a server that hosts several projects (tsserver) searches: the projects it loaded
 * for this question, and the files in no project (outside every tsconfig.json) — which it opens, within
 * `looseFiles`, since the server sees such a file only while it is open. Nothing else: a place in a project it
 * did not load, or in a file in no project it did not open, is dropped from the answer, for only an earlier
 * question could have put it there (DESIGN §9).
 */
import type * as Path from "@effect/platform/Path"
import type { LspResult } from "@lsp-seam/lsp"
import * as Effect from "effect/Effect"
import type { FileServices } from "../files/fileAccess.js"
import { isInside, type Workspace } from "../files/workspace.js"
import * as WorkspaceFiles from "../files/workspaceFiles.js"
import * as ServerInstance from "../servers/serverInstance.js"
import * as AnswerScope from "./answerScope.js"
import * as ProjectSurvey from "./projectSurvey.js"

/** The workspace's files in no project, in the walk's order, and whether the walk saw them all. */
export interface Loose {
  readonly files: ReadonlyArray<WorkspaceFiles.ListedFile>
  readonly complete: boolean
}

const listed = (names: ReadonlyArray<string>) =>
  names.length <= 5 ? names.join(", ") : `${names.slice(0, 5).join(", ")} and ${names.length - 5} more`

const under = (path: Path.Path, prefix: string, relative: string) =>
  relative === prefix || relative.startsWith(`${prefix}${path.sep}`)

/** The files of the server's languages that no project includes, less the projects' generated output. */
export const listLoose = (
  services: FileServices,
  spec: ServerInstance.ServerSpec,
  workspace: Workspace,
  survey: ProjectSurvey.Survey
): Effect.Effect<Loose> =>
  Effect.map(
    WorkspaceFiles.listSources(
      services.files,
      services.path,
      workspace.path,
      [...ServerInstance.languagesOf(spec).keys()],
      AnswerScope.maxEntries
    ),
    ({ complete, files }) => {
      const { path } = services
      const generated = survey.projects.flatMap((project) => project.generated)
      return {
        complete,
        files: files.filter((file) =>
          ProjectSurvey.projectOf(survey, path, file.relative) === undefined &&
          !generated.some((directory) => under(path, directory, file.relative))
        )
      }
    }
  )

/** Which loose files a question opens (the first within `looseFiles`), and what the answer says of the rest. */
export const looseToOpen = (
  spec: ServerInstance.ServerSpec,
  loose: Loose
): { readonly files: ReadonlyArray<string>; readonly partial: LspResult.IncompleteReason | undefined } => {
  const bound = spec.config.looseFiles ?? { maxFiles: 0, maxBytes: 0 }
  const files: Array<string> = []
  let bytes = 0
  for (const file of loose.files) {
    if (files.length >= bound.maxFiles || bytes + file.size > bound.maxBytes) break
    files.push(file.relative)
    bytes += file.size
  }
  const left = loose.files.slice(files.length).map((file) => file.relative)
  return {
    files,
    partial: left.length === 0 ? undefined : {
      reason: "excluded-by-config",
      message:
        `${left.length} file(s) of the workspace that no ${
          spec.config.projectMarkers.join(" or ")
        } includes were not searched (${listed(left)}): at most ${bound.maxFiles} such files (${bound.maxBytes} ` +
        "bytes) are opened for a question (looseFiles). Uses in them may be missing; confirm with a text search."
    }
  }
}

/** A question's scope: the projects it loaded and the loose files it opened (relative to the workspace). */
export type Scope = AnswerScope.Scope

export const make = (
  path: Path.Path,
  workspace: Workspace,
  survey: ProjectSurvey.Survey,
  searched: ReadonlyArray<ProjectSurvey.Project>,
  opened: ReadonlyArray<string>
): Scope => {
  const projects = new Set(searched.map((project) => project.config))
  const files = new Set(opened)
  const generated = survey.projects.flatMap((project) => project.generated)
  return {
    includes: (file) => {
      if (!isInside(path, workspace.path, file)) return true
      const relative = path.relative(workspace.path, file)
      // Dependencies and build output are in a program through its imports, the same in every host.
      if (WorkspaceFiles.isSkipped(path, relative) || generated.some((dir) => under(path, dir, relative))) return true
      const project = ProjectSurvey.projectOf(survey, path, relative)
      return project === undefined ? files.has(relative) : projects.has(project.config)
    },
    opened: new Set(),
    partial: undefined
  }
}

/** The answer without the places outside the question's scope. */
export const confine = (path: Path.Path, scope: Scope, result: LspResult.LspQueryResult) =>
  AnswerScope.confine(path, scope, result)
