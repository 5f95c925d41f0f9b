/** §9.1: the current API version date, sent as `x-svc-api-version` and in every webhook envelope. */
export const API_VERSION = "2026-08-26";
export const API_VERSION_HEADER = "x-svc-api-version";
/** §6.1: the current webhook payload schema version. */
export const SCHEMA_VERSION = 1;
