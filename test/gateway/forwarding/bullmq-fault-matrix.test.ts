import { describe } from "vitest";
import { redisForTests } from "../../helpers/redis.js";
import { faultMatrix } from "./fault-matrix.js";

// The same upstream fault matrix against the BullMQ driver (an API process and a worker sharing Redis).
const reachable = await redisForTests();
describe.skipIf(!reachable)("BullMQ driver", () => faultMatrix({ driver: "bullmq" }, "BullMQ driver"));
