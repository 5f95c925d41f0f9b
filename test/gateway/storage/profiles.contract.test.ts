import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ProfileRow, ProfileVersionRow } from "../../../src/gateway/storage/profiles/index.js";
import { BACKENDS, id, newCompany, type Opened } from "./backends.js";

/**
 * The profiles store's contract (docs/decisions.md, D-221, D-248): intake's cached `expressionOf` (a version is
 * immutable; another company's version is a 404), the owner API's profiles and versions, and an erasure's removal of
 * samples, the same on SQLite and PostgreSQL.
 */
describe.each(BACKENDS)("profiles store on $name", (backend) => {
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

    async function newProfile(companyId: string, change: Partial<ProfileRow> = {}): Promise<ProfileRow> {
      const row: ProfileRow = {
        id: id("prof"),
        companyId,
        name: id("marketplace"),
        kind: "lead",
        description: null,
        createdAt: "2026-01-01T00:00:00.000Z",
        ...change,
      };
      await gateway.profiles.insertProfile(row);
      return row;
    }

    async function newVersion(profile: ProfileRow, version: number, change: Partial<ProfileVersionRow> = {}) {
      const row: ProfileVersionRow = {
        id: id("ver"),
        profileId: profile.id,
        companyId: profile.companyId,
        version,
        expression: `{"version": ${version}}`,
        samples: [{ name: "one", payload: { email: "ada@example.com" }, expect: { body: { v: version } } }],
        status: "draft",
        samplesPassed: false,
        createdAt: "2026-01-01T00:00:00.000Z",
        publishedAt: null,
        ...change,
      };
      await gateway.profiles.insertVersion(row);
      return row;
    }

    /** As a promise: a hit is answered synchronously, a miss is a promise. */
    async function expressionOf(stores: Opened, companyId: string, versionId: string) {
      return stores.profiles.expressionOf(companyId, versionId);
    }

    describe("intake's expressionOf", () => {
      it("answers a version's expression, then synchronously from the cache", async () => {
        const company = await newCompany(gateway);
        const version = await newVersion(await newProfile(company.id), 1);
        expect((await gateway.profiles.expressionOf(company.id, version.id))?.expression).toBe('{"version": 1}');
        const hit = gateway.profiles.expressionOf(company.id, version.id);
        expect(hit).not.toBeInstanceOf(Promise);
        expect((hit as { expression: string }).expression).toBe('{"version": 1}');
      });

      it("another company's version, or none, is not found (undefined: storage knows no HTTP), cached or not", async () => {
        const company = await newCompany(gateway);
        const stranger = await newCompany(gateway);
        const version = await newVersion(await newProfile(company.id), 1);
        const read = (companyId: string, versionId: string) => expressionOf(gateway, companyId, versionId);
        await expect(read(stranger.id, version.id)).resolves.toBeUndefined();
        // Positive control: the owner's read succeeds (and is now cached); the stranger's still fails.
        expect((await read(company.id, version.id))?.expression).toBe('{"version": 1}');
        await expect(read(stranger.id, version.id)).resolves.toBeUndefined();
        await expect(read(company.id, "ver_none")).resolves.toBeUndefined();
      });

      it("a version created by another process is found here at once (a miss is never cached)", async () => {
        const company = await newCompany(gateway);
        const profile = await newProfile(company.id);
        const versionId = id("ver");
        await expect(expressionOf(gateway, company.id, versionId)).resolves.toBeUndefined();
        await other.profiles.insertVersion({
          id: versionId,
          profileId: profile.id,
          companyId: company.id,
          version: 1,
          expression: "$",
          samples: [],
          status: "published",
          samplesPassed: true,
          createdAt: "2026-01-01T00:00:00.000Z",
          publishedAt: "2026-01-01T00:00:00.000Z",
        });
        expect((await gateway.profiles.expressionOf(company.id, versionId))?.expression).toBe("$");
      });

      it("a version inserted by a transaction that rolled back is not found afterwards", async () => {
        const company = await newCompany(gateway);
        const profile = await newProfile(company.id);
        const versionId = id("ver");
        await expect(
          gateway.transaction(async (tx) => {
            await tx.profiles.insertVersion({
              id: versionId,
              profileId: profile.id,
              companyId: company.id,
              version: 1,
              expression: "$",
              samples: [],
              status: "draft",
              samplesPassed: false,
              createdAt: "2026-01-01T00:00:00.000Z",
              publishedAt: null,
            });
            // Positive control: inside the transaction the version is there.
            expect((await tx.profiles.expressionOf(company.id, versionId))?.expression).toBe("$");
            throw new Error("abandoned");
          }),
        ).rejects.toThrow("abandoned");
        await expect(expressionOf(gateway, company.id, versionId)).resolves.toBeUndefined();
      });
    });

    describe("profiles and versions", () => {
      it("reads a company's profile by id and by name, never another company's", async () => {
        const company = await newCompany(gateway);
        const stranger = await newCompany(gateway);
        const profile = await newProfile(company.id, { description: "leads from the marketplace" });
        expect(await other.profiles.getProfileOfCompany(profile.id, company.id)).toEqual(profile);
        expect(await gateway.profiles.getProfileOfCompany(profile.id, stranger.id)).toBeUndefined();
        expect(await gateway.profiles.profileByName(company.id, profile.name)).toEqual(profile);
        expect(await gateway.profiles.profileByName(stranger.id, profile.name)).toBeUndefined();
      });

      it("a profile's name is unique in its company", async () => {
        const company = await newCompany(gateway);
        const profile = await newProfile(company.id);
        await expect(newProfile(company.id, { name: profile.name })).rejects.toThrow();
        // Positive control: another company may use the name.
        await expect(newProfile((await newCompany(gateway)).id, { name: profile.name })).resolves.toBeDefined();
      });

      it("lists a company's profiles in the order they were created", async () => {
        const company = await newCompany(gateway);
        const first = await newProfile(company.id, { name: "zeta", createdAt: "2026-01-01T00:00:00.000Z" });
        const second = await newProfile(company.id, { name: "alpha", createdAt: "2026-01-02T00:00:00.000Z" });
        await newProfile((await newCompany(gateway)).id);
        expect(await gateway.profiles.profilesOf(company.id)).toEqual([first, second]);
      });

      it("reads versions with samples and booleans as stored, newest first, and the latest", async () => {
        const company = await newCompany(gateway);
        const stranger = await newCompany(gateway);
        const profile = await newProfile(company.id);
        const v1 = await newVersion(profile, 1);
        const v2 = await newVersion(profile, 2);
        expect(await other.profiles.getVersionOfCompany(v1.id, company.id)).toEqual(v1);
        expect(await gateway.profiles.getVersionOfCompany(v1.id, stranger.id)).toBeUndefined();
        expect(await gateway.profiles.versionsOf(profile.id)).toEqual([v2, v1]);
        expect(await gateway.profiles.latestVersionOf(profile.id)).toEqual(v2);
        expect(await gateway.profiles.versionIdsOf(profile.id)).toEqual([v1.id, v2.id]);
        expect(await gateway.profiles.latestVersionOf(id("prof"))).toBeUndefined();
        expect(await gateway.profiles.versionsOf(id("prof"))).toEqual([]);
      });

      it("a profile's version numbers are unique", async () => {
        const company = await newCompany(gateway);
        const profile = await newProfile(company.id);
        await newVersion(profile, 1);
        await expect(newVersion(profile, 1)).rejects.toThrow();
      });

      it("reads a version with its profile's kind", async () => {
        const company = await newCompany(gateway);
        const profile = await newProfile(company.id, { kind: "appointment" });
        const version = await newVersion(profile, 1);
        expect(await gateway.profiles.versionWithKind(version.id)).toEqual({ version, kind: "appointment" });
        expect(await gateway.profiles.versionWithKind("ver_none")).toBeUndefined();
      });

      it("publishes a version", async () => {
        const company = await newCompany(gateway);
        const version = await newVersion(await newProfile(company.id), 1);
        await gateway.profiles.publishVersion(version.id, "2026-02-01T00:00:00.000Z");
        expect(await other.profiles.getVersionOfCompany(version.id, company.id)).toEqual({
          ...version,
          status: "published",
          samplesPassed: true,
          publishedAt: "2026-02-01T00:00:00.000Z",
        });
      });
    });

    describe("an erasure's samples", () => {
      it("removes the samples that mention the person from the company's versions only, and counts them", async () => {
        const company = await newCompany(gateway);
        const stranger = await newCompany(gateway);
        const profile = await newProfile(company.id);
        const mentioned = { name: "ada", payload: { email: "ada@example.com" }, expect: { body: {} } };
        const unrelated = { name: "bob", payload: { email: "bob@example.com" }, expect: { body: {} } };
        const v1 = await newVersion(profile, 1, { samples: [mentioned, unrelated] });
        const v2 = await newVersion(profile, 2, { samples: [mentioned] });
        const untouched = await newVersion(profile, 3, { samples: [unrelated] });
        const theirs = await newVersion(await newProfile(stranger.id), 1, { samples: [mentioned] });
        const mentions = (text: string) => text.includes("ada@example.com");
        expect(await gateway.profiles.eraseSamples(company.id, mentions)).toBe(2);
        expect((await gateway.profiles.getVersionOfCompany(v1.id, company.id))?.samples).toEqual([unrelated]);
        expect((await gateway.profiles.getVersionOfCompany(v2.id, company.id))?.samples).toEqual([]);
        expect(await gateway.profiles.getVersionOfCompany(untouched.id, company.id)).toEqual(untouched);
        expect(await gateway.profiles.getVersionOfCompany(theirs.id, stranger.id)).toEqual(theirs);
        // The expression of an erased version stays what it was.
        expect((await gateway.profiles.expressionOf(company.id, v1.id))?.expression).toBe('{"version": 1}');
        expect(await gateway.profiles.eraseSamples(company.id, mentions)).toBe(0);
      });

      it("two erasures at once, from two processes, remove and count each sample once", async () => {
        const company = await newCompany(gateway);
        const profile = await newProfile(company.id);
        const mentioned = { name: "ada", payload: { email: "ada@example.com" }, expect: { body: {} } };
        for (let version = 1; version <= 5; version++) await newVersion(profile, version, { samples: [mentioned] });
        const mentions = (text: string) => text.includes("ada@example.com");
        const counts = await Promise.all([
          gateway.profiles.eraseSamples(company.id, mentions),
          other.profiles.eraseSamples(company.id, mentions),
        ]);
        expect(counts[0] + counts[1]).toBe(5);
        expect((await gateway.profiles.versionsOf(profile.id)).every((v) => v.samples.length === 0)).toBe(true);
      });
    });
  });
});
