import { z } from "zod";
import { parseSignedTemplate } from "./signed-template.js";
import { TREE_PATH } from "./tree-path.js";

/**
 * The proof a connection's preset declares (preset.json "proof"; docs/connections.md, "Proofs and handshakes"): data, never
 * code per vendor. Checked once when a preset or a connection is saved; `verifyProof` takes the parsed form.
 */

/** A secret is named here and sealed with the connection; the caller unseals it into the `secrets` map. */
const secretName = z.string().regex(/^[A-Za-z][A-Za-z0-9_.-]{0,63}$/, "a secret name");
/** RFC 9110 §5.1: a field name is a token. */
const headerName = z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/, "a header name");
/** An element of a structured header (`t=…,v1=…`). */
const elementName = z.string().regex(/^[A-Za-z0-9_-]{1,20}$/, "an element name");
/** Literal text before the value: `sha256=`, `Bearer `. Matched without regard to case (auth schemes are, §11.1). */
const prefix = z.string().min(1).max(40);

const none = z.object({ type: z.literal("none") }).strict();

const hmac = z
  .object({
    type: z.literal("hmac"),
    algorithm: z.enum(["sha256", "sha1"]),
    secret: secretName,
    signature: z
      .object({
        header: headerName,
        prefix: prefix.optional(),
        encoding: z.enum(["hex", "base64"]),
        element: elementName.optional(),
      })
      .strict(),
    signed: z.string().min(1).max(500).default("{body}"),
    timestamp: z
      .object({
        header: headerName.optional(),
        element: elementName.optional(),
        unit: z.enum(["s", "ms"]).default("s"),
        // D-287: five minutes either way unless the vendor documents another window.
        toleranceSeconds: z.number().int().min(1).max(86_400).default(300),
      })
      .strict()
      .optional(),
  })
  .strict()
  .superRefine((proof, issues) => {
    const parts = parseSignedTemplate(proof.signed);
    if (parts === undefined) {
      issues.addIssue({
        code: "custom",
        path: ["signed"],
        message: "only {body} {timestamp} {method} {url} {path} {query}",
      });
    } else if (parts.some((part) => "field" in part && part.field === "timestamp") && !proof.timestamp) {
      issues.addIssue({
        code: "custom",
        path: ["signed"],
        message: "{timestamp} is signed but no timestamp is declared",
      });
    }
    const stamp = proof.timestamp;
    if (stamp && stamp.header === undefined && stamp.element === undefined) {
      issues.addIssue({ code: "custom", path: ["timestamp"], message: "a timestamp needs a header or an element" });
    }
    if (stamp && stamp.header === undefined && stamp.element !== undefined && !proof.signature.element) {
      issues.addIssue({
        code: "custom",
        path: ["timestamp", "element"],
        message: "an element of the signature header needs signature.element",
      });
    }
  });

const secret = z
  .object({
    type: z.literal("secret"),
    secret: secretName,
    in: z.enum(["header", "query", "body"]),
    name: z.string().min(1).max(200),
    prefix: prefix.optional(),
  })
  .strict()
  .superRefine((proof, issues) => {
    const valid =
      proof.in === "header"
        ? headerName.safeParse(proof.name).success
        : proof.in === "body"
          ? TREE_PATH.test(proof.name)
          : !/[\s&=#]/.test(proof.name);
    if (!valid) issues.addIssue({ code: "custom", path: ["name"], message: `not a ${proof.in} name` });
  });

const basic = z.object({ type: z.literal("basic"), username: secretName, password: secretName }).strict();

export const proofDeclarationSchema = z.discriminatedUnion("type", [none, hmac, secret, basic]);

export type ProofDeclarationInput = z.input<typeof proofDeclarationSchema>;
export type ProofDeclaration = z.output<typeof proofDeclarationSchema>;
export type HmacProof = Extract<ProofDeclaration, { type: "hmac" }>;
export type SecretProof = Extract<ProofDeclaration, { type: "secret" }>;
export type BasicProof = Extract<ProofDeclaration, { type: "basic" }>;

/** The secret names a declaration needs, so a connection can be refused before it ever sees a request. */
export function secretsNamedBy(proof: ProofDeclaration): string[] {
  switch (proof.type) {
    case "none":
      return [];
    case "hmac":
    case "secret":
      return [proof.secret];
    case "basic":
      return [proof.username, proof.password];
  }
}
