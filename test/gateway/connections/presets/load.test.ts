import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  loadPresetDir,
  loadPresets,
  PresetLoadError,
  urlTemplateIssue,
} from "../../../../src/gateway/connections/presets/index.js";
import { ProfileEngine } from "../../../../src/gateway/profiles/index.js";

/**
 * Preset data (hooks contract, "Preset data"; docs/decisions.md D-304): `presets/<id>/` holds preset.json,
 * profile.jsonata and samples/*.json; the loader refuses anything the schema does not describe, naming the file.
 * test/fixtures/presets/acme-forms is a made-up vendor, for the loader only.
 */
const FIXTURES = "test/fixtures/presets";
const FIXTURE = join(FIXTURES, "acme-forms");

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "presets-"));
});
afterEach(() => rm(root, { recursive: true, force: true }));

/** A copy of the fixture under `root`, with `edit` applied to one JSON file (or a file replaced by text). */
async function presetWith(file: string, edit: ((json: Record<string, unknown>) => void) | string): Promise<string> {
  const dir = join(root, "acme-forms");
  await cp(FIXTURE, dir, { recursive: true });
  const path = join(dir, file);
  if (typeof edit === "string") {
    await mkdir(join(path, ".."), { recursive: true });
    await writeFile(path, edit);
  } else {
    const json = JSON.parse(await readFile(path, "utf8")) as Record<string, unknown>;
    edit(json);
    await writeFile(path, JSON.stringify(json));
  }
  return dir;
}

const fetchOf = (json: Record<string, unknown>) => json.fetch as Record<string, unknown>;

