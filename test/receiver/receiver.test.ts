import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { SecretRing } from "../../src/contract/secret-ring.js";
import { createWebhookVerifier, MemoryReplayCache, readJson, type VerifiedWebhook } from "../../src/receiver/index.js";
import { delivery, envelopeBytes, NOW } from "./helpers.js";

const now = () => NOW * 1000;

function counter() {
  const seen: string[] = [];
  return { seen, process: (d: VerifiedWebhook<unknown>) => void seen.push(d.deliveryId) };
}

describe("§6.3 receiver helper: verify as the spec orders", () => {
  it("accepts a signed envelope and answers 200 after processing", async () => {
    const verifier = createWebhookVerifier({ secrets: { 1: "whsec_one" }, now });
    const { seen, process } = counter();
    const answer = await verifier.handle(delivery(envelopeBytes(), { deliveryId: "dlv_1" }), process);
    expect(answer).toEqual({ status: 200, body: { received: true } });
    expect(seen).toEqual(["dlv_1"]);
  });

  it("types the body as the §6.1 envelope by default", async () => {
    const verifier = createWebhookVerifier({ secrets: { 1: "whsec_one" }, now });
    const result = await verifier.verify(delivery(envelopeBytes()));
    if (!result.ok) throw new Error(result.reason);
    expect(result.body.resource.id).toBe("apt_42");
  });

  it.each([
    ["a tampered body", () => ({ ...delivery(envelopeBytes()), rawBody: "{}" }), 401, "bad_signature"],
    ["an unknown secret version", () => delivery(envelopeBytes(), { version: 7 }), 401, "unknown_version"],
    ["a stale timestamp", () => delivery(envelopeBytes(), { timestamp: NOW - 301 }), 401, "stale_timestamp"],
  ])("answers %s with 4xx and does not process it", async (_name, request, status, error) => {
    const verifier = createWebhookVerifier({ secrets: { 1: "whsec_one" }, now });
    const { seen, process } = counter();
    expect(await verifier.handle(request(), process)).toEqual({ status, body: { error } });
    expect(seen).toEqual([]);
  });

  it("answers a signed body that is not an envelope with 400", async () => {
    const verifier = createWebhookVerifier({ secrets: { 1: "whsec_one" }, now });
    expect(await verifier.handle(delivery('{"x":1}'), () => {})).toEqual({
      status: 400,
      body: { error: "malformed_body" },
    });
  });

  it("reads bodies mapped into a vendor's own shape with readJson, keeping the event id for §6.6", async () => {
    const verifier = createWebhookVerifier({
      secrets: { 1: "whsec_one" },
      now,
      read: readJson((body) => (body as { ref?: string }).ref),
    });
    const { seen, process } = counter();
    const body = '{"ref":"evt_native","when":"tomorrow"}';
    await verifier.handle(delivery(body, { deliveryId: "dlv_a" }), process);
    const again = await verifier.handle(delivery(body, { deliveryId: "dlv_b" }), process);
    expect(again.status).toBe(200);
    expect(seen).toEqual(["dlv_a"]);
  });
});

describe("§6.6 idempotent consumers: each event processed once, every repeat answered 2xx", () => {
  it("answers a replay of the same delivery id 200 without processing it again", async () => {
    const verifier = createWebhookVerifier({ secrets: { 1: "whsec_one" }, now });
    const { seen, process } = counter();
    const request = delivery(envelopeBytes(), { deliveryId: "dlv_same" });
    await verifier.handle(request, process);
    expect(await verifier.handle(request, process)).toEqual({ status: 200, body: { received: true, duplicate: true } });
    expect(seen).toEqual(["dlv_same"]);
  });

  it("processes the same event delivered under a new delivery id once", async () => {
    const verifier = createWebhookVerifier({ secrets: { 1: "whsec_one" }, now });
    const { seen, process } = counter();
    const answers = [];
    for (const id of ["dlv_1", "dlv_2", "dlv_3"])
      answers.push(await verifier.handle(delivery(envelopeBytes(), { deliveryId: id }), process));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(seen).toEqual(["dlv_1"]);
  });

  it("processes the event again on the retry when processing failed (nothing is marked before success)", async () => {
    const verifier = createWebhookVerifier({ secrets: { 1: "whsec_one" }, now });
    const failing = () => {
      throw new Error("database down");
    };
    await expect(verifier.handle(delivery(envelopeBytes()), failing)).rejects.toThrow("database down");
    const { seen, process } = counter();
    expect((await verifier.handle(delivery(envelopeBytes(), { deliveryId: "dlv_retry" }), process)).status).toBe(200);
    expect(seen).toEqual(["dlv_retry"]);
  });

  it("answers 409 to a delivery of an event still being processed, so the sender retries instead of losing it", async () => {
    const verifier = createWebhookVerifier({ secrets: { 1: "whsec_one" }, now });
    let release = () => {};
    const slow = new Promise<void>((r) => {
      release = r;
    });
    const first = verifier.handle(delivery(envelopeBytes()), () => slow);
    const second = await verifier.handle(delivery(envelopeBytes()), () => {});
    expect(second).toEqual({ status: 409, body: { error: "event_in_progress" } });
    release();
    expect((await first).status).toBe(200);
  });

  it("lets a receiver that processes on its own mark the event with markProcessed", async () => {
    const verifier = createWebhookVerifier({ secrets: { 1: "whsec_one" }, now });
    const first = await verifier.verify(delivery(envelopeBytes("evt_manual")));
    if (!first.ok || first.eventId === undefined) throw new Error("expected a new event");
    await verifier.markProcessed(first.eventId);
    expect(await verifier.verify(delivery(envelopeBytes("evt_manual")))).toMatchObject({
      reason: "already_processed",
      acknowledge: true,
    });
  });

  it("shares a given replay cache, e.g. across verifiers rebuilt after a rotation", async () => {
    const replayCache = new MemoryReplayCache({ now });
    const before = createWebhookVerifier({ secrets: { 1: "whsec_one" }, now, replayCache });
    await before.handle(delivery(envelopeBytes("evt_shared")), () => {});
    const after = createWebhookVerifier({ secrets: { 1: "whsec_one", 2: "whsec_two" }, now, replayCache });
    const { seen, process } = counter();
    const repeat = delivery(envelopeBytes("evt_shared"), { version: 2, secret: "whsec_two" });
    expect((await after.handle(repeat, process)).status).toBe(200);
    expect(seen).toEqual([]);
  });
});

