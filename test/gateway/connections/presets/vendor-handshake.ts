import { createHmac, randomUUID } from "node:crypto";
import type { AnswerToVendor } from "./vendor-answer.js";
import type { DocumentedRequest } from "./vendor-signer.js";

/** A preset's URL verification as its preset.json declares it (hooks contract, "Handshakes"). */
export type HandshakeDeclared =
  | {
      type: "echo";
      method: "GET";
      when: Record<string, string>;
      token?: { param: string; secret: string };
      echo: string;
      answer?: "text" | "json";
    }
  | {
      type: "hmac-challenge";
      method: "GET";
      param: string;
      secret: string;
      algorithm: "sha256" | "sha1";
      encoding: "hex" | "base64";
      answer: "json";
    };

/**
 * The vendor's verification request where no sample documents one, made from the declaration, with the answer the
 * vendor checks (computed here: LinkedIn's challengeResponse is the HMAC of the challenge under the client secret).
 */
export function declaredHandshake(
  declared: HandshakeDeclared,
  secrets: Readonly<Record<string, string>>,
): { request: DocumentedRequest; answer: AnswerToVendor } {
  const challenge = randomUUID();
  if (declared.type === "hmac-challenge") {
    const digest = createHmac(declared.algorithm, secrets[declared.secret] ?? "")
      .update(challenge)
      .digest(declared.encoding);
    return {
      request: { method: "GET", headers: {}, query: { [declared.param]: challenge }, body: "" },
      answer: {
        status: 200,
        contentType: "application/json",
        body: JSON.stringify({ [declared.param]: challenge, challengeResponse: digest }),
      },
    };
  }
  const query: Record<string, string> = { ...declared.when, [declared.echo]: challenge };
  if (declared.token) query[declared.token.param] = secrets[declared.token.secret] ?? "";
  const json = declared.answer === "json";
  return {
    request: { method: "GET", headers: {}, query, body: "" },
    answer: {
      status: 200,
      contentType: json ? "application/json" : "text/plain",
      body: json ? JSON.stringify({ [declared.echo]: challenge }) : challenge,
    },
  };
}
