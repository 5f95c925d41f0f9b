/** Paths under /console, matched against patterns like `/profiles/:profileId`. */
export type Params = Record<string, string>;
export type Page = (view: HTMLElement, params: Params, search: URLSearchParams) => Promise<void> | void;

const BASE = "/console";
const routes: { pattern: RegExp; names: string[]; page: Page }[] = [];
let render: (page: Page, params: Params) => void = () => {};
let fallback: Page = () => {};

export function route(path: string, page: Page): void {
  const names: string[] = [];
  const source = path.replace(/:([a-zA-Z]+)/g, (_, name: string) => {
    names.push(name);
    return "([^/]+)";
  });
  routes.push({ pattern: new RegExp(`^${source}/?$`), names, page });
}

export function href(path: string): string {
  return `${BASE}${path === "/" ? "" : path}`;
}

export function currentPath(): string {
  const path = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : "/";
  return path || "/";
}

export function resolve(path = currentPath()): { page: Page; params: Params } | undefined {
  for (const r of routes) {
    const m = r.pattern.exec(path);
    if (m)
      return {
        page: r.page,
        params: Object.fromEntries(r.names.map((n, i) => [n, decodeURIComponent(m[i + 1] ?? "")])),
      };
  }
  return undefined;
}

export function navigate(path: string, replace = false): void {
  const url = href(path);
  if (replace) history.replaceState(null, "", url);
  else history.pushState(null, "", url);
  refresh();
}

export function refresh(): void {
  const found = resolve();
  render(found?.page ?? fallback, found?.params ?? {});
}

/** Starts routing: in-app links (`a[data-link]`) change the history instead of loading a page. */
export function startRouter(renderPage: (page: Page, params: Params) => void, notFound: Page): void {
  render = renderPage;
  fallback = notFound;
  window.addEventListener("popstate", refresh);
  document.addEventListener("click", (event) => {
    const a = (event.target as Element | null)?.closest?.("a[data-link]");
    if (!(a instanceof HTMLAnchorElement) || event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) {
      return;
    }
    event.preventDefault();
    history.pushState(null, "", a.pathname + a.search);
    refresh();
  });
}

export function link(path: string, text: string, props: Record<string, string> = {}): HTMLAnchorElement {
  const a = document.createElement("a");
  a.href = href(path);
  a.dataset.link = "";
  for (const [k, v] of Object.entries(props)) a.setAttribute(k, v);
  a.textContent = text;
  return a;
}
