import { createHmac } from "node:crypto";

/**
 * A vendor's request as the vendor makes it, from its preset's proof declaration alone (hooks contract, "Proof
 * declarations"). Written here from the declaration's documented meaning, not from src/gateway/connections/proofs, so
 * that the conformance suite does not trust the code it checks: each `{{signature}}` and `{{timestamp}}` of a sample's
 * headers is filled exactly as the vendor computes it.
 */

export type ProofDeclared =
  | { type: "none" }
  | {
      type: "hmac";
      algorithm?: "sha256" | "sha1";
      secret: string;
      signature: { header: string; prefix?: string; encoding: "hex" | "base64"; element?: string };
      /** `{body}` the raw bytes, `{timestamp}`, `{method}`, `{url}`, `{path}`, `{query}`, literal text between. */
      signed?: string;
      timestamp?: { header: string; element?: string; unit: "s" | "ms"; toleranceSeconds: number };
    }
  | { type: "secret"; secret: string; in: "header" | "query" | "body"; name: string; prefix?: string }
  | { type: "basic"; username: string; password: string };

/** A sample's request as its file holds it. */
export interface DocumentedRequest {
  method: string;
  headers: Record<string, string>;
  query?: Record<string, string | string[]>;
  body: string;
}

/** What goes on the wire. */
export interface WireRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * The documented request to `hookUrl` as the vendor sends it at `nowMs`, signed with `secrets` (the connection's
 * values): the query the sample documents, its headers with the placeholders filled, its body's bytes as written.
 */
export function vendorRequest(
  proof: ProofDeclared,
  request: DocumentedRequest,
  hookUrl: string,
  secrets: Readonly<Record<string, string>>,
  nowMs: number,
): WireRequest {
  const url = new URL(hookUrl);
  for (const [name, value] of Object.entries(request.query ?? {})) {
    for (const one of Array.isArray(value) ? value : [value]) url.searchParams.append(name, one);
  }
  if (proof.type === "secret" && proof.in === "query") {
    url.searchParams.set(proof.name, `${proof.prefix ?? ""}${secretOf(secrets, proof.secret)}`);
  }
  const body = Buffer.from(request.body, "utf8");
  const timestamp = proof.type === "hmac" && proof.timestamp?.unit === "ms" ? nowMs : Math.floor(nowMs / 1000);
  const signature = signatureOf(proof, { method: request.method, url, body, timestamp }, secrets);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    headers[name] = value.replaceAll("{{timestamp}}", String(timestamp)).replaceAll("{{signature}}", signature);
  }
  return { method: request.method, url: url.toString(), headers, body };
}

/** What `{{signature}}` stands for under each kind of proof. */
function signatureOf(
  proof: ProofDeclared,
  request: { method: string; url: URL; body: Buffer; timestamp: number },
  secrets: Readonly<Record<string, string>>,
): string {
  switch (proof.type) {
    case "none":
      return "";
    case "secret":
      return `${proof.prefix ?? ""}${secretOf(secrets, proof.secret)}`;
    case "basic": {
      // RFC 7617: user-id ":" password, base64.
      const pair = `${secretOf(secrets, proof.username)}:${secretOf(secrets, proof.password)}`;
      return `Basic ${Buffer.from(pair, "utf8").toString("base64")}`;
    }
    case "hmac": {
      const mac = createHmac(proof.algorithm ?? "sha256", secretOf(secrets, proof.secret));
      for (const part of signedParts(proof.signed ?? "{body}", request)) mac.update(part);
      return `${proof.signature.prefix ?? ""}${mac.digest(proof.signature.encoding)}`;
    }
  }
}

/** The signed template's parts in order: literal text, and each `{name}` as the request gives it. */
function signedParts(
  template: string,
  request: { method: string; url: URL; body: Buffer; timestamp: number },
): Array<string | Buffer> {
  const values: Record<string, string | Buffer> = {
    body: request.body,
    timestamp: String(request.timestamp),
    method: request.method,
    url: request.url.toString(),
    path: request.url.pathname,
    query: request.url.search.replace(/^\?/, ""),
  };
  const parts: Array<string | Buffer> = [];
  let rest = template;
  for (let match = /\{(\w+)\}/.exec(rest); match; match = /\{(\w+)\}/.exec(rest)) {
    const value = values[match[1] ?? ""];
    if (value === undefined) throw new Error(`signed: no {${match[1]}} in the contract`);
    parts.push(rest.slice(0, match.index), value);
    rest = rest.slice(match.index + match[0].length);
  }
  parts.push(rest);
  return parts;
}

function secretOf(secrets: Readonly<Record<string, string>>, name: string): string {
  const value = secrets[name];
  if (value === undefined) throw new Error(`no value for the secret ${name}`);
  return value;
}
