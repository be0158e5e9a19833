// The approvals inbox, live: calls that wait for an answer, their decision, the suggested rules.

import {
  api,
  brief,
  html,
  Link,
  qs,
  remaining,
  Status,
  useAction,
  useEvents,
  useInterval,
} from "/console/assets/lib.js";
import { useEffect, useRef, useState } from "/console/assets/vendor/hooks.mjs";

function ApprovalRow({ item, now, onAnswered }) {
  const { job, decision, expiresAt } = item;
  const suggestions = decision?.suggestions ?? job.decision?.suggestions ?? [];
  const action = useAction();
  const answer = (approve, remember) =>
    action.run(async () => {
      const body = remember ? { approve, remember: suggestions } : { approve };
      const r = await api("POST", `/v1/jobs/${job.id}/approval`, body);
      onAnswered(job.id, r.job);
      return r;
    });
  const left = remaining(expiresAt ?? job.approvalExpiresAt, now);
  return html`<article class="card approval" data-job-id=${job.id} aria-labelledby=${`t-${job.id}`}>
    <header>
      <h3 id=${`t-${job.id}`}><code>${job.tool}</code> <span class="muted small">${job.id}</span></h3>
      <span class=${left === "expired" ? "countdown expired" : "countdown"} title="until the call is denied unanswered"
        >${left === "expired" ? "expired" : html`expires in <time datetime=${expiresAt ?? job.approvalExpiresAt}>${left}</time>`}</span
      >
    </header>
    <pre class="input" aria-label="input">${brief(job.input)}</pre>
    <dl class="facts">
      <dt>Session</dt><dd><${Link} href=${`/console/jobs?sessionId=${job.sessionId}`}>${job.sessionId}</${Link}></dd>
      <dt>Decision</dt><dd>${(decision ?? job.decision)?.message}</dd>
      <dt>Reason</dt><dd>${(decision ?? job.decision)?.reason ?? "—"}</dd>
      <dt>Suggested rules</dt>
      <dd>${suggestions.length ? html`<ul class="rules">${suggestions.map((s) => html`<li><code>${s}</code></li>`)}</ul>` : "none"}</dd>
    </dl>
    <div class="actions">
      <button type="button" onClick=${() => answer(true)} disabled=${action.busy} aria-label=${`Approve ${job.id}`}>Approve</button>
      <button type="button" class="danger" onClick=${() => answer(false)} disabled=${action.busy} aria-label=${`Deny ${job.id}`}>
        Deny
      </button>
      ${
        suggestions.length
          ? html`<button type="button" class="secondary" onClick=${() => answer(true, true)} disabled=${action.busy}
            aria-label=${`Approve ${job.id} and remember its suggested rules`}>Approve and remember</button>`
          : null
      }
    </div>
    <${Status} error=${action.error} />
  </article>`;
}

export function ApprovalsPage({ tenantId, me }) {
  const [items, setItems] = useState(() => new Map());
  const [answered, setAnswered] = useState([]);
  const [now, setNow] = useState(Date.now());
  useInterval(() => setNow(Date.now()), 1000);
  const put = (item) =>
    setItems((m) => {
      const next = new Map(m);
      next.set(item.job.id, item);
      return next;
    });
  const drop = (jobId) =>
    setItems((m) => {
      if (!m.has(jobId)) return m;
      const next = new Map(m);
      next.delete(jobId);
      return next;
    });
  // The stream sends every waiting call at connect, then each new one and each answer.
  const tenantQuery = me.role === "admin" ? qs({ tenantId }) : "";
  const live = useEvents(`/v1/approvals/events${tenantQuery}`, {
    approval: (item) => item?.job && put(item),
    resolved: (r) => r?.jobId && drop(r.jobId),
  });
  // The list as it is now: at first, and every second while the stream is down (a reconnect).
  // While the stream is live it is the truth: a list read before the stream's latest events must
  // not land after them and replace them (a call shown by the stream would vanish until the next).
  const liveNow = useRef(live);
  liveNow.current = live;
  const fetchAll = () =>
    api("GET", `/v1/approvals${qs({ limit: 200, tenantId: me.role === "admin" ? tenantId : undefined })}`)
      .then((r) => {
        if (liveNow.current !== "live") setItems(new Map((r.items ?? []).map((item) => [item.job.id, item])));
      })
      .catch(() => undefined);
  useEffect(() => {
    setItems(new Map());
    fetchAll();
  }, [tenantId]);
  useInterval(fetchAll, live === "live" ? 0 : 1000);
  const onAnswered = (jobId, job) => {
    drop(jobId);
    setAnswered((a) => [job, ...a].slice(0, 10));
  };
  const list = [...items.values()].sort((a, b) => (a.job.createdAt < b.job.createdAt ? 1 : -1));
  return html`<section aria-labelledby="h-approvals">
    <h2 id="h-approvals">Approvals <span class="live" data-state=${live} role="status">${live === "live" ? "live" : live === "closed" ? "polling" : live}</span></h2>
    <p class="muted">Calls the policy sent to a person. Each is denied by itself when its time runs out.</p>
    <div class="inbox" aria-live="polite">
      ${list.length === 0 ? html`<p class="empty">Nothing waits for an answer.</p>` : null}
      ${list.map((item) => html`<${ApprovalRow} key=${item.job.id} item=${item} now=${now} onAnswered=${onAnswered} />`)}
    </div>
    ${
      answered.length
        ? html`<h3>Answered here</h3>
          <ul class="answered">
            ${answered.map(
              (j) =>
                html`<li><${Link} href=${`/console/jobs/${j.id}`}>${j.id}</${Link}> <code>${j.tool}</code> → ${j.status}</li>`,
            )}
          </ul>`
        : null
    }
  </section>`;
}
