// The console's shell: sign-in, the tenant being managed, navigation and the page router.

import { api, html, Link, Status, session, useAction } from "/console/assets/lib.js";
import { ApprovalsPage } from "/console/assets/pages/approvals.js";
import { AuditPage } from "/console/assets/pages/audit.js";
import { JobPage } from "/console/assets/pages/job.js";
import { JobsPage } from "/console/assets/pages/jobs.js";
import { KeysPage } from "/console/assets/pages/keys.js";
import { McpPage } from "/console/assets/pages/mcp.js";
import { RulesPage } from "/console/assets/pages/rules.js";
import { SkillsPage } from "/console/assets/pages/skills.js";
import { TenantsPage } from "/console/assets/pages/tenants.js";
import { ExternalToolsPage, ToolGroupsPage } from "/console/assets/pages/tool-config.js";
import { useEffect, useState } from "/console/assets/vendor/hooks.mjs";
import { render } from "/console/assets/vendor/preact.mjs";

const PAGES = [
  { path: "approvals", title: "Approvals", page: ApprovalsPage },
  { path: "jobs", title: "Sessions & jobs", page: JobsPage },
  { path: "rules", title: "Rules", page: RulesPage },
  { path: "audit", title: "Audit", page: AuditPage },
  { path: "mcp", title: "MCP servers", page: McpPage },
  { path: "skills", title: "Skills", page: SkillsPage },
  { path: "tool-groups", title: "Tool groups", page: ToolGroupsPage },
  { path: "external-tools", title: "External tools", page: ExternalToolsPage },
  { path: "keys", title: "Keys", page: KeysPage },
  { path: "tenants", title: "Tenants", page: TenantsPage, adminOnly: true },
];

function SignIn({ onSignedIn }) {
  const action = useAction();
  const submit = async (e) => {
    e.preventDefault();
    const input = e.currentTarget.elements.key;
    const key = input.value;
    // The key leaves the page with this one request; nothing keeps it.
    input.value = "";
    const s = await action.run(() => api("POST", "/console/session", { key }));
    if (s) onSignedIn(s);
  };
  return html`<main class="signin">
    <h1>Toolshed console</h1>
    <form onSubmit=${submit} aria-label="Sign in">
      <label for="key">API key <span class="muted">(tenant admin or platform admin)</span></label>
      <input id="key" name="key" type="password" autocomplete="off" required autofocus />
      <button type="submit" disabled=${action.busy}>Sign in</button>
      <${Status} error=${action.error} />
      <p class="muted small">The key is exchanged for a session cookie and not kept by the browser.</p>
    </form>
  </main>`;
}

/** The platform admin picks the tenant to manage; a tenant admin manages its own. */
function TenantPicker({ tenantId, onPick }) {
  const [tenants, setTenants] = useState([]);
  useEffect(() => {
    api("GET", "/v1/tenants?limit=200")
      .then((r) => setTenants(r.items ?? []))
      .catch(() => setTenants([]));
  }, []);
  return html`<label class="picker"
    >Tenant
    <select value=${tenantId ?? ""} onChange=${(e) => onPick(e.currentTarget.value || null)}>
      <option value="">— choose —</option>
      ${tenants.map((t) => html`<option value=${t.id}>${t.name} (${t.id})</option>`)}
    </select></label
  >`;
}

function currentPath() {
  const rest = location.pathname.replace(/^\/console\/?/, "");
  return rest === "" ? ["approvals"] : rest.split("/");
}

function Shell({ me, onSignOut }) {
  const [path, setPath] = useState(currentPath());
  const [tenantId, setTenantId] = useState(me.tenantId ?? sessionStorage.getItem("console.tenant"));
  useEffect(() => {
    const onPop = () => setPath(currentPath());
    window.addEventListener("popstate", onPop);
    return () => window.removeEventListener("popstate", onPop);
  }, []);
  const pick = (tid) => {
    setTenantId(tid);
    if (tid) sessionStorage.setItem("console.tenant", tid);
    else sessionStorage.removeItem("console.tenant");
  };
  const isAdmin = me.role === "admin";
  const pages = PAGES.filter((p) => !p.adminOnly || isAdmin);
  const [head, ...rest] = path;
  let content;
  if (head === "jobs" && rest[0]) content = html`<${JobPage} jobId=${rest[0]} />`;
  else {
    const entry = pages.find((p) => p.path === head);
    if (!entry)
      content = html`<p role="alert">No page here. <${Link} href="/console/approvals">Approvals</${Link}></p>`;
    else if (!tenantId && !entry.adminOnly)
      content = html`<p class="notice">Choose a tenant to manage (or create one under <${Link} href="/console/tenants">Tenants</${Link}>).</p>`;
    else content = html`<${entry.page} tenantId=${tenantId} me=${me} onPickTenant=${pick} />`;
  }
  const signOut = async () => {
    await api("DELETE", "/console/session").catch(() => undefined);
    onSignOut();
  };
  return html`<div class="shell">
    <header>
      <${Link} class="brand" href="/console/approvals">Toolshed</${Link}>
      ${isAdmin ? html`<${TenantPicker} tenantId=${tenantId} onPick=${pick} />` : html`<span class="muted">${me.tenantId}</span>`}
      <span class="who muted">${me.role === "admin" ? "platform admin" : "tenant admin"}</span>
      <button type="button" class="secondary" onClick=${signOut}>Sign out</button>
    </header>
    <nav aria-label="Console">
      <ul>
        ${pages.map(
          (p) =>
            html`<li>
              <${Link} href=${`/console/${p.path}`} aria-current=${head === p.path ? "page" : undefined}>${p.title}</${Link}>
            </li>`,
        )}
      </ul>
    </nav>
    <main id="main">${content}</main>
  </div>`;
}

function App() {
  const [me, setMe] = useState(undefined);
  useEffect(() => {
    api("GET", "/console/session")
      .then((s) => {
        session.current = s;
        setMe(s);
      })
      .catch(() => setMe(null));
    const out = () => {
      session.current = null;
      setMe(null);
    };
    window.addEventListener("console:signed-out", out);
    return () => window.removeEventListener("console:signed-out", out);
  }, []);
  if (me === undefined) return html`<p class="loading">Loading the console…</p>`;
  if (me === null) {
    return html`<${SignIn}
      onSignedIn=${(s) => {
        session.current = s;
        setMe(s);
      }}
    />`;
  }
  return html`<${Shell}
    me=${me}
    onSignOut=${() => {
      session.current = null;
      sessionStorage.removeItem("console.tenant");
      setMe(null);
    }}
  />`;
}

render(html`<${App} />`, document.getElementById("app"));
