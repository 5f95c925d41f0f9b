import { createHash } from "node:crypto";

/**
 * HMAC-SHA256 written out from RFC 2104 on plain SHA-256, so the signing module is checked against a computation
 * that does not share its code path (it uses createHmac).
 */
export function referenceHmacSha256(key: Uint8Array, message: Uint8Array): Buffer {
  const blockSize = 64;
  const shortKey = key.length > blockSize ? createHash("sha256").update(key).digest() : Buffer.from(key);
  const block = new Uint8Array(blockSize);
  block.set(shortKey);
  const inner = createHash("sha256")
    .update(block.map((b) => b ^ 0x36))
    .update(message)
    .digest();
  return createHash("sha256")
    .update(block.map((b) => b ^ 0x5c))
    .update(inner)
    .digest();
}
