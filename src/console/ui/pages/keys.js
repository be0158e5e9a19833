// The tenant's API keys: create (the secret is shown once), revoke.

import { api, html, Loading, Status, useAction, useLoad, when } from "/console/assets/lib.js";
import { useState } from "/console/assets/vendor/hooks.mjs";

export function KeysPage({ tenantId, me }) {
  const state = useLoad(() => api("GET", `/v1/tenants/${tenantId}/keys`), [tenantId]);
  const [created, setCreated] = useState(null);
  const action = useAction();
  const create = async (e) => {
    e.preventDefault();
    const f = e.currentTarget.elements;
    const body = { role: f.role.value, ...(f.name.value ? { name: f.name.value } : {}) };
    const key = await action.run(() => api("POST", `/v1/tenants/${tenantId}/keys`, body));
    if (key) {
      setCreated(key);
      state.reload();
    }
  };
  const revoke = (k) => {
    const own = k.id === me.keyId ? " This is the key you signed in with: you will be signed out." : "";
    if (!confirm(`Revoke ${k.name ?? k.id}? Clients using it stop at once.${own}`)) return;
    action.run(() => api("DELETE", `/v1/keys/${k.id}`).then(() => state.reload()), "Key revoked.");
  };
  return html`<section aria-labelledby="h-keys">
    <h2 id="h-keys">Keys</h2>
    <${Loading} state=${state}>
      <table class="list">
        <thead><tr><th>Id</th><th>Name</th><th>Role</th><th>Created</th><th>State</th><th><span class="sr-only">Actions</span></th></tr></thead>
        <tbody>
          ${(state.data?.keys ?? []).map(
            (k) => html`<tr>
              <td data-label="Id"><code>${k.id}</code></td>
              <td data-label="Name">${k.name ?? ""}</td>
              <td data-label="Role">${k.role}</td>
              <td data-label="Created">${when(k.createdAt)}</td>
              <td data-label="State">${k.revokedAt ? `revoked ${when(k.revokedAt)}` : "active"}</td>
              <td>${k.revokedAt ? null : html`<button type="button" class="danger" onClick=${() => revoke(k)} aria-label=${`Revoke ${k.id}`}>Revoke</button>`}</td>
            </tr>`,
          )}
        </tbody>
      </table>
    </${Loading}>
    <h3>Create a key</h3>
    <form class="grid-form" onSubmit=${create} aria-label="Create a key">
      <label>Role <select name="role"><option value="agent">agent</option><option value="tenant_admin">tenant admin</option></select></label>
      <label>Name <input name="name" maxlength="200" /></label>
      <button type="submit" disabled=${action.busy}>Create key</button>
    </form>
    ${
      created
        ? html`<div class="notice" role="status">
          <p>New ${created.role} key <code>${created.id}</code>. Copy the secret now: it is not shown again.</p>
          <output class="secret" aria-label="new key secret">${created.key}</output>
          <button type="button" class="secondary" onClick=${() => setCreated(null)}>Done</button>
        </div>`
        : null
    }
    <${Status} error=${action.error} message=${action.message} />
  </section>`;
}
