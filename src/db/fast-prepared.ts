/**
 * Drizzle's prepared statements still pay, on every run, for its generic plumbing: each
 * parameter is told apart with `is()` prototype walks (fillPlaceholders), and each result row is
 * rebuilt by walking every field's path with more of them (mapResultRow). On a call's wide rows
 * (a session, a job) that was about half of a lookup's CPU here (a session by id: ~8.5 µs through
 * drizzle, ~4.6 µs compiled; /tmp/tput31/micro2.ts in NOTES-tput31.md). `fastPrepared` works
 * both out once per statement: the same SQLite statement, the same column encoders and
 * decoders, in plain loops. A statement of a shape it does not know (nested or joined fields, a
 * custom row mapper, a query logger) keeps drizzle's own path. SQLite only (better-sqlite3).
 */
import { Column, is, NoopLogger, Param, Placeholder, SQL, Subquery } from "drizzle-orm";

interface Decoder {
  mapFromDriverValue(value: unknown): unknown;
}
interface Encoder {
  mapToDriverValue(value: unknown): unknown;
}
/** better-sqlite3's statement, as a drizzle prepared query holds it. */
interface Stmt {
  reader: boolean;
  raw(on: boolean): Stmt;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  run(...params: unknown[]): unknown;
}
/** The parts of drizzle's BetterSQLitePreparedQuery this reads (set by its constructor). */
interface DrizzlePrepared {
  stmt: Stmt;
  query: { params: unknown[] };
  fields?: { path: string[]; field: unknown }[];
  customResultMapper?: unknown;
  logger: unknown;
}

/**
 * One parameter: a placeholder's name (with its column's encoder, if any), or a fixed value. One
 * shape for all three, so that the loop over them stays monomorphic.
 */
interface ParamPlan {
  name: string | undefined;
  encoder: Encoder | undefined;
  value: unknown;
}

function paramPlan(p: unknown): ParamPlan {
  if (is(p, Placeholder)) return { name: p.name, encoder: undefined, value: undefined };
  if (is(p, Param) && is(p.value, Placeholder))
    return { name: p.value.name, encoder: p.encoder as Encoder, value: undefined };
  return { name: undefined, encoder: undefined, value: p };
}

/** The decoder drizzle's mapResultRow picks for a field (a column, SQL, a subquery or an alias). */
function decoderOf(field: unknown): Decoder {
  // `decoder` is drizzle-internal (SQL's mapWith sets it).
  const of = (s: unknown) => (s as { decoder: Decoder }).decoder;
  if (is(field, Column)) return field;
  if (is(field, SQL)) return of(field);
  if (is(field, Subquery)) return of((field as unknown as { _: { sql: SQL } })._.sql);
  return of((field as SQL.Aliased).sql);
}

/**
 * `prepared` with its get, all, run and values compiled (see the file's comment); the rest of
 * the object is drizzle's (its prototype).
 */
export function fastPrepared<T extends object>(prepared: T): T {
  const q = prepared as unknown as DrizzlePrepared;
  const fields = q.fields;
  if (q.customResultMapper || !is(q.logger, NoopLogger) || fields?.some((f) => f.path.length !== 1))
    return prepared;
  const params = q.query.params.map(paramPlan);
  const keys = fields?.map((f) => f.path[0] as string);
  const stmt = q.stmt;
  const args = (values: Record<string, unknown> = {}): unknown[] => {
    const out = new Array<unknown>(params.length);
    for (let i = 0; i < params.length; i++) {
      const p = params[i]!;
      if (p.name === undefined) out[i] = p.value;
      else {
        if (!(p.name in values)) throw new Error(`No value for placeholder "${p.name}" was provided`);
        const v = values[p.name];
        out[i] = p.encoder ? p.encoder.mapToDriverValue(v) : v;
      }
    }
    return out;
  };
  // A column's own mapFromDriverValue that returns the value as it is (text, plain integers) is
  // not called at all.
  const identity = Column.prototype.mapFromDriverValue;
  const decoders = fields?.map((f) => {
    const d = decoderOf(f.field);
    return d.mapFromDriverValue === identity ? undefined : d;
  });
  const row = (raw: unknown[]): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (let i = 0; i < raw.length; i++) {
      const v = raw[i];
      const d = decoders![i];
      out[keys![i]!] = v === null || d === undefined ? v : d.mapFromDriverValue(v);
    }
    return out;
  };
  // The statement may be shared (open.ts caches statements by SQL text): set its mode each run.
  // The parameters go as one array (better-sqlite3 binds its items in order): no spread per run.
  const plain = () => (stmt.reader ? stmt.raw(false) : stmt);
  const fast = {
    run: (values?: Record<string, unknown>) => stmt.run(args(values)),
    values: (values?: Record<string, unknown>) => stmt.raw(true).all(args(values)),
    get: (values?: Record<string, unknown>) => {
      if (!keys) return plain().get(args(values));
      const raw = stmt.raw(true).get(args(values)) as unknown[] | undefined;
      return raw ? row(raw) : undefined;
    },
    all: (values?: Record<string, unknown>) => {
      if (!keys) return plain().all(args(values));
      return (stmt.raw(true).all(args(values)) as unknown[][]).map(row);
    },
  };
  return Object.assign(Object.create(prepared) as T, fast);
}
