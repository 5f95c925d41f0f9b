import type {
  AlertFilter,
  AlertNoticeRow,
  AlertRow,
  AlertSettingsRow,
  AlertSighting,
  NewAlert,
  NewAlertNotice,
  NoticeTry,
} from "./row.js";

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
   * moved it meanwhile — so of two evaluators one sends (D-342) — and, in the same transaction, `owed` (the notice per
   * channel) is written (D-347). False: another took it, and nothing was written.
   */
  claimNotice(id: string, previous: string | null, at: string, owed?: NewAlertNotice[]): Promise<boolean>;
  /** Takes the sending of a resolved alert's "resolved" notice, `owed` written with it; false when it was taken already. */
  claimResolvedNotice(id: string, at: string, owed?: NewAlertNotice[]): Promise<boolean>;
  /** Owed notices due by `now` (ms), the earliest first, at most `limit`. */
  dueNotices(now: number, limit: number): Promise<AlertNoticeRow[]>;
  /**
   * Takes a try of an owed notice: its `nextAttemptAt` moves from the value read to `leaseUntil` only if no one moved it
   * meanwhile (of two processes, one tries). False: another took it, or it is gone.
   */
  takeNotice(id: string, due: number, leaseUntil: number): Promise<boolean>;
  /** A try's end, under its claim (`leaseUntil`): sent (deleted), or failed — due again, or given up (deleted). */
  endNotice(id: string, leaseUntil: number, outcome: NoticeTry): Promise<void>;
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
