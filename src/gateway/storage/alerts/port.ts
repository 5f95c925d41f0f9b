import type { AlertFilter, AlertRow, AlertSettingsRow, AlertSighting, NewAlert } from "./row.js";

/**
 * The alerts record as the capabilities use it (D-221): the evaluator opens, updates and resolves alerts and claims
 * their notices; the owner lists, acknowledges and mutes them, and reads and changes the company's alert settings.
 */
export interface AlertStore {
  /** A company's alerts not resolved (open or acknowledged): at most one per condition and resource. */
  live(companyId: string): Promise<AlertRow[]>;
  /**
   * Opens an alert; false when one is live already for its condition and resource (another evaluation, perhaps of
   * another process, opened it first: D-342).
   */
  open(row: NewAlert): Promise<boolean>;
  /** A live alert's condition was found again: its count, message and time. */
  seen(id: string, sighting: AlertSighting): Promise<void>;
  /** Resolves a live alert; false when it was resolved already. */
  resolve(id: string, at: string): Promise<boolean>;
  /**
   * Takes the sending of an alert's next "open" notice: its `notifiedAt` moves from `previous` to `at` only if no one
   * moved it meanwhile — so of two evaluators one sends (D-342). False: another took it.
   */
  claimNotice(id: string, previous: string | null, at: string): Promise<boolean>;
  /** Takes the sending of a resolved alert's "resolved" notice; false when it was taken already. */
  claimResolvedNotice(id: string, at: string): Promise<boolean>;
  /** A company's resolved alerts that were notified open and whose "resolved" notice is still owed. */
  resolvedNoticesOwed(companyId: string): Promise<AlertRow[]>;
  /** A company's alerts newest first, `limit + 1` of them (the caller sees whether more follow). */
  list(companyId: string, filter: AlertFilter): Promise<AlertRow[]>;
  /** One of a company's alerts (another company's is not found). */
  getOfCompany(id: string, companyId: string): Promise<AlertRow | undefined>;
  /** A live alert acknowledged; the row as it is now (undefined: not the company's). */
  acknowledge(id: string, companyId: string, at: string): Promise<AlertRow | undefined>;
  /** No notice of the alert before `until`; the row as it is now (undefined: not the company's). */
  mute(id: string, companyId: string, until: string, at: string): Promise<AlertRow | undefined>;
  /** The company's settings row, if it changed any. */
  settingsOf(companyId: string): Promise<AlertSettingsRow | undefined>;
  /** Writes the company's settings whole (made on the first change). */
  saveSettings(row: AlertSettingsRow): Promise<void>;
}
