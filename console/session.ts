import { api, type Owner, setCsrf } from "./api.js";

/** Who is signed in (null before sign-in); pages ask it whether to offer admin actions. */
let current: Owner | null = null;

export function owner(): Owner | null {
  return current;
}

export function isAdmin(): boolean {
  return current?.role === "admin";
}

export async function resume(): Promise<Owner | null> {
  try {
    const session = await api<{ owner: Owner; csrfToken: string | null }>("GET", "/sessions/current");
    current = session.owner;
    setCsrf(session.csrfToken);
  } catch {
    current = null;
  }
  return current;
}

export async function signIn(email: string, password: string): Promise<void> {
  const session = await api<{ csrfToken: string }>("POST", "/sessions", { email, password });
  setCsrf(session.csrfToken);
  await resume();
}

export async function signOut(): Promise<void> {
  try {
    await api("DELETE", "/sessions/current");
  } finally {
    current = null;
    setCsrf(null);
  }
}
