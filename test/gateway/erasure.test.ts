import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ERASURE_CHUNK, erasePerson, purgeExpiredPayloads } from "../../src/gateway/submissions/retention.js";
import { seedCompany, startTestGateway, type TestGateway } from "../helpers/gateway.js";
import { seedSubmissions } from "../helpers/seed-submissions.js";
import { TEST_STORE } from "../helpers/test-store.js";

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
    // The oldest, one each side of a step's boundary (steps walk down from the newest), the newest; one by phone.
    const byEmail = new Set([0, count - ERASURE_CHUNK - 1, count - ERASURE_CHUNK, count - 1]);
    const person = { contactEmail: "forget.me@example.com", contactPhone: "15125550100" };
    const contactOf = (i: number) =>
      byEmail.has(i) ? person : i === 5 ? { contactEmail: "other@example.com", contactPhone: "15125550199" } : {};
    const seed = async (company: typeof acme, n: number, contact: (i: number) => Partial<typeof person>) => {
      const base = {
        companyId: company.company.id,
        vendorKeyId: (await company.issueKey()).id,
        credentialId: company.credential.id,
      };
      return seedSubmissions(
        t.gateway,
        Array.from({ length: n }, (_, i) => ({
          ...base,
          at: start + i * 1_000,
          status: "queued" as const,
          ...contact(i),
        })),
      );
    };
    const ids = await seed(acme, count, contactOf);
    const rivalIds = await seed(rival, 3, (i) => (i === 0 ? person : {}));

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

    const row = async (id: string | undefined) => {
      const read = await ctx.submissions.get(id ?? "");
      return read && pick(read, ["rawPayload", "contactEmail", "status", "lastError"]);
    };
    for (const i of byEmail) {
      expect(await row(ids[i])).toEqual({
        rawPayload: null,
        contactEmail: null,
        status: "failed",
        lastError: "erased at the owner's request",
      });
    }
    // Another company's row with the same email is untouched.
    expect(await row(rivalIds[0])).toMatchObject({ contactEmail: "forget.me@example.com", status: "queued" });

    expect(await erasePerson({ ctx, companyId: acme.company.id, input: { phone: "+1 (512) 555-0199" } })).toMatchObject(
      { erased: 1 },
    );
    expect(await row(ids[5])).toMatchObject({ contactEmail: null, status: "failed" });
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
    const [old, oldQueued, recent] = await seedSubmissions(t.gateway, [
      { ...base, at: cutoff - 60_000, status: "forwarded" },
      { ...base, at: cutoff - 60_000, status: "queued" },
      { ...base, at: cutoff + 60_000, status: "forwarded" },
    ]);
    await purgeExpiredPayloads({ ctx });
    const payload = async (id: string | undefined) => (await ctx.submissions.get(id ?? ""))?.rawPayload;
    expect(await payload(old)).toBeNull();
    expect(await payload(oldQueued)).toEqual(expect.any(String));
    expect(await payload(recent)).toEqual(expect.any(String));
  });
});

/** The fields `keys` of a row, for an exact comparison. */
function pick<T extends object, K extends keyof T>(row: T, keys: readonly K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((key) => [key, row[key]])) as Pick<T, K>;
}

describe("what an erasure leaves in the database's pages (D-241, D-257)", () => {
  // SQLite's guarantee (the WAL checkpointed and truncated, secure_delete: the file holds no trace) is about its file:
  // test/gateway/storage/sqlite-erasure-truncate.test.ts, on a file of its own. PostgreSQL's own is that no row
  // version of the tables, live or dead, holds the erased data once the erasure's VACUUM ran: read here from the
  // heap pages themselves (pageinspect), dead versions included.
  it.skipIf(TEST_STORE !== "postgres")("leaves no row version of a submission holding the person's data", async () => {
    const { database } = t.gateway;
    if (database.dialect !== "postgres") throw new Error("this test reads PostgreSQL's pages");
    const { pool } = database.database;
    await pool.query("CREATE EXTENSION IF NOT EXISTS pageinspect");
    const email = `vacuumed.${Date.now()}@example.com`;
    /** The row versions of `submissions`, live or dead, whose bytes hold `email`. */
    const versionsHolding = async () => {
      const { rows } = await pool.query<{ n: number }>(
        `SELECT count(*)::int AS n
           FROM generate_series(0, pg_relation_size('submissions') / current_setting('block_size')::int - 1) AS page,
                heap_page_items(get_raw_page('submissions', page::int)) AS item
          WHERE position(convert_to($1, 'UTF8') IN item.t_data) > 0`,
        [email],
      );
      return rows[0]?.n;
    };
    const acme = await seedCompany(t.gateway, "Vacuumed");
    const rival = await seedCompany(t.gateway, "Kept");
    const person = { contactEmail: email, payload: { mail: email } };
    for (const company of [acme, rival]) {
      const key = await company.issueKey();
      await seedSubmissions(t.gateway, [
        {
          companyId: company.company.id,
          vendorKeyId: key.id,
          credentialId: company.credential.id,
          at: Date.now(),
          status: "forwarded",
          ...person,
        },
      ]);
    }
    // The positive control: the pages are read, and both companies' rows hold the address.
    expect(await versionsHolding()).toBe(2);

    const result = await erasePerson({ ctx: t.gateway.ctx, companyId: acme.company.id, input: { email } });
    expect(result).toMatchObject({ erased: 1, walTruncated: true });
    // Only the other company's live row still holds it: the erased row's old version went with the VACUUM.
    expect(await versionsHolding()).toBe(1);
  });
});
