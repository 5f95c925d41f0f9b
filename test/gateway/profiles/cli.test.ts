import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { profileCommand } from "../../../src/cli/profile.js";
import { ProfileEngine } from "../../../src/gateway/profiles/index.js";

let root: string;
let engine: ProfileEngine;
beforeAll(async () => {
  engine = new ProfileEngine({ poolSize: 1 });
  root = await mkdtemp(join(tmpdir(), "profile-cli-"));
  await cp("profiles/formflow-webform", join(root, "good"), { recursive: true });
  await cp("profiles/quillform-booking", join(root, "records", "good"), { recursive: true });
  await cp("profiles/quillform-booking", join(root, "records", "late"), { recursive: true });
  await writeFile(join(root, "records", "late", "profile.json"), JSON.stringify({ name: "late", kind: "lead" }));
  // Every appointment now starts half an hour late: the samples expecting one fail on its startsAt.
  const expression = await readFile(join(root, "records", "late", "profile.jsonata"), "utf8");
  await writeFile(
    join(root, "records", "late", "profile.jsonata"),
    expression.replace('$slot.date & " " & $slot.start', '$slot.date & " " & $slot.start & ":30"'),
  );
  await cp("profiles/formflow-webform", join(root, "broken"), { recursive: true });
  await writeFile(join(root, "broken", "profile.json"), JSON.stringify({ name: "broken", kind: "lead" }));
  // The expression now forgets the consent: every sample expecting smsConsent fails.
  await writeFile(
    join(root, "broken", "profile.jsonata"),
    '{"fullName": $joinName(first_name, last_name), "email": $normalizeEmail(email_address), "phone": $phoneE164(phone_number), "address": $joinAddress(street_address, city, state, zip_code)}',
  );
});
afterAll(async () => {
  await engine.close();
  await rm(root, { recursive: true, force: true });
});

async function cli(...argv: string[]) {
  let stdout = "";
  let stderr = "";
  const io = {
    stdout: (t: string) => {
      stdout += t;
    },
    stderr: (t: string) => {
      stderr += t;
    },
  };
  const code = await profileCommand(argv, io, engine);
  return { code, stdout, stderr };
}

describe("CLI: partner-gateway profile test [PATH]", () => {
  it("prints each sample's result and exits 0 when all pass", async () => {
    const { code, stdout } = await cli("test", join(root, "good"));
    expect(code).toBe(0);
    expect(stdout).toMatch(/✓ opted in with "yes"/);
    expect(stdout).toMatch(/1 profile\(s\), 4 sample\(s\): all passed/);
  });

  it("exits 1 and shows the failing samples with their diff", async () => {
    const { code, stdout } = await cli("test", root);
    expect(code).toBe(1);
    expect(stdout).toMatch(/✗ opted in with "yes"; tracking fields are ignored — the body differs in 1 place\(s\)/);
    expect(stdout).toMatch(/\$\.smsConsent: expected true, got \(absent\)/);
    expect(stdout).toMatch(/4 profile\(s\), 20 sample\(s\): 5 failed/);
  });

  it("names the record and field of a sample expecting records (docs/profiles.md, Records)", async () => {
    const { code, stdout } = await cli("test", join(root, "records"));
    expect(code).toBe(1);
    expect(stdout).toMatch(/✓ a lead and its appointment, chained/);
    expect(stdout).toMatch(/✗ a lead and its appointment, chained: the appointment names no lead — the records differ/);
    expect(stdout).toContain(
      'records[1].body.startsAt: expected "2026-12-03T16:00:00.000Z", got "2026-12-03T16:00:30.000Z"',
    );
    expect(stdout).toMatch(/2 profile\(s\), 12 sample\(s\): 2 failed/);
  });

  it("exits 1 when there is no profile under the path", async () => {
    const { code, stderr } = await cli("test", join(root, "good", "samples"));
    expect(code).toBe(1);
    expect(stderr).toMatch(/no profiles under/);
  });
});

describe("CLI: partner-gateway profile preview PROFILE PAYLOAD", () => {
  it("prints the canonical body of a golden sample's payload", async () => {
    const { code, stdout, stderr } = await cli(
      "preview",
      join(root, "good"),
      join(root, "good/samples/01-opted-in.json"),
    );
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ email: "james.oneil@example.org", smsConsent: true });
    expect(stderr).toMatch(/mapped by formflow-webform in [\d.]+ ms/);
  });

  it("prints the records of a profile that produces them, in order", async () => {
    const sample = join(root, "records", "good", "samples", "01-lead-and-slot.json");
    const { code, stdout, stderr } = await cli("preview", join(root, "records", "good"), sample);
    expect(code, stderr).toBe(0);
    const printed = JSON.parse(stdout);
    expect(printed).toEqual(JSON.parse(await readFile(sample, "utf8")).expect);
    expect(printed.records.map((r: { kind: string }) => r.kind)).toEqual(["lead", "appointment"]);
    expect(stderr).toMatch(/mapped by quillform-booking to 2 valid records \(lead, appointment\) in [\d.]+ ms/);
  });

  it("maps a golden sample with its bindings", async () => {
    const profile = join(root, "bound");
    await cp(join(root, "good"), profile, { recursive: true });
    await writeFile(
      join(profile, "profile.jsonata"),
      '{"fullName": $notification.name, "email": email_address, "phone": phone_number, "address": "1 Main St, Austin, TX 78701"}',
    );
    const sample = join(root, "bound-sample.json");
    const payload = { email_address: "ann@example.com", phone_number: "+15125550123" };
    await writeFile(sample, JSON.stringify({ payload, bindings: { notification: { name: "Ann Lee" } }, expect: {} }));
    const { code, stdout } = await cli("preview", profile, sample);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ fullName: "Ann Lee", email: "ann@example.com" });
  });

  it("prints the error with the canonical and the vendor's field, and exits 1", async () => {
    const payload = join(root, "payload.json");
    await writeFile(payload, JSON.stringify({ first_name: "A", email_address: "nope", phone_number: "5125550123" }));
    const { code, stdout, stderr } = await cli("preview", join(root, "good"), payload);
    expect(code).toBe(1);
    expect(stdout).toBe("");
    expect(stderr).toMatch(/validation error on email \(from email_address\): must be a valid email address/);
  });

  it("prints usage and exits 2 on anything else", async () => {
    expect((await cli("preview", "only-one-arg")).code).toBe(2);
    expect((await cli("frobnicate")).stderr).toMatch(/usage:/);
  });
});
