import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorMessage } from "./support/http.js";
import {
  body,
  CompanySide,
  forbiddenFrom,
  type JobResource,
  openJob,
  POSTED,
  ROOMY_LIMITS,
  read,
  resourceOf,
  STATES,
  type State,
  statusBody,
  TABLE,
  write,
} from "./support/installer.js";
import { HAS_COMPANY_SIDE, openTarget, type Target } from "./support/target.js";

let target: Target;
let company: CompanySide;
beforeAll(async () => {
  target = await openTarget({ limits: ROOMY_LIMITS });
  company = new CompanySide(target);
});
afterAll(() => target.close());

const post = (job: JobResource, status: string, version = job.version, extra: Record<string, unknown> = {}) =>
  write(target, "POST", `/jobs/${job.id}/status-events`, statusBody(status, version, extra));

describe("§3.1 Job status (any target)", () => {
  it("rule 1: a transition not in the table is 422 and the job does not change", async () => {
    const job = await openJob(target);
    const reply = await post(job, forbiddenFrom(job.status));
    expect(reply.status).toBe(422);
    expect(errorMessage(reply)).toContain(job.status);
    expect(resourceOf(await read(target, `/jobs/${job.id}`))).toEqual(job);
  });

  it("rule 2: a stale expectedVersion is 409 and the message states the current version", async () => {
    const job = await openJob(target);
    for (const stale of [job.version - 1, job.version + 1].filter((v) => v >= 1)) {
      const reply = await post(job, forbiddenFrom(job.status), stale);
      expect(reply.status).toBe(409);
      expect(errorMessage(reply)).toContain(String(job.version));
    }
  });
});

describe.runIf(HAS_COMPANY_SIDE)("§3.1 Job status: every row of the table", () => {
  it.each(TABLE)(
    "%s → %s: 201, the new status, version + 1, install.status_changed at that version",
    async (from, to) => {
      const job = await company.jobIn(from);
      expect(job.status).toBe(from);
      const reply = await post(job, to);
      expect(reply.status).toBe(201);
      expect(body(reply).apiVersion).toBe("2026-08-26");
      expect(resourceOf(reply)).toMatchObject({ id: job.id, status: to, version: job.version + 1 });
      const events = await company.eventsOf(job.id);
      expect(events.at(-1)).toMatchObject({
        event: "install.status_changed",
        resource: { type: "installJob", id: job.id, version: job.version + 1 },
        data: { previousStatus: from, status: to },
      });
    },
  );

  it('ASSIGNED → BLOCKED without a blockerCode is 400 naming it (§2.3 "when status is BLOCKED")', async () => {
    const job = await company.jobIn("ASSIGNED");
    const missing = await write(target, "POST", `/jobs/${job.id}/status-events`, {
      status: "BLOCKED",
      occurredAt: new Date().toISOString(),
      expectedVersion: job.version,
    });
    expect(missing.status).toBe(400);
    expect(errorMessage(missing)).toContain("blockerCode");
  });
});

describe.runIf(HAS_COMPANY_SIDE)("§3.1 rule 1: every transition not in the table is 422", () => {
  const allowed = (from: State) => TABLE.filter(([f]) => f === from).map(([, to]) => to);
  it.each(STATES)("from %s, every status the table does not list is 422; the job does not change", async (from) => {
    const job = await company.jobIn(from);
    const refused = POSTED.filter((to) => !allowed(from).includes(to));
    if (from === "COMPLETE" || from === "CANCELLED") expect(refused).toEqual([...POSTED]);
    for (const to of refused) {
      const reply = await post(job, to);
      expect(reply.status, `${from} → ${to}`).toBe(422);
    }
    expect(await company.job(job.id)).toEqual(job);
  });
});

describe.runIf(HAS_COMPANY_SIDE)("§3.1: COMPLETE and CANCELLED are terminal", () => {
  it.each(["COMPLETE", "CANCELLED"] as const)(
    "%s takes no status event, and the company cannot cancel it",
    async (state) => {
      const job = await company.jobIn(state);
      for (const to of POSTED) expect((await post(job, to)).status).toBe(422);
      await expect(company.cancel(job.id)).rejects.toThrow(/422/);
    },
  );
});

