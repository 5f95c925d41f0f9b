import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConnection } from "../../../src/gateway/connections/create-connection.js";
import { seedCompany, startTestGateway, type TestGateway } from "../../helpers/gateway.js";

/**
 * docs/connections.md ("Proofs and handshakes", "Store first, map after"), D-365: what the hook route hands the proof
 * and the store. The URL a proof signs is the one the vendor called — the public URL's origin and the path and query
 * as sent — whether the route joins a plain path to the origin or parses a URL with a query; a JSON body's own text is
 * the submission's raw payload.
 */

const SECRET = "url-signing-secret-0001";

const PROFILE = `{
  "kind": "lead",
  "id": id,
  "body": {"fullName": name, "email": email, "phone": phone, "address": address}
}`;

const leadOf = (id: string) => ({
  id,
  name: `Customer ${id}`,
  email: `${id.toLowerCase()}@example.com`,
  phone: "+15125550100",
  address: "1 Oak St, Austin, TX 78701",
});

let gw: TestGateway;
let hookUrl: string;
let companyId: string;
let connectionId: string;

beforeAll(async () => {
  gw = await startTestGateway();
  const seeded = await seedCompany(gw.gateway);
  companyId = seeded.company.id;
  const sample = leadOf("S-1");
  const { version } = await seeded.publishProfile("lead", PROFILE, [
    {
      name: "a lead with its id",
      payload: sample,
      expect: {
        records: [
          {
            kind: "lead",
            id: "S-1",
            body: { fullName: sample.name, email: sample.email, phone: sample.phone, address: sample.address },
          },
        ],
      },
    },
  ]);
  const made = await createConnection({
    ctx: gw.gateway.ctx,
    companyId,
    input: {
      name: "signs its URL",
      secrets: { signingKey: SECRET },
      profileVersionId: version.id,
      settings: {
        bodyType: "json",
        proof: {
          type: "hmac",
          algorithm: "sha256",
          secret: "signingKey",
          signed: "{method} {url}.{body}",
          signature: { header: "x-signature", encoding: "hex" },
        },
        answer: { status: 200, contentType: "application/json", body: '{"received":true}' },
      },
    },
  });
  hookUrl = made.hookUrl;
  connectionId = made.id;
});
afterAll(async () => gw?.close());

const sign = (url: string, body: string) =>
  createHmac("sha256", SECRET).update(`POST ${url}.`).update(body).digest("hex");

async function post(url: string, body: string, signedUrl = url) {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", "x-signature": sign(signedUrl, body) },
    body,
  });
}

const rows = () => gw.gateway.ctx.submissions.listPage(companyId, { limit: 20, connectionId });

describe("the URL a hook's proof signs (D-365)", () => {
  it("is the URL the vendor called, with a plain path and with a query; another URL's signature is refused", async () => {
    const plain = JSON.stringify(leadOf("U-1"));
    const first = await post(hookUrl, plain);
    expect(first.status).toBe(200);
    const withQuery = `${hookUrl}?source=ads&page=2`;
    const queried = JSON.stringify(leadOf("U-2"));
    expect((await post(withQuery, queried)).status).toBe(200);
    // The negative controls: the query was part of what the vendor called, so a signature without it fails, and one
    // with a query the request did not carry fails too.
    expect((await post(withQuery, JSON.stringify(leadOf("U-3")), hookUrl)).status).toBe(401);
    expect((await post(hookUrl, JSON.stringify(leadOf("U-4")), withQuery)).status).toBe(401);
    const stored = (await rows()).map((row) => row.vendorRecordId).sort();
    expect(stored).toEqual(["U-1", "U-2"]);
  });
});

describe("a JSON body as the submission's raw payload (D-365)", () => {
  it("is the body's own text as received, and maps as its tree", async () => {
    const lead = leadOf("R-1");
    const text = JSON.stringify(lead, null, 2);
    expect((await post(hookUrl, text)).status).toBe(200);
    const row = (await rows()).find((found) => found.vendorRecordId === "R-1");
    expect(row?.rawPayload).toBe(text);
    expect(row?.canonicalBody).toMatchObject({ fullName: lead.name, email: lead.email });
    // The vendor's retry, written without the whitespace, is the same record: stored once.
    expect((await post(hookUrl, JSON.stringify(lead))).status).toBe(200);
    expect((await rows()).filter((found) => found.vendorRecordId === "R-1")).toHaveLength(1);
  });
});
