/** A self-contained readable reference rendered from the OpenAPI document (no CDN: no network). */

export function docsPage(specUrl: string): string {
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>Toolshed API</title>
<style>body{font:14px system-ui;margin:2em;max-width:960px}code{background:#f3f3f3;padding:1px 4px}
h2{margin-top:1.5em}.op{border-top:1px solid #ddd;padding:.5em 0}.m{font-weight:bold;text-transform:uppercase;width:5em;display:inline-block}</style>
</head><body><h1>Toolshed API (v1)</h1><p>Machine-readable: <a href="${specUrl}">${specUrl}</a></p><div id="ops">loading…</div>
<script>
const esc=(t)=>String(t).replace(/[&<>"]/g,(ch)=>({"&":"&amp;","<":"&lt;",">":"&gt;",'"':"&quot;"})[ch]);
fetch(${JSON.stringify(specUrl)}).then(r=>r.json()).then(doc=>{
  const out=[];
  for (const [path,ops] of Object.entries(doc.paths||{})) for (const [m,op] of Object.entries(ops)) {
    const codes=Object.entries(op.responses||{}).map(([k,v])=>k+" "+(v.description||"")).join("; ");
    const about=op.description?'<br>'+esc(op.description):'';
    out.push('<div class="op"><span class="m">'+m+'</span><code>'+path+'</code>'+about+'<br><small>'+esc(codes)+'</small></div>');
  }
  document.getElementById("ops").innerHTML=out.join("");
});
</script></body></html>`;
}
