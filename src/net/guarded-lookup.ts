import { lookup as dnsLookup } from "node:dns/promises";
import type { LookupFunction } from "node:net";
import { OutboundError } from "./outbound-error.js";
import { type CompiledPolicy, checkAddress } from "./policy.js";

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Name → addresses. Injectable so tests (and a future DNS-over-HTTPS client) never touch the system resolver. */
export type Resolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) => {
  const answers = await dnsLookup(hostname, { all: true, verbatim: true });
  return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/**
 * Resolves `hostname` and checks every address against the policy. One forbidden address refuses the whole name: a
 * name answering both public and private addresses is the shape of a rebinding attack, not a deployment to support.
 */
export async function resolveAllowed(
  hostname: string,
  policy: CompiledPolicy,
  options: { plaintext: boolean; resolve: Resolver; port?: number },
): Promise<readonly ResolvedAddress[]> {
  let answers: readonly ResolvedAddress[];
  try {
    answers = await options.resolve(hostname);
  } catch (cause) {
    throw new OutboundError("dns", `could not resolve ${hostname}`, { cause });
  }
  if (answers.length === 0) throw new OutboundError("dns", `${hostname} has no address`);
  for (const answer of answers) {
    const verdict = checkAddress(policy, {
      address: answer.address,
      hostname,
      plaintext: options.plaintext,
      ...(options.port === undefined ? {} : { port: options.port }),
    });
    if (!verdict.allowed) {
      throw new OutboundError("address_refused", `${hostname} resolves to a ${verdict.kind} address`, {
        reason: verdict.kind,
      });
    }
  }
  return answers;
}

/**
 * The DNS lookup of the connecting agent. The addresses it returns are the ones the socket connects to, so the
 * check and the connection use one answer: a name that answered a public address to an earlier check and a private
 * one now (DNS rebinding) is refused here, before any packet is sent.
 */
export function guardedLookup(
  policy: CompiledPolicy,
  options: { plaintext: boolean; resolve: Resolver; port?: number },
): LookupFunction {
  return (hostname, lookupOptions, callback) => {
    resolveAllowed(hostname, policy, options).then(
      (answers) => {
        const family = lookupOptions.family;
        const wanted = family === 4 || family === 6 ? answers.filter((a) => a.family === family) : answers;
        const first = wanted[0];
        if (!first) {
          callback(new OutboundError("dns", `${hostname} has no IPv${family} address`), "", 0);
        } else if (lookupOptions.all) {
          callback(
            null,
            wanted.map((a) => ({ address: a.address, family: a.family })),
          );
        } else {
          callback(null, first.address, first.family);
        }
      },
      (error: unknown) => {
        const failure = error instanceof OutboundError ? error : new OutboundError("dns", String(error));
        callback(failure, "", 0);
      },
    );
  };
}
