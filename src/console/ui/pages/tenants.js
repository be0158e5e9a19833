// Platform admin: tenants (create, choose) and each tenant's quotas.

import { api, html, Loading, qs, Status, useAction, useLoad, when } from "/console/assets/lib.js";
import { useState } from "/console/assets/vendor/hooks.mjs";

const QUOTAS = [
  ["maxSessions", "Max sessions"],
  ["maxActiveCalls", "Max active calls"],
  ["callsPerMinute", "Calls per minute"],
];

function Quotas({ tenantId }) {
  const state = useLoad(() => api("GET", `/v1/tenants/${tenantId}/settings`), [tenantId]);
  const action = useAction();
  const save = (e) => {
    e.preventDefault();
    const f = e.currentTarget.elements;
    const quotas = {};
    for (const [k] of QUOTAS) if (f[k].value) quotas[k] = Number(f[k].value);
    action.run(
      () => api("PUT", `/v1/tenants/${tenantId}/settings`, { quotas }).then(() => state.reload()),
      "Quotas saved.",
    );
  };
  return html`<${Loading} state=${state}>
    ${
      state.data
        ? html`<form class="grid-form" onSubmit=${save} aria-label=${`Quotas of ${tenantId}`}>
          ${QUOTAS.map(
            ([k, label]) =>
              html`<label>${label} <input name=${k} type="number" min="1" value=${state.data.quotas?.[k] ?? ""} placeholder="platform default" /></label>`,
          )}
          <button type="submit" disabled=${action.busy}>Save quotas</button>
          <${Status} error=${action.error} message=${action.message} />
        </form>`
        : null
    }
  </${Loading}>`;
}

export function TenantsPage({ tenantId, onPickTenant }) {
  const [cursor, setCursor] = useState(undefined);
  const state = useLoad(() => api("GET", `/v1/tenants${qs({ limit: 50, cursor })}`), [cursor]);
  const [open, setOpen] = useState(null);
  const action = useAction();
  const create = async (e) => {
    e.preventDefault();
    const name = e.currentTarget.elements.name.value;
    const t = await action.run(
      () => api("POST", "/v1/tenants", { name }),
      (t) => `Tenant ${t.name} created (${t.id}).`,
    );
    if (t) state.reload();
  };
  return html`<section aria-labelledby="h-tenants">
    <h2 id="h-tenants">Tenants</h2>
    <form class="grid-form" onSubmit=${create} aria-label="Create a tenant">
      <label>Name <input name="name" required maxlength="200" /></label>
      <button type="submit" disabled=${action.busy}>Create tenant</button>
    </form>
    <${Status} error=${action.error} message=${action.message} />
    <${Loading} state=${state}>
      <table class="list">
        <thead><tr><th>Id</th><th>Name</th><th>Created</th><th><span class="sr-only">Actions</span></th></tr></thead>
        <tbody>
          ${(state.data?.items ?? []).map(
            (t) => html`<tr aria-current=${t.id === tenantId ? "true" : undefined}>
                <td data-label="Id"><code>${t.id}</code></td>
                <td data-label="Name">${t.name}</td>
                <td data-label="Created">${when(t.createdAt)}</td>
                <td class="actions">
                  <button type="button" onClick=${() => onPickTenant(t.id)} disabled=${t.id === tenantId}>${t.id === tenantId ? "Managing" : "Manage"}</button>
                  <button type="button" class="secondary" aria-expanded=${open === t.id} onClick=${() => setOpen(open === t.id ? null : t.id)}>Quotas</button>
                </td>
              </tr>
              ${open === t.id ? html`<tr><td colspan="4"><${Quotas} tenantId=${t.id} /></td></tr>` : null}`,
          )}
        </tbody>
      </table>
      ${state.data?.nextCursor ? html`<button type="button" class="secondary" onClick=${() => setCursor(state.data.nextCursor)}>Next page</button>` : null}
    </${Loading}>
  </section>`;
}
