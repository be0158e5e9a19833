/** The service's one clock: ISO-8601 UTC timestamps as stored in every row. */
export function nowIso(): string {
  return new Date().toISOString();
}
