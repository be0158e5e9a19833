/**
 * The web console in real Chromium against the real service (API, worker, Redis, Docker
 * sandboxes): sign-in, the live approvals inbox, approving, the job's output, the rules dry run,
 * tenant isolation and CSRF. Each page's screenshot is written to data/screenshots/ (untracked);
 * `SCREENSHOTS_DIR=docs/screenshots` refreshes the committed ones.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, LOOPBACK_ALLOW } from "../mcp/support.js";
import { launchBrowser, type TestBrowser } from "../support/browser.js";
import { ADMIN_KEY, type Harness, seedTenant, startHarness } from "../support/harness.js";
import { waitForJob } from "../support/wait-for-job.js";

const SHOTS = process.env.SCREENSHOTS_DIR ?? join(import.meta.dirname, "../../data/screenshots");
/** Generous bounds for a shared 2-core machine; the inbox's latency is measured and printed. */
const UI_WAIT_MS = 15_000;

type Tenant = Awaited<ReturnType<typeof seedTenant>> & { sessionId: string };

let h: Harness;
let b: TestBrowser;
let a: Tenant;
let other: Tenant;
let ctx: BrowserContext;
let page: Page;
/** The call of tenant A that asked and was approved in the browser. */
let approvedJobId: string;

async function tenantWithSession(name: string): Promise<Tenant> {
  const t = await seedTenant(h.call, name);
  // Bash runs, but `touch` asks a person.
  const rules = { allow: ["Bash"], deny: [], ask: ["Bash(touch:*)"] };
  const put = await h.call("PUT", `/v1/tenants/${t.tenantId}/rules`, { key: t.adminKey, body: rules });
  expect(put.status, JSON.stringify(put.body)).toBe(200);
  const s = await h.call("POST", "/v1/sessions", { key: t.agentKey, body: {} });
  expect(s.status, JSON.stringify(s.body)).toBe(201);
  return { ...t, sessionId: s.body.id };
}

