/**
 * How many subschemas one validation may visit, `$ref`s expanded: a tenant's schema of 30
 * definitions, each `allOf` two `$ref`s to the one before, is 2^30 checks per call on the API's
 * one thread (attack23a). Cycles count once (recursive schemas descend into the data, which is
 * bounded); counting stops at the bound.
 */

type Node = Record<string, unknown>;

/** The expanded size of `schema`, or `limit + 1` once it passes `limit`. */
export function expandedSchemaSize(schema: Node, limit: number): number {
  const ids = new Map<string, unknown>();
  collectIds(schema, ids, new Set());
  const sizes = new Map<unknown, number>();
  const size = (node: unknown): number => {
    if (typeof node !== "object" || node === null) return 0;
    const known = sizes.get(node);
    if (known !== undefined) return known;
    sizes.set(node, 1); // in progress: a cycle counts once
    let total = 1;
    const children = Array.isArray(node) ? node : Object.values(node);
    for (const child of children) {
      total += size(child);
      if (total > limit) break;
    }
    const ref = Array.isArray(node) ? undefined : (node as Node).$ref;
    if (typeof ref === "string" && total <= limit) total += size(resolve(schema, ids, ref));
    total = Math.min(total, limit + 1);
    sizes.set(node, total);
    return total;
  };
  return size(schema);
}

/** A local `$ref`: a JSON pointer (`#/$defs/a`), an anchor or an `$id`; anything else is absent. */
function resolve(root: Node, ids: Map<string, unknown>, ref: string): unknown {
  if (ids.has(ref)) return ids.get(ref);
  if (!ref.startsWith("#")) return undefined;
  if (ids.has(ref.slice(1))) return ids.get(ref.slice(1));
  let node: unknown = root;
  for (const raw of ref.slice(1).split("/").slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    node = typeof node === "object" && node !== null ? (node as Node)[key] : undefined;
  }
  return node;
}

function collectIds(node: unknown, ids: Map<string, unknown>, seen: Set<unknown>): void {
  if (typeof node !== "object" || node === null || seen.has(node)) return;
  seen.add(node);
  const n = node as Node;
  for (const key of ["$id", "id", "$anchor", "$dynamicAnchor"]) {
    if (typeof n[key] === "string") ids.set((n[key] as string).replace(/^#/, ""), node);
  }
  for (const child of Array.isArray(node) ? node : Object.values(n)) collectIds(child, ids, seen);
}
