import { createHash } from "node:crypto";

const STYLE = `body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1d2430;background:#f7f8fa}
header{background:#1d2430;color:#fff;padding:16px 24px}main{max-width:980px;margin:0 auto;padding:16px 24px}
header h1{margin:0;font-size:20px}header a{color:#9cf}
.op{background:#fff;border:1px solid #dde1e7;border-radius:8px;margin:10px 0;padding:10px 14px}
.m{display:inline-block;min-width:64px;font-weight:700;text-transform:uppercase}
.get{color:#0a7}.post{color:#06c}.patch{color:#a60}.delete{color:#c22}
code,pre{font:13px ui-monospace,monospace}pre{background:#f0f2f5;padding:8px;border-radius:6px;overflow:auto}
details summary{cursor:pointer}`;

const SCRIPT = `fetch('/openapi.json').then(r=>r.json()).then(doc=>{
  const root=document.getElementById('root');root.textContent='';
  const p=document.createElement('p');p.textContent=doc.info.description||'';root.append(p);
  for(const [path,ops] of Object.entries(doc.paths||{})){for(const [method,op] of Object.entries(ops)){
    const d=document.createElement('details');d.className='op';
    const s=document.createElement('summary');
    const m=document.createElement('span');m.className='m '+method;m.textContent=method;
    const c=document.createElement('code');c.textContent=path;
    const t=document.createElement('span');t.textContent=op.summary||'';
    s.append(m,' ',c,' — ',t);d.append(s);
    const body=op.requestBody&&op.requestBody.content&&op.requestBody.content['application/json'];
    if(body){const pre=document.createElement('pre');pre.textContent='Request body: '+JSON.stringify(resolve(doc,body.schema),null,2);d.append(pre);}
    const codes=Object.keys(op.responses||{}).join(', ');const r=document.createElement('div');r.textContent='Responses: '+codes;d.append(r);
    root.append(d);}}
});
function resolve(doc,s){if(s&&s.$ref){return doc.components.schemas[s.$ref.split('/').pop()]}return s}`;

/**
 * The API docs page: renders /openapi.json in the browser with a few lines of inline script, so it works offline
 * (no CDN) and needs no build step. Text from the document is only ever set as text, never as markup.
 */
export const DOCS_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>partner-gateway API</title>
<style>${STYLE}</style></head>
<body><header><h1>partner-gateway API</h1>
<div>OpenAPI document: <a href="/openapi.json">/openapi.json</a></div></header>
<main id="root">Loading…</main>
<script>${SCRIPT}</script></body></html>`;

const hash = (text: string) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;

/**
 * The page may run its own inline script and style (by their hashes) and fetch the document from this origin; nothing
 * else — no other script, style, frame, form target, plugin or base URL — and no other site may frame it.
 */
export const DOCS_HEADERS: Record<string, string> = {
  "content-security-policy": [
    "default-src 'none'",
    `script-src ${hash(SCRIPT)}`,
    `style-src ${hash(STYLE)}`,
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; "),
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
};
