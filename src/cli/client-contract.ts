/**
 * The contract both clients share, derived from the OpenAPI document so it is declared once (the
 * routes): the error codes, the statuses that promise nothing was done (they carry `Retry-After`),
 * the pending-transfer answer never to send again, and per operation whether a failed connection
 * may be retried. `npm run client:build` writes it for TypeScript and Python; a test compares.
 */
import { writeFileSync } from "node:fs";
import { buildOpenApiDocument } from "./openapi.js";

type Doc = ReturnType<typeof buildOpenApiDocument>;
type Response = { description?: string; headers?: Record<string, unknown> };
type Operation = {
  operationId?: string;
  responses?: Record<string, Response>;
  requestBody?: unknown;
  "x-read-only"?: boolean;
};

/** How a failed connection is treated: sent again, sent again only with an idempotency key, never. */
export type NetworkRetry = "always" | "with_idempotency_key" | "never";

export interface ClientContract {
  errorCodes: string[];
  retryAfterStatuses: number[];
  /** The status and code of an answer saying a job was made and will run: never sent again. */
  pending: { status: number; code: string };
  networkRetry: Record<string, NetworkRetry>;
  /** The `JobStatus` enum (TypeScript has it from the generated types; Python takes it from here). */
  jobStatuses: string[];
}

/** HTTP's idempotent methods (RFC 9110 §9.2.2): sending one again cannot do a thing twice. */
export const IDEMPOTENT_METHODS = ["GET", "HEAD", "PUT", "DELETE"];
const PENDING_CODE = "TRANSFER_PENDING";

function operations(doc: Doc): { method: string; op: Operation }[] {
  return Object.values(doc.paths ?? {}).flatMap((item) =>
    Object.entries(item ?? {}).map(([method, op]) => ({ method: method.toUpperCase(), op: op as Operation })),
  );
}

/** The `CODE:` that starts each error response's description (`problem()` in src/api/schemas.ts). */
function codesOf(r: Response): string[] {
  return [...(r.description ?? "").matchAll(/(?:^|; )([A-Z][A-Z_]+):/g)].map((m) => m[1]!);
}

function takesIdempotencyKey(doc: Doc, op: Operation): boolean {
  const text = JSON.stringify(op.requestBody ?? {});
  const ref = /"#\/components\/schemas\/([^"]+)"/.exec(text)?.[1];
  const schema = ref ? doc.components?.schemas?.[ref] : undefined;
  return (text + JSON.stringify(schema ?? {})).includes('"idempotencyKey"');
}

export function clientContract(doc: Doc = buildOpenApiDocument()): ClientContract {
  const all = operations(doc);
  const responses = all.flatMap(({ op }) => Object.entries(op.responses ?? {}));
  const errorCodes = new Set(responses.filter(([s]) => /^[45]/.test(s)).flatMap(([, r]) => codesOf(r)));
  const retryAfter = new Set(
    responses.filter(([s, r]) => /^[45]/.test(s) && r.headers?.["Retry-After"]).map(([s]) => Number(s)),
  );
  const pendingStatus = responses.find(([, r]) => codesOf(r).includes(PENDING_CODE))?.[0];
  if (!pendingStatus) throw new Error(`no response documents ${PENDING_CODE}`);
  const networkRetry: Record<string, NetworkRetry> = {};
  for (const { method, op } of all) {
    // An operation that may answer the pending code makes a job as it is received: a resend would make another.
    const makesJob =
      Object.entries(op.responses ?? {}).some(([s]) => s === pendingStatus) && method !== "GET";
    // A POST the route marks read-only (readOnlyPost in src/api/schemas.ts) does nothing twice either.
    const safe = (IDEMPOTENT_METHODS.includes(method) && !makesJob) || op["x-read-only"] === true;
    networkRetry[op.operationId!] = safe
      ? "always"
      : takesIdempotencyKey(doc, op)
        ? "with_idempotency_key"
        : "never";
  }
  return {
    errorCodes: [...errorCodes].sort(),
    retryAfterStatuses: [...retryAfter].sort(),
    pending: { status: Number(pendingStatus), code: PENDING_CODE },
    networkRetry: Object.fromEntries(Object.entries(networkRetry).sort(([a], [b]) => a.localeCompare(b))),
    jobStatuses: (
      (doc.components?.schemas?.JobStatus as { enum?: string[] } | undefined)?.enum ?? []
    ).slice(),
  };
}

