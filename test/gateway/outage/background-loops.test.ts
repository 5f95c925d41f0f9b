import { backgroundLoopsSuite } from "../../helpers/background-loops-suite.js";

/** D-338: the connections fetcher and the alert evaluator through a 2 s outage of PostgreSQL (the short cut). */
await backgroundLoopsSuite(2_000);
