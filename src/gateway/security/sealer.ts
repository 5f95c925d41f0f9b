import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/**
 * AES-256-GCM for secrets the gateway must use again (upstream credentials, subscription secrets), as opposed to
 * secrets it only verifies (digests). The stored form is `v1.<iv>.<tag>.<ciphertext>`, base64url parts; the record id
 * is bound as associated data so a sealed value copied onto another row does not open.
 */
/** Opened values `openKept` keeps at most. */
const KEPT_CAPACITY = 1_000;

export class Sealer {
  readonly #key: Buffer;
  /** What `openKept` opened, by sealed text and record: bounded, emptied when full. */
  readonly #kept = new Map<string, string>();

  constructor(masterKey: Buffer) {
    if (masterKey.length !== 32) throw new Error("the master key must be 32 bytes");
    this.#key = masterKey;
  }

  seal(plaintext: string, recordId: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.#key, iv);
    cipher.setAAD(Buffer.from(recordId, "utf8"));
    const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    const tag = cipher.getAuthTag();
    return ["v1", iv, tag, ciphertext].map((p) => (typeof p === "string" ? p : p.toString("base64url"))).join(".");
  }

  /**
   * `open`, kept for the next call with the same sealed text: a sealed value is a fresh random one per write, so it
   * keys a small cache safely (a rotated secret is another sealed text). For values opened on every request or
   * delivery (a webhook subscription's secret ring).
   */
  openKept(sealed: string, recordId: string): string {
    const key = `${recordId}\u0000${sealed}`;
    const hit = this.#kept.get(key);
    if (hit !== undefined) return hit;
    const plain = this.open(sealed, recordId);
    if (this.#kept.size >= KEPT_CAPACITY) this.#kept.clear();
    this.#kept.set(key, plain);
    return plain;
  }

  open(sealed: string, recordId: string): string {
    const [version, iv, tag, ciphertext] = sealed.split(".");
    if (version !== "v1" || !iv || !tag || ciphertext === undefined) throw new Error("unrecognised sealed value");
    const decipher = createDecipheriv("aes-256-gcm", this.#key, Buffer.from(iv, "base64url"));
    decipher.setAAD(Buffer.from(recordId, "utf8"));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()]).toString("utf8");
  }
}

/** Parses a 32-byte master key given as 64 hex digits or base64/base64url. */
export function parseMasterKey(value: string): Buffer {
  const trimmed = value.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(trimmed) ? Buffer.from(trimmed, "hex") : Buffer.from(trimmed, "base64url");
  if (key.length !== 32) throw new Error("MASTER_KEY must be 32 bytes, as 64 hex digits or base64");
  return key;
}
