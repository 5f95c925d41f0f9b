import { z } from "@hono/zod-openapi";
import { email } from "./common.schemas.js";

/** Erasure of a person's data (D-230). */

export const erasureBody = z
  .object({ email: email.optional(), phone: z.string().min(3).max(64).optional() })
  .openapi("ErasureRequest");

export const erasure = z
  .strictObject({
    erased: z.number().int(),
    appointments: z.number().int(),
    mappingFailures: z.number().int(),
    captures: z.number().int(),
    samples: z.number().int(),
    webhookEvents: z.number().int(),
    pendingDeliveries: z.number().int(),
    platformEvents: z.number().int(),
    walTruncated: z.boolean(),
  })
  .openapi("Erasure");