const HEADER =
  "Generated from the OpenAPI document by `npm run client:build` (src/cli/client-contract.ts): do not edit.";

export function renderPython(c: ClientContract): string {
  const set = (xs: (string | number)[]) => `frozenset({${xs.map((x) => JSON.stringify(x)).join(", ")}})`;
  const rules = Object.entries(c.networkRetry).map(
    ([op, rule]) => `    ${JSON.stringify(op)}: ${JSON.stringify(rule)},`,
  );
  return [
    `# ${HEADER}`,
    `"""The API's error codes and retry rules, as its OpenAPI document declares them (shared with the TypeScript client)."""`,
    "",
    "from typing import Dict, FrozenSet, Literal",
    "",
    "# A job's status (the `JobStatus` schema).",
    `JobStatus = Literal[${c.jobStatuses.map((x) => JSON.stringify(x)).join(", ")}]`,
    "# Every code an error response of the API documents.",
    `ERROR_CODES: FrozenSet[str] = ${set(c.errorCodes)}`,
    "# Answers that promise nothing was done (each documents `Retry-After`): sent again on every method.",
    `RETRY_AFTER_STATUSES: FrozenSet[int] = ${set(c.retryAfterStatuses)}`,
    "# A job was made and will run once: never sent again (follow the job named in details[0].message).",
    `PENDING_STATUS = ${c.pending.status}`,
    `PENDING_CODE = ${JSON.stringify(c.pending.code)}`,
    "# HTTP's idempotent methods (RFC 9110).",
    `IDEMPOTENT_METHODS: FrozenSet[str] = ${set(IDEMPOTENT_METHODS)}`,
    "# Per operationId: whether a failed connection is retried (always, with_idempotency_key, never).",
    "NETWORK_RETRY: Dict[str, str] = {",
    ...rules,
    "}",
    "",
  ].join("\n");
}

export function renderTypeScript(c: ClientContract): string {
  return [
    `// ${HEADER}`,
    "/** The API's error codes and retry rules, as its OpenAPI document declares them (shared with the Python client). */",
    `export const ERROR_CODES: readonly string[] = ${JSON.stringify(c.errorCodes)};`,
    "/** Answers that promise nothing was done (each documents `Retry-After`): sent again on every method. */",
    `export const RETRY_AFTER_STATUSES: readonly number[] = ${JSON.stringify(c.retryAfterStatuses)};`,
    "/** A job was made and will run once: never sent again. */",
    `export const PENDING = ${JSON.stringify(c.pending)} as const;`,
    "/** HTTP's idempotent methods (RFC 9110). */",
    `export const IDEMPOTENT_METHODS: readonly string[] = ${JSON.stringify(IDEMPOTENT_METHODS)};`,
    "/** Per operationId: whether a failed connection is retried. */",
    `export const NETWORK_RETRY: Readonly<Record<string, "always" | "with_idempotency_key" | "never">> = ${JSON.stringify(c.networkRetry, null, 2)};`,
    "",
  ].join("\n");
}

export const PYTHON_CONTRACT = "clients/python/toolshed_client/_contract.py";
export const TYPESCRIPT_CONTRACT = "clients/typescript/src/generated/contract.ts";

/** `toolshed client-contract`: writes both files (paths from the repository root). */
export function runClientContractCli(): number {
  const c = clientContract();
  writeFileSync(PYTHON_CONTRACT, renderPython(c));
  writeFileSync(TYPESCRIPT_CONTRACT, renderTypeScript(c));
  return 0;
}
