import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OwnerRow } from "../../../src/gateway/storage/tenants/index.js";
import { BACKENDS, id, newCompany, type Opened } from "./backends.js";

/**
 * The tenants store's contract (docs/decisions.md, D-221, D-250): companies, owners, sessions and tokens, the same on
 * SQLite and PostgreSQL.
 */
describe.each(BACKENDS)("tenants store on $name", (backend) => {
  describe.skipIf(backend.skip)("contract", () => {
    const open = backend.use();
    let gateway: Opened;
    let other: Opened;
    beforeAll(() => {
      gateway = open();
      other = open();
    });
    afterAll(async () => {
      await gateway?.close();
      await other?.close();
    });

    async function newOwner(companyId: string, change: Partial<OwnerRow> = {}): Promise<OwnerRow> {
      const row: OwnerRow = {
        id: id("own"),
        companyId,
        email: `${id("o")}@example.com`,
        name: "Olga",
        role: "admin",
        passwordHash: "hash-1",
        createdAt: "2026-01-01T00:00:00.000Z",
        ...change,
      };
      await gateway.tenants.insertOwner(row);
      return row;
    }

    async function newSession(ownerId: string, kind: "session" | "token" = "session", tokenId = id("tok")) {
      const tokenDigest = id("digest");
      await gateway.tenants.insertToken({
        id: tokenId,
        ownerId,
        kind,
        name: kind === "token" ? "ci" : null,
        tokenDigest,
        csrf: kind === "session" ? "csrf" : null,
        createdAt: "2026-01-02T00:00:00.000Z",
        expiresAt: null,
      });
      return { id: tokenId, tokenDigest };
    }

    describe("companies", () => {
      it("reads a company back with its limits as an object, and updates name and limits", async () => {
        const company = await newCompany(gateway, { limits: { perCredential: 30 } });
        expect(await gateway.tenants.getCompany(company.id)).toEqual(company);
        expect(await gateway.tenants.companyLimits(company.id)).toEqual({ perCredential: 30 });
        await gateway.tenants.updateCompany(company.id, { name: "Acme 2", limits: null });
        expect(await gateway.tenants.getCompany(company.id)).toEqual({ ...company, name: "Acme 2", limits: null });
        expect(await gateway.tenants.companyLimits(company.id)).toBeNull();
      });

      it("an unknown company is not found and has no limits", async () => {
        expect(await gateway.tenants.getCompany("co_none")).toBeUndefined();
        expect(await gateway.tenants.companyLimits("co_none")).toBeNull();
      });

      it("lists every company's id", async () => {
        const [a, b] = [await newCompany(gateway), await newCompany(gateway)];
        const ids = await other.tenants.companyIds();
        expect(ids).toEqual(expect.arrayContaining([a.id, b.id]));
      });
    });

    describe("owners", () => {
      it("finds an owner by email, another process too", async () => {
        const company = await newCompany(gateway);
        const owner = await newOwner(company.id);
        expect(await other.tenants.ownerByEmail(owner.email)).toEqual(owner);
        expect(await other.tenants.ownerByEmail("nobody@example.com")).toBeUndefined();
      });

      it("an email belongs to one owner", async () => {
        const company = await newCompany(gateway);
        const owner = await newOwner(company.id);
        await expect(newOwner(company.id, { email: owner.email })).rejects.toThrow();
      });

      it("updates an owner without ending its sessions", async () => {
        const company = await newCompany(gateway);
        const owner = await newOwner(company.id);
        const session = await newSession(owner.id);
        await gateway.tenants.updateOwner(owner.id, { name: "Olga B", role: "viewer" });
        const found = await gateway.tenants.tokenWithOwner(session.tokenDigest);
        expect(found?.owner).toEqual({ ...owner, name: "Olga B", role: "viewer" });
        expect(found?.token.revokedAt).toBeNull();
      });

      it("a changed password ends the owner's sessions in the same transaction; bearer tokens stay", async () => {
        const company = await newCompany(gateway);
        const owner = await newOwner(company.id);
        const session = await newSession(owner.id);
        const token = await newSession(owner.id, "token");
        const at = new Date("2026-02-01T00:00:00.000Z");
        await gateway.tenants.updateOwner(owner.id, { passwordHash: "hash-2" }, at);
        const ended = await other.tenants.tokenWithOwner(session.tokenDigest);
        expect(ended?.token.revokedAt).toBe(at.toISOString());
        expect(ended?.owner.passwordHash).toBe("hash-2");
        expect((await other.tenants.tokenWithOwner(token.tokenDigest))?.token.revokedAt).toBeNull();
      });

      it("inside a transaction that rolls back, neither the owner's change nor the ended sessions remain", async () => {
        const company = await newCompany(gateway);
        const owner = await newOwner(company.id);
        const session = await newSession(owner.id);
        await expect(
          gateway.transaction(async (tx) => {
            await tx.tenants.updateOwner(owner.id, { passwordHash: "hash-2" }, new Date());
            // Positive control: inside, both hold.
            const inside = await tx.tenants.tokenWithOwner(session.tokenDigest);
            expect(inside?.owner.passwordHash).toBe("hash-2");
            expect(inside?.token.revokedAt).not.toBeNull();
            throw new Error("abandoned");
          }),
        ).rejects.toThrow("abandoned");
        const after = await gateway.tenants.tokenWithOwner(session.tokenDigest);
        expect(after?.owner.passwordHash).toBe("hash-1");
        expect(after?.token.revokedAt).toBeNull();
      });

      it("rehashes a password only if it is unchanged meanwhile", async () => {
        const company = await newCompany(gateway);
        const owner = await newOwner(company.id);
        await gateway.tenants.rehashPassword(owner.id, "hash-old", "hash-new");
        expect((await gateway.tenants.ownerByEmail(owner.email))?.passwordHash).toBe("hash-1");
        await gateway.tenants.rehashPassword(owner.id, "hash-1", "hash-new");
        expect((await gateway.tenants.ownerByEmail(owner.email))?.passwordHash).toBe("hash-new");
      });
    });

    describe("sessions and tokens", () => {
      it("authenticates by digest with the owner, and records the last use", async () => {
        const company = await newCompany(gateway);
        const owner = await newOwner(company.id);
        const session = await newSession(owner.id);
        const found = await gateway.tenants.tokenWithOwner(session.tokenDigest);
        expect(found).toEqual({
          token: {
            id: session.id,
            ownerId: owner.id,
            kind: "session",
            name: null,
            tokenDigest: session.tokenDigest,
            csrf: "csrf",
            createdAt: "2026-01-02T00:00:00.000Z",
            expiresAt: null,
            revokedAt: null,
            lastUsedAt: null,
          },
          owner,
        });
        await gateway.tenants.touchToken(session.id, "2026-01-03T00:00:00.000Z");
        expect((await gateway.tenants.tokenWithOwner(session.tokenDigest))?.token.lastUsedAt).toBe(
          "2026-01-03T00:00:00.000Z",
        );
        expect(await gateway.tenants.tokenWithOwner("unknown-digest")).toBeUndefined();
      });

      it("a session revoked by another process is refused here at once (read per request)", async () => {
        const company = await newCompany(gateway);
        const owner = await newOwner(company.id);
        const session = await newSession(owner.id);
        // Positive control: valid here before the revocation, read twice (a cache would now hold it).
        expect((await gateway.tenants.tokenWithOwner(session.tokenDigest))?.token.revokedAt).toBeNull();
        expect((await gateway.tenants.tokenWithOwner(session.tokenDigest))?.token.revokedAt).toBeNull();
        await other.tenants.updateOwner(owner.id, { name: "renamed" }, new Date("2026-02-01T00:00:00.000Z"));
        expect((await gateway.tenants.tokenWithOwner(session.tokenDigest))?.token.revokedAt).toBe(
          "2026-02-01T00:00:00.000Z",
        );
      });

      it("lists an owner's bearer tokens not revoked, newest first, never sessions", async () => {
        const company = await newCompany(gateway);
        const owner = await newOwner(company.id);
        await newSession(owner.id, "session");
        // Ids of one test that sort by their last character (newest: the greatest id).
        const base = id("tok");
        const older = await newSession(owner.id, "token", `${base}_1`);
        const newer = await newSession(owner.id, "token", `${base}_2`);
        const revoked = await newSession(owner.id, "token", `${base}_3`);
        expect(await gateway.tenants.revokeToken(revoked.id, owner.id, "2026-02-01T00:00:00.000Z")).toBe(true);
        const listed = await gateway.tenants.tokensOf(owner.id);
        expect(listed).toEqual([
          { id: newer.id, name: "ci", createdAt: "2026-01-02T00:00:00.000Z", expiresAt: null, lastUsedAt: null },
          { id: older.id, name: "ci", createdAt: "2026-01-02T00:00:00.000Z", expiresAt: null, lastUsedAt: null },
        ]);
      });

      it("revokes one token of its owner only, once", async () => {
        const company = await newCompany(gateway);
        const owner = await newOwner(company.id);
        const stranger = await newOwner(company.id);
        const token = await newSession(owner.id, "token");
        expect(await gateway.tenants.revokeToken(token.id, stranger.id, "2026-02-01T00:00:00.000Z")).toBe(false);
        expect(await gateway.tenants.revokeToken(token.id, owner.id, "2026-02-01T00:00:00.000Z")).toBe(true);
        expect(await gateway.tenants.revokeToken(token.id, owner.id, "2026-02-02T00:00:00.000Z")).toBe(false);
        expect((await gateway.tenants.tokenWithOwner(token.tokenDigest))?.token.revokedAt).toBe(
          "2026-02-01T00:00:00.000Z",
        );
      });

      it("updateOwner's endSessions ends sessions only, leaving tokens and ended sessions as they were", async () => {
        const company = await newCompany(gateway);
        const owner = await newOwner(company.id);
        const first = await newSession(owner.id);
        const second = await newSession(owner.id);
        const token = await newSession(owner.id, "token");
        await gateway.tenants.revokeToken(first.id, owner.id, "2026-01-15T00:00:00.000Z");
        await gateway.tenants.updateOwner(owner.id, { name: "renamed" }, new Date("2026-02-01T00:00:00.000Z"));
        expect((await gateway.tenants.tokenWithOwner(first.tokenDigest))?.token.revokedAt).toBe(
          "2026-01-15T00:00:00.000Z",
        );
        expect((await gateway.tenants.tokenWithOwner(second.tokenDigest))?.token.revokedAt).toBe(
          "2026-02-01T00:00:00.000Z",
        );
        expect((await gateway.tenants.tokenWithOwner(token.tokenDigest))?.token.revokedAt).toBeNull();
      });
    });
  });
});
