import { closeSync, openSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { faultSpecSchema } from "../../../src/sandbox/faults/fault-spec.js";
import { lead, type Rig, startRig, until } from "../../helpers/forwarding.js";
import { json, postJson } from "../../helpers/gateway.js";
import { mountSmallFilesystem } from "../../helpers/small-filesystem.js";
import { submissionRow } from "../../helpers/store-reads.js";

/**
 * SQLite's full disk is an outage too (D-331, D-333): intake answers 503 with retry-after and commits nothing it did
 * not say it committed, readiness says why, a send answered while the disk is full keeps its answer and commits it
 * once there is room (it is not sent again), the file stays sound, and everything goes on once space returns —
 * without a restart.
 *
 * On a small file system of the test's own (a tmpfs, filled by a file of the test's), where the machine lets it mount
 * one; else SQLite's own page limit (PRAGMA max_page_count) on the gateway's connection, which SQLite answers with
 * the same SQLITE_FULL — an error injected at the store's boundary, by SQLite itself.
 */

const small = await mountSmallFilesystem(24 * 1024 * 1024);
const disk = "dir" in small ? small : undefined;
const how = disk
  ? "a 24 MiB tmpfs filled by a file"
  : `max_page_count (no tmpfs: ${"unavailable" in small ? small.unavailable : ""})`;

let rig: Rig | undefined;
afterAll(async () => {
  await rig?.close();
  await disk?.close();
});

/** Takes every free byte of the file system `dir` is on; returns how to give them back. */
function fill(dir: string): () => void {
  const path = join(dir, "filler");
  const fd = openSync(path, "w");
  const chunk = Buffer.alloc(64 * 1024);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (error) {
    if ((error as { code?: string }).code !== "ENOSPC") throw error;
  } finally {
    closeSync(fd);
  }
  return () => rmSync(path, { force: true });
}

describe(`SQLite: a full disk (${how})`, () => {
  it("is a 503 at intake, not ready, no corruption, and everything resumes when space returns", async () => {
    const databasePath = join(disk?.dir ?? "", "gateway.db");
    const started = await startRig({
      perKey: 50,
      perCompany: 100,
      egress: 200,
      windowMs: 1_000,
      ...(disk ? { databasePath } : {}),
    });
    rig = started;
    const sqlite = rig.gateway.database.dialect === "sqlite" ? rig.gateway.database.database.sqlite : undefined;
    if (!sqlite) throw new Error("this test is SQLite's");
    const company = await rig.addCompany("Full Disk", 1);
    const key = company.vendorKeys[0] ?? "";
    const accept = async (body: object) => postJson(`${rig?.url}/api/inbound/leads`, body, { "x-api-key": key });

    // A send in flight when the disk fills: the platform acts at once and answers 1.5 s later.
    rig.sandbox.admin.faults.add(faultSpecSchema.parse({ route: "*", answerLatencyMs: 1_500, count: 1 }));
    const inFlight = String((await json(await accept(lead()))).submissionId);
    await until(async () => (await submissionRow(started.gateway, inFlight))?.status === "forwarding", 10_000);

    const freeSpace = disk
      ? fill(disk.dir)
      : (() => {
          const pages = Number(sqlite.pragma("page_count", { simple: true }));
          sqlite.pragma(`max_page_count = ${pages}`);
          return () => sqlite.pragma("max_page_count = 1073741823");
        })();

    // Intake: refused with 503 and retry-after once a commit needs room (the WAL may have some left at first).
    let refused: Response | undefined;
    const acceptedWhileFull: string[] = [];
    for (let i = 0; i < 3_000 && !refused; i++) {
      const res = await accept(lead());
      if (res.status === 503) refused = res;
      else if (res.status === 202) acceptedWhileFull.push(String((await json(res)).submissionId));
      else throw new Error(`${res.status} ${await res.text()}`);
    }
    console.info(
      `[full disk] ${acceptedWhileFull.length} accepted before the WAL ran out of room; loops waiting: ${JSON.stringify(rig.gateway.ctx.outages.current)}`,
    );
    expect(refused?.status).toBe(503);
    expect(Number(refused?.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await refused?.json()).toMatchObject({ reason: "full" });
    // Readiness says why: the file system's room. (SQLite's page limit shows on no file system: there, only a loop
    // that waits for room would say it, and none may be writing at this instant.)
    if (disk) {
      const ready = await fetch(`${started.url}/health/ready`);
      expect(ready.status).toBe(503);
      expect(JSON.stringify(await ready.json())).toMatch(/full/);
    }

    freeSpace();
    // Accepted again, without a restart.
    const after = await accept(lead());
    expect(after.status).toBe(202);
    const afterId = String((await json(after)).submissionId);
    // Ready again once the loops that waited have tried again (their next try comes within their backoff).
    await expect.poll(async () => (await fetch(`${rig?.url}/health/ready`)).status, { timeout: 10_000 }).toBe(200);

    // Everything accepted is forwarded, once: the answer that came while the disk was full was kept and committed.
    const all = [inFlight, ...acceptedWhileFull, afterId];
    await until(async () => {
      for (const id of all) if ((await submissionRow(started.gateway, id))?.status !== "forwarded") return false;
      return true;
    }, 30_000);
    const sent = (await submissionRow(rig.gateway, inFlight))?.result as { leadId?: string } | null;
    expect(rig.sandbox.admin.lead(sent?.leadId ?? "").history).toHaveLength(1);
    // A refused request left nothing: every row of the database is one a vendor was told was accepted.
    const rows = sqlite.prepare("select id from submissions").all() as { id: string }[];
    expect(rows.map((r) => r.id).sort()).toEqual([...all].sort());
    expect(sqlite.pragma("integrity_check", { simple: true })).toBe("ok");
  });
});
