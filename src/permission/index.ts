/**
 * The public surface of the permission package: vocabulary, rules, the engine, path policy and
 * the built-in tools' permission faces.
 */
export * from "./builtins.js";
export { checkPermission } from "./engine.js";
export { type CompiledFileGlob, compileFileGlob, matchFileGlob } from "./file-glob.js";
export { type GenericPermissionKind, type GenericPolicyOptions, genericPolicy } from "./generic.js";
export * from "./paths.js";
export * from "./policy-check.js";
export { readPolicy } from "./read-policy.js";
export * from "./rules.js";
export { globPolicy, grepPolicy } from "./search-policy.js";
export * from "./types.js";
export { editPolicy, type FileEditPolicyOptions, writePolicy } from "./write-policy.js";
