/**
 * The public surface of the toolkit: the tool contract, responses, the Toolkit with groups and
 * `reset_tools`, skills, task tools, external tools, FunctionTool, middleware, the built-in
 * tools, and the helpers a host or the service uses to build a session's toolkit.
 */
export {
  type ExternalToolDef,
  TOOL_NAME_PATTERN,
  type ToolGroupDef,
} from "../contracts/tool-config.js";
export { type BuiltinToolsOptions, createBuiltinTools } from "./builtins.js";
export * from "./content.js";
export { unifiedDiff } from "./diff.js";
export * from "./external-tool.js";
export * from "./function-tool.js";
export { createHostContext } from "./host-context.js";
export * from "./mcp/index.js";
export { MemoryReadCacheStore } from "./memory-read-cache.js";
export {
  defaultMetaToolResponse,
  META_TOOL_NAME,
  type MetaToolResponseTemplate,
  ResetToolsTool,
} from "./meta-tool.js";
export type { NextHandler, ToolMiddleware } from "./middleware.js";
export type { ReadCacheEntry, ReadCacheStore } from "./read-cache.js";
export * from "./response.js";
export type { ToolRunContext } from "./run-context.js";
export { stripTitles, type ToolSchema, zodToInputSchema } from "./schemas.js";
export * from "./session-toolkit.js";
export * from "./skills/local-skill-loader.js";
export * from "./skills/skill.js";
export * from "./skills/skill-loader.js";
export { type ParsedSkillMd, parseSkillMd } from "./skills/skill-md.js";
export * from "./skills/skill-meta.js";
export { defaultSkillInstructions, type SkillInstructionTemplate } from "./skills/skill-prompt.js";
export { isSkill, loadSkillSources } from "./skills/skill-sources.js";
export * from "./skills/skill-upload.js";
export { SKILL_VIEWER_NAME, SkillViewerTool } from "./skills/skill-viewer.js";
export { MemoryTaskStore } from "./tasks/memory-task-store.js";
export type { Task, TaskBoard, TaskState, TaskStore } from "./tasks/task.js";
export { TaskCreateTool } from "./tasks/task-create.js";
export { TaskGetTool } from "./tasks/task-get.js";
export { TaskListTool } from "./tasks/task-list.js";
export { createTaskTools } from "./tasks/task-tools.js";
export { TaskUpdateTool } from "./tasks/task-update.js";
export * from "./tool-base.js";
export * from "./tool-group.js";
export * from "./toolkit.js";
export * from "./toolkit-errors.js";
export { BashTool } from "./tools/bash.js";
export { EditTool } from "./tools/edit.js";
export { GlobTool } from "./tools/glob.js";
export { GrepTool } from "./tools/grep.js";
export { ReadTool } from "./tools/read.js";
export { WriteTool } from "./tools/write.js";
