export * from "./builtin/files";
export {
  HTTP_MAX_BODY_BYTES,
  HTTP_MAX_REDIRECTS,
  HTTP_TIMEOUT_MS,
  type HttpFetchOptions,
  httpFetchTool,
  makeHttpFetchTool,
} from "./builtin/http-fetch";
export { readArchiveTool, resolvePointer } from "./builtin/read-archive";
export { cutUtf8, splitLines, utf8ByteLength } from "./builtin/text";
export { waitForTool } from "./builtin/wait-for";
export { type CustomToolContext, type CustomToolSpec, defineTool, ToolError, thrownOutcome } from "./custom";
export { isUrlAllowed, parseAllowedHosts } from "./hosts";
export { idempotencyKeyFor } from "./keys";
export { archiveRef, makePlaceholder, type OffloadPlaceholder, PREVIEW_BYTES, serializeToolResponse } from "./offload";
export { normalizeWorkspaceDir, normalizeWorkspacePath, type PathResult } from "./paths";
export {
  type AnyTool,
  type ApprovalRule,
  BUILTIN_TOOLS,
  buildStaticTools,
  callNeedsApproval,
  deepFreeze,
  enabledTools,
  getTool,
  installStaticTools,
  parseToolArgs,
  staticTools,
  type ToolArgIssue,
  type ToolSpec,
  toolSpecs,
  validateApprovalRules,
} from "./registry";
export {
  MIN_SECRET_CHARS,
  parseSecretHosts,
  redactSecrets,
  secretAllowedFor,
  secretHostsProblem,
  secretNamesInUse,
  secretRefsIn,
  secretValues,
  substituteSecrets,
} from "./secrets";
export type { FileChange, ToolContext, ToolDefinition, ToolResult, ToolSource } from "./types";
export { applyFileChanges, type FileEntry, type FileRow, listFiles, listFilesPage, readFileRow } from "./workspace";
