import { whenSignedOut } from "./api.js";
import { h, mount } from "./dom.js";
import { leavePage } from "./page-life.js";
import { alertSettingsPage } from "./pages/alert-settings.js";
import { alertsPage, openAlertCount } from "./pages/alerts.js";
import { capturesPage } from "./pages/captures.js";
import { connectionsPage } from "./pages/connections.js";
import { credentialsPage } from "./pages/credentials.js";
import { deadLetterPage } from "./pages/dead-letter.js";
import { keysPage } from "./pages/keys.js";
import { overviewPage } from "./pages/overview.js";
import { profileEditorPage } from "./pages/profile-editor.js";
import { profilesPage } from "./pages/profiles.js";
import { signInPage } from "./pages/sign-in.js";
import { submissionPage } from "./pages/submission.js";
import { submissionsPage } from "./pages/submissions.js";
import { webhooksPage } from "./pages/webhooks.js";
import { currentPath, href, navigate, type Page, type Params, route, startRouter } from "./router.js";
import { isOperator, owner, resume, signOut } from "./session.js";

route("/", overviewPage);
route("/profiles", profilesPage);
route("/profiles/:profileId", profileEditorPage);
route("/keys", keysPage);
route("/keys/:keyId/captures", capturesPage);
route("/credentials", credentialsPage);
route("/connections", connectionsPage);
route("/submissions", submissionsPage);
route("/submissions/:submissionId", submissionPage);
route("/dead-letter", deadLetterPage);
route("/webhooks", webhooksPage);
route("/alerts", alertsPage);
route("/alerts/settings", alertSettingsPage);
route("/sign-in", signInPage);

const NAV: [string, string][] = [
  ["/", "Overview"],
  ["/profiles", "Profiles"],
  ["/keys", "Keys"],
  ["/credentials", "Credentials"],
  ["/connections", "Connections"],
  ["/submissions", "Submissions"],
  ["/dead-letter", "Dead letter"],
  ["/webhooks", "Webhooks"],
  ["/alerts", "Alerts"],
];

const app = document.getElementById("app") as HTMLElement;

function layout(): HTMLElement {
  const me = owner();
  const path = currentPath();
  const section = NAV.filter(([p]) => p !== "/" && path.startsWith(p)).at(0)?.[0] ?? (path === "/" ? "/" : "");
  const main = h("main", { id: "main", tabindex: "-1" });
  mount(
    app,
    h(
      "header",
      { class: "topbar" },
      h("a", { class: "brand", href: href("/"), "data-link": "" }, "partner-gateway"),
      h(
        "nav",
        { "aria-label": "Console" },
        h(
          "ul",
          null,
          NAV.map(([p, label]) =>
            h(
              "li",
              null,
              h(
                "a",
                { href: href(p), "data-link": "", "aria-current": p === section ? "page" : null },
                label,
                p === "/alerts" ? alertBadge() : null,
              ),
            ),
          ),
          // bull-board is its own page (Redis mode, the operator's admins): a full page load, not a console route.
          isOperator() ? h("li", null, h("a", { href: "/console/queues" }, "Queues")) : null,
        ),
      ),
      me
        ? h(
            "div",
            { class: "who" },
            h("span", null, me.email, " · ", h("span", { class: "role" }, me.role)),
            h(
              "button",
              {
                type: "button",
                class: "link",
                onclick: async () => {
                  await signOut();
                  navigate("/sign-in");
                },
              },
              "Sign out",
            ),
          )
        : null,
    ),
    main,
  );
  return main;
}

/** The open alerts' count beside "Alerts", filled in once the API answers (none shown at 0 or on a failure). */
function alertBadge(): HTMLElement {
  const count = h("span", { class: "alert-count", "data-alert-count": "", hidden: "" });
  openAlertCount()
    .then((n) => {
      if (n === 0) return;
      count.textContent = String(n);
      count.setAttribute("aria-label", `${n} open`);
      count.hidden = false;
    })
    .catch(() => undefined);
  return count;
}

let generation = 0;

function notFoundPage(view: HTMLElement): void {
  const queues = currentPath().startsWith("/queues");
  mount(
    view,
    h("h1", null, queues ? "Queue dashboard" : "Page not found"),
    h(
      "p",
      null,
      queues
        ? "The BullMQ dashboard runs in Redis mode (REDIS_URL) for admins of the operator company (OPERATOR_COMPANY_ID)."
        : "There is no console page here.",
    ),
    h("a", { href: href("/"), "data-link": "" }, "Back to the overview"),
  );
}

async function render(page: Page, params: Params): Promise<void> {
  const mine = ++generation;
  // What the previous page left running (its live stream) stops before this one renders.
  leavePage();
  if (page !== signInPage && !owner() && !(await resume())) {
    navigate(`/sign-in`, true);
    return;
  }
  if (page === signInPage) mount(app);
  const view = page === signInPage ? app : layout();
  try {
    await page(view, params, new URLSearchParams(location.search));
  } catch (error) {
    if (mine !== generation) return;
    view.append(h("p", { class: "notice notice-error", role: "alert" }, `Could not load this page: ${String(error)}`));
  }
  if (mine !== generation) return;
  // After an in-app navigation, move focus to the new page's heading so keyboard and screen-reader users follow.
  const heading = view.querySelector("h1");
  heading?.setAttribute("tabindex", "-1");
  if (mine > 1 && page !== signInPage) heading?.focus();
}

whenSignedOut(() => {
  if (currentPath() !== "/sign-in") navigate("/sign-in", true);
});
startRouter((page, params) => void render(page, params), notFoundPage);
const initial = currentPath();
navigate(initial === "/sign-in" ? "/" : initial + location.search, true);
