import { z } from "@hono/zod-openapi";
import { id, json, timestamp } from "./common.schemas.js";

/** Hook connections and the presets they are made from (docs/connections.md, "Connecting a vendor"; D-306). */

export const connectionPreset = z
  .strictObject({
    id: z.string(),
    vendor: z.string(),
    kinds: z.array(z.enum(["lead", "appointment"])),
    /** What each secret is and where in the vendor's dashboard the owner finds or sets it. */
    secrets: z.array(z.strictObject({ name: z.string(), description: z.string(), where: z.string() })),
    /** Whether the connection fetches each notified record from the vendor's API. */
    fetch: z.boolean(),
    bodyType: z.enum(["json", "form", "multipart", "xml"]),
    /** How the hook URL is given to the vendor: in its dashboard, or through its API, with the notes. */
    register: z.strictObject({ how: z.enum(["dashboard", "api"]), docs: z.string() }).nullable(),
    /** The vendor's public documentation the preset is built from. */
    docs: z.array(z.string()),
  })
  .openapi("ConnectionPreset");

export const connectionPresetList = z
  .strictObject({ presets: z.array(connectionPreset) })
  .openapi("ConnectionPresetList");

/** A secret's name as presets and declarations spell them; its value as a vendor's dashboard shows it. */
const secretName = z.string().min(1).max(64);
const secretValue = z.string().min(1).max(2_000);

export const connectionBody = z
  .object({
    /** A preset's id: the profile, body type, proof, handshake, fetch and answer come with it. */
    preset: z.string().min(1).max(64).optional(),
    name: z.string().min(1).max(100),
    secrets: z
      .record(secretName, secretValue)
      .refine((secrets) => Object.keys(secrets).length <= 20, "at most 20 secrets"),
    /** The upstream credential its submissions are forwarded with; may be left out when the company has one. */
    credentialId: id.optional(),
    /** Sandbox mode only: where a preset's fetches go instead of the vendor's API. */
    vendorApiBase: z.url().max(2_000).optional(),
    /** Without a preset: the declarations (body type, proof, handshake, answer, fetch, test). */
    settings: json.optional(),
    /** Without a preset: the published profile version the hook maps with. */
    profileVersionId: id.optional(),
  })
  .openapi("ConnectionRequest");

export const hookUrlRotationBody = z
  .object({
    /** How long the previous hook URL keeps working, while the vendor's dashboard is changed (default 24; 0: none). */
    overlapHours: z
      .number()
      .int()
      .min(0)
      .max(30 * 24)
      .optional(),
  })
  .openapi("HookUrlRotation");

const connectionFields = {
  id: z.string(),
  name: z.string(),
  preset: z.string().nullable(),
  vendor: z.string().nullable(),
  profileKind: z.enum(["lead", "appointment"]),
  /** The connection's own vendor key: its credential, its bound profile version, its submissions. */
  vendorKeyId: z.string(),
  status: z.enum(["active", "revoked"]),
  /** Until when the hook URL before the last rotation still works. */
  previousHookUrlValidUntil: timestamp.nullable(),
  /** Requests refused for a missing or wrong vendor proof, and the last one's time and reason. */
  proofFailures: z.number().int(),
  lastProofFailureAt: timestamp.nullable(),
  lastProofFailure: z.string().nullable(),
  createdAt: timestamp,
  revokedAt: timestamp.nullable(),
};

export const connection = z.strictObject(connectionFields).openapi("Connection");

/** A connection as made or rotated: with its hook URL, shown this once (the token in it is never stored). */
export const connectionWithHookUrl = z
  .strictObject({ ...connectionFields, hookUrl: z.string() })
  .openapi("ConnectionWithHookUrl");

export const connectionList = z.strictObject({ connections: z.array(connection) }).openapi("ConnectionList");
