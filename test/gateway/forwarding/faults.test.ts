import { faultMatrix } from "./fault-matrix.js";

// The upstream fault matrix against the embedded forwarding driver (the default of startRig).
faultMatrix();
