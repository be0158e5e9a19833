// The tenant's skills: list, upload a SKILL.md, delete.
import { api, html, Loading, Status, useAction, useLoad, when } from "/console/assets/lib.js";

const TEMPLATE =
  "---\nname: my-skill\ndescription: What it is for and when to use it\n---\n\nInstructions…\n";

export function SkillsPage({ tenantId }) {
  const state = useLoad(() => api("GET", `/v1/tenants/${tenantId}/skills`), [tenantId]);
  const action = useAction();
  const upload = (e) => {
    e.preventDefault();
    const text = e.currentTarget.elements.skill.value;
    action.run(
      () =>
        api("POST", `/v1/tenants/${tenantId}/skills`, { files: { "SKILL.md": text } }).then(() =>
          state.reload(),
        ),
      "Skill uploaded.",
    );
  };
  const remove = (name) => {
    if (!confirm(`Delete the skill ${name}?`)) return;
    action.run(
      () => api("DELETE", `/v1/tenants/${tenantId}/skills/${name}`).then(() => state.reload()),
      "Skill deleted.",
    );
  };
  return html`<section aria-labelledby="h-skills">
    <h2 id="h-skills">Skills</h2>
    <${Loading} state=${state}>
      <table class="list">
        <thead><tr><th>Name</th><th>Description</th><th>Files</th><th>Uploaded</th><th><span class="sr-only">Actions</span></th></tr></thead>
        <tbody>
          ${(state.data?.skills ?? []).map(
            (s) => html`<tr>
              <td data-label="Name"><code>${s.name}</code></td>
              <td data-label="Description">${s.description}</td>
              <td data-label="Files">${s.fileCount} (${s.sizeBytes} B)</td>
              <td data-label="Uploaded">${when(s.createdAt)}</td>
              <td><button type="button" class="danger" onClick=${() => remove(s.name)} aria-label=${`Delete ${s.name}`}>Delete</button></td>
            </tr>`,
          )}
        </tbody>
      </table>
      ${state.data?.skills?.length === 0 ? html`<p class="empty">No skills yet.</p>` : null}
    </${Loading}>
    <h3>Upload a skill</h3>
    <form onSubmit=${upload} aria-label="Upload a skill">
      <label for="skill">SKILL.md <span class="muted small">(larger skills: POST a .tar.gz to the API)</span></label>
      <textarea id="skill" name="skill" rows="8" spellcheck="false">${TEMPLATE}</textarea>
      <button type="submit" disabled=${action.busy}>Upload</button>
    </form>
    <${Status} error=${action.error} message=${action.message} />
  </section>`;
}
