import { z } from "zod";

/**
 * A URL-verification request a vendor sends before (and, for LinkedIn, every two hours after) it delivers anything
 * (preset.json "handshake"; docs/connections.md, "Proofs and handshakes"). Two kinds are documented by the vendors
 * this round covers; another is added only with a vendor's documented need.
 */
const secretName = z.string().regex(/^[A-Za-z][A-Za-z0-9_.-]{0,63}$/, "a secret name");
const paramName = z.string().regex(/^[^\s&=#]{1,100}$/, "a query parameter name");

/**
 * Meta: `GET ?hub.mode=subscribe&hub.challenge=…&hub.verify_token=…`, answered with the challenge as text once the
 * token is the one set in the App Dashboard
 * (https://developers.facebook.com/docs/graph-api/webhooks/getting-started, "Verification Requests").
 */
const echo = z
  .object({
    type: z.literal("echo"),
    method: z.literal("GET"),
    /** Every one of these parameters must have this value for the request to be a handshake. */
    when: z.record(paramName, z.string().min(1).max(100)),
    /** Absent where the vendor sends no token (Yelp): then only a request carrying `echo` is a handshake. */
    token: z.object({ param: paramName, secret: secretName }).strict().optional(),
    echo: paramName,
    /**
     * `text`: the challenge itself as text/plain (Meta); `json`: `{<echo>: <challenge>}` (Yelp:
     * https://docs.developer.yelp.com/docs/webhooks, "Verifying your endpoint").
     */
    answer: z.enum(["text", "json"]).default("text"),
  })
  .strict();

/**
 * LinkedIn: `GET ?challengeCode=<uuid>`, answered within 3 s with JSON `{"challengeCode": …, "challengeResponse":
 * hex(HMAC-SHA256(challengeCode, clientSecret))}`
 * (https://learn.microsoft.com/en-us/linkedin/shared/api-guide/webhook-validation, "Validating the Webhook Endpoint").
 */
const hmacChallenge = z
  .object({
    type: z.literal("hmac-challenge"),
    method: z.literal("GET"),
    param: paramName,
    secret: secretName,
    algorithm: z.enum(["sha256", "sha1"]),
    encoding: z.enum(["hex", "base64"]),
    /** `{<param>: <challenge>, "challengeResponse": <digest>}` as application/json. */
    answer: z.literal("json"),
  })
  .strict();

export const handshakeDeclarationSchema = z.discriminatedUnion("type", [echo, hmacChallenge]);

export type HandshakeDeclaration = z.output<typeof handshakeDeclarationSchema>;
export type EchoHandshake = Extract<HandshakeDeclaration, { type: "echo" }>;
export type HmacChallengeHandshake = Extract<HandshakeDeclaration, { type: "hmac-challenge" }>;
