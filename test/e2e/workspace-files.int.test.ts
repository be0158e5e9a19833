/**
 * Workspace file transfers through the real API, queue, worker and sandbox: binary-safe upload
 * and download, tar export and import, the session's Write/Read rules (403 POLICY_DENIED), the
 * size limit, and extraction that never leaves /workspace (absolute paths, `..`, links, devices,
 * FIFOs, and symbolic links already in the workspace).
 */
import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readTar } from "../../src/toolkit/skills/tar-reader.js";
import { identitiesOf } from "../sandbox/harness.js";
import { type Harness, seedTenant, startHarness } from "../support/harness.js";
import { jobText, runTool } from "../support/tool-calls.js";
import { makeTar, type TarMember } from "../toolkit/skills/make-tar.js";

const MAX = 256 * 1024;
let h: Harness;
let t: Awaited<ReturnType<typeof seedTenant>>;
let sid: string;

const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");

async function raw(method: string, path: string, body?: Buffer, key = t.agentKey, type?: string) {
  const res = await fetch(h.url + path, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body ? { "content-type": type ?? "application/octet-stream" } : {}),
    },
    body: body ? new Uint8Array(body) : undefined,
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  // biome-ignore lint/suspicious/noExplicitAny: tests assert on JSON bodies freely
  let json: any;
  try {
    json = JSON.parse(bytes.toString("utf8"));
  } catch {}
  return {
    status: res.status,
    bytes,
    json,
    type: res.headers.get("content-type") ?? "",
    disposition: res.headers.get("content-disposition") ?? "",
  };
}

const put = (path: string, body: Buffer) =>
  raw("PUT", `/v1/sessions/${sid}/files?path=${encodeURIComponent(path)}`, body);
const get = (path: string) => raw("GET", `/v1/sessions/${sid}/files?path=${encodeURIComponent(path)}`);
const importTar = (members: TarMember[]) =>
  raw("PUT", `/v1/sessions/${sid}/workspace.tar`, makeTar(members), t.agentKey, "application/x-tar");

async function bash(command: string): Promise<string> {
  const job = await runTool(h.call, t.agentKey, sid, "Bash", { command });
  expect(job.status, jobText(job)).toBe("succeeded");
  return jobText(job);
}

beforeAll(async () => {
  h = await startHarness({ env: { FILE_TRANSFER_MAX_BYTES: String(MAX) } });
  t = await seedTenant(h.call);
  const rules = {
    allow: ["Bash", "Read", "Write(/workspace/**)"],
    deny: ["Read(/workspace/secret/**)", "Write(/workspace/locked/**)"],
    ask: [],
  };
  expect(
    (await h.call("PUT", `/v1/tenants/${t.tenantId}/rules`, { key: t.adminKey, body: rules })).status,
  ).toBe(200);
  sid = (await h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} })).body.id;
});

afterAll(async () => {
  await h?.stop();
});

