import { afterEach, describe, expect, it } from "vitest";
import { defaultSettings } from "../../src/gateway/context.js";
import { OWASP_SCRYPT, PasswordHasher } from "../../src/gateway/security/passwords.js";
import { createCompany } from "../../src/gateway/tenants/create-company.js";
import { createOwner } from "../../src/gateway/tenants/create-owner.js";
import { json, OWNER_PASSWORD, postJson, seedCompany, startTestGateway, type TestGateway } from "../helpers/gateway.js";

/**
 * §4.3 and §5.7: console endpoints need an owner session. How the gateway's owners sign in, and how their sessions
 * and tokens end (docs/decisions.md, "Owner sign-in").
 */

const gateways: TestGateway[] = [];
afterEach(async () => {
  for (const t of gateways.splice(0)) await t.close();
});
const start = async (...args: Parameters<typeof startTestGateway>) => {
  const t = await startTestGateway(...args);
  gateways.push(t);
  return t;
};

async function signIn(t: TestGateway, email: string, password = OWNER_PASSWORD, headers: Record<string, string> = {}) {
  const res = await postJson(`${t.url}/owner/v1/sessions`, { email, password }, headers);
  const cookie = String(res.headers.get("set-cookie"));
  const body = await json(res);
  return { status: res.status, setCookie: cookie, cookie: cookie.split(";")[0] ?? "", csrf: String(body.csrfToken) };
}
const me = (t: TestGateway, headers: Record<string, string>) => fetch(`${t.url}/owner/v1/me`, { headers });

describe("§5.7 owner passwords: scrypt at OWASP's cost", () => {
  it("hashes at N = 2^17, r = 8, p = 1 unless told otherwise, and verifies what it hashed", async () => {
    expect(defaultSettings.passwordCost).toEqual({ N: 2 ** 17, r: 8, p: 1 });
    const hasher = new PasswordHasher();
    const stored = await hasher.hash("a long enough password");
    expect(stored).toMatch(/^scrypt\$131072\$8\$1\$/);
    expect(await hasher.verify("a long enough password", stored)).toEqual({ ok: true, outdated: false });
    expect(await hasher.verify("another password!!", stored)).toEqual({ ok: false, outdated: false });
    expect(OWASP_SCRYPT).toEqual(defaultSettings.passwordCost);
  }, 30_000);

  it("hashes a password stored at a lower cost again at the next sign-in", async () => {
    const t = await start();
    const acme = await seedCompany(t.gateway);
    const weak = await new PasswordHasher({ N: 2 ** 9, r: 8, p: 1 }).hash(OWNER_PASSWORD);
    const { tenants } = t.gateway.ctx;
    const stored = async () => (await tenants.ownerByEmail(acme.email))?.passwordHash ?? "";
    await tenants.updateOwner((await tenants.ownerByEmail(acme.email))?.id ?? "", { passwordHash: weak });
    expect(await stored()).toBe(weak);
    expect((await signIn(t, acme.email)).status).toBe(200);
    expect(await stored()).toMatch(/^scrypt\$1024\$8\$1\$/);
    expect(await stored()).not.toBe(weak);
    expect((await signIn(t, acme.email)).status).toBe(200);
  });

  it("hashes at most two at once, and only for a request the sign-in limits admitted", async () => {
    // A cost that takes a while, so that concurrent sign-ins overlap.
    const t = await start({ passwordCost: { N: 2 ** 14, r: 8, p: 1 } });
    const acme = await seedCompany(t.gateway);
    const { passwords } = t.gateway.ctx;
    const before = passwords.stats().derivations;
    const answers = await Promise.all(Array.from({ length: 8 }, () => signIn(t, acme.email, "wrong password!!")));
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(401));
    expect(passwords.stats()).toMatchObject({ peak: 2, running: 0, waiting: 0 });
    expect(passwords.stats().derivations - before).toBe(8);
    // The per-account limit (10 quick tries) refuses the rest without hashing anything.
    const more = await Promise.all(Array.from({ length: 4 }, () => signIn(t, acme.email, "wrong password!!")));
    expect(more.map((a) => a.status).sort()).toEqual([401, 401, 429, 429]);
    expect(passwords.stats().derivations - before).toBe(10);
  });
});

describe("§5.7 owner sessions end after inactivity", () => {
  it("ends a session unused for 30 minutes; using it keeps it alive; a bearer token has no idle limit", async () => {
    let clock = Date.parse("2026-09-01T08:00:00Z");
    const t = await start({}, { now: () => new Date(clock) });
    const acme = await seedCompany(t.gateway);
    const session = await signIn(t, acme.email);
    const tokenRes = await postJson(
      `${t.url}/owner/v1/tokens`,
      { name: "ci" },
      { cookie: session.cookie, "x-csrf-token": session.csrf },
    );
    const bearer = { authorization: `Bearer ${String((await json(tokenRes)).token)}` };
    const minutes = (n: number) => {
      clock += n * 60_000;
    };
    minutes(29);
    expect((await me(t, { cookie: session.cookie })).status).toBe(200);
    minutes(29);
    expect((await me(t, { cookie: session.cookie })).status).toBe(200);
    minutes(31);
    const idle = await me(t, { cookie: session.cookie });
    expect(idle.status).toBe(401);
    expect(await json(idle)).toEqual({
      error: "owner session expired after inactivity",
      code: "unauthorized",
      requestId: idle.headers.get("x-request-id"),
    });
    minutes(120);
    expect((await me(t, bearer)).status).toBe(200);
  });
});

