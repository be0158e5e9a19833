/**
 * A run's events go out in as few writes as their order allows: everything with the end when the
 * run ends within the grace, else `running` first, chunks of one turn together, then the end.
 * Every event once, in order.
 */
import { expect, it, vi } from "vitest";
import type { JobRow } from "../../../src/db/rows.js";
import { createLogger } from "../../../src/log.js";
import type { JobEvents, JobEventType } from "../../../src/service/ports.js";
import { RunEvents } from "../../../src/service/worker/run-events.js";
import { jobRow } from "../../support/rows.js";

type Write = { kind: "status" | "append"; status?: string; events: { type: JobEventType; data: unknown }[] };

function recorder() {
  const writes: Write[] = [];
  const events = {
    publishStatus: async (_job: string, _tenant: string, status: string, evs: Write["events"]) => {
      writes.push({ kind: "status", status, events: evs });
    },
    append: async (_job: string, ...evs: Write["events"]) => {
      writes.push({ kind: "append", events: evs });
    },
  } as unknown as JobEvents;
  return { writes, deps: { events, logger: createLogger("silent") } };
}

const running = (): JobRow =>
  jobRow({ id: "job_1", tenantId: "ten_1", sessionId: "ses_1", status: "running" });
const ended = (row: JobRow): JobRow => ({
  ...row,
  status: "succeeded",
  result: { content: [{ type: "text", text: "hi" }], state: "success" },
});
const summary = (w: Write) => [
  w.kind,
  w.status,
  ...w.events.map((e) => (e.type === "status" ? (e.data as { status: string }).status : e.type)),
];

it("a run that ends within the grace sends all its events with its end, in one write", async () => {
  const { writes, deps } = recorder();
  const row = running();
  const ev = new RunEvents(deps, row, ["queued"]);
  ev.chunk({ content: "h" });
  ev.chunk({ content: "i" });
  await ev.end(ended(row));
  expect(writes.map(summary)).toEqual([
    ["status", "succeeded", "queued", "running", "chunk", "chunk", "succeeded", "result"],
  ]);
});

it("a longer run sends `running` after the grace, a turn's chunks together, then its end", async () => {
  const { writes, deps } = recorder();
  const row = running();
  const ev = new RunEvents(deps, row, []);
  await vi.waitFor(() => expect(writes).toHaveLength(1));
  ev.chunk({ content: "a" });
  ev.chunk({ content: "b" });
  await vi.waitFor(() => expect(writes).toHaveLength(2));
  ev.chunk({ content: "c" });
  await ev.end(ended(row));
  expect(writes.map(summary)).toEqual([
    ["status", "running", "running"],
    ["append", undefined, "chunk", "chunk"],
    ["status", "succeeded", "chunk", "succeeded", "result"],
  ]);
});

it("a run that ends without storing its end sends what is pending, `running` first", async () => {
  const { writes, deps } = recorder();
  const ev = new RunEvents(deps, running(), ["queued"]);
  ev.chunk({ content: "x" });
  await ev.end();
  expect(writes.map(summary)).toEqual([["status", "running", "queued", "running", "chunk"]]);
  await new Promise((r) => setTimeout(r, 20));
  expect(writes).toHaveLength(1);
});

it("a warm command of 20 ms (a Bash call under load) still sends all its events in one write", async () => {
  vi.useFakeTimers();
  try {
    const { writes, deps } = recorder();
    const row = running();
    const ev = new RunEvents(deps, row, ["queued"]);
    await vi.advanceTimersByTimeAsync(10);
    ev.chunk({ content: "hi" });
    await vi.advanceTimersByTimeAsync(10);
    await ev.end(ended(row));
    expect(writes.map(summary)).toEqual([
      ["status", "succeeded", "queued", "running", "chunk", "succeeded", "result"],
    ]);
  } finally {
    vi.useRealTimers();
  }
});
