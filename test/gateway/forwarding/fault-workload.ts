import { expect } from "vitest";
import { rotateUpstreamCredential } from "../../../src/gateway/credentials/upstream-credentials.js";
import type { SubmissionRow } from "../../../src/gateway/storage/submissions/index.js";
import { lead, type Rig, type RigCompany, until } from "../../helpers/forwarding.js";
import { postJson } from "../../helpers/gateway.js";
import { submissionRows } from "../../helpers/store-reads.js";

export interface Tracked {
  id: string;
  kind: "lead" | "appointment";
  credentialId: string;
  /** The lead submission (`sub_…`) an appointment names, when it is chained. */
  chainedTo?: string;
}

export interface Lane {
  company: RigCompany;
  credentialId: string;
  upstreamKey: string;
  vendorKey: string;
  /** A lead made at the platform before the faults, for appointments that name a `lead_…` id. */
  platformLeadId: string;
}

let booking = 0;

/**
 * The fault matrix's traffic: three companies, four credentials, and on each credential leads,
 * appointments chained to lead submissions (`sub_…`) and appointments naming a platform lead.
 */
export class Workload {
  readonly tracked: Tracked[] = [];

  private constructor(
    private readonly rig: Rig,
    readonly lanes: Lane[],
  ) {}

  /** Companies and credentials on both sides; one platform lead per credential, made before any fault. */
  static async open(rig: Rig): Promise<Workload> {
    const companies = [
      await rig.addCompany("Alpha", 2),
      await rig.addCompany("Beta", 1),
      await rig.addCompany("Gamma", 1),
    ];
    const lanes: Lane[] = [];
    for (const company of companies) {
      for (const [i, credential] of company.credentials.entries()) {
        const res = await postJson(`${rig.sandbox.url}/api/inbound/leads`, lead(), {
          "x-api-key": credential.upstreamKey,
        });
        const body = (await res.json()) as { leadId?: string };
        if (res.status !== 201 || !body.leadId) throw new Error(`platform lead not created: ${res.status}`);
        lanes.push({
          company,
          credentialId: credential.id,
          upstreamKey: credential.upstreamKey,
          vendorKey: company.vendorKeys[i] ?? "",
          platformLeadId: body.leadId,
        });
      }
    }
    return new Workload(rig, lanes);
  }

  /** Per credential: one appointment naming a platform lead, `leads` leads, one appointment chained to each of two. */
  async submitBatch(leads = 4, lanes: Lane[] = this.lanes): Promise<void> {
    await Promise.all(
      lanes.map(async (lane) => {
        await this.#submit(lane, "appointment", appointment(lane.platformLeadId));
        const leadIds: string[] = [];
        for (let i = 0; i < leads; i++) leadIds.push(await this.#submit(lane, "lead", lead()));
        for (const leadId of leadIds.slice(0, 2)) await this.#submit(lane, "appointment", appointment(leadId));
      }),
    );
  }

  rows(): Promise<SubmissionRow[]> {
    return submissionRows(
      this.rig.gateway,
      this.tracked.map((t) => t.id),
    );
  }

  /** Waits until no submission is queued or being sent: each is forwarded, failed or waiting. */
  async quiet(timeoutMs = 25_000, settledOnly = true): Promise<SubmissionRow[]> {
    const done = (r: SubmissionRow) =>
      r.status === "forwarded" || r.status === "failed" || (!settledOnly && r.status === "waiting");
    return until(async () => {
      const rows = await this.rows();
      return rows.length === this.tracked.length && rows.every(done) ? rows : undefined;
    }, timeoutMs);
  }

  lane(index: number): Lane {
    const lane = this.lanes[index];
    if (!lane) throw new Error(`no lane ${index}`);
    return lane;
  }

  /** Revokes the lane's upstream key at the platform once the lane has started sending (mid-run). */
  async revokeWhenSending(lane: Lane): Promise<void> {
    await until(async () =>
      (await this.rows()).some((r) => r.credentialId === lane.credentialId && r.firstSentAt !== null),
    );
    this.rig.sandbox.admin.revokeKey(lane.upstreamKey.split(".")[0] ?? "");
  }

  /** Every other lane settles; the revoked lane's submissions are forwarded, failed or waiting (some with a reason). */
  async waitingOn(lane: Lane): Promise<SubmissionRow[]> {
    const settled = (r: SubmissionRow) => r.status === "forwarded" || r.status === "failed";
    const rows = await until(async () => {
      const all = await this.rows();
      const own = all.filter((r) => r.credentialId === lane.credentialId);
      const others = all.filter((r) => r.credentialId !== lane.credentialId);
      const quiet = own.every((r) => settled(r) || r.status === "waiting") && others.every(settled);
      return quiet && own.some((r) => r.status === "waiting") ? own : undefined;
    }, 25_000);
    for (const r of rows.filter((row) => row.status === "waiting"))
      expect(r.waitingReason).toMatch(/^(credential paused: upstream 401|waiting for lead submission sub_)/);
    return rows;
  }

  /** The company puts a fresh platform key into the lane's credential: what waited on it resumes. */
  async rotate(lane: Lane): Promise<void> {
    const fresh = this.rig.sandbox.admin.createKey({
      companyId: lane.company.sandboxCompanyId,
      kind: "general",
      personId: lane.company.sandboxPersonId,
    });
    await rotateUpstreamCredential({
      ctx: this.rig.gateway.ctx,
      companyId: lane.company.gatewayCompanyId,
      credentialId: lane.credentialId,
      value: fresh.key,
    });
  }

  async #submit(lane: Lane, kind: Tracked["kind"], body: Record<string, unknown>): Promise<string> {
    const path = kind === "lead" ? "leads" : "appointments";
    const res = await postJson(`${this.rig.url}/api/inbound/${path}`, body, { "x-api-key": lane.vendorKey });
    expect(res.status).toBe(202);
    const { submissionId } = (await res.json()) as { submissionId: string };
    const leadId = String(body.leadId ?? "");
    this.tracked.push({
      id: submissionId,
      kind,
      credentialId: lane.credentialId,
      ...(leadId.startsWith("sub_") ? { chainedTo: leadId } : {}),
    });
    return submissionId;
  }
}

function appointment(leadId: string): Record<string, unknown> {
  const n = ++booking;
  const day = String(1 + (n % 28)).padStart(2, "0");
  return {
    leadId,
    startsAt: `2026-12-${day}T15:00:00Z`,
    endsAt: `2026-12-${day}T16:00:00Z`,
    idempotencyKey: `fault-matrix-${n}-${Date.now()}`,
  };
}
