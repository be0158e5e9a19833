// The tenant's rule set, with a dry run over its recent calls before saving; and its settings.

import { api, brief, html, Link, Loading, Status, useAction, useLoad } from "/console/assets/lib.js";
import { useEffect, useState } from "/console/assets/vendor/hooks.mjs";

const KINDS = [
  ["allow", "Allow", "run without asking"],
  ["ask", "Ask", "wait for a person's answer"],
  ["deny", "Deny", "never run"],
];

const lines = (text) =>
  text
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);

function Changes({ run }) {
  if (!run) return null;
  return html`<section aria-labelledby="h-dry" class="dry-run">
    <h3 id="h-dry">Dry run: ${run.changes.length} of ${run.checked} recent calls would be decided differently</h3>
    ${run.skipped ? html`<p class="muted small">${run.skipped} calls of ended sessions were not decided again.</p>` : null}
    ${
      run.changes.length
        ? html`<table class="list changes">
          <thead><tr><th>Job</th><th>Call</th><th>Now</th><th>With these rules</th></tr></thead>
          <tbody>
            ${run.changes.map(
              (c) => html`<tr data-job-id=${c.jobId}>
                <td data-label="Job"><${Link} href=${`/console/jobs/${c.jobId}`}>${c.jobId}</${Link}></td>
                <td data-label="Call"><code>${c.tool}</code> ${brief(c.input)}</td>
                <td data-label="Now"><span class=${`badge d-${c.before.behavior}`}>${c.before.behavior}</span>
                  <span class="muted small">${c.before.rule ?? c.before.reason ?? ""}</span></td>
                <td data-label="With these rules"><span class=${`badge d-${c.after.behavior}`}>${c.after.behavior}</span>
                  <span class="muted small">${c.after.rule ?? c.after.reason ?? ""}</span></td>
              </tr>`,
            )}
          </tbody>
        </table>`
        : html`<p class="empty">No recent call would be decided differently.</p>`
    }
  </section>`;
}

function Settings({ tenantId }) {
  const state = useLoad(() => api("GET", `/v1/tenants/${tenantId}/settings`), [tenantId]);
  const action = useAction();
  const save = (e) => {
    e.preventDefault();
    const f = e.currentTarget.elements;
    const form = {
      approvalTtlSeconds: Number(f.ttl.value),
      agentsMayApprove: f.agents.checked,
      allowBypass: f.bypass.checked,
      workingDirectoryRoots: f.roots.value
        .split("\n")
        .map((d) => d.trim())
        .filter(Boolean),
    };
    // Only what this form changed from the settings it loaded: a page left open while another
    // admin changed a field must not put that field back (the API keeps fields left out).
    const changed = Object.fromEntries(
      Object.entries(form).filter(([k, v]) => JSON.stringify(v) !== JSON.stringify(state.data[k])),
    );
    action.run(
      () => api("PUT", `/v1/tenants/${tenantId}/settings`, changed).then(() => state.reload()),
      "Settings saved.",
    );
  };
  return html`<section aria-labelledby="h-settings">
    <h2 id="h-settings">Settings</h2>
    <${Loading} state=${state}>
      ${
        state.data
          ? html`<form onSubmit=${save} class="grid-form" aria-label="Tenant settings">
            <label>Approval time to live (seconds) <input name="ttl" type="number" min="10" max="604800" value=${state.data.approvalTtlSeconds} /></label>
            <label class="inline"><input name="agents" type="checkbox" checked=${state.data.agentsMayApprove} /> Agents may answer approvals</label>
            <label class="inline"><input name="bypass" type="checkbox" checked=${state.data.allowBypass} /> Sessions may use bypass mode</label>
            <label>Where sessions may set working directories (one absolute path per line; accept_edits auto-allows writes inside them)
              <textarea name="roots" rows="3" value=${state.data.workingDirectoryRoots.join("\n")}></textarea></label>
            <button type="submit" disabled=${action.busy}>Save settings</button>
            <${Status} error=${action.error} message=${action.message} />
          </form>`
          : null
      }
    </${Loading}>
  </section>`;
}

export function RulesPage({ tenantId }) {
  const state = useLoad(() => api("GET", `/v1/tenants/${tenantId}/rules`), [tenantId]);
  const [draft, setDraft] = useState(null);
  const [run, setRun] = useState(null);
  const dry = useAction();
  const save = useAction();
  useEffect(() => {
    if (state.data)
      setDraft({
        allow: state.data.allow.join("\n"),
        ask: state.data.ask.join("\n"),
        deny: state.data.deny.join("\n"),
      });
  }, [state.data]);
  const body = () => ({ allow: lines(draft.allow), ask: lines(draft.ask), deny: lines(draft.deny) });
  const edit = (k) => (e) => {
    setDraft((d) => ({ ...d, [k]: e.currentTarget.value }));
    setRun(null);
  };
  const dryRun = () =>
    dry.run(async () => setRun(await api("POST", `/v1/tenants/${tenantId}/rules/dry-run`, body())));
  const submit = (e) => {
    e.preventDefault();
    save.run(
      () => api("PUT", `/v1/tenants/${tenantId}/rules`, body()).then(() => state.reload()),
      "Rules saved.",
    );
  };
  return html`<div>
    <section aria-labelledby="h-rules">
      <h2 id="h-rules">Rules</h2>
      <p class="muted">One rule a line, e.g. <code>Bash(npm test:*)</code>, <code>Read(/workspace/**)</code>, <code>WebFetch(domain:example.com)</code>.
        Deny wins over ask, ask over allow. Try a change with <em>Dry run</em> before saving it.</p>
      <${Loading} state=${state}>
        ${
          draft
            ? html`<form onSubmit=${submit} aria-label="Rule set">
              <div class="rule-columns">
                ${KINDS.map(
                  ([
                    k,
                    label,
                    hint,
                  ]) => html`<label class="rule-box">${label} <span class="muted small">${hint}</span>
                    <textarea name=${k} rows="8" spellcheck="false" value=${draft[k]} onInput=${edit(k)}></textarea></label>`,
                )}
              </div>
              <div class="actions">
                <button type="button" class="secondary" onClick=${dryRun} disabled=${dry.busy}>Dry run</button>
                <button type="submit" disabled=${save.busy}>Save rules</button>
              </div>
              <${Status} error=${dry.error ?? save.error} message=${save.message} />
            </form>`
            : null
        }
      </${Loading}>
      <${Changes} run=${run} />
    </section>
    <${Settings} tenantId=${tenantId} />
  </div>`;
}
