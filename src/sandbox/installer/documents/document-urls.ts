import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { DocumentLink } from "../jobs/install-events.js";

/** How long a document URL works (§2.1 "time-limited"; docs/decisions.md). */
export const DOCUMENT_URL_TTL_MS = 15 * 60 * 1000;

export type LinkCheck = "valid" | "expired" | "invalid";

/**
 * §2.1 Document URLs: signed, time-limited and bound to the installer company. The signature is an HMAC over the
 * document id, the installer company and the expiry, with a key made when the sandbox starts (so URLs do not outlive
 * the process; a client stores the document id and asks for a fresh URL). The URL is a path: the client resolves it
 * against the base URL it keeps in its one configuration place (§1).
 */
export class DocumentUrls {
  readonly #key: Buffer;

  constructor(key: Buffer = randomBytes(32)) {
    this.#key = key;
  }

  link(documentId: string, installerCompanyId: string, nowMs: number): DocumentLink {
    const expires = Math.floor((nowMs + DOCUMENT_URL_TTL_MS) / 1000);
    const signature = this.#sign(documentId, installerCompanyId, expires);
    return {
      url: `/api/partner/v1/documents/${documentId}/content?expires=${expires}&signature=${signature}`,
      urlExpiresAt: new Date(expires * 1000).toISOString(),
    };
  }

  /** Whether a presented `expires` and `signature` are this document's, for this company, and still valid. */
  check(
    documentId: string,
    installerCompanyId: string,
    presented: { expires: string; signature: string },
    nowMs: number,
  ): LinkCheck {
    if (!/^\d{1,12}$/.test(presented.expires) || !/^[0-9a-f]{64}$/.test(presented.signature)) return "invalid";
    const expires = Number(presented.expires);
    const expected = Buffer.from(this.#sign(documentId, installerCompanyId, expires), "hex");
    if (!timingSafeEqual(expected, Buffer.from(presented.signature, "hex"))) return "invalid";
    return expires * 1000 <= nowMs ? "expired" : "valid";
  }

  #sign(documentId: string, installerCompanyId: string, expires: number): string {
    return createHmac("sha256", this.#key).update(`${documentId}\n${installerCompanyId}\n${expires}`).digest("hex");
  }
}