describe("one file", () => {
  it("an agent's HTML file comes down as an attachment of raw bytes, under a name it cannot break out of", async () => {
    // Opened in an admin's browser (same origin as the console's cookie), it must never render.
    await bash(`printf '<script>alert(document.cookie)</script>' > 'pwn";x=1;.html'`);
    const down = await get('/workspace/pwn";x=1;.html');
    expect(down.status).toBe(200);
    expect(down.type).toBe("application/octet-stream");
    expect(down.disposition).toBe('attachment; filename="pwn__x_1_.html"');
  });

  it("uploads and downloads every byte value unchanged, owned by the agent", async () => {
    const data = Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, i) => i)), randomBytes(100_000)]);
    const up = await put("bin/data.bin", data);
    expect(up.status, up.bytes.toString()).toBe(200);
    expect(up.json).toEqual({ path: "/workspace/bin/data.bin", bytes: data.length, sha256: sha(data) });
    const down = await get("/workspace/bin/data.bin");
    expect(down.status).toBe(200);
    expect(down.type).toBe("application/octet-stream");
    expect(down.bytes.equals(data)).toBe(true);
    expect(await bash("sha256sum bin/data.bin | cut -d' ' -f1; stat -c %u bin/data.bin")).toBe(
      `${sha(data)}\n${(await identitiesOf(sid)).agent}\n`,
    );
  });

  it("is decided by the Write and Read rules (403 POLICY_DENIED naming the path and rule)", async () => {
    const denied = await put("locked/x", Buffer.from("x"));
    expect(denied.status).toBe(403);
    expect(denied.json.error.code).toBe("POLICY_DENIED");
    expect(denied.json.error.details[0]).toMatchObject({ path: "path" });
    expect(denied.json.error.details[0].message).toContain("/workspace/locked/**");
    await bash("mkdir -p secret && echo hidden > secret/key.txt");
    const secret = await get("secret/key.txt");
    expect(secret.status).toBe(403);
    expect(secret.json.error.code).toBe("POLICY_DENIED");
    expect(await bash("ls locked 2>&1 || true")).toContain("No such file");
  });

  it("refuses paths outside /workspace and a missing file", async () => {
    for (const p of ["/etc/passwd", "../etc/passwd", "/workspace", ""]) {
      const res = await put(p, Buffer.from("x"));
      expect(res.status, p).toBe(400);
      expect(res.json.error.details[0].path).toBe("path");
    }
    const missing = await get("nope.bin");
    expect(missing.status).toBe(404);
  });

  it("never writes or reads through a symbolic link out of the workspace", async () => {
    await bash("ln -sfn /etc etclink && ln -sf /tmp/target tlink");
    const through = await put("etclink/evil", Buffer.from("x"));
    expect(through.status).toBe(400);
    expect(through.json.error.message).toContain("outside /workspace");
    const onto = await put("tlink", Buffer.from("x"));
    expect(onto.status).toBe(400);
    expect(onto.json.error.message).toContain("symbolic link");
    const out = await get("etclink/hostname");
    expect(out.status).toBe(400);
    expect(await bash("ls /etc/evil /tmp/target 2>&1 | wc -l; ls /etc/evil 2>&1 || true")).toContain(
      "No such file",
    );
  });

  it("another tenant's key finds no such session", async () => {
    const other = await seedTenant(h.call, "other");
    const res = await raw("GET", `/v1/sessions/${sid}/files?path=bin/data.bin`, undefined, other.agentKey);
    expect(res.status).toBe(404);
  });
});

