import type { z } from "@hono/zod-openapi";
import type { goldenReport, previewAnswer } from "../src/gateway/owner/routes/golden.schemas.js";
import type { vendorKey } from "../src/gateway/owner/routes/keys.schemas.js";
import type { profile, profileVersion, sampleSchema } from "../src/gateway/owner/routes/profiles.schemas.js";
import type { submissionSummary } from "../src/gateway/owner/routes/submissions.schemas.js";
import type { OwnerAnswer } from "./api.js";

/**
 * Shapes the owner API answers with, inferred from the routes' schemas (D-260): a field the schema drops or renames
 * is a compile error in the page that reads it.
 */
export type Owner = OwnerAnswer<"get", "/sessions/current">["owner"];
export type Profile = z.output<typeof profile>;
export type Kind = Profile["kind"];
export type Version = z.output<typeof profileVersion>;
export type Sample = z.output<typeof sampleSchema>;
export type VendorKey = z.output<typeof vendorKey>;
export type Credential = OwnerAnswer<"get", "/credentials">["credentials"][number];
export type Outcome = z.output<typeof previewAnswer>;
export type GoldenReport = z.output<typeof goldenReport>;
/** A webhook subscription of a vendor key (D-230). */
export type Subscription = OwnerAnswer<"get", "/webhooks/subscriptions">["subscriptions"][number];
/** A row of the submission log: the list's and the live stream's (one schema for both). */
export type Submission = z.output<typeof submissionSummary>;
/** A hook connection as listed (never its hook URL: that is shown once, D-307). */
export type Connection = OwnerAnswer<"get", "/connections">["connections"][number];
/** A vendor of the catalogue a connection is made from. */
export type ConnectionPreset = OwnerAnswer<"get", "/connection-presets">["presets"][number];
