// The tenant's MCP servers: health, tools, add, remove.

import { api, html, Loading, Status, useAction, useLoad, when } from "/console/assets/lib.js";
import { useState } from "/console/assets/vendor/hooks.mjs";

function Health({ health }) {
  if (!health) return html`<span class="badge">unknown</span>`;
  return html`<span class=${`badge h-${health.state}`} title=${health.error ?? ""}>${health.state}</span>
    ${health.error ? html`<div class="error small">${health.error}</div>` : null}`;
}

function Tools({ tenantId, name }) {
  const state = useLoad(
    () => api("GET", `/v1/tenants/${tenantId}/mcp-servers/${name}/tools`),
    [tenantId, name],
  );
  return html`<${Loading} state=${state}>
    <ul class="rules">${(state.data?.tools ?? []).map((t) => html`<li><code>${t.name}</code> <span class="muted small">${t.description}</span></li>`)}</ul>
  </${Loading}>`;
}

export function McpPage({ tenantId }) {
  const state = useLoad(() => api("GET", `/v1/tenants/${tenantId}/mcp-servers`), [tenantId]);
  const [open, setOpen] = useState(null);
  const [transport, setTransport] = useState("http");
  const action = useAction();
  const add = (e) => {
    e.preventDefault();
    const f = e.currentTarget.elements;
    const body =
      transport === "http"
        ? { name: f.name.value, transport, url: f.url.value }
        : {
            name: f.name.value,
            transport,
            command: f.command.value,
            args: f.args.value.split(" ").filter(Boolean),
          };
    action.run(
      () => api("POST", `/v1/tenants/${tenantId}/mcp-servers`, body).then(() => state.reload()),
      "Server added.",
    );
  };
  const remove = (name) => {
    if (!confirm(`Remove the MCP server ${name}?`)) return;
    action.run(
      () => api("DELETE", `/v1/tenants/${tenantId}/mcp-servers/${name}`).then(() => state.reload()),
      "Server removed.",
    );
  };
  return html`<section aria-labelledby="h-mcp">
    <h2 id="h-mcp">MCP servers</h2>
    <${Loading} state=${state}>
      <table class="list">
        <thead><tr><th>Name</th><th>Transport</th><th>Target</th><th>Health</th><th>Added</th><th><span class="sr-only">Actions</span></th></tr></thead>
        <tbody>
          ${(state.data?.servers ?? state.data?.items ?? []).map(
            (s) => html`<tr>
                <td data-label="Name"><code>${s.name}</code></td>
                <td data-label="Transport">${s.transport}</td>
                <td data-label="Target" class="clip">${s.url ?? [s.command, ...(s.args ?? [])].join(" ")}</td>
                <td data-label="Health"><${Health} health=${s.health} /></td>
                <td data-label="Added">${when(s.createdAt)}</td>
                <td class="actions">
                  <button type="button" class="secondary" aria-expanded=${open === s.name} onClick=${() => setOpen(open === s.name ? null : s.name)}>Tools</button>
                  <button type="button" class="danger" onClick=${() => remove(s.name)} aria-label=${`Remove ${s.name}`}>Remove</button>
                </td>
              </tr>
              ${open === s.name ? html`<tr><td colspan="6"><${Tools} tenantId=${tenantId} name=${s.name} /></td></tr>` : null}`,
          )}
        </tbody>
      </table>
    </${Loading}>
    <h3>Add a server</h3>
    <form class="grid-form" onSubmit=${add} aria-label="Add an MCP server">
      <label>Name <input name="name" required pattern="[a-zA-Z0-9_-]{1,32}" /></label>
      <label>Transport
        <select name="transport" value=${transport} onChange=${(e) => setTransport(e.currentTarget.value)}>
          <option value="http">http</option><option value="stdio">stdio (runs in the sandbox)</option>
        </select>
      </label>
      ${
        transport === "http"
          ? html`<label>URL <input name="url" type="url" required placeholder="https://…/mcp" /></label>`
          : html`<label>Command <input name="command" required /></label><label>Arguments <input name="args" placeholder="space separated" /></label>`
      }
      <button type="submit" disabled=${action.busy}>Add server</button>
    </form>
    <${Status} error=${action.error} message=${action.message} />
  </section>`;
}