describe("loading presets/<id>/", () => {
  it("reads preset.json, the profile and the samples in file-name order", async () => {
    const [preset, ...others] = await loadPresets(FIXTURES);
    expect(others).toEqual([]);
    expect(preset).toMatchObject({
      id: "acme-forms",
      dir: FIXTURE,
      versionId: expect.stringMatching(/^preset:acme-forms@[0-9a-f]{16}$/),
      preset: {
        kinds: ["lead", "appointment"],
        bodyType: "json",
        proof: { type: "hmac", secret: "signingSecret" },
        handshake: { type: "echo" },
        fetch: { auth: { type: "bearer", secret: "apiToken" }, perMinute: 60 },
      },
    });
    expect(preset?.expression).toBe(await readFile(join(FIXTURE, "profile.jsonata"), "utf8"));
    expect(preset?.samples.map((s) => [s.file, Object.keys(s.expect)[0]])).toEqual([
      ["01-submission-with-booking.json", "records"],
      ["02-verification.json", "answer"],
      ["03-no-phone.json", "held"],
    ]);
  });

  it("keeps the proof, handshake and answer declarations as the proofs module reads them (its defaults filled in)", async () => {
    const preset = await loadPresetDir(FIXTURE);
    const written = JSON.parse(await readFile(join(FIXTURE, "preset.json"), "utf8"));
    expect(preset.preset.proof).toMatchObject(written.proof);
    expect(preset.preset.handshake).toEqual({ answer: "text", ...written.handshake });
    expect(preset.preset.answer).toMatchObject(written.answer);
  });

  it("skips files and hidden directories beside the presets, and finds none in an empty folder", async () => {
    await cp(FIXTURE, join(root, "acme-forms"), { recursive: true });
    await writeFile(join(root, "README.md"), "presets");
    await mkdir(join(root, ".cache"));
    expect((await loadPresets(root)).map((p) => p.id)).toEqual(["acme-forms"]);
    const empty = await mkdtemp(join(tmpdir(), "presets-empty-"));
    try {
      expect(await loadPresets(empty)).toEqual([]);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });

  it("names a presets folder that does not exist", async () => {
    const missing = join(root, "nowhere");
    await expect(loadPresets(missing)).rejects.toThrow(new RegExp(`^${missing}: `));
  });
});

describe("the fixture's profile makes its samples' expected records (the same engine as golden samples)", () => {
  let engine: ProfileEngine;
  beforeAll(() => {
    engine = new ProfileEngine({ poolSize: 1, suspectForMs: 0 });
  });
  afterAll(() => engine.close());

  it("maps each fetched record to what the sample expects, or to a validation error where it is held", async () => {
    const preset = await loadPresetDir(FIXTURE);
    const results = [];
    for (const sample of preset.samples) {
      for (const fetched of Object.values(sample.fetched ?? {})) {
        const outcome = await engine.map({ ...preset, kind: "lead", payload: fetched });
        results.push("records" in sample.expect ? outcome : { held: !outcome.ok && outcome.kind === "validation" });
        if ("records" in sample.expect) expect(outcome).toMatchObject({ ok: true, records: sample.expect.records });
      }
    }
    expect(results).toMatchObject([{ ok: true }, { held: true }]);
  });
});

describe("preset.json: every problem names the file and the field", () => {
  it.each([
    ["not JSON", "{ nope", /preset\.json: not valid JSON/],
    ["an unknown key", (j: Record<string, unknown>) => Object.assign(j, { proofs: {} }), /preset\.json: .*proofs/],
    ["an id not the directory's", (j: Record<string, unknown>) => Object.assign(j, { id: "acme" }), /id: acme is not/],
    [
      "an id not a slug",
      (j: Record<string, unknown>) => Object.assign(j, { id: "Acme Forms" }),
      /id: must be lower-case/,
    ],
    [
      "appointments without leads",
      (j: Record<string, unknown>) => Object.assign(j, { kinds: ["appointment"] }),
      /kinds: must be \["lead"\] or \["lead", "appointment"\]/,
    ],
    ["a body type", (j: Record<string, unknown>) => Object.assign(j, { bodyType: "yaml" }), /bodyType: must be json/],
    ["a proof without a type", (j: Record<string, unknown>) => Object.assign(j, { proof: {} }), /proof\.type: /],
    ["no answer", (j: Record<string, unknown>) => delete j.answer, /answer: /],
    [
      "a secret declared twice",
      (j: Record<string, unknown>) => (j.secrets as unknown[]).push((j.secrets as unknown[])[0]),
      /secrets\.3\.name: signingSecret is declared twice/,
    ],
    [
      "a secret name with a space",
      (j: Record<string, unknown>) =>
        Object.assign((j.secrets as Record<string, unknown>[])[2] ?? {}, { name: "api token" }),
      /secrets\.2\.name: must be a secret name/,
    ],
    [
      "a test that does not compile",
      (j: Record<string, unknown>) => Object.assign(j, { test: "a = " }),
      /test: does not compile: .*\(line 1, column \d+\)/,
    ],
    ["no documentation", (j: Record<string, unknown>) => Object.assign(j, { docs: [] }), /docs: /],
    [
      "documentation that is not a link",
      (j: Record<string, unknown>) => Object.assign(j, { docs: ["see the vendor's site"] }),
      /docs\.0: must start with an http\(s\) URL/,
    ],
    [
      "a register of another kind",
      (j: Record<string, unknown>) => Object.assign(j, { register: { how: "email", docs: "x" } }),
      /register\.how: /,
    ],
  ])("%s", async (_what, edit, message) => {
    const dir = await presetWith("preset.json", edit);
    const load = loadPresetDir(dir);
    await expect(load).rejects.toBeInstanceOf(PresetLoadError);
    await expect(loadPresetDir(dir)).rejects.toThrow(message);
    await expect(loadPresetDir(dir)).rejects.toMatchObject({ code: "preset_invalid", file: join(dir, "preset.json") });
  });
});

describe("preset.json fetch: a request made with the owner's credentials, so checked in full", () => {
  const withFetch = (fields: Record<string, unknown>) => (j: Record<string, unknown>) =>
    Object.assign(fetchOf(j), fields);

  it.each([
    [
      "ids that do not compile",
      withFetch({ ids: "[submission.id" }),
      /fetch\.ids: does not compile: .*\(line 1, column \d+\)/,
    ],
    [
      "a host a payload could choose",
      withFetch({ url: "https://{host}/v2/submissions/{id}" }),
      /fetch\.url: must write out its host/,
    ],
    ["an http URL", withFetch({ url: "http://api.acme-forms.example/{id}" }), /fetch\.url: must be an https URL/],
    ["no placeholder", withFetch({ url: "https://api.acme-forms.example/latest" }), /fetch\.url: must name the record/],
    ["a stray brace", withFetch({ url: "https://api.acme-forms.example/{id}/{x-y}" }), /fetch\.url: has a brace/],
    [
      "credentials in the URL",
      withFetch({ url: "https://me:pw@api.acme-forms.example/{id}" }),
      /fetch\.url: must not carry credentials/,
    ],
    [
      "an auth of another type",
      withFetch({ auth: { type: "oauth", secret: "apiToken" } }),
      /fetch\.auth\.type: must be an auth of type bearer, basic, query or header/,
    ],
    [
      "an auth with a field too many",
      withFetch({ auth: { type: "bearer", secret: "apiToken", prefix: "Token " } }),
      /fetch\.auth: /,
    ],
    [
      "a secret the preset does not declare",
      withFetch({ auth: { type: "basic", username: "apiToken", password: "apiPassword" } }),
      /fetch\.auth\.password: names the secret apiPassword, which secrets does not declare/,
    ],
    ["an answer that is not JSON", withFetch({ accept: "text/xml" }), /fetch\.accept: must be a JSON media type/],
    ["more calls than the egress", withFetch({ perMinute: 601 }), /fetch\.perMinute: /],
    ["no rate", (j: Record<string, unknown>) => delete fetchOf(j).perMinute, /fetch\.perMinute: /],
    [
      "a header the auth sets",
      withFetch({ headers: { authorization: "Bearer x" } }),
      /fetch\.headers: must not set Authorization/,
    ],
    [
      "a header value on two lines",
      withFetch({ headers: { "Acme-Version": "1\r\nX-Evil: 1" } }),
      /fetch\.headers\.Acme-Version: must be printable ASCII/,
    ],
    ["a key of its own", withFetch({ method: "POST" }), /fetch: .*method/],
  ])("refuses %s", async (_what, edit, message) => {
    await expect(loadPresetDir(await presetWith("preset.json", edit))).rejects.toThrow(message);
  });

  it("takes every auth type (positive controls)", async () => {
    for (const auth of [
      { type: "bearer", secret: "apiToken" },
      { type: "basic", username: "apiToken", password: "signingSecret" },
      { type: "query", param: "access_token", secret: "apiToken" },
      { type: "header", name: "X-Api-Key", secret: "apiToken", prefix: "Key " },
    ]) {
      const preset = await loadPresetDir(await presetWith("preset.json", withFetch({ auth })));
      expect(preset.preset.fetch?.auth).toEqual(auth);
      await rm(preset.dir, { recursive: true });
    }
  });
});

describe("fetch URL templates", () => {
  it.each([
    ["https://graph.facebook.com/v21.0/{id}?fields=id,field_data", undefined],
    ["https://api.linkedin.com/rest/leadFormResponses/{id}?fields=form:(id,name)", undefined],
    ["https://api.example.com/calendars/{calendarID}/appointments/{id}", undefined],
    ["https://api.example.com?id={id}", undefined],
    ["https://api.example.com{id}", "must write out its host before the first placeholder"],
    ["https://{id}.example.com/x", "must write out its host before the first placeholder"],
    ["https://api.example.com/{ id }", "must name the record with a {placeholder}, e.g. {id}"],
    ["https://api.example.com/{id}}", "has a brace that is not a {name} placeholder"],
    ["ftp://api.example.com/{id}", "must be an https URL"],
    ["not a url/{id}", "is not a URL once its placeholders are filled"],
  ])("%s → %s", (template, issue) => {
    expect(urlTemplateIssue(template)).toBe(issue);
  });
});

describe("profile.jsonata", () => {
  it("a profile that does not compile fails the preset, naming the file, line and column", async () => {
    const dir = await presetWith("profile.jsonata", '(\n  $x := ;\n  [{"kind": "lead", "body": {}}]\n)');
    await expect(loadPresetDir(dir)).rejects.toThrow(
      new RegExp(`^${join(dir, "profile.jsonata")}:2:\\d+: does not compile: `),
    );
  });

  it("a missing profile names the file", async () => {
    const dir = await presetWith("preset.json", () => {});
    await rm(join(dir, "profile.jsonata"));
    await expect(loadPresetDir(dir)).rejects.toThrow(/profile\.jsonata: ENOENT/);
  });
});

describe("samples/*.json: a documented example and what the connection must make of it", () => {
  const sample = "samples/01-submission-with-booking.json";
  const records = (j: Record<string, unknown>) => (j.expect as { records: Record<string, unknown>[] }).records;

  it.each([
    [
      "an expectation of another shape",
      (j: Record<string, unknown>) => Object.assign(j, { expect: { status: 200 } }),
      /expect: must be \{records/,
    ],
    [
      "a record with a field too many",
      (j: Record<string, unknown>) => Object.assign(records(j)[0] ?? {}, { actoin: "cancel" }),
      /expect\.records\.0: Unrecognized key: "actoin"/,
    ],
    [
      "a held payload without a reason",
      (j: Record<string, unknown>) => Object.assign(j, { expect: { held: "" } }),
      /expect\.held: /,
    ],
    [
      "a source that is not a link",
      (j: Record<string, unknown>) => Object.assign(j, { source: "the docs" }),
      /source: must start with an http\(s\) URL/,
    ],
    [
      "a method",
      (j: Record<string, unknown>) => Object.assign(j.request as object, { method: "post" }),
      /request\.method: /,
    ],
    [
      "a body that is not the raw text",
      (j: Record<string, unknown>) => Object.assign(j.request as object, { body: {} }),
      /request\.body: /,
    ],
    [
      "a key of its own",
      (j: Record<string, unknown>) => Object.assign(j, { signedWith: "signingSecret" }),
      /signedWith/,
    ],
    [
      "a secret the preset does not declare",
      (j: Record<string, unknown>) => Object.assign(j, { secrets: { webhookKey: "x" } }),
      /secrets\.webhookKey: the preset declares no such secret/,
    ],
  ])("refuses %s", async (_what, edit, message) => {
    const dir = await presetWith(sample, edit);
    await expect(loadPresetDir(dir)).rejects.toThrow(message);
    await expect(loadPresetDir(dir)).rejects.toMatchObject({ file: join(dir, sample) });
  });

  it("refuses a record of a kind the preset does not make", async () => {
    const dir = await presetWith("preset.json", (j) => Object.assign(j, { kinds: ["lead"] }));
    await expect(loadPresetDir(dir)).rejects.toThrow(
      `${join(dir, sample)}: expect.records.1.kind: appointment is not among the preset's kinds`,
    );
  });

  it("refuses fetched records for a preset that fetches nothing", async () => {
    const dir = await presetWith("preset.json", (j) => delete j.fetch);
    await expect(loadPresetDir(dir)).rejects.toThrow(`${join(dir, sample)}: fetched: the preset fetches nothing`);
  });

  it("takes a sample expecting no record (a notification that carries none)", async () => {
    const dir = await presetWith(sample, (j) => Object.assign(j, { expect: { records: [] } }));
    expect((await loadPresetDir(dir)).samples[0]?.expect).toEqual({ records: [] });
  });
});
