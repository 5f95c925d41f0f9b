import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CompanySide, type JobResource, ROOMY_LIMITS, resourceOf, subscribeOwner, write } from "./support/installer.js";
import { HAS_COMPANY_SIDE, openTarget, type Target } from "./support/target.js";
import type { WebhookReceiver } from "./support/webhook-receiver.js";

/**
 * §3.2 Schedule status. Deliveries go to receivers on this machine, subscribed with the owner logins of the
 * installer company and of the job's company (the sandbox's test passwords; CONFORMANCE_OWNERS elsewhere).
 */
const STATUSES = ["TENTATIVE", "CONFIRMED", "CANCELLED"] as const;

let target: Target;
let company: CompanySide;
const hooks: WebhookReceiver[] = [];
beforeAll(async () => {
  target = await openTarget({ limits: ROOMY_LIMITS });
  company = new CompanySide(target);
});
afterAll(async () => {
  await Promise.all(hooks.map((h) => h.close()));
  await target.close();
});

/** A receiver subscribed to install.schedule_changed for a company's owner. */
async function subscribe(companyId: string): Promise<WebhookReceiver> {
  const hook = await subscribeOwner(target, companyId, ["install.schedule_changed"]);
  hooks.push(hook);
  return hook;
}

const schedule = (status: string, day: number) => ({
  status,
  startsAt: status === "CANCELLED" ? null : `2027-06-${String(day).padStart(2, "0")}T15:00:00Z`,
  endsAt: status === "CANCELLED" ? null : `2027-06-${String(day).padStart(2, "0")}T22:00:00Z`,
  timeZone: "America/Phoenix",
});

describe.runIf(HAS_COMPANY_SIDE)("§3.2 Schedule status", () => {
  it.each(STATUSES.flatMap((from) => STATUSES.map((to) => [from, to] as const)))(
    "%s → %s is accepted (transitions not shown: any to any, docs/decisions.md)",
    async (from, to) => {
      let job: JobResource = await company.createJob();
      for (const [i, status] of [from, to].entries()) {
        const reply = await write(target, "PUT", `/jobs/${job.id}/schedule`, {
          ...schedule(status, 10 + i),
          expectedVersion: job.version,
        });
        expect(reply.status).toBe(200);
        job = resourceOf(reply);
        expect(job.schedule?.status).toBe(status);
      }
    },
  );

  it("a change by either side emits install.schedule_changed to the other side", async () => {
    const installerHook = await subscribe(target.fixtures.installerCompanyId);
    const companyHook = await subscribe(target.fixtures.installJobCompanyId);
    const job = await company.createJob();

    const byInstaller = await write(target, "PUT", `/jobs/${job.id}/schedule`, {
      ...schedule("CONFIRMED", 20),
      expectedVersion: job.version,
    });
    expect(byInstaller.status).toBe(200);
    const [toCompany] = await companyHook.waitFor(1);
    expect(toCompany?.verification.ok).toBe(true);
    const heard = JSON.parse(String(toCompany?.rawBody)) as { resource: unknown; data: Record<string, unknown> };
    expect(heard.resource).toEqual({ type: "installJob", id: job.id, version: job.version + 1 });
    expect(heard.data).toMatchObject({ changedBy: "installer", schedule: schedule("CONFIRMED", 20) });

    await company.changeSchedule(job.id, { ...schedule("CONFIRMED", 21), startsAt: "2027-06-21T16:00:00.000Z" });
    const deliveries = await installerHook.waitFor(2);
    const fromCompany = deliveries
      .map((d) => JSON.parse(String(d.rawBody)) as { resource: { version: number }; data: Record<string, unknown> })
      .find((e) => e.data.changedBy === "company");
    expect(fromCompany?.resource.version).toBe(job.version + 2);
    expect(fromCompany?.data.schedule).toMatchObject({ status: "CONFIRMED", startsAt: "2027-06-21T16:00:00.000Z" });
  });
});
