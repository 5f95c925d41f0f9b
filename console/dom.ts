/** A tiny element builder: text children are always text nodes, so nothing from the API is parsed as HTML. */
export type Child = Node | string | number | null | undefined | false | Child[];
type PropValue = string | number | boolean | null | undefined | ((event: Event) => void);
export type Props = Record<string, PropValue>;

function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

function setProps(el: Element, props: Props | null | undefined): void {
  for (const [name, value] of Object.entries(props ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === "function") el.addEventListener(name.slice(2).toLowerCase(), value);
    else if (name === "value" && "value" in el) (el as HTMLInputElement).value = String(value);
    else el.setAttribute(name === "className" ? "class" : name, value === true ? "" : String(value));
  }
}

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props?: Props | null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  setProps(el, props);
  append(el, children);
  return el;
}

const SVG = "http://www.w3.org/2000/svg";

export function svg(tag: string, props?: Props | null, ...children: Child[]): SVGElement {
  const el = document.createElementNS(SVG, tag);
  setProps(el, props);
  append(el, children);
  return el as SVGElement;
}

/** Replaces an element's children. */
export function mount(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

export function json(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? "undefined";
}

export function time(iso: string | null | undefined): string {
  if (!iso) return "—";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(undefined, { dateStyle: "short", timeStyle: "medium" });
}

/** A form control with its label (every control is labelled). */
export function field(label: string, control: HTMLElement, hint?: string): HTMLElement {
  const id = control.id || `f-${Math.random().toString(36).slice(2, 9)}`;
  control.id = id;
  return h("div", { class: "field" }, h("label", { for: id }, label), control, hint ? h("small", null, hint) : null);
}

export function select(name: string, options: [string, string][], selected?: string): HTMLSelectElement {
  const el = h("select", { name });
  for (const [value, label] of options) {
    const option = h("option", { value }, label);
    if (value === selected) option.selected = true;
    el.append(option);
  }
  return el;
}

/** A status pill with a word, never colour alone. */
export function badge(status: string): HTMLElement {
  return h("span", { class: `badge badge-${status.replace(/[^a-z_]/g, "")}` }, status);
}

/** Polite live region messages (saved, failed, copied). */
export function notice(kind: "ok" | "error" | "info", text: string): HTMLElement {
  return h("p", { class: `notice notice-${kind}`, role: kind === "error" ? "alert" : "status" }, text);
}
