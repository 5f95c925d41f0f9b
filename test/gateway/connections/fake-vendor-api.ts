import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

/** One request the fake vendor API received. */
export interface SeenRequest {
  method: string;
  /** The path and query as sent. */
  url: URL;
  headers: IncomingHttpHeaders;
  /** Date.now() when it arrived. */
  at: number;
}

export interface VendorAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/**
 * A vendor's API as a real HTTP server on 127.0.0.1 (the fetch's `vendorApiBase` in sandbox mode points at it): it
 * records every request and answers what `answer` says (when it says it), a JSON body by default.
 */
export async function startFakeVendorApi(
  answer: (request: SeenRequest, index: number) => VendorAnswer | Promise<VendorAnswer>,
) {
  const seen: SeenRequest[] = [];
  const server = createServer(async (req, res) => {
    const request: SeenRequest = {
      method: req.method ?? "GET",
      url: new URL(req.url ?? "/", "http://vendor.test"),
      headers: req.headers,
      at: Date.now(),
    };
    const index = seen.push(request) - 1;
    const { status, headers = {}, body } = await answer(request, index);
    const text = body === undefined ? "" : typeof body === "string" ? body : JSON.stringify(body);
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type FakeVendorApi = Awaited<ReturnType<typeof startFakeVendorApi>>;

const PRESETS = new URL("../../../presets", import.meta.url).pathname;

/** A preset's documented sample, as its file holds it. */
export interface PresetSampleFile {
  request: { method: string; headers: Record<string, string>; body: string };
  fetched?: Record<string, unknown>;
  expect: { records?: { kind: string; id?: string; action?: string; body: Record<string, unknown> }[]; held?: string };
}

export function presetSample(preset: string, file: string): PresetSampleFile {
  return JSON.parse(readFileSync(`${PRESETS}/${preset}/samples/${file}`, "utf8")) as PresetSampleFile;
}

export const PRESETS_DIR = PRESETS;

/**
 * The profile engine of these tests' gateways: a time limit a loaded test machine cannot reach by itself, so a mapping
 * is judged on what it maps (the time limit is the containment's tests' business, test/gateway/profiles).
 */
export const UNHURRIED_ENGINE = { poolSize: 2, timeoutMs: 2_000 };

/**
 * The sample's request as the vendor sends it, signed as its preset's `hmac` proof declares (the signed string
 * `{body}` with literal text around it): the `{{signature}}` header computed with `secret`, from the documented recipe.
 */
export function signedRequest(preset: string, sample: PresetSampleFile, secret: string) {
  const declared = JSON.parse(readFileSync(`${PRESETS}/${preset}/preset.json`, "utf8")) as {
    proof: {
      type: string;
      algorithm?: "sha256" | "sha1";
      signature?: { prefix?: string; encoding: "hex" | "base64" };
      signed?: string;
    };
  };
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(sample.request.headers)) {
    if (value !== "{{signature}}") {
      headers[name] = value;
      continue;
    }
    const { algorithm = "sha256", signature, signed = "{body}" } = declared.proof;
    const digest = createHmac(algorithm, secret)
      .update(signed.replace("{body}", sample.request.body))
      .digest(signature?.encoding ?? "hex");
    headers[name] = `${signature?.prefix ?? ""}${digest}`;
  }
  return { method: sample.request.method, headers, body: sample.request.body };
}
