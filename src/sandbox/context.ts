import type { Clock } from "./clock.js";
import type { SandboxDb } from "./db/client.js";
import type { KeyKind, Scope } from "./db/schema/index.js";
import type { DocumentUrls } from "./installer/documents/document-urls.js";

/** What every service verb needs: the database, the time, and the signer of document URLs. */
export interface SandboxCtx {
  db: SandboxDb;
  clock: Clock;
  /** §2.1 Document URLs: signed, time-limited, bound to the installer company. */
  documentUrls: DocumentUrls;
}

/** The authenticated key behind a request (§5). */
export interface Caller {
  keyId: string;
  /** §5.5: the owner — rate limits and idempotency keys are scoped to it. */
  companyId: string;
  kind: KeyKind;
  scopes: Scope[];
  /** §2.7: the person leads created with this key are attributed to. */
  personId: string | null;
  /** §4.2: the contractor record an installer-contractor key is bound to. */
  contractorId: string | null;
}

export interface CallerCtx extends SandboxCtx {
  caller: Caller;
}