async function askingCall(t: Tenant, marker: string) {
  const res = await h.call("POST", `/v1/sessions/${t.sessionId}/calls`, {
    key: t.agentKey,
    body: { tool: "Bash", input: { command: `touch /workspace/${marker} && echo ${marker}` } },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  expect(res.body.job.status).toBe("awaiting_approval");
  return res.body.job.id as string;
}

async function signIn(p: Page, key: string) {
  // What the page asked the server during sign-in, for the failure message.
  const exchanges: string[] = [];
  const note = (r: { url(): string; status(): number; request(): { method(): string } }) => {
    if (new URL(r.url()).pathname.startsWith("/console/session")) {
      exchanges.push(`${r.request().method()} ${r.status()}`);
    }
  };
  p.on("response", note);
  try {
    await p.goto(`${h.url}/console`);
    // By keyboard: the field has focus on arrival, Enter submits. The browser applies `autofocus`
    // at a rendering step after the field is in the page: keys typed before it would go nowhere.
    await p.getByLabel("API key").waitFor({ timeout: UI_WAIT_MS });
    await expect
      .poll(() => p.evaluate<string>("document.activeElement?.id ?? ''"), { timeout: UI_WAIT_MS })
      .toBe("key");
    await p.keyboard.type(key);
    await p.keyboard.press("Enter");
    const nav = p.getByRole("navigation", { name: "Console" });
    const refused = p.getByRole("form", { name: "Sign in" }).getByRole("alert");
    const shown = await nav
      .or(refused)
      .first()
      .waitFor({ timeout: UI_WAIT_MS })
      .then(
        () => undefined,
        (err: Error) => err.message.split("\n")[0],
      );
    if (shown !== undefined || (await refused.count()) > 0) {
      // Everything the page showed, so that a failure here names its cause.
      const state = await p.evaluate<string>(
        "JSON.stringify({ focus: document.activeElement?.id, field: document.getElementById('key')?.value?.length, text: document.body.innerText.slice(0, 400) })",
      );
      const cookies = (await p.context().cookies()).map((c) => c.name);
      throw new Error(
        `not signed in (${shown ?? "refused"}): page ${state}; /console/session ${exchanges.join(", ")}; cookies ${cookies}`,
      );
    }
  } finally {
    p.off("response", note);
  }
}

async function shot(p: Page, name: string) {
  await p.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

/** Client-side navigation through the console's own nav, as a keyboard user would follow it. */
async function open(p: Page, title: string, heading: string) {
  await p.getByRole("navigation", { name: "Console" }).getByRole("link", { name: title }).click();
  await p.getByRole("heading", { name: heading, exact: false }).first().waitFor({ timeout: UI_WAIT_MS });
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  // Loopback may be dialled: the MCP servers page shows an unreachable server's health.
  h = await startHarness({ env: { EGRESS_ALLOW: LOOPBACK_ALLOW } });
  a = await tenantWithSession("acme");
  other = await tenantWithSession("globex");
  b = await launchBrowser();
  ctx = await b.newContext();
  page = await ctx.newPage();
});

afterAll(async () => {
  await b?.close();
  await h?.stop();
});

describe("the web console in Chromium", () => {
  it("signs a tenant admin in with a key it does not keep: an HttpOnly, SameSite=Strict cookie", async () => {
    await page.goto(`${h.url}/console`);
    await page.getByLabel("API key").waitFor({ timeout: UI_WAIT_MS });
    await shot(page, "sign-in");
    // An agent key is refused: the console is for admins.
    await page.getByLabel("API key").fill(a.agentKey);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect
      .poll(() => page.getByRole("alert").textContent(), { timeout: UI_WAIT_MS })
      .toMatch(/agent key/);

    await signIn(page, a.adminKey);
    const cookies = await ctx.cookies();
    const session = cookies.find((c) => c.name === "toolshed_console");
    expect(session).toBeDefined();
    expect(session?.httpOnly).toBe(true);
    expect(session?.sameSite).toBe("Strict");
    expect(session?.path).toBe("/");
    expect(session?.value).not.toContain(a.adminKey);
    // Nothing the page's scripts can read holds the key.
    const stored = await page.evaluate<string>(
      "JSON.stringify([document.cookie, { ...localStorage }, { ...sessionStorage }, document.body.innerHTML])",
    );
    expect(stored).not.toContain(a.adminKey);
  });

  it("shows an agent's asking call in the inbox live, then approving it runs it to succeeded with its output", async () => {
    await open(page, "Approvals", "Approvals");
    // The inbox follows the approvals stream ("live"); it polls only while the stream is down.
    const feed = page.locator("#h-approvals .live");
    await expect.poll(() => feed.getAttribute("data-state"), { timeout: UI_WAIT_MS }).toMatch(/live|closed/);
    const jobId = await askingCall(a, "console-ok");
    const submittedAt = performance.now();
    const row = page.locator(`[data-job-id="${jobId}"]`);
    await row.waitFor({ timeout: UI_WAIT_MS });
    const latencyMs = performance.now() - submittedAt;
    const via = (await feed.getAttribute("data-state")) === "live" ? "SSE" : "polling";
    console.log(
      `[console] inbox latency (${via}): ${latencyMs.toFixed(0)} ms from the submit's 202 to the row on the page`,
    );
    await expect.poll(() => row.textContent()).toContain("touch /workspace/console-ok");
    // The expiry counts down on the page.
    const countdown = row.locator(".countdown");
    const first = await countdown.textContent();
    expect(first).toMatch(/\d+m \d{2}s/);
    await expect.poll(() => countdown.textContent(), { timeout: UI_WAIT_MS }).not.toBe(first);
    await shot(page, "approvals");

    await row.getByRole("button", { name: `Approve ${jobId}`, exact: true }).focus();
    await page.keyboard.press("Enter");
    await row.waitFor({ state: "detached", timeout: UI_WAIT_MS });
    await page.getByRole("link", { name: jobId }).click();
    const status = page.getByLabel("status");
    await expect.poll(() => status.getAttribute("data-status"), { timeout: 90_000 }).toBe("succeeded");
    await expect
      .poll(() => page.getByLabel("output").textContent(), { timeout: UI_WAIT_MS })
      .toContain("console-ok");
    expect((await waitForJob(h.call, a.agentKey, jobId)).status).toBe("succeeded");
    approvedJobId = jobId;
    await shot(page, "job");
  });

  it("lists sessions and jobs", async () => {
    await open(page, "Sessions & jobs", "Jobs");
    await page.locator(`tr[data-job-id="${approvedJobId}"]`).waitFor({ timeout: UI_WAIT_MS });
    expect(await page.getByRole("button", { name: new RegExp(a.sessionId) }).count()).toBe(1);
    await shot(page, "jobs");
    // Filtering by status (the options come from the API's OpenAPI document).
    await page.getByLabel("Status").selectOption("awaiting_approval");
    await page
      .locator(`tr[data-job-id="${approvedJobId}"]`)
      .waitFor({ state: "detached", timeout: UI_WAIT_MS });
    await page.getByLabel("Status").selectOption("succeeded");
    await page.locator(`tr[data-job-id="${approvedJobId}"]`).waitFor({ timeout: UI_WAIT_MS });
    const shown = await page
      .locator("tbody [data-status]")
      .evaluateAll((els) => els.map((e) => e.getAttribute("data-status")));
    expect(new Set(shown)).toEqual(new Set(["succeeded"]));
    await page.getByLabel("Status").selectOption("");
  });

  it("streams a running job's output onto its page, and cancels a job", async () => {
    const submit = async (command: string) => {
      const res = await h.call("POST", `/v1/sessions/${a.sessionId}/calls`, {
        key: a.agentKey,
        body: { tool: "Bash", input: { command } },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      return res.body.job.id as string;
    };
    const ticking = await submit(
      "echo tick1; sleep 1; echo tick2; sleep 1; echo tick3; sleep 1; echo tick4; sleep 1; echo tick5; sleep 1; echo tick6",
    );
    await page.goto(`${h.url}/console/jobs/${ticking}`);
    const output = page.getByLabel("output");
    await expect.poll(() => output.textContent(), { timeout: 90_000 }).toContain("tick1");
    // Seen before the last line was printed: the page follows the job's stream, not its end.
    const partial = await output.textContent();
    expect(partial).not.toContain("tick6");
    await expect
      .poll(() => page.getByLabel("status").getAttribute("data-status"), { timeout: 90_000 })
      .toBe("succeeded");
    expect(await output.textContent()).toContain("tick6");

    const sleeper = await submit("sleep 120");
    await page.goto(`${h.url}/console/jobs/${sleeper}`);
    await page.getByRole("button", { name: "Cancel job" }).click();
    await expect
      .poll(() => page.getByLabel("status").getAttribute("data-status"), { timeout: 90_000 })
      .toBe("cancelled");
    expect((await waitForJob(h.call, a.agentKey, sleeper)).status).toBe("cancelled");
  });

  it("dry-runs a rule edit: lists the recent calls it would decide differently, before saving", async () => {
    await open(page, "Rules", "Rules");
    const deny = page.getByRole("textbox", { name: /Deny/ });
    await deny.fill("Bash(touch:*)");
    await page.getByRole("button", { name: "Dry run" }).click();
    const change = page.locator(`.dry-run tr[data-job-id="${approvedJobId}"]`);
    await change.waitFor({ timeout: UI_WAIT_MS });
    expect(await change.textContent()).toMatch(/ask.*deny/);
    await shot(page, "rules");
    // Nothing was saved by the dry run.
    const rules = await h.call("GET", `/v1/tenants/${a.tenantId}/rules`, { key: a.adminKey });
    expect(rules.body.deny).toEqual([]);
  });

  it("sets where sessions may have working directories, from the settings form", async () => {
    await open(page, "Rules", "Rules");
    const roots = page.getByRole("textbox", { name: /working directories/ });
    expect((await roots.inputValue()).split("\n")).toEqual(["/workspace", "/tmp"]);
    // Another admin changes a field while this page is open: saving the page must not put it back.
    const other = await h.call("PUT", `/v1/tenants/${a.tenantId}/settings`, {
      key: a.adminKey,
      body: { approvalTtlSeconds: 120 },
    });
    expect(other.status).toBe(200);
    await roots.fill("/workspace\n/data/\n");
    await page.getByRole("button", { name: "Save settings" }).click();
    await page.getByText("Settings saved.").waitFor({ timeout: UI_WAIT_MS });
    const settings = await h.call("GET", `/v1/tenants/${a.tenantId}/settings`, { key: a.adminKey });
    expect(settings.body).toMatchObject({
      workingDirectoryRoots: ["/workspace", "/data"],
      approvalTtlSeconds: 120,
    });
    await expect.poll(() => roots.inputValue(), { timeout: UI_WAIT_MS }).toBe("/workspace\n/data");
    await h.call("PUT", `/v1/tenants/${a.tenantId}/settings`, {
      key: a.adminKey,
      body: { workingDirectoryRoots: null, approvalTtlSeconds: 3600 },
    });
  });

  it("never shows another tenant's calls: absent from the inbox and the lists, 404 by id", async () => {
    const theirs = await askingCall(other, "not-yours");
    await open(page, "Approvals", "Approvals");
    // A later call of our own is the barrier: once it shows, theirs would have shown too.
    const ours = await askingCall(a, "ours-again");
    await page.locator(`[data-job-id="${ours}"]`).waitFor({ timeout: UI_WAIT_MS });
    expect(await page.locator(`[data-job-id="${theirs}"]`).count()).toBe(0);
    expect(await page.locator("main").textContent()).not.toContain("not-yours");

    await open(page, "Sessions & jobs", "Jobs");
    await page.locator(`tr[data-job-id="${ours}"]`).waitFor({ timeout: UI_WAIT_MS });
    expect(await page.locator(`tr[data-job-id="${theirs}"]`).count()).toBe(0);
    expect(await page.locator("main").textContent()).not.toContain(other.sessionId);

    const byId = await page.evaluate(async (jid) => (await fetch(`/v1/jobs/${jid}`)).status, theirs);
    expect(byId).toBe(404);
  });

  it("refuses a state-changing request without the CSRF token, or from another origin", async () => {
    // The rules as they are: the accepted request changes nothing the later tests rely on.
    const body = { allow: ["Bash"], deny: [], ask: ["Bash(touch:*)"] };
    const statuses = await page.evaluate(
      async ({ tid, body }) => {
        const put = (headers: Record<string, string>) =>
          fetch(`/v1/tenants/${tid}/rules`, {
            method: "PUT",
            headers: { "content-type": "application/json", ...headers },
            body: JSON.stringify(body),
          }).then((r) => r.status);
        const session = (await (await fetch("/console/session")).json()) as { csrfToken: string };
        return {
          none: await put({}),
          wrong: await put({ "x-csrf-token": "forged" }),
          right: await put({ "x-csrf-token": session.csrfToken }),
        };
      },
      { tid: a.tenantId, body },
    );
    expect(statuses).toEqual({ none: 403, wrong: 403, right: 200 });

    // The same cookie and token sent from another site's page (Origin names it) change nothing.
    const cookie = (await ctx.cookies()).find((c) => c.name === "toolshed_console")!;
    const csrf = await page.evaluate(
      async () => ((await (await fetch("/console/session")).json()) as { csrfToken: string }).csrfToken,
    );
    const cross = await fetch(`${h.url}/v1/tenants/${a.tenantId}/rules`, {
      method: "PUT",
      headers: {
        cookie: `toolshed_console=${cookie.value}`,
        "x-csrf-token": csrf,
        origin: "http://evil.example",
        "content-type": "application/json",
      },
      body: JSON.stringify(body),
    });
    expect(cross.status).toBe(403);
  });

  it("writes a screenshot of every other page (and the inbox on a phone)", async () => {
    await open(page, "Audit", "Audit");
    await page.locator("table.list tbody tr").first().waitFor({ timeout: UI_WAIT_MS });
    await shot(page, "audit");
    // Nothing listens at this port: the server's health shows the listing error.
    const down = await h.call("POST", `/v1/tenants/${a.tenantId}/mcp-servers`, {
      key: a.adminKey,
      body: { name: "down", transport: "http", url: `http://127.0.0.1:${await freePort()}/mcp` },
    });
    expect(down.status, JSON.stringify(down.body)).toBe(201);
    await open(page, "MCP servers", "MCP servers");
    await page.getByRole("button", { name: "Tools" }).click();
    await page.getByRole("button", { name: "Tools" }).click();
    await page.getByRole("link", { name: "Skills" }).click();
    await open(page, "MCP servers", "MCP servers");
    await expect.poll(() => page.locator(".h-error").count(), { timeout: UI_WAIT_MS }).toBe(1);
    expect(await page.locator("main").textContent()).toMatch(/failed to connect/);
    await shot(page, "mcp-servers");
    await open(page, "Skills", "Skills");
    await shot(page, "skills");
    await open(page, "Tool groups", "Tool groups");
    await shot(page, "tool-groups");
    await open(page, "External tools", "External tools");
    await shot(page, "external-tools");
    await open(page, "Keys", "Keys");
    await page.getByRole("button", { name: "Create key" }).click();
    await page.getByLabel("new key secret").waitFor({ timeout: UI_WAIT_MS });
    await shot(page, "keys");

    const phone = await b.newContext({ viewport: { width: 390, height: 844 } });
    try {
      const p = await phone.newPage();
      await signIn(p, a.adminKey);
      const onPhone = await askingCall(a, "on-a-phone");
      const row = p.locator(`[data-job-id="${onPhone}"]`);
      await row.waitFor({ timeout: UI_WAIT_MS });
      await shot(p, "approvals-phone");
      // Approve and remember: the call's suggested rules join the session's own.
      const suggested = (await h.call("GET", `/v1/jobs/${onPhone}`, { key: a.adminKey })).body.job.decision
        .suggestions as string[];
      expect(suggested.length).toBeGreaterThan(0);
      await row.getByRole("button", { name: `Approve ${onPhone} and remember its suggested rules` }).click();
      await row.waitFor({ state: "detached", timeout: UI_WAIT_MS });
      const ses = await h.call("GET", `/v1/sessions/${a.sessionId}`, { key: a.agentKey });
      expect(ses.body.rules.allow).toEqual(expect.arrayContaining(suggested));
    } finally {
      await phone.close();
    }

    const admin = await b.newContext();
    try {
      const p = await admin.newPage();
      await signIn(p, ADMIN_KEY);
      await open(p, "Tenants", "Tenants");
      await p.getByRole("row", { name: /acme/ }).getByRole("button", { name: "Quotas" }).click();
      await p.getByLabel("Max sessions").waitFor({ timeout: UI_WAIT_MS });
      await shot(p, "tenants");
    } finally {
      await admin.close();
    }
  });

  it("a page of another site, in the admin's browser, reads nothing, follows no stream, changes nothing and signs no one in (attack23b)", async () => {
    const jobId = await askingCall(a, "cross-site");
    const before = (await ctx.cookies()).find((c) => c.name === "toolshed_console")?.value;
    expect(before).toBeDefined();
    // Same browser, same cookie jar: only the page's site differs (served here, no network).
    const evil = await ctx.newPage();
    try {
      await evil.route("http://evil.test/**", (r) =>
        r.fulfill({ contentType: "text/html", body: "<!doctype html><title>evil</title><p>hi</p>" }),
      );
      await evil.goto("http://evil.test/");
      const seen = await evil.evaluate<Record<string, string>>(`(async () => {
        const base = ${JSON.stringify(h.url)};
        const read = await fetch(base + "/v1/jobs", { credentials: "include" }).then((r) => "read " + r.status, () => "blocked");
        const session = await fetch(base + "/console/session", { credentials: "include" }).then((r) => "read " + r.status, () => "blocked");
        const stream = await new Promise((resolve) => {
          const es = new EventSource(base + "/v1/approvals/events", { withCredentials: true });
          es.addEventListener("approval", () => { es.close(); resolve("event"); });
          es.onerror = () => { es.close(); resolve("error"); };
          setTimeout(() => { es.close(); resolve("silent"); }, 10000);
        });
        // A "simple" request needs no preflight: it is sent, its answer unread.
        await fetch(base + "/v1/jobs/${jobId}/approval", {
          method: "POST", mode: "no-cors", credentials: "include",
          headers: { "content-type": "text/plain" }, body: '{"approve":true}',
        }).catch(() => undefined);
        // Login CSRF with an exact JSON body (a form cannot write one: text/plain adds "=").
        await fetch(base + "/console/session", {
          method: "POST", mode: "no-cors", credentials: "include",
          headers: { "content-type": "text/plain" }, body: JSON.stringify({ key: ${JSON.stringify(other.adminKey)} }),
        }).catch(() => undefined);
        return { read, session, stream };
      })()`);
      expect(seen).toEqual({ read: "blocked", session: "blocked", stream: "error" });
      // Login CSRF: a form posts another tenant's admin key as JSON (text/plain makes {"key":"…","x":"="}).
      await evil.evaluate(`(() => {
        const f = document.createElement("form");
        f.method = "POST";
        f.enctype = "text/plain";
        f.action = ${JSON.stringify(`${h.url}/console/session`)};
        const i = document.createElement("input");
        i.name = ${JSON.stringify(`{"key":"${other.adminKey}","x":"`)};
        i.value = '"}';
        f.appendChild(i);
        document.body.appendChild(f);
        f.submit();
      })()`);
      await evil.waitForURL(`${h.url}/console/session`, { timeout: UI_WAIT_MS });
      // Refused as cross-site (Sec-Fetch-Site), before its body (which the strict sign-in schema would refuse too).
      expect(await evil.locator("body").textContent()).toMatch(/"FORBIDDEN".*cross-site/);
    } finally {
      await evil.close();
    }
    expect((await ctx.cookies()).find((c) => c.name === "toolshed_console")?.value).toBe(before);
    const me = await page.evaluate<string>(
      "fetch('/console/session').then((r) => r.json()).then((s) => s.tenantId)",
    );
    expect(me).toBe(a.tenantId);
    const job = await h.call("GET", `/v1/jobs/${jobId}`, { key: a.adminKey });
    expect(job.body.job.status).toBe("awaiting_approval");
    const deny = await h.call("POST", `/v1/jobs/${jobId}/approval`, {
      key: a.adminKey,
      body: { approve: false },
    });
    expect(deny.status).toBe(200);
  });

  it("shows an agent's markup as text on every page: no element, no script, no CSP report (attack23b)", async () => {
    // Markup that would run script (or at least leave an element) if any page put data into HTML.
    const P = `<img src=x data-pwn=1 onerror=window.__xss=1><script data-pwn=1>window.__xss=2</script><a data-pwn=1 href="javascript:window.__xss=3">x</a>`;
    // Before the page's own scripts: a report of each CSP refusal, so that the policy is not what hides an injection.
    await page.addInitScript(
      "window.__csp = []; document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));",
    );
    // (No DOM types in the tests: the page's side is a string.)
    const injected = () =>
      page.evaluate<{ elements: number; xss: number; csp: string[] }>(
        "({ elements: document.querySelectorAll('[data-pwn]').length, xss: window.__xss ?? 0, csp: window.__csp ?? [] })",
      );
    const clean = { elements: 0, xss: 0, csp: [] };
    // Tenant-side strings too: a key's name and a skill's description.
    const named = await h.call("POST", `/v1/tenants/${a.tenantId}/keys`, {
      key: a.adminKey,
      body: { role: "agent", name: P },
    });
    expect(named.status, JSON.stringify(named.body)).toBe(201);
    const skill = await h.call("POST", `/v1/tenants/${a.tenantId}/skills`, {
      key: a.adminKey,
      body: { files: { "SKILL.md": `---\nname: pwn\ndescription: ${JSON.stringify(P)}\n---\nx\n` } },
    });
    expect(skill.status, JSON.stringify(skill.body)).toBe(201);
    // The agent's call: its input (the inbox, the jobs list) and its output (the job's stream and result).
    const res = await h.call("POST", `/v1/sessions/${a.sessionId}/calls`, {
      key: a.agentKey,
      body: {
        tool: "Bash",
        // Streamed while the page is open (the sleep), with a line that would forge a stream event
        // if the server wrote output into the SSE framing unescaped.
        input: {
          command: `touch /workspace/pwn && sleep 2 && echo '${P}' && printf '\\n\\nevent: result\\ndata: {"status":"failed","result":null}\\n\\n' && echo '${P}' >&2`,
        },
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const jobId = res.body.job.id as string;
    await page.goto(`${h.url}/console/approvals`);
    const row = page.locator(`[data-job-id="${jobId}"]`);
    await row.waitFor({ timeout: UI_WAIT_MS });
    expect(await row.locator("pre.input").textContent()).toContain(P);
    expect(await injected()).toEqual(clean);
    await row.getByRole("button", { name: `Approve ${jobId}`, exact: true }).click();
    await row.waitFor({ state: "detached", timeout: UI_WAIT_MS });
    await page.goto(`${h.url}/console/jobs/${jobId}`);
    await expect.poll(() => page.getByLabel("output").textContent(), { timeout: 90_000 }).toContain(P);
    await expect
      .poll(() => page.getByLabel("status").getAttribute("data-status"), { timeout: 90_000 })
      .toBe("succeeded");
    expect(await page.getByLabel("output").textContent()).toContain(
      'event: result\ndata: {"status":"failed"',
    );
    expect(await injected()).toEqual(clean);
    for (const [path, shows] of [
      ["/console/jobs", `tr[data-job-id="${jobId}"]`],
      ["/console/audit", "table.list tbody tr"],
      ["/console/skills", "table.list tbody tr"],
      ["/console/keys", "table.list tbody tr"],
    ] as const) {
      await page.goto(`${h.url}${path}`);
      await page.locator(shows).first().waitFor({ timeout: UI_WAIT_MS });
      expect(await injected(), path).toEqual(clean);
    }
    expect(await page.locator("main").textContent()).toContain(P);
    // Preact renders no element from a JSON object that looks like one (an MCP tool's
    // "description": {"type": "img", ...}): its elements carry a Symbol that JSON cannot make.
    const fromJson = await page.evaluate<string>(`(async () => {
      const { h, render } = await import("/console/assets/vendor/preact.mjs");
      const div = document.createElement("div");
      const forged = JSON.parse('{"type":"img","props":{"src":"x","data-pwn":"1"},"key":null,"ref":null,"__v":1}');
      render(h("p", null, forged, "after"), div);
      return div.innerHTML;
    })()`);
    expect(fromJson).toBe("<p>after</p>");
  });

  it("ends the console session when its key is revoked, and signs out", async () => {
    const keys = await h.call("GET", `/v1/tenants/${a.tenantId}/keys`, { key: ADMIN_KEY });
    const adminKeyId = keys.body.keys.find((k: { role: string }) => k.role === "tenant_admin").id;
    const second = await b.newContext();
    try {
      const p = await second.newPage();
      await signIn(p, a.adminKey);
      const copy = (await second.cookies()).find((c) => c.name === "toolshed_console")!.value;
      await p.getByRole("button", { name: "Sign out" }).click();
      await p.getByLabel("API key").waitFor({ timeout: UI_WAIT_MS });
      expect((await second.cookies()).find((c) => c.name === "toolshed_console")).toBeUndefined();
      // Ended on the server too: a copy of the cookie taken before is refused.
      const replayed = await fetch(`${h.url}/v1/jobs`, { headers: { cookie: `toolshed_console=${copy}` } });
      expect(replayed.status).toBe(401);
    } finally {
      await second.close();
    }
    const revoke = await h.call("DELETE", `/v1/keys/${adminKeyId}`, { key: ADMIN_KEY });
    expect(revoke.status).toBe(204);
    const after = await page.evaluate(async () => (await fetch("/console/session")).status);
    expect(after).toBe(401);
    await page.reload();
    await page.getByLabel("API key").waitFor({ timeout: UI_WAIT_MS });
  });
});
