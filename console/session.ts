import { api, setCsrf } from "./api.js";
import type { Owner } from "./types.js";

/** Who is signed in (null before sign-in); pages ask it whether to offer admin actions. */
let current: Owner | null = null;
/** Whether this owner may open the BullMQ dashboard (an admin of the operator company; Redis mode only). */
let operator = false;

export function isOperator(): boolean {
  return operator;
}

export function owner(): Owner | null {
  return current;
}

export function isAdmin(): boolean {
  return current?.role === "admin";
}

export async function resume(): Promise<Owner | null> {
  try {
    const session = await api.get("/sessions/current");
    current = session.owner;
    operator = session.operator;
    setCsrf(session.csrfToken);
  } catch {
    current = null;
  }
  return current;
}

export async function signIn(email: string, password: string): Promise<void> {
  const session = await api.post("/sessions", { body: { email, password } });
  setCsrf(session.csrfToken);
  await resume();
}

export async function signOut(): Promise<void> {
  try {
    await api.delete("/sessions/current");
  } finally {
    current = null;
    setCsrf(null);
  }
}
