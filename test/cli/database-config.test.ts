/** DATABASE_URL and TOOLSHED_SECRET_KEY: parsed with errors that name the field and the fix, never the secret. */
import { expect, it } from "vitest";
import { startService } from "../../src/cli/compose.js";
import { requireSharedKey, SHARED_KEY_REQUIRED } from "../../src/cli/database.js";
import { loadConfig } from "../../src/config.js";

const errorOf = (env: Record<string, string>) => {
  try {
    loadConfig(env);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error("loadConfig accepted it");
};

it("accepts a postgres URL and treats an empty one as unset", () => {
  const url = "postgres://toolshed:pw@127.0.0.1:54329/toolshed";
  expect(loadConfig({ DATABASE_URL: url }).DATABASE_URL).toBe(url);
  expect(loadConfig({ DATABASE_URL: "postgresql://h/db" }).DATABASE_URL).toBe("postgresql://h/db");
  expect(loadConfig({ DATABASE_URL: "" }).DATABASE_URL).toBeUndefined();
  expect(loadConfig({}).DATABASE_URL).toBeUndefined();
});

it("refuses other URLs, saying which field and how to fix it, without echoing the password", () => {
  const scheme = errorOf({ DATABASE_URL: "mysql://root:hunter2secret@db/app" });
  expect(scheme).toMatch(/^invalid configuration:\n {2}DATABASE_URL: must start with postgres:\/\//);
  expect(scheme).toContain("postgres://USER:PASSWORD@HOST:PORT/DATABASE");
  expect(scheme).not.toContain("hunter2secret");
  const noDb = errorOf({ DATABASE_URL: "postgres://u:hunter2secret@127.0.0.1:5432" });
  expect(noDb).toMatch(/DATABASE_URL: names no database/);
  expect(noDb).not.toContain("hunter2secret");
  expect(errorOf({ DATABASE_URL: "not a url" })).toMatch(/DATABASE_URL: must be a URL like postgres:\/\//);
});

it("takes the secret key from configuration as 32 bytes of base64", () => {
  const key = Buffer.alloc(32, 7).toString("base64");
  expect(loadConfig({ TOOLSHED_SECRET_KEY: key }).TOOLSHED_SECRET_KEY).toEqual(Buffer.alloc(32, 7));
  const short = errorOf({ TOOLSHED_SECRET_KEY: Buffer.alloc(16, 7).toString("base64") });
  expect(short).toMatch(/TOOLSHED_SECRET_KEY: must be 32 random bytes in base64/);
  expect(short).not.toContain(Buffer.alloc(16, 7).toString("base64"));
});

it("a server on a shared database refuses to start without the shared secret key, before opening anything", async () => {
  const config = loadConfig({
    DATABASE_URL: "postgres://u:hunter2secret@127.0.0.1:1/none",
    DATA_DIR: "/nonexistent",
  });
  const err = await startService(config, "api").then(
    () => undefined,
    (e: Error) => e,
  );
  expect(err?.message).toBe(SHARED_KEY_REQUIRED);
  expect(err?.message).not.toContain("hunter2secret");
  expect(() =>
    requireSharedKey({ DATABASE_URL: "postgres://h/db", TOOLSHED_SECRET_KEY: Buffer.alloc(32, 1) }),
  ).not.toThrow();
  expect(() => requireSharedKey({ DATABASE_URL: undefined, TOOLSHED_SECRET_KEY: undefined })).not.toThrow();
});
