import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { findProfileDirs, loadProfileDir, ProfileLoadError } from "../../../src/gateway/profiles/index.js";

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "profiles-"));
});
afterEach(() => rm(root, { recursive: true, force: true }));

async function writeProfile(dir: string, files: Record<string, string>): Promise<string> {
  const base = join(root, dir);
  for (const [name, text] of Object.entries(files)) {
    await mkdir(join(base, name, ".."), { recursive: true });
    await writeFile(join(base, name), text);
  }
  return base;
}

const manifest = JSON.stringify({ name: "acme", kind: "lead", description: "Acme forms" });
const sample = (name?: string) =>
  JSON.stringify({ ...(name ? { name } : {}), payload: { a: 1 }, expect: { error: { field: "email" } } });

describe("profile files: profiles/<vendor>/{profile.json, profile.jsonata, samples/*.json}", () => {
  it("reads the manifest, the expression and the samples in file-name order", async () => {
    const dir = await writeProfile("acme", {
      "profile.json": manifest,
      "profile.jsonata": '{"fullName": name}\n',
      "samples/02-second.json": sample(),
      "samples/01-first.json": sample("the first"),
      "samples/notes.txt": "ignored",
    });
    const profile = await loadProfileDir(dir);
    expect(profile).toMatchObject({
      dir,
      name: "acme",
      kind: "lead",
      description: "Acme forms",
      expression: '{"fullName": name}\n',
      versionId: expect.stringMatching(/^file:acme@[0-9a-f]{16}$/),
    });
    expect(profile.samples.map((s) => s.name)).toEqual(["the first", "02-second"]);
  });

  it("reads a sample that expects records (D-303)", async () => {
    const records = [{ kind: "lead", id: "s-1", body: { fullName: "A" } }];
    const dir = await writeProfile("acme", {
      "profile.json": manifest,
      "profile.jsonata": "{}",
      "samples/01.json": JSON.stringify({ payload: { a: 1 }, expect: { records } }),
    });
    expect((await loadProfileDir(dir)).samples).toEqual([{ name: "01", payload: { a: 1 }, expect: { records } }]);
  });

  it("derives the version id from the expression, so an edit gets a new one", async () => {
    const dir = await writeProfile("acme", { "profile.json": manifest, "profile.jsonata": "{}" });
    const before = (await loadProfileDir(dir)).versionId;
    expect((await loadProfileDir(dir)).versionId).toBe(before);
    await writeFile(join(dir, "profile.jsonata"), '{"a": 1}');
    expect((await loadProfileDir(dir)).versionId).not.toBe(before);
  });

  it.each([
    ["profile.json", "{ not json", /profile\.json: not valid JSON/],
    ["profile.json", JSON.stringify({ name: "acme", kind: "contractor" }), /profile\.json: kind/],
    ["samples/01.json", JSON.stringify({ payload: {}, expect: { status: 201 } }), /01\.json: expect/],
    ["samples/01.json", JSON.stringify({ payload: {}, expect: { records: {} } }), /01\.json: expect/],
  ])("names the file and the problem when %s is wrong", async (file, text, message) => {
    const dir = await writeProfile("acme", { "profile.json": manifest, "profile.jsonata": "{}", [file]: text });
    await expect(loadProfileDir(dir)).rejects.toThrow(message);
    await expect(loadProfileDir(dir)).rejects.toBeInstanceOf(ProfileLoadError);
  });

  it("names a missing expression file", async () => {
    const dir = await writeProfile("acme", { "profile.json": manifest });
    await expect(loadProfileDir(dir)).rejects.toThrow(/profile\.jsonata/);
  });

  it("finds profile directories two levels down, sorted, skipping hidden ones", async () => {
    const files = { "profile.json": manifest, "profile.jsonata": "{}" };
    await writeProfile("b-vendor", files);
    await writeProfile("a-vendor", files);
    await writeProfile("_attacks/loop", files);
    await writeProfile(".hidden/x", files);
    expect(await findProfileDirs(root)).toEqual(["_attacks/loop", "a-vendor", "b-vendor"].map((d) => join(root, d)));
    expect(await findProfileDirs(join(root, "a-vendor"))).toEqual([join(root, "a-vendor")]);
  });
});
