// One job: its decision, its output streamed as it runs (the job's SSE), its attempts, cancel.

import {
  api,
  contentText,
  html,
  Link,
  Loading,
  Status,
  StatusBadge,
  useAction,
  useEvents,
  useLoad,
  when,
} from "/console/assets/lib.js";
import { useState } from "/console/assets/vendor/hooks.mjs";

const FINAL = new Set(["succeeded", "failed", "denied", "cancelled", "interrupted"]);

export function JobPage({ jobId }) {
  const state = useLoad(() => api("GET", `/v1/jobs/${jobId}`).then((r) => r.job), [jobId]);
  const [stream, setStream] = useState({ status: undefined, output: "", result: undefined });
  const job = state.data;
  // A final status loaded (after a cancel, the reload can answer before the stream's last event,
  // and then closes the stream) wins over the last one the stream sent.
  const status = job && FINAL.has(job.status) ? job.status : (stream.status ?? job?.status);
  const done = status && FINAL.has(status) && (stream.result !== undefined || job?.result);
  const live = useEvents(job && !FINAL.has(job.status) ? `/v1/jobs/${jobId}/events` : null, {
    status: (d) => d?.status && setStream((s) => ({ ...s, status: d.status })),
    chunk: (d) => setStream((s) => ({ ...s, output: s.output + contentText(d?.content) })),
    result: (d, es) => {
      es.close();
      setStream((s) => ({ ...s, status: d?.status ?? s.status, result: d?.result ?? null }));
      state.reload();
    },
  });
  const cancel = useAction();
  const result = stream.result ?? job?.result;
  const output = result ? contentText(result.content) : stream.output;
  return html`<section aria-labelledby="h-job">
    <p><${Link} href="/console/jobs">← Jobs</${Link}></p>
    <h2 id="h-job">Job <code>${jobId}</code></h2>
    <${Loading} state=${state}>
      ${
        job
          ? html`<dl class="facts">
              <dt>Status</dt><dd><output aria-label="status" data-status=${status}><${StatusBadge} status=${status} /></output>
                ${!done && job && !FINAL.has(job.status) ? html` <span class="live" data-state=${live}>${live}</span>` : null}</dd>
              <dt>Tool</dt><dd><code>${job.tool}</code></dd>
              <dt>Session</dt><dd><${Link} href=${`/console/jobs?sessionId=${job.sessionId}`}>${job.sessionId}</${Link}></dd>
              <dt>Decision</dt><dd>${job.decision.behavior} — ${job.decision.message} ${job.decision.rule ? html`(<code>${job.decision.rule}</code>)` : null}</dd>
              <dt>Created</dt><dd>${when(job.createdAt)}</dd>
              ${job.approvedBy ? html`<dt>Answered by</dt><dd>${job.approvedBy}</dd>` : null}
            </dl>
            <h3>Input</h3>
            <pre class="input">${JSON.stringify(job.input, null, 2)}</pre>
            <h3>Output ${result ? html`<span class="muted small">(${result.state}${result.exitCode != null ? `, exit ${result.exitCode}` : ""})</span>` : null}</h3>
            <pre class="output" aria-label="output" aria-live="polite">${output || (done ? "(no output)" : "…")}</pre>
            ${
              !FINAL.has(status)
                ? html`<button type="button" class="danger" disabled=${cancel.busy}
                  onClick=${() => cancel.run(() => api("POST", `/v1/jobs/${jobId}/cancel`).then(() => state.reload()), "Cancel requested.")}>Cancel job</button>`
                : null
            }
            <${Status} error=${cancel.error} message=${cancel.message} />
            <h3>Attempts</h3>
            ${
              job.attempts?.length
                ? html`<table class="list"><thead><tr><th>#</th><th>Worker</th><th>Started</th><th>Finished</th><th>Outcome</th></tr></thead>
                  <tbody>${job.attempts.map(
                    (a) => html`<tr><td data-label="#">${a.n}</td><td data-label="Worker">${a.worker}</td>
                      <td data-label="Started">${when(a.startedAt)}</td><td data-label="Finished">${when(a.endedAt)}</td>
                      <td data-label="Outcome">${a.outcome ?? "running"}</td></tr>`,
                  )}</tbody></table>`
                : html`<p class="muted">Not started by a worker.</p>`
            }`
          : null
      }
    </${Loading}>
  </section>`;
}
