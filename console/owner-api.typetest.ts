/**
 * The console's client and the owner API's schemas cannot drift (D-260): each line marked `@ts-expect-error` must
 * fail to compile, and `npm run typecheck` fails when one compiles (an unused directive is an error). The unmarked
 * lines are the positive controls: the same calls, spelt as the schemas have them. Never bundled (not imported by
 * main.ts), never run: the compiler is the test.
 */
import { api, type OwnerApiError } from "./api.js";
import { openLiveLog } from "./live.js";
import type { Submission, VendorKey } from "./types.js";

export async function answersAreTheSchemas(): Promise<void> {
  const { keys } = await api.get("/keys");
  const key: VendorKey | undefined = keys[0];
  key?.keyPrefix.toUpperCase();
  // @ts-expect-error a listed key carries no secret: the schema has `key` only on issue and rotation
  key?.key.toUpperCase();
  const issued = await api.post("/keys/{keyId}/rotate", { params: { keyId: "key_1" }, body: { overlapSeconds: 60 } });
  issued.key.toUpperCase();
  // @ts-expect-error a field no schema has
  issued.secretValue;
  const { connections } = await api.get("/connections");
  connections[0]?.proofFailures.toFixed();
  // @ts-expect-error a listed connection carries no hook URL: only making and rotating one answer it (D-307)
  connections[0]?.hookUrl.toUpperCase();
  const made = await api.post("/connections", { body: { preset: "angi", name: "Angi", secrets: { apiKey: "k" } } });
  made.hookUrl.toUpperCase();
  const detail = await api.get("/submissions/{submissionId}", { params: { submissionId: "sub_1" } });
  detail.attemptsTimeline[0]?.latencyMs.toFixed();
  // @ts-expect-error the status is the schema's closed list, not any string
  const unknownStatus: typeof detail.status = "delivered";
  void unknownStatus;
}

export async function requestsAreTheSchemas(): Promise<void> {
  // @ts-expect-error a path the owner API does not have
  await api.get("/keyz");
  // @ts-expect-error a path of another method: rotating is a POST
  await api.get("/keys/{keyId}/rotate", { params: { keyId: "key_1" } });
  // @ts-expect-error the path's parameters are required
  await api.post("/keys/{keyId}/revoke");
  // @ts-expect-error a parameter of another path
  await api.post("/keys/{keyId}/revoke", { params: { profileId: "pf_1" } });
  // @ts-expect-error a body field the schema does not have
  await api.post("/keys/{keyId}/rotate", { params: { keyId: "key_1" }, body: { overlap: 60 } });
  // @ts-expect-error a body the schema requires
  await api.post("/profiles", {});
  // @ts-expect-error a query value outside the schema's enum
  await api.get("/submissions", { query: { status: "delivered" } });
  await api.get("/submissions", { query: { status: "failed", limit: 10 } });
}

export function errorsCarryTheClosedCodes(error: OwnerApiError): string {
  // @ts-expect-error a code outside the closed list (src/http/error-codes.ts)
  if (error.code === "teapot") return "never";
  return `${error.code} ${error.requestId}`;
}

export function liveRowsAreTheSchemaRows(): void {
  openLiveLog(
    {},
    {
      onSubmission: (row: Submission) => {
        row.submissionId.toUpperCase();
        // @ts-expect-error the row schema names it `submissionId`
        row.id.toUpperCase();
      },
      onState: () => {},
      onReconnected: () => {},
      onEnded: () => {},
    },
  );
}
