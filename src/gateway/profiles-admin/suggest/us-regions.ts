import { wordSet } from "./word-set.js";

/**
 * US states, DC and territories, and Canada's provinces, by their postal codes (USPS, Canada Post): a value that is
 * one of these, in every payload, is a state.
 */
export const REGION_CODES = wordSet(`
  al ak az ar ca co ct de dc fl ga hi id il in ia ks ky la me md ma mi mn ms mo mt ne nv nh nj nm ny nc nd oh ok or pa
  ri sc sd tn tx ut vt va wa wv wi wy pr vi gu as mp
  ab bc mb nb nl ns nt nu on pe qc sk yt
`);

/** The same, written out (lower case, one space between words). */
export const REGION_NAMES: ReadonlySet<string> = new Set(
  `
  alabama, alaska, arizona, arkansas, california, colorado, connecticut, delaware, district of columbia, florida,
  georgia, hawaii, idaho, illinois, indiana, iowa, kansas, kentucky, louisiana, maine, maryland, massachusetts,
  michigan, minnesota, mississippi, missouri, montana, nebraska, nevada, new hampshire, new jersey, new mexico,
  new york, north carolina, north dakota, ohio, oklahoma, oregon, pennsylvania, rhode island, south carolina,
  south dakota, tennessee, texas, utah, vermont, virginia, washington, west virginia, wisconsin, wyoming,
  puerto rico, alberta, british columbia, manitoba, new brunswick, newfoundland and labrador, nova scotia,
  ontario, prince edward island, quebec, saskatchewan
`
    .split(",")
    .map((name) => name.trim()),
);
