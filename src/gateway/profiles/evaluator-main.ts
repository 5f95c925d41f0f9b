import { cpuMs, Evaluator } from "./evaluator.js";
import type { EvaluateRequest, EvaluatorMessage } from "./protocol.js";

/**
 * An evaluator process (spawned by pool.ts). It evaluates one request at a time — JSONata's time limit is wall-clock,
 * so interleaving would charge one tenant for another's time — and exits with its parent.
 */
const send = (message: EvaluatorMessage) => process.send?.(message);
const evaluator = new Evaluator(Number(process.argv[2]) || undefined, {
  onTimed: (id) => send({ type: "timed", cpuMs: cpuMs(process.cpuUsage()), id }),
});
let chain: Promise<void> = Promise.resolve();

process.on("message", (requests: EvaluateRequest[]) => {
  for (const request of requests) {
    chain = chain.then(async () => {
      // Each reply at once: one held back for the rest of its batch could wait behind a runaway.
      const reply = await evaluator.evaluate(request);
      send({ type: "replies", cpuMs: cpuMs(process.cpuUsage()), replies: [reply] });
    });
  }
});
process.on("disconnect", () => process.exit(0));

/**
 * First calls are slow (ICU time-zone data loads on first use, ~15 ms; JSONata and zod warm up): pay for them before
 * reporting ready, so a tenant's first evaluation is not charged for them against its time limit.
 */
const WARM_UP = `{
  "fullName": $joinName("Ada", "Lovelace"), "email": $normalizeEmail(" Ada@Example.com "),
  "phone": $phoneE164("(512) 555-0100", "US"), "address": $joinAddress("1 Main St", "Austin", "TX", "78701"),
  "smsConsent": $toBool($default(x, "yes")), "at": $localToUtc("2026-12-01 09:30", "America/Chicago")
}`;
/** An appointment too: its validation (§2.8) is zod code of its own. */
const WARM_UP_APPOINTMENT = `{
  "leadId": "lead_1", "startsAt": $localToUtc("2026-12-01 09:30", "America/Chicago"),
  "endsAt": $localToUtc("2026-12-01 10:30", "America/Chicago"), "notes": $trim(" Gate code 1234 "), "idempotencyKey": "warm-up-appointment"
}`;
for (const [kind, expression] of [
  ["lead", WARM_UP],
  ["appointment", WARM_UP_APPOINTMENT],
] as const) {
  await evaluator.evaluate({ id: 0, versionId: `warm-up-${kind}`, kind, expression, payload: {}, timeoutMs: 5_000 });
}
send({ type: "ready", cpuMs: cpuMs(process.cpuUsage()) });
