import { failureText, OwnerApiError } from "../api.js";
import { field, h, mount, notice } from "../dom.js";
import { navigate } from "../router.js";
import { signIn } from "../session.js";

export function signInPage(view: HTMLElement): void {
  const email = h("input", { type: "email", name: "email", autocomplete: "username", required: true });
  const password = h("input", { type: "password", name: "password", autocomplete: "current-password", required: true });
  const status = h("div", { "aria-live": "polite" });
  const button = h("button", { type: "submit", class: "primary" }, "Sign in");
  const form = h(
    "form",
    {
      class: "card signin",
      onsubmit: async (event: Event) => {
        event.preventDefault();
        button.disabled = true;
        mount(status);
        try {
          await signIn(email.value, password.value);
          navigate("/");
        } catch (error) {
          const message =
            error instanceof OwnerApiError && error.code === "rate_limited"
              ? "Too many attempts. Wait a minute and try again."
              : error instanceof OwnerApiError && error.code === "unauthorized"
                ? "Email or password is incorrect."
                : failureText(error);
          mount(status, notice("error", message));
        } finally {
          button.disabled = false;
        }
      },
    },
    h("h1", null, "Sign in"),
    h("p", { class: "muted" }, "The owner console of partner-gateway."),
    field("Email", email),
    field("Password", password),
    button,
    status,
  );
  mount(view, h("main", { id: "main", class: "signin-page" }, form));
  email.focus();
}
