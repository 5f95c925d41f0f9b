import type { SandboxCtx } from "../context.js";
import type { JobSchedule, JobScope, TechnicianRow } from "../db/schema/index.js";
import { acceptInstallCompletion } from "./services/install-jobs/accept-install-completion.js";
import { addInstallDocument, type NewInstallDocument } from "./services/install-jobs/add-install-document.js";
import { assignInstallJob, unassignInstallJob } from "./services/install-jobs/assign-install-job.js";
import { cancelInstallJob } from "./services/install-jobs/cancel-install-job.js";
import { changeInstallSchedule } from "./services/install-jobs/change-install-schedule.js";
import { changeInstallScope } from "./services/install-jobs/change-install-scope.js";
import { createInstallJob, type NewInstallJob } from "./services/install-jobs/create-install-job.js";
import type { CompanyJobView } from "./services/install-jobs/job-view.js";
import { readInstallJob } from "./services/install-jobs/read-install-job.js";
import { setInstallReadiness } from "./services/install-jobs/set-install-readiness.js";
import { createTechnician, updateTechnician } from "./services/install-jobs/technicians.js";

/**
 * The company's side of install jobs (§2.1, §3.1, §3.2, §6.7), as the platform would act: every action changes the
 * job (a version, a feed item) and emits its install.* event, whose deliveries leave at once. Sandbox only, so an
 * installer's client can be exercised end to end.
 */
export class InstallJobsAdmin {
  constructor(
    private readonly ctx: SandboxCtx,
    private readonly wake: () => void,
  ) {}

  create(input: NewInstallJob): CompanyJobView {
    return this.#emitting(() => createInstallJob({ ctx: this.ctx, input }));
  }

  read(jobId: string): CompanyJobView {
    return readInstallJob({ ctx: this.ctx, input: { jobId } });
  }

  assign(jobId: string, installerCompanyId: string): CompanyJobView {
    return this.#emitting(() => assignInstallJob({ ctx: this.ctx, input: { jobId, installerCompanyId } }));
  }

  unassign(jobId: string): CompanyJobView {
    return this.#emitting(() => unassignInstallJob({ ctx: this.ctx, input: { jobId } }));
  }

  cancel(jobId: string, reason?: string): CompanyJobView {
    return this.#emitting(() => cancelInstallJob({ ctx: this.ctx, input: { jobId, reason } }));
  }

  changeScope(jobId: string, scope: JobScope): CompanyJobView {
    return this.#emitting(() => changeInstallScope({ ctx: this.ctx, input: { jobId, scope } }));
  }

  setReadiness(jobId: string, blockerCodes: string[]): CompanyJobView {
    return this.#emitting(() => setInstallReadiness({ ctx: this.ctx, input: { jobId, blockerCodes } }));
  }

  addDocument(input: NewInstallDocument): CompanyJobView & { documentId: string } {
    return this.#emitting(() => addInstallDocument({ ctx: this.ctx, input }));
  }

  changeSchedule(jobId: string, schedule: JobSchedule): CompanyJobView {
    return this.#emitting(() => changeInstallSchedule({ ctx: this.ctx, input: { jobId, schedule } }));
  }

  acceptCompletion(jobId: string): CompanyJobView {
    return this.#emitting(() => acceptInstallCompletion({ ctx: this.ctx, input: { jobId } }));
  }

  createTechnician(input: { installerCompanyId: string; displayName: string; active?: boolean }): TechnicianRow {
    return createTechnician({ ctx: this.ctx, input });
  }

  updateTechnician(membershipId: string, active: boolean): TechnicianRow {
    return updateTechnician({ ctx: this.ctx, input: { membershipId, active } });
  }

  #emitting<T>(action: () => T): T {
    const result = action();
    this.wake();
    return result;
  }
}
