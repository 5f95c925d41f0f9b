import { and, asc, eq, inArray } from "drizzle-orm";
import type { SandboxQuery } from "../../db/client.js";
import { type TechnicianRow, technicians } from "../../db/schema/index.js";

/** Storage of technician memberships (§2.6). */

export function insertTechnician(tx: SandboxQuery, row: TechnicianRow): void {
  tx.insert(technicians).values(row).run();
}

export function techniciansOf(db: SandboxQuery, installerCompanyId: string): TechnicianRow[] {
  return db
    .select()
    .from(technicians)
    .where(eq(technicians.installerCompanyId, installerCompanyId))
    .orderBy(asc(technicians.id))
    .all();
}

export function readTechnician(db: SandboxQuery, membershipId: string): TechnicianRow | undefined {
  return db.select().from(technicians).where(eq(technicians.id, membershipId)).get();
}

/** The ids among `membershipIds` that are active memberships of the installer company (§2.5). */
export function activeMemberships(db: SandboxQuery, installerCompanyId: string, membershipIds: string[]): Set<string> {
  if (membershipIds.length === 0) return new Set();
  const rows = db
    .select({ id: technicians.id })
    .from(technicians)
    .where(
      and(
        eq(technicians.installerCompanyId, installerCompanyId),
        inArray(technicians.id, membershipIds),
        eq(technicians.active, true),
      ),
    )
    .all();
  return new Set(rows.map((r) => r.id));
}

export function setTechnicianActive(db: SandboxQuery, membershipId: string, active: boolean): void {
  db.update(technicians).set({ active }).where(eq(technicians.id, membershipId)).run();
}
