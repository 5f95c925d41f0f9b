import type { OwnerAnswer } from "../api.js";

type Suggestion = OwnerAnswer<"post", "/profile-suggestions">;

/** A suggestion on its way from the captures page to the profile editor (D-322): kept for this tab only. */
export interface SuggestedDraft {
  expression: string;
  fields: Suggestion["fields"];
  missing: string[];
  unmapped: string[];
  /** The captured payloads, to become golden samples once the owner checked what each produces. */
  payloads: { name: string; payload: unknown }[];
}

const keyOf = (profileId: string) => `suggested-draft:${profileId}`;

export function storeDraft(profileId: string, draft: SuggestedDraft): void {
  sessionStorage.setItem(keyOf(profileId), JSON.stringify(draft));
}

/** The draft suggested for this profile, once: the editor takes it over. */
export function takeDraft(profileId: string): SuggestedDraft | null {
  const text = sessionStorage.getItem(keyOf(profileId));
  if (text === null) return null;
  sessionStorage.removeItem(keyOf(profileId));
  return JSON.parse(text) as SuggestedDraft;
}
