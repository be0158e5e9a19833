/**
 * The `Skill` viewer (docs/toolkit.md#the-viewer-and-the-prompt-fragment): returns a visible skill's SKILL.md
 * body. Registered by the Toolkit while at least one skill is visible (basic or an active group).
 */
import { genericPolicy } from "../../permission/generic.js";
import type {
  PermissionContext,
  PermissionSubject,
  ToolDecision,
  ToolInput,
} from "../../permission/types.js";
import { textChunk } from "../response.js";
import type { ToolRunContext } from "../run-context.js";
import { type InputValidation, Tool, type ToolCallOutput, type ToolOptions } from "../tool-base.js";
import type { Skill, SkillSource } from "./skill.js";
import { parseSkillMd } from "./skill-md.js";

/** The viewer's model-facing name. */
export const SKILL_VIEWER_NAME = "Skill";

const DESCRIPTION =
  "Retrieve a skill within the conversation. When users asks you to perform tasks, check if any of the available skills match. Skills provide specialized capabilities and domain knowledge.";

/** The skills visible for a set of active groups, by name. */
export type VisibleSkills = (activeGroups: readonly string[]) => Map<string, Skill>;

/** The viewer; reads `skill.markdown`, else the SKILL.md from the skill's own source or the default one. */
export class SkillViewerTool extends Tool {
  readonly name = SKILL_VIEWER_NAME;
  readonly description = DESCRIPTION;
  readonly inputSchema = {
    type: "object" as const,
    properties: { skill: { type: "string", description: "The exact name of the skill to view. " } },
    required: ["skill"],
  };
  readonly isConcurrencySafe = true;
  readonly isReadOnly = true;
  override readonly isStateInjected = true;
  private readonly permission: PermissionSubject = genericPolicy(SKILL_VIEWER_NAME, {
    kind: "always_allow",
    readOnly: true,
  });

  constructor(
    private readonly visibleSkills: VisibleSkills,
    private readonly source?: SkillSource,
    opts: ToolOptions = {},
  ) {
    super(opts);
  }

  checkPermissions(input: ToolInput, ctx: PermissionContext): ToolDecision {
    return this.permission.checkPermissions(input, ctx);
  }

  override validateInput(input: ToolInput): InputValidation {
    if (input.skill === undefined) return { ok: false, message: "'skill' is a required property" };
    if (typeof input.skill !== "string") {
      return { ok: false, message: `${JSON.stringify(input.skill)} is not of type 'string'` };
    }
    return { ok: true, input };
  }

  override async call(input: ToolInput, ctx: ToolRunContext): Promise<ToolCallOutput> {
    const name = String(input.skill);
    const skill = this.visibleSkills(ctx.activeGroups ?? []).get(name);
    if (!skill) return textChunk(`SkillNotFoundError: Skill '${name}' not found.`, { state: "error" });
    if (skill.markdown !== undefined) return textChunk(skill.markdown);
    const source = skill.source ?? this.source;
    if (!source) throw new Error(`No SkillSource is configured to read the skill '${name}'.`);
    return textChunk(parseSkillMd(await source.readSkillMd(skill, ctx)).body);
  }
}
