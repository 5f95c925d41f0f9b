import type { PostingDocs } from "./posting-docs.js";

type Operation = PostingDocs["operations"][number];
type Answer = PostingDocs["status"]["answers"][number];

/** Every value of the page is text of someone else's (a key's name, a sample's payload): escaped, always. */
function esc(value: unknown): string {
  return String(value)
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

const code = (value: unknown) => `<code>${esc(value)}</code>`;
const NEED = { required: "yes", oneOf: "one of these", optional: "no" } as const;
const STYLE = `body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1d2430}
table{border-collapse:collapse;width:100%;margin:.5rem 0 1.5rem}th,td{border:1px solid #d5dae1;padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:#f3f5f8}code,pre{font:13px ui-monospace,monospace;background:#f3f5f8;border-radius:3px}code{padding:0 .2rem}pre{padding:.75rem;overflow:auto}
.muted{color:#5b6573}`;

/**
 * The page the owner sends to the vendor (D-325): one self-contained HTML document, no script and nothing fetched,
 * rendered from the same posting docs the owner API answers, so the two cannot differ.
 */
export function renderPostingPage(docs: PostingDocs): string {
  const { key } = docs;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Posting to the gateway: ${esc(key.name)}</title><style>${STYLE}</style></head><body>
<h1>Posting to the gateway: ${esc(key.name)}</h1>
<p class="muted">Generated ${esc(docs.generatedAt)} from the mapping bound to your key (${code(`${key.keyPrefix}…`)}, ${esc(key.environment)}).
If you are told the mapping changed, ask for a new copy of this page.</p>
<h2>Where to send</h2>
<table><tr><th>What</th><th>Request</th><th>Scope of your key</th></tr>
${docs.operations.map((op) => `<tr><td>${esc(op.kind === "lead" ? "a lead" : "an appointment")}</td><td>${code(`${op.method} ${op.url}`)}</td><td>${code(op.scope)}</td></tr>`).join("\n")}
<tr><td>the status of a submission</td><td>${code(`${docs.status.method} ${docs.status.url}`)}</td><td>any</td></tr></table>
<h2>How to authenticate</h2>
<p>Send your key in the ${code(docs.authentication.header)} header of every request: ${esc(docs.authentication.value)}.
Keep it secret: it is not in this page, and nobody at the gateway will ask you for it.</p>
${docs.operations.map(operationSection).join("\n")}
<h2>Answers</h2>
<p>Bodies are JSON. An error's body is ${code('{"error": "…"}')} with the fields named below; ${code("202")} answers ${code('{"submissionId", "status": "queued"}')} and a ${code("Location")} header.</p>
${answersTable(docs.operations[0]?.answers ?? [])}
<h3>Status of a submission</h3>
${answersTable(docs.status.answers)}
<h2>Rate limits</h2>
${limitsSection(docs)}
</body></html>
`;
}

function operationSection(op: Operation): string {
  const title = op.kind === "lead" ? "A lead" : "An appointment";
  const mapped = op.profile
    ? `<p>Send your own format: the gateway maps it to the platform's record (mapping version ${esc(op.profile.version)}).</p>`
    : `<p>Send the record itself, with the field names below.</p>`;
  const fields = op.fields
    .map(
      (f) => `<tr><td>${code(f.path)}${f.where ? `<div class="muted">the item where ${code(f.where)}</div>` : ""}</td>
<td>${esc(f.types.join(" or ") || "—")}${f.readAs ? `<div class="muted">${esc(f.readAs)}</div>` : ""}</td>
<td>${esc(NEED[f.need])}${f.alternatives ? `<div class="muted">or ${f.alternatives.map(code).join(", ")}</div>` : ""}</td>
<td>${f.feeds.map(code).join(", ")}</td></tr>`,
    )
    .join("\n");
  const record = op.record
    .map(
      (r) =>
        `<tr><td>${code(r.field)}</td><td>${esc(r.type)}</td><td>${r.required ? "yes" : "no"}</td><td>${esc(r.rules.join("; "))}</td></tr>`,
    )
    .join("\n");
  const headers = op.headers
    .map((h) => `<tr><td>${code(h.name)}</td><td>${h.required ? "yes" : "no"}</td><td>${esc(h.description)}</td></tr>`)
    .join("\n");
  return `<h2>${title}: ${code(`${op.method} ${op.path}`)}</h2>
${mapped}
<h3>The fields read</h3>
<table><tr><th>Field of your body</th><th>Type</th><th>Needed</th><th>Becomes</th></tr>
${fields}</table>
<h3>What the record must satisfy</h3>
<p class="muted">A body whose record breaks one of these is answered ${code("400")} naming the field.</p>
<table><tr><th>Field</th><th>Type</th><th>Required</th><th>Rules</th></tr>
${record}</table>
<h3>Headers</h3>
<table><tr><th>Header</th><th>Required</th><th>What</th></tr>
${headers}</table>
${op.example ? `<h3>Example body</h3>\n<pre>${esc(JSON.stringify(op.example.body, null, 2))}</pre>` : ""}`;
}

function answersTable(answers: Answer[]): string {
  const rows = answers
    .map(
      (a) =>
        `<tr><td>${code(a.status)}</td><td>${esc(a.when)}${a.waitedOnly ? ' <span class="muted">(a request that waits only)</span>' : ""}</td><td>${esc(a.retry)}${a.headers.length ? `<div class="muted">${a.headers.map(code).join(", ")}</div>` : ""}</td></tr>`,
    )
    .join("\n");
  return `<table><tr><th>Status</th><th>When</th><th>Retry</th></tr>\n${rows}</table>`;
}

function limitsSection(docs: PostingDocs): string {
  const { intake, forwarding } = docs.rateLimits;
  const per = (rule: { limit: number; windowSeconds: number }) =>
    `${esc(rule.limit)} per ${rule.windowSeconds === 60 ? "minute" : `${esc(rule.windowSeconds)} s`}`;
  return `<ul>
<li>The gateway takes up to ${esc(intake.ratePerSecond)} requests a second from your key, in bursts of up to ${esc(intake.burst)}; past that it answers ${code("429")} with ${code("retry-after")}.</li>
<li>What it accepted reaches the platform at no more than ${per(forwarding.perCredential)} for your key's credential, ${per(forwarding.perCompany)} for the company and ${per(forwarding.egress)} from the gateway: more waits in the gateway's queue, in order, and is not refused.</li>
</ul>`;
}
