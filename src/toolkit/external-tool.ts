/**
 * External tools (docs/toolkit.md#external-tools): declared by a tenant with a name,
 * description and JSON schema, never executed by Toolshed. The service parks their calls in
 * `awaiting_external` until the client posts the result.
 */
import { type ExternalToolDef, TOOL_NAME_PATTERN } from "../contracts/tool-config.js";
import { genericPolicy } from "../permission/generic.js";
import type { PermissionSubject } from "../permission/types.js";
import { PolicyTool } from "./policy-tool.js";
import { assertInputSchema, type JsonSchemaObject, type ToolOptions } from "./tool-base.js";
import { ToolkitConfigError } from "./toolkit-errors.js";

/** A tool whose execution is delegated to the client; `call` throws (the base's message). */
export class ExternalTool extends PolicyTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonSchemaObject;
  readonly isReadOnly: boolean;
  /** Side effects are unknown, so only read-only external tools may overlap. */
  readonly isConcurrencySafe: boolean;
  override readonly isExternalTool = true;
  protected readonly permission: PermissionSubject;

  constructor(def: ExternalToolDef, opts: ToolOptions = {}) {
    super(opts);
    if (!TOOL_NAME_PATTERN.test(def.name)) {
      throw new ToolkitConfigError(
        `External tool name '${def.name}' must match ${TOOL_NAME_PATTERN.source}.`,
      );
    }
    this.name = def.name;
    this.description = def.description;
    this.inputSchema = structuredClone(def.inputSchema) as JsonSchemaObject;
    try {
      assertInputSchema(this);
    } catch (error) {
      throw new ToolkitConfigError((error as Error).message);
    }
    this.isReadOnly = def.readOnly ?? false;
    this.isConcurrencySafe = this.isReadOnly;
    this.permission = genericPolicy(def.name, { kind: "external", readOnly: this.isReadOnly });
  }
}

/** Builds the tool for one definition; throws ToolkitConfigError on a bad name or schema. */
export function externalTool(def: ExternalToolDef, opts: ToolOptions = {}): ExternalTool {
  return new ExternalTool(def, opts);
}
