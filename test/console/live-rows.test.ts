import { describe, expect, it } from "vitest";
import { LiveRows, type LogFilter } from "../../console/pages/live-rows.js";
import type { Submission } from "../../console/types.js";

const ANY: LogFilter = { status: "", keyId: "", kind: "", from: "", to: "" };

function row(id: string, changes: Partial<Submission> = {}): Submission {
  return {
    submissionId: id,
    kind: "lead",
    status: "queued",
    attempts: 0,
    waitingReason: null,
    lastError: null,
    upstreamStatus: null,
    result: null,
    profileVersionId: null,
    createdAt: "2026-11-26T00:00:00.000Z",
    updatedAt: "2026-11-26T00:00:00.000Z",
    vendorKeyId: "key_a",
    connectionId: null,
    vendorRecordId: null,
    recordAction: null,
    test: false,
    heldReason: null,
    note: null,
    person: null,
    extras: null,
    ...changes,
  };
}

const ids = (rows: LiveRows) => rows.rows.map((r) => r.submissionId);

describe("the live log keeps its filter applied (docs/decisions.md D-238)", () => {
  it("takes in a new match at its place, newest first, and ignores a new row that does not match", () => {
    const rows = new LiveRows([row("sub_3"), row("sub_1")], null, { ...ANY, keyId: "key_a" }, true, 50);
    expect(rows.apply(row("sub_4"))).toBe(true);
    expect(rows.apply(row("sub_2"))).toBe(true);
    expect(rows.apply(row("sub_5", { vendorKeyId: "key_b" }))).toBe(false);
    expect(ids(rows)).toEqual(["sub_4", "sub_3", "sub_2", "sub_1"]);
  });

  it("keeps a connection's held payloads: another connection's, and one re-mapped out of held, stay out", () => {
    const filter = { ...ANY, status: "held", connectionId: "con_a" };
    const held = { status: "held" as const, connectionId: "con_a" };
    const rows = new LiveRows([row("sub_1", held)], null, filter, true, 50);
    expect(rows.apply(row("sub_2", held))).toBe(true);
    expect(rows.apply(row("sub_3", { ...held, connectionId: "con_b" }))).toBe(false);
    expect(rows.apply(row("sub_4", { status: "held" }))).toBe(false);
    // Re-mapped (D-308): the held row became a queued lead, and leaves the page.
    expect(rows.apply(row("sub_1", { ...held, status: "queued", updatedAt: "2026-11-26T00:00:01.000Z" }))).toBe(true);
    expect(ids(rows)).toEqual(["sub_2"]);
  });

  it("lets go of a row whose change no longer matches, and updates one that still does", () => {
    const rows = new LiveRows(
      [row("sub_2", { status: "waiting" }), row("sub_1", { status: "waiting" })],
      null,
      {
        ...ANY,
        status: "waiting",
      },
      true,
      50,
    );
    expect(rows.apply(row("sub_2", { status: "forwarded", updatedAt: "2026-11-26T00:00:01.000Z" }))).toBe(true);
    expect(rows.apply(row("sub_1", { status: "waiting", attempts: 1, updatedAt: "2026-11-26T00:00:01.000Z" }))).toBe(
      true,
    );
    expect(rows.rows).toEqual([
      row("sub_1", { status: "waiting", attempts: 1, updatedAt: "2026-11-26T00:00:01.000Z" }),
    ]);
  });

  it("ignores a change older than the row it shows", () => {
    const shown = row("sub_1", { status: "forwarded", updatedAt: "2026-11-26T00:00:02.000Z" });
    const rows = new LiveRows([shown], null, ANY, true, 50);
    expect(rows.apply(row("sub_1", { status: "queued", updatedAt: "2026-11-26T00:00:01.000Z" }))).toBe(false);
    expect(rows.rows).toEqual([shown]);
  });

  it("keeps a full newest page at its size, moving the older cursor; an older page takes in no new row", () => {
    const full = new LiveRows([row("sub_3"), row("sub_2")], "sub_2", ANY, true, 2);
    full.apply(row("sub_4"));
    expect(ids(full)).toEqual(["sub_4", "sub_3"]);
    expect(full.nextCursor).toBe("sub_3");
    // Older than the page, with older pages after it: it belongs to those.
    expect(full.apply(row("sub_1"))).toBe(false);
    const older = new LiveRows([row("sub_3"), row("sub_2")], "sub_2", ANY, false, 2);
    expect(older.apply(row("sub_9"))).toBe(false);
    expect(older.apply(row("sub_3", { status: "failed", updatedAt: "2026-11-26T00:00:01.000Z" }))).toBe(true);
    expect(older.rows[0]?.status).toBe("failed");
  });

  it("bounds the accepted time by the filter's from and to", () => {
    const rows = new LiveRows(
      [],
      null,
      { ...ANY, from: "2026-11-26T00:00:00.000Z", to: "2026-11-26T01:00:00.000Z" },
      true,
      50,
    );
    expect(rows.apply(row("sub_1", { createdAt: "2026-11-25T23:59:59.000Z" }))).toBe(false);
    expect(rows.apply(row("sub_2", { createdAt: "2026-11-26T00:30:00.000Z" }))).toBe(true);
    expect(ids(rows)).toEqual(["sub_2"]);
  });
});