describe("§6.5 rotation overlap at the receiver", () => {
  it("verifies the pending version once loaded, keeps the previous one until notAfter, then refuses it", async () => {
    const clock = { seconds: NOW };
    const now = () => clock.seconds * 1000;
    let ring = SecretRing.of([{ version: 1, secret: "whsec_one" }]);
    const verifier = createWebhookVerifier({ secrets: { secretFor: (v, t) => ring.secretFor(v, t) }, now });
    const signedWith = (version: number) =>
      delivery(envelopeBytes(`evt_v${version}_${clock.seconds}`), {
        version,
        secret: version === 1 ? "whsec_one" : "whsec_two",
        timestamp: clock.seconds,
      });

    expect((await verifier.verify(signedWith(2))).ok).toBe(false); // not loaded yet
    ring = ring.withSecret({ version: 2, secret: "whsec_two" }); // §6.5.2: load pending
    expect((await verifier.verify(signedWith(1))).ok).toBe(true); // sender still on v1
    expect((await verifier.verify(signedWith(2))).ok).toBe(true);

    ring = ring.activate(2, clock.seconds, 600); // §6.5.3: sender activated v2
    clock.seconds += 600;
    expect((await verifier.verify(signedWith(1))).ok).toBe(true); // in-flight retry within the overlap
    clock.seconds += 1;
    expect(await verifier.verify(signedWith(1))).toMatchObject({ ok: false, reason: "unknown_version" });
    expect((await verifier.verify(signedWith(2))).ok).toBe(true);
    ring = ring.prune(clock.seconds);
    expect(ring.versions).toEqual([2]);
  });

  it("accepts entries with notAfter directly", async () => {
    const verifier = createWebhookVerifier({
      secrets: [
        { version: 1, secret: "whsec_one", notAfter: NOW - 1 },
        { version: 2, secret: "whsec_two" },
      ],
      now,
    });
    expect(await verifier.verify(delivery(envelopeBytes()))).toMatchObject({ reason: "unknown_version" });
    expect((await verifier.verify(delivery(envelopeBytes(), { version: 2, secret: "whsec_two" }))).ok).toBe(true);
  });

  it("refuses a secrets map with a missing secret at construction (fail fast, not on the first delivery)", () => {
    const missing: Record<number, string> = { 1: "" };
    expect(() => createWebhookVerifier({ secrets: missing })).toThrow(RangeError);
  });
});

describe("receiver helper is importable standalone (no database, no configuration, no framework)", () => {
  it("imports only node built-ins, zod and its own contract files", () => {
    const root = resolve(import.meta.dirname, "../../src");
    const seen = new Set<string>();
    const external = new Set<string>();
    const walk = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const source = readFileSync(file, "utf8");
      for (const match of source.matchAll(/(?:from|import)\s+"([^"]+)"/g)) {
        const spec = match[1] ?? "";
        if (spec.startsWith(".")) walk(resolve(dirname(file), spec.replace(/\.js$/, ".ts")));
        else external.add(spec);
      }
    };
    walk(resolve(root, "receiver/index.ts"));
    expect([...external].filter((s) => !s.startsWith("node:")).sort()).toEqual(["zod"]);
    const local = [...seen].map((f) => f.slice(root.length + 1)).sort();
    expect(local.every((f) => f.startsWith("receiver/") || f.startsWith("contract/") || f === "ids.ts")).toBe(true);
    expect(local).not.toContain("contract/lead.ts");
  });
});
