import { z } from "@hono/zod-openapi";
import { json, timestamp } from "./common.schemas.js";

/** Capture mode and captured payloads (D-315..D-317). */

export const captureModeBody = z.strictObject({ on: z.boolean() }).openapi("CaptureModeRequest");

const captureModeFields = {
  vendorKeyId: z.string(),
  connectionId: z.string().nullable(),
  /** When capture mode was turned on; null: off. */
  captureSince: timestamp.nullable(),
  /** How many captured payloads are kept (the oldest goes as a new one arrives). */
  keep: z.number().int(),
};

export const captureMode = z.strictObject(captureModeFields).openapi("CaptureMode");

export const captureList = z
  .strictObject({
    ...captureModeFields,
    captures: z.array(
      z.strictObject({
        captureId: z.string(),
        kind: z.enum(["lead", "appointment"]),
        connectionId: z.string().nullable(),
        bytes: z.number().int(),
        createdAt: timestamp,
        payload: json,
      }),
    ),
  })
  .openapi("CaptureList");

export const capturesCleared = z.strictObject({ cleared: z.number().int() }).openapi("CapturesCleared");
