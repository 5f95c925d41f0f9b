/**
 * The console's one HTML page: the bundle routes inside it (history API, paths under /console). No inline script
 * or style, so the content security policy can forbid both.
 */
export function consoleShell(assets: { js: string; css: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Owner console · partner-gateway</title>
<link rel="stylesheet" href="${assets.css}">
<script type="module" src="${assets.js}"></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<div id="app"><p class="loading" role="status">Loading the console…</p></div>
<noscript>The owner console needs JavaScript. The owner API works without it: see <a href="/docs">/docs</a>.</noscript>
</body>
</html>`;
}

/** Same-origin only: the bundle, its stylesheet and the owner API. CodeMirror sets element styles from script. */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");
