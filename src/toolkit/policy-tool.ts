import type {
  PermissionContext,
  PermissionRule,
  PermissionSubject,
  ToolDecision,
  ToolInput,
} from "../permission/types.js";
import { Tool } from "./tool-base.js";

/**
 * A tool whose permission face is a policy from `src/permission` (its decision, its read-only
 * test and its suggested rules), so that a tool class states only what it is and what it runs.
 */
export abstract class PolicyTool extends Tool {
  protected abstract readonly permission: PermissionSubject;

  checkPermissions(input: ToolInput, ctx: PermissionContext): ToolDecision {
    return this.permission.checkPermissions(input, ctx);
  }

  override checkReadOnly(input: ToolInput, ctx: PermissionContext): boolean {
    return this.permission.checkReadOnly(input, ctx);
  }

  override generateSuggestions(input: ToolInput, ctx: PermissionContext): PermissionRule[] {
    return this.permission.generateSuggestions(input, ctx);
  }
}
