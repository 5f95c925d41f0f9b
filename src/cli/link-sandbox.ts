import type { GatewayContext } from "../gateway/context.js";
import { openUpstreamCredential } from "../gateway/credentials/upstream-credentials.js";
import { loadPlatformSecret, receiverPath } from "../gateway/webhooks/platform/platform-secrets.js";
import type { Logger } from "../log.js";
import type { RunningSandbox } from "../sandbox/index.js";

/** The platform events the gateway fans out to vendors (who gets what: docs/webhooks-gateway.md). */
const EVENTS = ["appointment.booked", "quote.sent", "quote.accepted", "project.completed"];

/**
 * Sandbox mode with the embedded sandbox: subscribe the gateway's receiver to the platform for every company whose
 * credentials are seeded sandbox keys, as an owner would in the platform's console (§4.3), and load the secret the
 * platform shows once (§6.5). The gateway's own keys are named, so the platform does not echo the gateway's own
 * bookings back to it (§4.2 rule 2: other subscribers); moves made in the platform still arrive.
 */
export async function linkEmbeddedSandbox(input: {
  ctx: GatewayContext;
  sandbox: RunningSandbox;
  gatewayUrl: string;
  log: Logger;
}): Promise<void> {
  const { ctx, sandbox } = input;
  const byCompany = new Map<string, { gatewayCompanyId: string; keyIds: string[] }>();
  for (const credential of await ctx.credentials.listAll()) {
    const value = openUpstreamCredential(ctx, credential);
    const fixture = sandbox.testKeys.find((k) => k.key === value);
    if (!fixture) continue;
    const entry = byCompany.get(fixture.companyId) ?? { gatewayCompanyId: credential.companyId, keyIds: [] };
    entry.keyIds.push(value.split(".")[0] ?? "");
    byCompany.set(fixture.companyId, entry);
  }
  for (const [platformCompanyId, { gatewayCompanyId, keyIds }] of byCompany) {
    const session = sandbox.admin.ownerSession(platformCompanyId);
    const res = await fetch(new URL("/partner-api/webhooks", sandbox.url), {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${session.sessionToken}` },
      body: JSON.stringify({
        url: new URL(receiverPath(gatewayCompanyId), input.gatewayUrl).href,
        partnerType: "licensee",
        events: EVENTS,
        partnerKeyIds: keyIds,
      }),
    });
    if (!res.ok) {
      input.log.warn({ status: res.status, platformCompanyId }, "could not subscribe the gateway to the sandbox");
      continue;
    }
    const created = (await res.json()) as { secret: string; secretVersion: number };
    await loadPlatformSecret({
      ctx,
      companyId: gatewayCompanyId,
      input: { version: created.secretVersion, secret: created.secret },
    });
    input.log.info({ platformCompanyId, gatewayCompanyId }, "gateway subscribed to the sandbox's webhooks");
  }
}
