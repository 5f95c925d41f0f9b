import type { ProjectRow } from "../../db/schema/index.js";

/** §2.9 contractor job: exactly these fields, nothing of the company's other data. */
export interface ContractorJob {
  id: string;
  workOrderNo: string;
  address: string;
  city: string;
  state: string;
  zip: string;
  stage: string;
  installerNote: string;
  lastUpdated: string;
}

export function toContractorJob(row: ProjectRow): ContractorJob {
  return {
    id: row.id,
    workOrderNo: row.workOrderNo,
    address: row.address,
    city: row.city,
    state: row.state,
    zip: row.zip,
    stage: row.stage,
    installerNote: row.installerNote,
    lastUpdated: row.lastUpdated,
  };
}
