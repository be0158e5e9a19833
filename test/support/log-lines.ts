import { Writable } from "node:stream";

// biome-ignore lint/suspicious/noExplicitAny: log lines are free-form JSON
export type LogLine = Record<string, any>;

/** A sink for a test's logger (`createLogger(level, sink)`) and the JSON lines written to it. */
export function logLines(): { lines: LogLine[]; sink: Writable } {
  const lines: LogLine[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const text of String(chunk).split("\n")) if (text.trim()) lines.push(JSON.parse(text));
      done();
    },
  });
  return { lines, sink };
}