describe.runIf(HAS_COMPANY_SIDE)(
  "§3.1 rule 3: a status event after a scope change acknowledges the new scopeVersion",
  () => {
    it("SCOPE_ACK_REQUIRED is in readiness.blockerCodes until the next status event on the current version", async () => {
      const job = await company.jobIn("ACKNOWLEDGED");
      await company.changeScope(job.id);
      const changed = await company.job(job.id);
      expect(changed.scope.scopeVersion).toBe(job.scope.scopeVersion + 1);
      expect(changed.readiness).toEqual({ ready: false, blockerCodes: ["SCOPE_ACK_REQUIRED"] });
      // A stale version acknowledges nothing.
      expect((await post(changed, "EN_ROUTE", job.version)).status).toBe(409);
      const acknowledged = await post(changed, "EN_ROUTE");
      expect(acknowledged.status).toBe(201);
      expect(resourceOf(acknowledged).readiness).toEqual({ ready: true, blockerCodes: [] });
      const events = await company.eventsOf(job.id);
      expect(events.at(-1)?.data).toMatchObject({ scopeVersionAcknowledged: changed.scope.scopeVersion });
    });

    it.each(["ON_SITE", "IN_PROGRESS"] as const)(
      "%s acknowledges without changing status by repeating its status (docs/decisions.md); without a pending change that is 422",
      async (state) => {
        const job = await company.jobIn(state);
        expect((await post(job, state)).status).toBe(422);
        await company.changeScope(job.id);
        const changed = await company.job(job.id);
        expect(changed.readiness.blockerCodes).toContain("SCOPE_ACK_REQUIRED");
        const reply = await post(changed, state);
        expect(reply.status).toBe(201);
        expect(resourceOf(reply)).toMatchObject({
          status: state,
          version: changed.version + 1,
          readiness: { ready: true, blockerCodes: [] },
        });
        expect((await post(resourceOf(reply), state)).status).toBe(422);
      },
    );

    it("the company's own blockers stay when the scope is acknowledged", async () => {
      const job = await company.jobIn("ACKNOWLEDGED");
      await company.setReadiness(job.id, ["PERMIT_PENDING"]);
      await company.changeScope(job.id);
      const changed = await company.job(job.id);
      expect(changed.readiness).toEqual({ ready: false, blockerCodes: ["PERMIT_PENDING", "SCOPE_ACK_REQUIRED"] });
      const reply = await post(changed, "ON_SITE");
      expect(resourceOf(reply).readiness).toEqual({ ready: false, blockerCodes: ["PERMIT_PENDING"] });
    });
  },
);

describe.runIf(HAS_COMPANY_SIDE)(
  "§3.1 rule 4: COMPLETE with uploaded evidence; acceptance sends evidence counts",
  () => {
    it("the company accepts the completion report: install.completion_received with the photo and document counts", async () => {
      const job = await company.jobIn("IN_PROGRESS");
      const upload = (kind: string, fileName: string) =>
        write(target, "POST", `/jobs/${job.id}/evidence`, {
          kind,
          fileName,
          contentType: "application/octet-stream",
          contentBase64: Buffer.from(fileName).toString("base64"),
        });
      for (const [kind, name] of [
        ["photo", "before.jpg"],
        ["photo", "after.jpg"],
        ["photo", "meter.jpg"],
        ["document", "commissioning.pdf"],
      ]) {
        expect((await upload(kind ?? "", name ?? "")).status).toBe(201);
      }
      await expect(company.acceptCompletion(job.id)).rejects.toThrow(/422/);
      expect((await post(job, "COMPLETE")).status).toBe(201);
      await company.acceptCompletion(job.id);
      const events = await company.eventsOf(job.id);
      expect(events.at(-1)).toMatchObject({
        event: "install.completion_received",
        data: { evidence: { photos: 3, documents: 1 } },
      });
    });
  },
);

describe.runIf(HAS_COMPANY_SIDE)("§3.1 rule 5 (not shown): the company cancels from every non-terminal state", () => {
  it.each(STATES.filter((s) => s !== "COMPLETE" && s !== "CANCELLED"))(
    "from %s: CANCELLED, version + 1, install.job_cancelled; the job stays visible to its installer",
    async (from) => {
      const job = await company.jobIn(from);
      await company.cancel(job.id, "the customer withdrew");
      const cancelled = await company.job(job.id);
      expect(cancelled).toMatchObject({ status: "CANCELLED", version: job.version + 1 });
      const events = await company.eventsOf(job.id);
      expect(events.at(-1)).toMatchObject({
        event: "install.job_cancelled",
        resource: { version: job.version + 1 },
        data: { previousStatus: from, reason: "the customer withdrew" },
      });
    },
  );
});
