import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { asc, eq } from "drizzle-orm";
import { expect } from "vitest";
import { createConnection } from "../../../../src/gateway/connections/create-connection.js";
import { type LoadedPreset, loadPresets } from "../../../../src/gateway/connections/presets/index.js";
import type { SubmissionRow } from "../../../../src/gateway/storage/submissions/index.js";
import {
  type AppointmentRow,
  appointments,
  type LeadSubmissionRow,
  leadSubmissions,
} from "../../../../src/sandbox/db/schema/index.js";
import { type RigCompany, startRig } from "../../../helpers/forwarding.js";
import { PRESETS_DIR, UNHURRIED_ENGINE } from "../fake-vendor-api.js";
import { type FetchDeclared, startDocumentedVendorApi } from "./documented-vendor-api.js";
import type { AnswerDeclared, AnswerToVendor } from "./vendor-answer.js";
import { declaredHandshake, type HandshakeDeclared } from "./vendor-handshake.js";
import { type DocumentedRequest, type ProofDeclared, vendorRequest, type WireRequest } from "./vendor-signer.js";

/** preset.json as written (hooks contract, "Preset data"): the declarations this suite reads itself. */
export interface Manifest {
  bodyType: string;
  proof: ProofDeclared;
  handshake?: HandshakeDeclared;
  answer: AnswerDeclared;
  fetch?: FetchDeclared;
  secrets: { name: string }[];
}

export type PresetSample = LoadedPreset["samples"][number];

/** A preset as the suite drives it: loaded as the gateway loads it, its declarations as written, its secrets' values. */
export interface PresetUnderTest {
  id: string;
  loaded: LoadedPreset;
  manifest: Manifest;
  /** One value per declared secret: a sample's literal (a documented token, a key written in a body), else made here. */
  secrets: Record<string, string>;
}

/** Every shipped preset (presets/*), in id order. */
export async function presetsUnderTest(): Promise<PresetUnderTest[]> {
  return (await loadPresets(PRESETS_DIR)).map((loaded) => {
    const manifest = JSON.parse(readFileSync(join(loaded.dir, "preset.json"), "utf8")) as Manifest;
    return { id: loaded.id, loaded, manifest, secrets: secretValues(loaded, manifest) };
  });
}

/**
 * A sample's `{{test}}` is a value the test makes; any other value is the documented one (Meta's verify token in its
 * verification request, Google's key inside the lead's body) and must then be the connection's. Two samples giving
 * one secret two documented values could not both pass on one connection.
 */
function secretValues(loaded: LoadedPreset, manifest: Manifest): Record<string, string> {
  const values: Record<string, string> = {};
  for (const sample of loaded.samples) {
    for (const [name, value] of Object.entries(sample.secrets ?? {})) {
      if (value === "{{test}}") continue;
      if (values[name] !== undefined && values[name] !== value) {
        throw new Error(`${loaded.id}: samples give ${name} two documented values`);
      }
      values[name] = value;
    }
  }
  for (const { name } of manifest.secrets) values[name] ??= `${name}-${randomBytes(12).toString("base64url")}`;
  return values;
}

/** The statuses a hook's row ends in: nothing more happens to it without the owner or the vendor. */
const SETTLED: readonly SubmissionRow["status"][] = ["forwarded", "failed", "held", "noted"];

/** What the sandbox (the platform) has of one company: its lead submissions and appointments, oldest first. */
export interface PlatformSide {
  leads: LeadSubmissionRow[];
  appointments: AppointmentRow[];
}

/**
 * One gateway forwarding to the embedded sandbox (test/helpers/forwarding.ts), offering the shipped presets, its
 * fetches answered by the documented vendor API; the vendor's side of each exchange (requests as sent, answers as
 * read), the gateway's rows and what the platform received.
 */
