// Tool groups and external tools: each is one JSON document the API replaces as a whole.

import { api, html, Loading, Status, useAction, useLoad } from "/console/assets/lib.js";
import { useEffect, useState } from "/console/assets/vendor/hooks.mjs";

function JsonDocument({ id, title, hint, url, example }) {
  const state = useLoad(() => api("GET", url), [url]);
  const [text, setText] = useState("");
  const action = useAction();
  useEffect(() => {
    if (state.data !== undefined) setText(JSON.stringify(state.data, null, 2));
  }, [state.data]);
  const save = (e) => {
    e.preventDefault();
    let body;
    try {
      body = JSON.parse(text);
    } catch (err) {
      action.run(() => Promise.reject(new Error(`not JSON: ${err.message}`)));
      return;
    }
    action.run(() => api("PUT", url, body).then(() => state.reload()), "Saved.");
  };
  return html`<section aria-labelledby=${`h-${id}`}>
    <h2 id=${`h-${id}`}>${title}</h2>
    <p class="muted">${hint}</p>
    <${Loading} state=${state}>
      <form onSubmit=${save} aria-label=${title}>
        <label for=${`doc-${id}`}>${title} (JSON)</label>
        <textarea id=${`doc-${id}`} rows="16" spellcheck="false" value=${text} onInput=${(e) => setText(e.currentTarget.value)}></textarea>
        <div class="actions">
          <button type="submit" disabled=${action.busy}>Save</button>
          <button type="button" class="secondary" onClick=${() => setText(JSON.stringify(example, null, 2))}>Insert an example</button>
        </div>
        <${Status} error=${action.error} message=${action.message} />
      </form>
    </${Loading}>
  </section>`;
}

export function ToolGroupsPage({ tenantId }) {
  return html`<${JsonDocument}
    id="groups"
    title="Tool groups"
    hint="Groups of tools an agent turns on with reset_tools; each names its tools, skills and MCP servers."
    url=${`/v1/tenants/${tenantId}/tool-groups`}
    example=${[{ name: "web", description: "Fetch and search the web", tools: ["WebFetch"] }]}
  />`;
}

export function ExternalToolsPage({ tenantId }) {
  return html`<${JsonDocument}
    id="external"
    title="External tools"
    hint="Tools your client runs: their calls are decided like any other, then wait for POST /v1/jobs/{jid}/external-result."
    url=${`/v1/tenants/${tenantId}/tools`}
    example=${[{ name: "lookup_customer", description: "Finds a customer by email", inputSchema: { type: "object", properties: { email: { type: "string" } }, required: ["email"] }, readOnly: true }]}
  />`;
}