describe("workspace tar", () => {
  it("exports the workspace without what the Read rules refuse", async () => {
    await bash("mkdir -p odd && touch -- odd/-C 'odd/--checkpoint=1' $'odd/new\\nline'");
    const res = await raw("GET", `/v1/sessions/${sid}/workspace.tar`);
    expect(res.status, res.bytes.toString().slice(0, 300)).toBe(200);
    expect(res.type).toBe("application/x-tar");
    const entries = readTar(res.bytes);
    const names = entries.map((e) => e.path.replace(/\/$/, ""));
    expect(names).toContain("bin/data.bin");
    expect(names).toContain("etclink");
    expect(names).toEqual(expect.arrayContaining(["odd/-C", "odd/--checkpoint=1", "odd/new\nline"]));
    expect(names.some((n) => n.startsWith("secret/"))).toBe(false);
    const data = entries.find((e) => e.path === "bin/data.bin")!;
    expect(sha(data.data)).toBe((await bash("sha256sum bin/data.bin | cut -d' ' -f1")).trim());
    expect(entries.find((e) => e.path === "etclink")?.kind).toBe("link");
  });

  it("refuses an archive past the limit once the limit is reached, a sparse file of 100 GiB too", async () => {
    // No blocks in the quota, 100 GiB to read: tar ran to the export's 5-minute timeout (a 504).
    await bash("truncate -s 100G sparse.bin");
    try {
      const res = await raw("GET", `/v1/sessions/${sid}/workspace.tar`);
      expect(res.status, res.bytes.toString().slice(0, 300)).toBe(413);
      expect(res.json.error.code).toBe("PAYLOAD_TOO_LARGE");
    } finally {
      await bash("rm sparse.bin");
    }
  }, 120_000);

  it("imports files and directories with their executable bit, as the agent", async () => {
    const res = await importTar([
      { path: "./", type: "5", mode: 0o755 },
      { path: "imp/", type: "5", mode: 0o755 },
      { path: "imp/empty/", type: "5", mode: 0o755 },
      { path: "imp/run.sh", content: "#!/bin/sh\necho ran\n", mode: 0o755 },
      { path: "imp/blob", content: Buffer.from([0, 255, 1, 254]) },
    ]);
    expect(res.status, res.bytes.toString()).toBe(200);
    expect(res.json).toMatchObject({ entries: 4 });
    expect(
      await bash("./imp/run.sh; test -d imp/empty && echo dir; od -An -tu1 imp/blob; stat -c %u imp/blob"),
    ).toBe(`ran\ndir\n   0 255   1 254\n${(await identitiesOf(sid)).agent}\n`);
  });

  it.each([
    ["an absolute path", { path: "/etc/evil", content: "x" }],
    ["a '..' path", { path: "imp/../../etc/evil", content: "x" }],
    ["a symbolic link", { path: "imp/link", type: "2", linkName: "/etc/passwd" }],
    ["a hard link", { path: "imp/hard", type: "1", linkName: "/etc/passwd" }],
    ["a character device", { path: "imp/dev", type: "3" }],
    ["a FIFO", { path: "imp/fifo", type: "6" }],
  ] as [string, TarMember][])("refuses %s and extracts nothing", async (_what, bad) => {
    const res = await importTar([{ path: "imp/first.txt", content: "1" }, bad]);
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe("VALIDATION");
    expect(res.json.error.details[0].path).toBe("entries[1]");
    expect(await bash("ls imp/first.txt /etc/evil 2>&1 | grep -c 'No such file'")).toBe("2\n");
  });

  it("does not extract through a symbolic link already in the workspace", async () => {
    const res = await importTar([{ path: "etclink/evil", content: "x" }]);
    expect(res.status).toBe(400);
    expect(res.json.error.message).toContain("outside /workspace");
    expect(await bash("ls /etc/evil 2>&1 || true")).toContain("No such file");
  });

  it("refuses an archive with a member the Write rules deny, and a body that is no tar", async () => {
    const res = await importTar([
      { path: "ok.txt", content: "1" },
      { path: "locked/y", content: "2" },
    ]);
    expect(res.status).toBe(403);
    expect(res.json.error.code).toBe("POLICY_DENIED");
    expect(res.json.error.details[0].path).toBe("entries[1]");
    const junk = await raw("PUT", `/v1/sessions/${sid}/workspace.tar`, Buffer.from("not a tar".repeat(100)));
    expect(junk.status).toBe(400);
    expect(junk.json.error.details[0].path).toBe("body");
  });

  it("each transfer is audited as a job of the session", async () => {
    const log = await h.call("GET", `/v1/tenants/${t.tenantId}/audit?sessionId=${sid}`, { key: t.adminKey });
    const tools = new Set(log.body.entries.map((e: { data: { tool?: string } }) => e.data.tool));
    for (const tool of ["workspace.upload", "workspace.download", "workspace.export", "workspace.import"])
      expect(tools).toContain(tool);
  });
});

// Last: the server answers 413 before reading the whole body and drops the connection, which a
// pooled client may still try to reuse for the next request.
describe("size limit", () => {
  it("a body over FILE_TRANSFER_MAX_BYTES is a 413", async () => {
    const big = await put("big.bin", Buffer.alloc(MAX + 1));
    expect(big.status).toBe(413);
    expect(big.json.error.code).toBe("PAYLOAD_TOO_LARGE");
  });
});
