import { z } from "zod";
import { RECORD_ACTIONS, RECORD_KINDS, type RecordAction, type RecordKind } from "../../profiles/index.js";
import { docLink, headerName, secretName } from "./names.js";

/**
 * `presets/<id>/samples/<name>.json` (hooks contract, "Preset data"): a vendor's documented example request, cited by
 * `source`, and what the connection must make of it — records (exactly, as golden samples expect them: D-303), a held
 * payload and why, or the answer (a handshake's).
 */

const query = z.record(z.string().max(200), z.union([z.string(), z.array(z.string())]));

const request = z.strictObject({
  method: z.enum(["GET", "POST", "PUT", "PATCH", "DELETE"]),
  headers: z.record(headerName, z.string()),
  query: query.optional(),
  /** The raw body exactly as the vendor sends it ("" for a GET). */
  body: z.string().max(1_000_000),
});

/** A record as the profile must produce it (profiles/records.ts holds the same rules for the profile's output). */
const expectedRecord = z.strictObject({
  kind: z.enum(RECORD_KINDS as [RecordKind, ...RecordKind[]]),
  id: z.string().min(1).max(200).optional(),
  body: z.record(z.string(), z.unknown()),
  test: z.boolean().optional(),
  action: z.enum(RECORD_ACTIONS as [RecordAction, ...RecordAction[]]).optional(),
});

const expectation = z.union(
  [
    z.strictObject({ records: z.array(expectedRecord).max(100) }),
    /** The reason the payload is held: what the platform requires that the documented example lacks. */
    z.strictObject({ held: z.string().min(1).max(2_000) }),
    z.strictObject({
      answer: z.strictObject({
        status: z.number().int().min(100).max(599),
        contentType: z.string().min(1).max(200).optional(),
        body: z.string().max(100_000).optional(),
      }),
    }),
  ],
  { message: "must be {records: […]}, {held: reason} or {answer: {status, contentType?, body?}}" },
);

export const presetSampleSchema = z.strictObject({
  name: z.string().min(1).max(1_000),
  /** The documentation page the example is from (a note may follow the URL). */
  source: docLink,
  /** Values of the preset's secrets the test signs and verifies the request with (never a real vendor's). */
  secrets: z.record(secretName, z.string().max(1_000)).optional(),
  request,
  /** The vendor API's documented response for each id the notification names, for a preset that fetches. */
  fetched: z.record(z.string().min(1).max(200), z.unknown()).optional(),
  expect: expectation,
});

export type PresetSample = z.infer<typeof presetSampleSchema>;
