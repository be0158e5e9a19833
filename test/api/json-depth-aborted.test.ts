/**
 * A JSON body read straight from Node's stream (json-depth.ts) whose client went away before the
 * read began (while authentication ran): the read must end at once, not wait for an `end` or an
 * `error` that were emitted already.
 */
import { Readable } from "node:stream";
import { Hono } from "hono";
import { expect, it } from "vitest";
import { jsonDepthLimit } from "../../src/api/json-depth.js";

it("a stream destroyed before the read is a 400 at once, never a request left hanging", async () => {
  const incoming = Object.assign(new Readable({ read() {} }), {
    headers: { "content-type": "application/json", "content-length": "100" },
  });
  incoming.on("error", () => {});
  incoming.push('{"a":');
  incoming.destroy(new Error("aborted"));
  await new Promise((r) => setImmediate(r));
  const app = new Hono();
  app.use("*", jsonDepthLimit(100, 1000));
  app.post("/", (c) => c.text("read"));
  app.onError((err, c) => c.text(err.message, 400));
  const res = Promise.resolve(
    app.request(
      "/",
      { method: "POST", headers: { "content-type": "application/json" }, body: "{}" },
      { incoming },
    ),
  );
  const settled = await Promise.race([
    res.then(async (r) => `${r.status} ${await r.text()}`),
    new Promise((r) => setTimeout(() => r("still pending"), 1000)),
  ]);
  expect(settled).toMatch(/^400 /);
});
