import type { PresetUnderTest } from "./conformance-bench.js";
import { type DocumentedRequest, vendorRequest, type WireRequest } from "./vendor-signer.js";

/** A request that must be refused, and the refusal's code (docs/connections.md, "Proofs and handshakes"). */
export interface Forged {
  what: string;
  wire: WireRequest;
  code: "proof_missing" | "proof_mismatch" | "proof_stale";
}

/**
 * What a caller without the vendor's secret, or replaying an old request, can send, for the preset's proof: another
 * secret's signature (or key, or password), none at all, the right signature over one changed byte of the body, and —
 * where the proof signs a time — a signature made too long ago or too far ahead. Empty for a preset whose only proof
 * is its hook URL's token.
 */
export function forgedRequests(preset: PresetUnderTest, request: DocumentedRequest, hookUrl: string): Forged[] {
  const { proof } = preset.manifest;
  const now = Date.now();
  const sign = (secrets: Record<string, string>, at = now) => vendorRequest(proof, request, hookUrl, secrets, at);
  const other = (name: string) => ({ ...preset.secrets, [name]: `${preset.secrets[name] ?? ""}-not-it` });
  switch (proof.type) {
    case "none":
      return [];
    case "hmac": {
      const forged: Forged[] = [
        { what: "another secret's signature", wire: sign(other(proof.secret)), code: "proof_mismatch" },
        { what: "no signature", wire: without(sign(preset.secrets), proof.signature.header), code: "proof_missing" },
        { what: "one byte of the body changed", wire: oneByteChanged(sign(preset.secrets)), code: "proof_mismatch" },
      ];
      const timestamp = proof.timestamp;
      if (timestamp) {
        const beyond = (timestamp.toleranceSeconds + 60) * 1_000;
        forged.push(
          { what: "a stale timestamp", wire: sign(preset.secrets, now - beyond), code: "proof_stale" },
          { what: "a future timestamp", wire: sign(preset.secrets, now + beyond), code: "proof_stale" },
        );
      }
      return forged;
    }
    case "basic":
      return [
        { what: "another password", wire: sign(other(proof.password)), code: "proof_mismatch" },
        { what: "another user name", wire: sign(other(proof.username)), code: "proof_mismatch" },
        { what: "no credentials", wire: without(sign(preset.secrets), "authorization"), code: "proof_missing" },
      ];
    case "secret": {
      const right = sign(preset.secrets);
      if (proof.in === "header") {
        return [
          { what: "another key", wire: sign(other(proof.secret)), code: "proof_mismatch" },
          { what: "no key", wire: without(right, proof.name), code: "proof_missing" },
        ];
      }
      if (proof.in === "query") {
        return [
          { what: "another key", wire: sign(other(proof.secret)), code: "proof_mismatch" },
          { what: "no key", wire: { ...right, url: withoutParam(right.url, proof.name) }, code: "proof_missing" },
        ];
      }
      // The key inside the body (Google's google_key): the documented body carries the connection's value.
      const key = preset.secrets[proof.secret] ?? "";
      const text = right.body.toString("utf8");
      if (!text.includes(JSON.stringify(key))) throw new Error(`${preset.id}: the body does not carry ${proof.name}`);
      return [
        {
          what: "another key in the body",
          wire: { ...right, body: Buffer.from(text.replace(JSON.stringify(key), JSON.stringify(`${key}-not-it`))) },
          code: "proof_mismatch",
        },
        {
          what: "no key in the body",
          wire: { ...right, body: Buffer.from(JSON.stringify(withoutPath(JSON.parse(text), proof.name))) },
          code: "proof_missing",
        },
      ];
    }
  }
}

function without(wire: WireRequest, header: string): WireRequest {
  const headers = Object.fromEntries(
    Object.entries(wire.headers).filter(([name]) => name.toLowerCase() !== header.toLowerCase()),
  );
  return { ...wire, headers };
}

function withoutParam(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.searchParams.delete(name);
  return parsed.toString();
}

function withoutPath(tree: Record<string, unknown>, dotted: string): Record<string, unknown> {
  const [name = "", ...rest] = dotted.split(".");
  const { [name]: value, ...others } = tree;
  if (rest.length === 0 || value === null || typeof value !== "object") return others;
  return { ...others, [name]: withoutPath(value as Record<string, unknown>, rest.join(".")) };
}

/**
 * The body signed, then one byte changed: a letter in the middle of it becomes the next one, so the body still parses
 * (a letter of a value or a name) and only the signature can tell.
 */
function oneByteChanged(wire: WireRequest): WireRequest {
  const body = Buffer.from(wire.body);
  const middle = Math.floor(body.length / 2);
  for (let i = middle; i < body.length; i++) {
    const byte = body[i] ?? 0;
    if (byte >= 0x61 && byte < 0x7a) {
      body[i] = byte + 1;
      return { ...wire, body };
    }
  }
  throw new Error("no lower-case letter in the second half of the body");
}
