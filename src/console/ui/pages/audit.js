// Audit search: decisions, approvals, key and configuration changes, newest first.

import { api, html, Link, Loading, qs, useLoad, when } from "/console/assets/lib.js";
import { useState } from "/console/assets/vendor/hooks.mjs";

export function AuditPage({ tenantId }) {
  const [query, setQuery] = useState({ sessionId: "", jobId: "", since: "", limit: "100" });
  const [kind, setKind] = useState("");
  const state = useLoad(
    () =>
      api(
        "GET",
        `/v1/tenants/${tenantId}/audit${qs({ ...query, since: query.since ? new Date(query.since).toISOString() : "" })}`,
      ),
    [tenantId, query],
  );
  const search = (e) => {
    e.preventDefault();
    const f = e.currentTarget.elements;
    setQuery({
      sessionId: f.sessionId.value.trim(),
      jobId: f.jobId.value.trim(),
      since: f.since.value,
      limit: f.limit.value,
    });
    setKind(f.kind.value.trim());
  };
  const entries = (state.data?.entries ?? []).filter((e) => !kind || e.kind.includes(kind));
  return html`<section aria-labelledby="h-audit">
    <h2 id="h-audit">Audit</h2>
    <form class="filters" onSubmit=${search} aria-label="Audit search">
      <label>Session <input name="sessionId" placeholder="ses_…" /></label>
      <label>Job <input name="jobId" placeholder="job_…" /></label>
      <label>Kind <input name="kind" placeholder="decision" /></label>
      <label>Since <input name="since" type="datetime-local" /></label>
      <label>Limit <input name="limit" type="number" min="1" max="1000" value="100" /></label>
      <button type="submit">Search</button>
    </form>
    <${Loading} state=${state}>
      <table class="list">
        <thead><tr><th>When</th><th>Kind</th><th>Session / job</th><th>By key</th><th>Details</th></tr></thead>
        <tbody>
          ${entries.map(
            (e) => html`<tr>
              <td data-label="When">${when(e.createdAt)}</td>
              <td data-label="Kind"><code>${e.kind}</code></td>
              <td data-label="Session / job">${e.sessionId ?? ""} ${e.jobId ? html`<${Link} href=${`/console/jobs/${e.jobId}`}>${e.jobId}</${Link}>` : null}</td>
              <td data-label="By key">${e.actorKeyId ?? ""}</td>
              <td data-label="Details" class="clip"><code>${JSON.stringify(e.data)}</code></td>
            </tr>`,
          )}
        </tbody>
      </table>
      ${entries.length === 0 ? html`<p class="empty">No entries match.</p>` : null}
    </${Loading}>
  </section>`;
}