describe("§5.7 the session cookie is Secure whenever the request came over https", () => {
  const secure = (setCookie: string) => /;\s*Secure/i.test(setCookie);

  it("believes x-forwarded-proto from a trusted proxy only", async () => {
    const trusting = await start({ trustedProxy: { ranges: ["127.0.0.1"], header: "x-forwarded-for" } });
    const acme = await seedCompany(trusting.gateway);
    expect(
      secure((await signIn(trusting, acme.email, OWNER_PASSWORD, { "x-forwarded-proto": "https" })).setCookie),
    ).toBe(true);
    // Plain http through the same proxy: not Secure (the browser would drop a Secure cookie on http).
    expect(
      secure((await signIn(trusting, acme.email, OWNER_PASSWORD, { "x-forwarded-proto": "http" })).setCookie),
    ).toBe(false);

    for (const trustedProxy of [null, { ranges: ["10.0.0.1"], header: "x-forwarded-for" }]) {
      const other = await start({ trustedProxy });
      const rival = await seedCompany(other.gateway);
      const claimed = await signIn(other, rival.email, OWNER_PASSWORD, { "x-forwarded-proto": "https" });
      expect(claimed.status).toBe(200);
      expect(secure(claimed.setCookie)).toBe(false);
    }
  });

  it("is always Secure in live mode", async () => {
    const t = await start({ mode: "live" });
    const company = await createCompany({ ctx: t.gateway.ctx, input: { name: "Live" } });
    const email = "owner@live.test";
    const input = { companyId: company.id, email, name: "Owner", role: "admin" as const, password: OWNER_PASSWORD };
    await createOwner({ ctx: t.gateway.ctx, input });
    expect(secure((await signIn(t, email)).setCookie)).toBe(true);
  });
});

describe("§5.7 bearer tokens: listed, revoked, optionally expiring", () => {
  it("lists the owner's tokens without their values; one with an expiry stops then; a revoked one at once", async () => {
    let clock = Date.parse("2026-09-01T08:00:00Z");
    const t = await start({}, { now: () => new Date(clock) });
    const acme = await seedCompany(t.gateway);
    const rival = await seedCompany(t.gateway);
    const session = await signIn(t, acme.email);
    const create = async (body: Record<string, unknown>) =>
      json(await postJson(`${t.url}/owner/v1/tokens`, body, { cookie: session.cookie, "x-csrf-token": session.csrf }));
    const lasting = await create({ name: "just a name" });
    const brief = await create({ name: "for a day", expiresInDays: 1 });
    expect(lasting).toMatchObject({ name: "just a name", expiresAt: null });
    expect(brief).toMatchObject({ name: "for a day", expiresAt: "2026-09-02T08:00:00.000Z" });
    const as = (token: unknown) => ({ authorization: `Bearer ${String(token)}` });

    const listed = await json(await fetch(`${t.url}/owner/v1/tokens`, { headers: as(lasting.token) }));
    expect(listed).toEqual({
      tokens: [
        {
          id: brief.id,
          name: "for a day",
          createdAt: expect.any(String),
          expiresAt: brief.expiresAt,
          lastUsedAt: null,
        },
        {
          id: lasting.id,
          name: "just a name",
          createdAt: expect.any(String),
          expiresAt: null,
          lastUsedAt: expect.any(String),
        },
      ],
    });
    expect(JSON.stringify(listed)).not.toContain(String(lasting.token));
    // Another owner's list does not show them.
    const theirs = await signIn(t, rival.email);
    expect(await json(await fetch(`${t.url}/owner/v1/tokens`, { headers: { cookie: theirs.cookie } }))).toEqual({
      tokens: [],
    });

    clock += 2 * 86_400_000;
    expect((await me(t, as(brief.token))).status).toBe(401);
    expect((await me(t, as(lasting.token))).status).toBe(200);
    const revoke = await fetch(`${t.url}/owner/v1/tokens/${String(lasting.id)}`, {
      method: "DELETE",
      headers: as(lasting.token),
    });
    expect(revoke.status).toBe(200);
    expect((await me(t, as(lasting.token))).status).toBe(401);
  });
});

describe("§5.7 a password change ends the owner's sessions", () => {
  it("revokes every session of the owner, keeps its bearer tokens, and only the new password signs in", async () => {
    const t = await start();
    const acme = await seedCompany(t.gateway);
    const session = await signIn(t, acme.email);
    const tokenRes = await postJson(
      `${t.url}/owner/v1/tokens`,
      { name: "ci" },
      { cookie: session.cookie, "x-csrf-token": session.csrf },
    );
    const bearer = { authorization: `Bearer ${String((await json(tokenRes)).token)}` };
    // The same owner applied again with the same password (a config file at start): nothing ends.
    const input = { companyId: acme.company.id, email: acme.email, name: "Owner", role: "admin" as const };
    await createOwner({ ctx: t.gateway.ctx, input: { ...input, password: OWNER_PASSWORD } });
    expect((await me(t, { cookie: session.cookie })).status).toBe(200);

    await createOwner({ ctx: t.gateway.ctx, input: { ...input, password: "a brand new passphrase" } });
    const ended = await me(t, { cookie: session.cookie });
    expect(ended.status).toBe(401);
    expect(await json(ended)).toEqual({
      error: "owner session revoked",
      code: "unauthorized",
      requestId: ended.headers.get("x-request-id"),
    });
    expect((await me(t, bearer)).status).toBe(200);
    expect((await signIn(t, acme.email)).status).toBe(401);
    expect((await signIn(t, acme.email, "a brand new passphrase")).status).toBe(200);
  });
});
