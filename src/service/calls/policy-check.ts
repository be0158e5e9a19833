/** The pure policy check (src/permission) behind the admin role; a bad request is a 400. */
import { ValidationError } from "../../errors.js";
import { type PolicyCheckAnswer, runPolicyCheck } from "../../permission/policy-check.js";
import type { PermissionSubject } from "../../permission/types.js";
import type { ServiceDeps } from "../ports.js";
import { type Principal, requireRole } from "../tenancy/principal.js";

export function policyCheck(
  deps: Pick<ServiceDeps, "tools">,
  p: Principal,
  body: unknown,
): PolicyCheckAnswer {
  requireRole(p, ["tenant_admin"]);
  const subjects = new Map<string, PermissionSubject>(deps.tools.list().map((t) => [t.name, t]));
  const answer = runPolicyCheck(body, subjects);
  if ("error" in answer) throw new ValidationError(answer.error.message, answer.error.details);
  return answer;
}
