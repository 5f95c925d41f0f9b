/**
 * §2.7/§3.3: the address is "used for de-duplication" within a company. Two spellings of one address must give the
 * same key; the exact rules are listed in docs/decisions.md (Sandbox → address normalisation) and pinned by
 * test/sandbox/address-key.test.ts.
 */

/** USPS Publication 28 street suffixes (common spellings → standard abbreviation). */
const SUFFIXES: Record<string, string> = {
  street: "st",
  str: "st",
  avenue: "ave",
  av: "ave",
  aven: "ave",
  avenu: "ave",
  avn: "ave",
  avnue: "ave",
  road: "rd",
  boulevard: "blvd",
  boul: "blvd",
  boulv: "blvd",
  drive: "dr",
  drv: "dr",
  lane: "ln",
  court: "ct",
  place: "pl",
  terrace: "ter",
  parkway: "pkwy",
  parkwy: "pkwy",
  pky: "pkwy",
  highway: "hwy",
  highwy: "hwy",
  circle: "cir",
  circ: "cir",
  square: "sq",
  trail: "trl",
  expressway: "expy",
  freeway: "fwy",
  crossing: "xing",
  heights: "hts",
  point: "pt",
  center: "ctr",
  centre: "ctr",
  plaza: "plz",
  alley: "aly",
};

const DIRECTIONALS: Record<string, string> = {
  north: "n",
  south: "s",
  east: "e",
  west: "w",
  northeast: "ne",
  northwest: "nw",
  southeast: "se",
  southwest: "sw",
};

/** Unit designators that name the same thing ("Apt 4" = "Unit 4" = "#4" = "Suite 4") collapse to `#`. */
const UNIT_DESIGNATORS = new Set(["apartment", "apt", "unit", "suite", "ste", "#"]);

const TOKEN_MAP: Record<string, string> = { ...SUFFIXES, ...DIRECTIONALS };

export function addressKey(address: string): string {
  const text = address
    .normalize("NFKC")
    .toLowerCase()
    // ZIP+4 → ZIP5: the +4 refines delivery, not the service address.
    .replace(/\b(\d{5})-\d{4}\b/g, "$1")
    // Dots and apostrophes join what they separate ("St." → "st", "N.W." → "nw", "O'Neil" → "oneil").
    .replace(/[.'’]/g, "")
    .replace(/#/g, " # ")
    // Every other punctuation mark separates words.
    .replace(/[^\p{L}\p{N}#]+/gu, " ");

  const tokens: string[] = [];
  for (const word of text.split(" ")) {
    if (!word) continue;
    const token = UNIT_DESIGNATORS.has(word) ? "#" : (TOKEN_MAP[word] ?? word);
    // "Apt #4" names one unit, not two.
    if (token === "#" && tokens.at(-1) === "#") continue;
    tokens.push(token);
  }
  return tokens.join(" ");
}

/** A sold project's address as one string, so a lead's "full service address" (§2.7) can match it (§3.3). */
export function projectAddressKey(project: { address: string; city: string; state: string; zip: string }): string {
  return addressKey(`${project.address}, ${project.city}, ${project.state} ${project.zip}`);
}
