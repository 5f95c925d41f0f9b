/** Shapes the owner API answers with (what the pages read of them). */
export type Kind = "lead" | "appointment" | "outbound";

export interface Sample {
  name: string;
  payload: unknown;
  expect: { body: unknown } | { error: { field?: string; kind?: string } };
}

export interface Version {
  id: string;
  profileId: string;
  version: number;
  expression: string;
  samples: Sample[];
  status: "draft" | "published";
  samplesPassed: boolean;
  createdAt: string;
  publishedAt: string | null;
}

export interface Profile {
  id: string;
  name: string;
  kind: Kind;
  description: string | null;
  latestVersion: Version | null;
  boundKeys: string[];
}

export interface VendorKey {
  id: string;
  keyPrefix: string;
  name: string;
  partnerType: "lead_source" | "booking_vendor";
  scopes: string[];
  credentialId: string;
  leadProfileVersionId: string | null;
  appointmentProfileVersionId: string | null;
  responseMode: string;
  /** While a rotation's overlap lasts, the previous secret works until then. */
  previousValidUntil: string | null;
  createdAt: string;
  revokedAt: string | null;
}

/** An upstream credential (one of the company's general keys): its value is never shown, only its first characters. */
export interface Credential {
  id: string;
  name: string;
  keyPrefix: string;
  version: number;
  status: "active" | "paused";
  /** Why forwarding paused it (the platform refused the key: 401/403), while paused. */
  pausedReason: string | null;
  createdAt: string;
  rotatedAt: string | null;
}

export type Outcome =
  | { ok: true; body: unknown; elapsedMs: number }
  | {
      ok: false;
      kind: "validation";
      field: string;
      message: string;
      sourcePath?: string;
      output: unknown;
      elapsedMs: number;
    }
  | { ok: false; kind: "mapping" | "guardrail"; message: string; position?: number; elapsedMs: number }
  | { ok: false; kind: "compile"; message: string; position?: number; line?: number; column?: number };

export interface GoldenReport {
  passed: boolean;
  total: number;
  failed: number;
  results: { name: string; passed: boolean; reason?: string }[];
  compileError?: { message: string };
}

export interface Submission {
  submissionId: string;
  kind: "lead" | "appointment";
  status: string;
  attempts: number;
  lastError: string | null;
  upstreamStatus: number | null;
  result: unknown;
  profileVersionId: string | null;
  createdAt: string;
  updatedAt: string;
  vendorKeyId: string;
}
