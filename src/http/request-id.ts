import { randomHex } from "../ids.js";

/** An incoming `x-request-id` is kept when it is sane (§7: it is logged and quoted in support requests). */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestIdFrom(incoming: string | undefined): string {
  if (incoming && SANE_REQUEST_ID.test(incoming)) return incoming;
  return `req_${randomHex(16)}`;
}
