import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ERASURE_CHUNK, erasePerson, purgeExpiredPayloads } from "../../src/gateway/submissions/retention.js";
import { seedCompany, startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { seedSubmissions } from "../helpers/seed-submissions.js";
import { sqliteOf } from "../helpers/sqlite-of.js";

let t: TestGateway;

beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(() => t.close());

describe("erasure by person scans a company's submissions in steps (no contact index)", () => {
  it("finds every match across steps, by email or phone, in this company only, and yields between steps", async () => {
    const acme = await seedCompany(t.gateway, "Acme");
    const rival = await seedCompany(t.gateway, "Rival");
    const ctx = t.gateway.ctx;
    const count = ERASURE_CHUNK * 2 + 10;
    const start = Date.now() - count * 1_000;
    const seed = async (company: typeof acme, n: number) => {
      const base = {
        companyId: company.company.id,
        vendorKeyId: (await company.issueKey()).id,
        credentialId: company.credential.id,
      };
      return seedSubmissions(
        t.gateway,
        Array.from({ length: n }, (_, i) => ({ ...base, at: start + i * 1_000, status: "queued" as const })),
      );
    };
    const ids = await seed(acme, count);
    const rivalIds = await seed(rival, 3);
    const contact = sqliteOf(t.gateway).sqlite.prepare(
      "UPDATE submissions SET contact_email = ?, contact_phone = ? WHERE id = ?",
    );
    // The oldest, one each side of a step's boundary (steps walk down from the newest), the newest; one by phone.
    const byEmail = [ids[0], ids[count - ERASURE_CHUNK - 1], ids[count - ERASURE_CHUNK], ids[count - 1]] as string[];
    for (const id of byEmail) contact.run("forget.me@example.com", "15125550100", id);
    contact.run("other@example.com", "15125550199", ids[5] as string);
    contact.run("forget.me@example.com", "15125550100", rivalIds[0] as string);

    let turns = 0;
    const counting = setInterval(() => turns++, 0);
    const byEmailResult = await erasePerson({
      ctx,
      companyId: acme.company.id,
      input: { email: " Forget.Me@example.com" },
    });
    clearInterval(counting);
    expect(byEmailResult).toMatchObject({ erased: 4 });
    expect(turns).toBeGreaterThan(0);

    const row = sqliteOf(t.gateway).sqlite.prepare(
      "SELECT raw_payload, contact_email, status, last_error FROM submissions WHERE id = ?",
    );
    for (const id of byEmail) {
      expect(row.get(id)).toEqual({
        raw_payload: null,
        contact_email: null,
        status: "failed",
        last_error: "erased at the owner's request",
      });
    }
    // Another company's row with the same email is untouched.
    expect(row.get(rivalIds[0])).toMatchObject({ contact_email: "forget.me@example.com", status: "queued" });

    expect(await erasePerson({ ctx, companyId: acme.company.id, input: { phone: "+1 (512) 555-0199" } })).toMatchObject(
      { erased: 1 },
    );
    expect(row.get(ids[5])).toMatchObject({ contact_email: null, status: "failed" });
    // Idempotent: nothing left to erase.
    expect(
      await erasePerson({ ctx, companyId: acme.company.id, input: { email: "forget.me@example.com" } }),
    ).toMatchObject({ erased: 0 });
  });
});

describe("retention purge: a range of the time-ordered ids (no created_at index)", () => {
  it("purges the finished submissions made before the cutoff, keeps newer ones and anything still to send", async () => {
    const acme = await seedCompany(t.gateway, "Retained");
    const ctx = t.gateway.ctx;
    const base = {
      companyId: acme.company.id,
      vendorKeyId: (await acme.issueKey()).id,
      credentialId: acme.credential.id,
    };
    const day = 86_400_000;
    const cutoff = Date.now() - ctx.settings.retentionDays * day;
    const [old, oldQueued, recent] = seedSubmissions(t.gateway, [
      { ...base, at: cutoff - 60_000, status: "forwarded" },
      { ...base, at: cutoff - 60_000, status: "queued" },
      { ...base, at: cutoff + 60_000, status: "forwarded" },
    ]);
    await purgeExpiredPayloads({ ctx });
    const payload = sqliteOf(t.gateway).sqlite.prepare("SELECT raw_payload FROM submissions WHERE id = ?");
    expect(payload.get(old)).toEqual({ raw_payload: null });
    expect(payload.get(oldQueued)).not.toEqual({ raw_payload: null });
    expect(payload.get(recent)).not.toEqual({ raw_payload: null });
  });
});
