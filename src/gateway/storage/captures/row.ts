import type { capturedPayloads } from "../../../db/schema/index.js";

/** A payload a key or hook connection in capture mode received (D-315), as stored. */
export type CapturedPayloadRow = typeof capturedPayloads.$inferSelect;
