/** The texts and errors of toolkit-level dispatch (docs/toolkit.md#results-and-chunks). */

/** The model-facing text for a name that no group holds. */
export function toolNotFoundText(name: string): string {
  return `ToolNotFoundError: The tool named '${name}' doesn't exist.`;
}

/** The model-facing text for a tool whose group is inactive, at every level. */
export function toolGroupInactiveText(name: string, group: string): string {
  return `ToolGroupInactiveError: The tool '${name}' in group '${group}' is currently inactive. You should first activate the group by calling the 'reset_tools' tool.`;
}

/** The text for a call the user cancelled. */
export const INTERRUPTED_TEXT =
  "<system-reminder>The tool call has been interrupted by the user.</system-reminder>";

/** The text for an error raised by an MCP call. */
export function mcpErrorText(message: string): string {
  return `Error occurred when calling MCP tool: ${message}`;
}

/** A registration problem: bad group, duplicate group or colliding tool name. */
export class ToolkitConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ToolkitConfigError";
  }
}
