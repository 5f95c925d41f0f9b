import { faultMatrix } from "./fault-matrix.js";

// Issue #4: the upstream fault matrix against the embedded forwarding driver (the default of startRig).
faultMatrix();