export async function startBench() {
  const rig = await startRig({
    perKey: 600,
    perCompany: 600,
    egress: 6_000,
    windowMs: 60_000,
    presetsDir: PRESETS_DIR,
    engine: UNHURRIED_ENGINE,
    fetcher: { pollMs: 200 },
  });
  const api = await startDocumentedVendorApi();
  let made = 0;

  /** A connection made from the preset, as the owner makes one; where it fetches, from the documented API. */
  async function connect(preset: PresetUnderTest, company: RigCompany) {
    const connection = await createConnection({
      ctx: rig.gateway.ctx,
      companyId: company.gatewayCompanyId,
      input: {
        name: `${preset.id} ${++made}`,
        preset: preset.id,
        secrets: preset.secrets,
        credentialId: company.credentials[0]?.id,
        ...(preset.manifest.fetch ? { vendorApiBase: api.url } : {}),
      },
    });
    return { id: connection.id, hookUrl: connection.hookUrl };
  }

  /** The sample's request as the vendor sends it now to `hookUrl`, signed with the preset's secrets. */
  function signed(preset: PresetUnderTest, request: DocumentedRequest, hookUrl: string, nowMs = Date.now()) {
    return vendorRequest(preset.manifest.proof, request, hookUrl, preset.secrets, nowMs);
  }

  /** Sends the request as it is; the answer as the vendor reads it (the media type without its parameters). */
  async function send(wire: WireRequest): Promise<AnswerToVendor> {
    const res = await fetch(wire.url, {
      method: wire.method,
      headers: wire.headers,
      ...(wire.method === "GET" ? {} : { body: wire.body }),
    });
    const body = await res.text();
    const contentType = (res.headers.get("content-type") ?? "").split(";")[0]?.trim() ?? "";
    return { status: res.status, contentType, body };
  }

  /**
   * The vendor verifies the URL before it posts (Meta, LinkedIn, Yelp): the preset's documented verification request
   * where a sample has one, else the one its declaration describes, answered as the vendor checks.
   */
  async function verifyUrl(preset: PresetUnderTest, hookUrl: string): Promise<void> {
    const declared = preset.manifest.handshake;
    if (!declared) return;
    const documented = preset.loaded.samples.find((s) => "answer" in s.expect);
    const { request, answer } =
      documented && "answer" in documented.expect
        ? { request: documented.request, answer: documented.expect.answer }
        : declaredHandshake(declared, preset.secrets);
    expect(await send(signed(preset, request, hookUrl))).toEqual({
      status: answer.status,
      contentType: answer.contentType,
      body: answer.body ?? "",
    });
  }

  /** The connection's rows, oldest first. */
  async function rows(company: RigCompany, connectionId: string): Promise<SubmissionRow[]> {
    const page = await rig.gateway.ctx.submissions.listPage(company.gatewayCompanyId, { limit: 200, connectionId });
    return page.reverse();
  }

  /** The connection's rows once each has settled: fetched, forwarded (or failed), held or noted. */
  async function settled(company: RigCompany, connectionId: string): Promise<SubmissionRow[]> {
    await expect
      .poll(async () => (await rows(company, connectionId)).filter((r) => !SETTLED.includes(r.status)), {
        timeout: 20_000,
        interval: 50,
      })
      .toEqual([]);
    return rows(company, connectionId);
  }

  /** What the platform has of the company, read from the sandbox's own database. */
  function platform(company: RigCompany): PlatformSide {
    const { db } = rig.sandbox.admin.ctx;
    return {
      leads: db
        .select()
        .from(leadSubmissions)
        .where(eq(leadSubmissions.companyId, company.sandboxCompanyId))
        .orderBy(asc(leadSubmissions.receivedAt), asc(leadSubmissions.id))
        .all(),
      appointments: db
        .select()
        .from(appointments)
        .where(eq(appointments.companyId, company.sandboxCompanyId))
        .orderBy(asc(appointments.createdAt), asc(appointments.id))
        .all(),
    };
  }

  return {
    rig,
    api,
    connect,
    signed,
    send,
    verifyUrl,
    rows,
    settled,
    platform,
    company: (name: string) => rig.addCompany(name),
    async close() {
      await rig.close();
      await api.close();
    },
  };
}

export type Bench = Awaited<ReturnType<typeof startBench>>;
