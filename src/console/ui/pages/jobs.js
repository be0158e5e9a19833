// Sessions and jobs: the tenant's sessions and a filtered, live list of its calls.

import {
  api,
  brief,
  html,
  Link,
  Loading,
  qs,
  StatusBadge,
  useInterval,
  useLoad,
  when,
} from "/console/assets/lib.js";
import { useState } from "/console/assets/vendor/hooks.mjs";

/** The job statuses, as the API's own OpenAPI document lists them (declared once, in the API). */
let statuses;
function jobStatuses() {
  statuses ??= fetch("/openapi.json")
    .then((r) => r.json())
    .then((doc) => doc.components?.schemas?.JobStatus?.enum ?? [])
    .catch(() => []);
  return statuses;
}

function Sessions({ tenantId, me, selected, onSelect }) {
  const state = useLoad(
    () =>
      api("GET", `/v1/sessions${qs({ limit: 50, tenantId: me.role === "admin" ? tenantId : undefined })}`),
    [tenantId],
  );
  return html`<section aria-labelledby="h-sessions">
    <h2 id="h-sessions">Sessions</h2>
    <${Loading} state=${state}>
      <ul class="chips">
        <li><button type="button" class=${selected ? "chip" : "chip on"} aria-pressed=${!selected} onClick=${() => onSelect("")}>All</button></li>
        ${(state.data?.items ?? []).map(
          (s) =>
            html`<li><button type="button" class=${selected === s.id ? "chip on" : "chip"} aria-pressed=${selected === s.id}
              onClick=${() => onSelect(s.id)} title=${`${s.mode} · ${s.cwd} · ${s.status}`}>${s.id} <span class="muted">${s.mode}</span></button></li>`,
        )}
      </ul>
    </${Loading}>
  </section>`;
}

export function JobsPage({ tenantId, me }) {
  const params = new URLSearchParams(location.search);
  const [filters, setFilters] = useState({
    sessionId: params.get("sessionId") ?? "",
    status: params.get("status") ?? "",
    tool: params.get("tool") ?? "",
  });
  const [live, setLive] = useState(true);
  const known = useLoad(jobStatuses, []);
  const [more, setMore] = useState([]);
  const query = { ...filters, limit: 50, tenantId: me.role === "admin" ? tenantId : undefined };
  const state = useLoad(() => {
    setMore([]);
    return api("GET", `/v1/jobs${qs(query)}`);
  }, [tenantId, filters.sessionId, filters.status, filters.tool]);
  useInterval(() => live && !state.loading && more.length === 0 && state.reload(), live ? 2000 : 0);
  const set = (k) => (e) => setFilters((f) => ({ ...f, [k]: e.currentTarget.value }));
  const next = more.length ? more[more.length - 1].nextCursor : state.data?.nextCursor;
  const loadMore = async () => {
    const page = await api("GET", `/v1/jobs${qs({ ...query, cursor: next })}`);
    setMore((m) => [...m, page]);
  };
  const items = [...(state.data?.items ?? []), ...more.flatMap((p) => p.items)];
  return html`<div>
    <${Sessions} tenantId=${tenantId} me=${me} selected=${filters.sessionId} onSelect=${(id) => setFilters((f) => ({ ...f, sessionId: id }))} />
    <section aria-labelledby="h-jobs">
      <h2 id="h-jobs">Jobs</h2>
      <form class="filters" onSubmit=${(e) => e.preventDefault()} aria-label="Job filters">
        <label>Session <input value=${filters.sessionId} onChange=${set("sessionId")} placeholder="ses_…" /></label>
        <label>Status
          <select value=${filters.status} onChange=${set("status")}>
            <option value="">any</option>
            ${(known.data ?? []).map((s) => html`<option value=${s}>${s.replaceAll("_", " ")}</option>`)}
          </select>
        </label>
        <label>Tool <input value=${filters.tool} onChange=${set("tool")} placeholder="Bash" /></label>
        <label class="inline"><input type="checkbox" checked=${live} onChange=${(e) => setLive(e.currentTarget.checked)} /> Live</label>
      </form>
      <${Loading} state=${state}>
        <table class="list">
          <thead><tr><th>Job</th><th>Tool</th><th>Input</th><th>Status</th><th>Created</th></tr></thead>
          <tbody>
            ${items.map(
              (j) => html`<tr data-job-id=${j.id}>
                <td data-label="Job"><${Link} href=${`/console/jobs/${j.id}`}>${j.id}</${Link}></td>
                <td data-label="Tool"><code>${j.tool}</code></td>
                <td data-label="Input" class="clip">${brief(j.input)}</td>
                <td data-label="Status"><${StatusBadge} status=${j.status} /></td>
                <td data-label="Created">${when(j.createdAt)}</td>
              </tr>`,
            )}
          </tbody>
        </table>
        ${items.length === 0 ? html`<p class="empty">No jobs match.</p>` : null}
        ${next ? html`<button type="button" class="secondary" onClick=${loadMore}>Load more</button>` : null}
      </${Loading}>
    </section>
  </div>`;
}
