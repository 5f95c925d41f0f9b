import type { CallerCtx } from "../../context.js";
import { techniciansOf } from "../store/technicians.js";

/** §2.6 technician record (field names not shown; docs/decisions.md): `id` is the membershipId of §2.5. */
export interface Technician {
  id: string;
  displayName: string;
  active: boolean;
}

/** GET /api/partner/v1/technicians (§2.6, §4.1 rule 6): the caller's company's memberships, inactive ones included. */
export function listTechnicians({ ctx }: { ctx: CallerCtx }): Technician[] {
  return techniciansOf(ctx.db, ctx.caller.companyId).map((t) => ({
    id: t.id,
    displayName: t.displayName,
    active: t.active,
  }));
}
