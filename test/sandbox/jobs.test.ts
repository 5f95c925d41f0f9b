import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Clock } from "../../src/sandbox/clock.js";
import { newSandbox, send } from "./support.js";

let sandbox: ReturnType<typeof newSandbox>;
let now = Date.parse("2026-09-01T12:00:00.000Z");
const clock: Clock = { now: () => now };
beforeEach(() => {
  now = Date.parse("2026-09-01T12:00:00.000Z");
  sandbox = newSandbox({ clock });
});
afterEach(() => sandbox.close());

const note = (jobId: string, text: string) =>
  send(sandbox.app, "POST", `/api/inbound/jobs/${jobId}/status`, {
    key: sandbox.key("sunrise-crew-a"),
    json: { note: text },
  });

describe("§4.2 contractor note: response body and timestamps (rule 4, not shown: our choice)", () => {
  it("answers 201 with the note as recorded and the job as it now reads", async () => {
    const reply = await note("prj_sunrise_1002", "Panels delivered");
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual({
      note: { id: expect.stringMatching(/^note_/), note: "Panels delivered", createdAt: "2026-09-01T12:00:00.000Z" },
      job: {
        id: "prj_sunrise_1002",
        workOrderNo: "WO-SR-1002",
        address: "207 Mesquite Avenue",
        city: "Tempe",
        state: "AZ",
        zip: "85281",
        stage: "SCHEDULED",
        installerNote: "[2026-09-01T12:00:00.000Z] Panels delivered",
        lastUpdated: "2026-09-01T12:00:00.000Z",
      },
    });
  });

  it("appends each note on its own line after what the job already said", async () => {
    await note("prj_sunrise_1001", "Arrived");
    now += 90_000;
    const reply = await note("prj_sunrise_1001", "Done for today");
    expect((reply.body.job as { installerNote: string }).installerNote).toBe(
      [
        "[2026-08-01T15:00:00.000Z] Site survey done; panel upgrade needed.",
        "[2026-09-01T12:00:00.000Z] Arrived",
        "[2026-09-01T12:01:30.000Z] Done for today",
      ].join("\n"),
    );
  });

  it("another company's contractor cannot reach the job either", async () => {
    const reply = await send(sandbox.app, "POST", "/api/inbound/jobs/prj_sunrise_1001/status", {
      key: sandbox.key("brightline-crew"),
      json: { note: "x" },
    });
    expect(reply).toMatchObject({ status: 404, body: { error: "job not found" } });
  });

  it("a sold project assigned to no contractor is outside every record", async () => {
    expect((await note("prj_sunrise_0100", "x")).status).toBe(404);
  });
});
