import { backgroundLoopsSuite } from "../helpers/background-loops-suite.js";

/** D-338: the connections fetcher and the alert evaluator through a 30 s outage of PostgreSQL (the matrix's length). */
await backgroundLoopsSuite(30_000);
