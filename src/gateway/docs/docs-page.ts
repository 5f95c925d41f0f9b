/**
 * The API docs page: renders /openapi.json in the browser with a few lines of inline script, so it works offline
 * (no CDN) and needs no build step.
 */
export function docsPage(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>partner-gateway API</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1d2430;background:#f7f8fa}
header{background:#1d2430;color:#fff;padding:16px 24px}main{max-width:980px;margin:0 auto;padding:16px 24px}
.op{background:#fff;border:1px solid #dde1e7;border-radius:8px;margin:10px 0;padding:10px 14px}
.m{display:inline-block;min-width:64px;font-weight:700;text-transform:uppercase}
.get{color:#0a7}.post{color:#06c}.patch{color:#a60}.delete{color:#c22}
code,pre{font:13px ui-monospace,monospace}pre{background:#f0f2f5;padding:8px;border-radius:6px;overflow:auto}
details summary{cursor:pointer}
</style></head>
<body><header><h1 style="margin:0;font-size:20px">partner-gateway API</h1>
<div>OpenAPI document: <a style="color:#9cf" href="/openapi.json">/openapi.json</a></div></header>
<main id="root">Loading…</main>
<script>
fetch('/openapi.json').then(r=>r.json()).then(doc=>{
  const root=document.getElementById('root');root.textContent='';
  const p=document.createElement('p');p.textContent=doc.info.description||'';root.append(p);
  for(const [path,ops] of Object.entries(doc.paths||{})){for(const [method,op] of Object.entries(ops)){
    const d=document.createElement('details');d.className='op';
    const s=document.createElement('summary');
    s.innerHTML='<span class="m '+method+'"></span> <code></code> — <span></span>';
    s.children[0].textContent=method;s.children[1].textContent=path;s.children[2].textContent=op.summary||'';
    d.append(s);
    const body=op.requestBody&&op.requestBody.content&&op.requestBody.content['application/json'];
    if(body){const pre=document.createElement('pre');pre.textContent='Request body: '+JSON.stringify(resolve(doc,body.schema),null,2);d.append(pre);}
    const codes=Object.keys(op.responses||{}).join(', ');const r=document.createElement('div');r.textContent='Responses: '+codes;d.append(r);
    root.append(d);}}
});
function resolve(doc,s){if(s&&s.$ref){return doc.components.schemas[s.$ref.split('/').pop()]}return s}
</script></body></html>`;
}
