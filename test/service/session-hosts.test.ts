/**
 * Session placement on real SQLite: a live host's pin stands, a dead host's session is taken over
 * with `workspaceLost`, two placements racing agree, and releasing a lost host unpins its
 * sessions and hands back their pending calls in queue order.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { afterEach, beforeEach, expect, it } from "vitest";
import type { Db } from "../../src/db/open.js";
import { jobs, sessions, tenants } from "../../src/db/schema.js";
import {
  hostOfJob,
  hostOfSession,
  placeSession,
  releaseLostHost,
  sessionsOfHost,
} from "../../src/service/sessions/session-hosts.js";
import { openTestDb } from "../support/test-db.js";

let dir: string;
let db: Db;
let close: () => void;
const now = new Date().toISOString();

function seedSession(id: string, hostId: string | null = null): void {
  db.insert(tenants).values({ id: "ten_a", name: "a", createdAt: now }).onConflictDoNothing().run();
  db.insert(sessions)
    .values({
      id,
      tenantId: "ten_a",
      mode: "default",
      cwd: "/workspace",
      home: "/home/agent",
      workingDirectories: [],
      rules: { allow: [], deny: [], ask: [] },
      status: "active",
      hostId,
      createdAt: now,
      lastUsedAt: now,
    })
    .run();
}

function seedJob(id: string, sessionId: string, seq: number, status: "queued" | "running" | "succeeded") {
  db.insert(jobs)
    .values({
      id,
      tenantId: "ten_a",
      sessionId,
      tool: "Bash",
      input: { command: "true" },
      status,
      decision: {
        behavior: "allow",
        message: "",
        reason: null,
        mode: "default",
        bypassImmune: false,
        suggestions: [],
        decidedBy: "rule",
      },
      seq,
      concurrencySafe: false,
      createdAt: now,
    })
    .run();
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "tst-hosts-"));
  ({ db, close } = openTestDb(join(dir, "t.db")));
});
afterEach(() => {
  close();
  rmSync(dir, { recursive: true, force: true });
});

const lost = (id: string) => db.select().from(sessions).where(eq(sessions.id, id)).get()?.workspaceLost;

it("pins an unplaced session to the puller; a live host's pin stands", () => {
  seedSession("ses_new");
  expect(placeSession(db, "ses_new", "h-a", { hostId: null, alive: false })).toBe("h-a");
  expect(placeSession(db, "ses_new", "h-b", { hostId: "h-a", alive: true })).toBe("h-a");
  expect(hostOfSession(db, "ses_new")).toBe("h-a");
  expect(lost("ses_new")).toBe(false);
});

it("takes over a dead host's session with workspaceLost; a racing placement keeps the winner", () => {
  seedSession("ses_old", "h-dead");
  expect(placeSession(db, "ses_old", "h-b", { hostId: "h-dead", alive: false })).toBe("h-b");
  expect(lost("ses_old")).toBe(true);
  // Another worker read the old host before the first placement landed: the first one stands.
  expect(placeSession(db, "ses_old", "h-c", { hostId: "h-dead", alive: false })).toBe("h-b");
  expect(placeSession(db, "ses_gone", "h-c", { hostId: null, alive: false })).toBeNull();
});

it("releasing a lost host unpins its sessions and returns their pending calls in order", () => {
  seedSession("ses_1", "h-dead");
  seedSession("ses_2", "h-live");
  seedJob("job_3", "ses_1", 3, "queued");
  seedJob("job_1", "ses_1", 1, "succeeded");
  seedJob("job_2", "ses_1", 2, "running");
  seedJob("job_9", "ses_2", 1, "queued");
  expect(hostOfJob(db, "job_2")).toBe("h-dead");
  expect(releaseLostHost(db, "h-dead")).toEqual(["job_2", "job_3"]);
  expect(hostOfSession(db, "ses_1")).toBeNull();
  expect(lost("ses_1")).toBe(true);
  expect(hostOfSession(db, "ses_2")).toBe("h-live");
  expect(lost("ses_2")).toBe(false);
  expect(releaseLostHost(db, "h-dead")).toEqual([]);
  expect([...sessionsOfHost(db, "h-live")].sort()).toEqual(["ses_1", "ses_2"]);
  expect([...sessionsOfHost(db, "h-other")]).toEqual(["ses_1"]);
});
