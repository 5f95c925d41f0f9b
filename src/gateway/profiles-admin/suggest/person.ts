import { rank } from "./candidates.js";
import { withFallbacks } from "./fallbacks.js";
import type { Leaf } from "./leaves.js";
import { mappedChain, type Picked, type Reading } from "./reading.js";
import { wordSet } from "./word-set.js";

/** §2.7 email: a field named e-mail whose values are e-mail addresses, or values that all are. */
export function pickEmail(r: Reading): Picked {
  const ranked = rank(
    r.candidates,
    { concept: "email", shapes: ["email"], person: true, varying: true, byValue: true, anyName: true },
    r.payloads,
  );
  const chain = withFallbacks(ranked);
  if (chain.length === 0) return { missed: { field: "email", note: "no field holds the lead's e-mail address" } };
  return { mapped: mappedChain("email", chain, (p) => `$normalizeEmail(${p})`, r) };
}

const MOBILE = wordSet("mobile cell cellphone cellular sms text whatsapp");
const MAIN = wordSet("primary main best preferred direct");
const LESSER = wordSet("secondary other alt alternate alternative additional evening night work office business fax");

/** A mobile before a main number before a home phone before a work or second one. */
function phonePreference(leaf: Leaf): number {
  const words = [...leaf.naming.own, ...leaf.naming.label];
  if (words.some((w) => MOBILE.has(w))) return 30;
  if (words.some((w) => MAIN.has(w))) return 20;
  if (words.some((w) => LESSER.has(w))) return -10;
  return 0;
}

/** §2.7 phone: a phone field (a mobile first), or values that are all formatted phone numbers. */
export function pickPhone(r: Reading): Picked {
  const ranked = rank(
    r.candidates,
    {
      concept: "phone",
      shapes: ["phone", "phoneLike"],
      valueShapes: ["phone"],
      person: true,
      varying: true,
      byValue: true,
      anyName: true,
      prefer: phonePreference,
    },
    r.payloads,
  ).filter((c) => c.name >= 2 || formatted(c.leaf));
  const chain = withFallbacks(ranked);
  if (chain.length === 0) return { missed: { field: "phone", note: "no field holds the lead's phone number" } };
  return { mapped: mappedChain("phone", chain, (p) => `$phoneE164(${p})`, r) };
}

/** A phone known by its value alone must look written as one: a bare run of digits is as likely an id. */
function formatted(leaf: Leaf): boolean {
  return leaf.values.some((value) => typeof value === "string" && /[+\s().-]/.test(value.trim()));
}

/** §2.7 smsConsent: a yes/no whose name says texts (or calls and consent); never a newsletter's or the terms'. */
export function pickConsent(r: Reading): Picked {
  const ranked = rank(r.candidates, { concept: "consent", shapes: ["bool"], person: true }, r.payloads);
  const chain = withFallbacks(ranked);
  if (chain.length === 0) {
    return { missed: { field: "smsConsent", note: "no yes/no field says the lead agreed to text messages" } };
  }
  return { mapped: mappedChain("smsConsent", chain, (p) => `$toBool(${p})`, r) };
}
