/**
 * A vendor's webhook receiver for the README walk-through: verifies every delivery with the bundled helper (§6.3)
 * and prints what it accepted. Run: npx tsx examples/webhook-receiver.ts <secret shown when subscribing> [port]
 */
import { createServer } from "node:http";
import { createWebhookVerifier } from "../src/receiver/index.js";

const [secret, port = "9999"] = process.argv.slice(2);
if (!secret) {
  process.stderr.write("usage: webhook-receiver.ts SECRET [PORT]\n");
  process.exit(2);
}
const verifier = createWebhookVerifier({ secrets: { 1: secret } });

createServer(async (req, res) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const answer = await verifier.handle({ headers: req.headers, rawBody: Buffer.concat(chunks) }, (delivery) => {
    process.stdout.write(`verified ${delivery.event}: ${JSON.stringify(delivery.body)}\n`);
  });
  if (answer.status !== 200) process.stdout.write(`refused (${answer.status}): ${JSON.stringify(answer.body)}\n`);
  res.writeHead(answer.status, { "content-type": "application/json" }).end(JSON.stringify(answer.body));
}).listen(Number(port), "127.0.0.1", () => process.stdout.write(`receiver on http://127.0.0.1:${port}/hooks\n`));
